"""Today's prediction against the counters: rates from two snapshots (observed) and from one
snapshot over a known window (predicted) read alike, and a departure needs both the tolerance
and the floor to be passed."""

from __future__ import annotations

import pytest

from qosforge.api.tuning.prediction import compare_prediction
from qosforge.backends.counters import Counter, CounterKey, Sample
from qosforge.lint.watch.expectations import ClassExpectation, SwitchExpectation
from qosforge.lint.watch.observation import Observation

TCP = ClassExpectation("tcp", "dctcp", 1, None, False, (0,), None, None)
RDMA = ClassExpectation("rdma", "dcqcn", 3, 3, True, (26,), None, None)
LEAF = SwitchExpectation("leaf1", (TCP, RDMA), {}, {}, None, "report.json")
SPEEDS = {("leaf1", "Ethernet0"): 100e9, ("leaf1", "Ethernet4"): 100e9}


def _samples(port: str, queue: int, at_ns: int, values: dict[Counter, int]) -> list[Sample]:
    return [
        Sample(counter, CounterKey(port, 3 if counter is Counter.PFC_RX_PAUSE_US else queue),
               value, at_ns, "")
        for counter, value in values.items()
    ]


def _observed(tcp_marks: int, rdma_pause_us: int) -> Observation:
    """Two snapshots 2 s apart: tcp on Ethernet0 at 10 GB/s, rdma on Ethernet4 at 2 GB/s."""
    observation = Observation("leaf1")
    for at_s, scale in ((10, 0), (12, 1)):
        observation.add(_samples("Ethernet0", 1, at_s * 10**9, {
            Counter.QUEUE_TRANSMIT_BYTES: scale * 20_000_000_000,
            Counter.QUEUE_TRANSMIT_PACKETS: scale * 13_333_333,
            Counter.QUEUE_ECN_MARKED_PACKETS: scale * tcp_marks,
            Counter.QUEUE_DROPPED_PACKETS: 0}))
        observation.add(_samples("Ethernet4", 3, at_s * 10**9, {
            Counter.QUEUE_TRANSMIT_BYTES: scale * 4_000_000_000,
            Counter.QUEUE_TRANSMIT_PACKETS: scale * 3_906_250,
            Counter.QUEUE_ECN_MARKED_PACKETS: 0,
            Counter.QUEUE_DROPPED_PACKETS: 0,
            Counter.PFC_RX_PAUSE_US: scale * rdma_pause_us}))
    return observation


def _predicted(window_s: float) -> Observation:
    """One snapshot at the end of a simulated window: the same rates as _observed(1e6, 0)."""
    observation = Observation("leaf1", once=True)
    observation.add(_samples("Ethernet0", 1, 0, {
        Counter.QUEUE_TRANSMIT_BYTES: round(10e9 * window_s),
        Counter.QUEUE_TRANSMIT_PACKETS: round(6_666_666 * window_s),
        Counter.QUEUE_ECN_MARKED_PACKETS: round(500_000 * window_s),
        Counter.QUEUE_DROPPED_PACKETS: 0}))
    observation.add(_samples("Ethernet4", 3, 0, {
        Counter.QUEUE_TRANSMIT_BYTES: round(2e9 * window_s),
        Counter.QUEUE_TRANSMIT_PACKETS: round(1_953_125 * window_s),
        Counter.QUEUE_ECN_MARKED_PACKETS: 0,
        Counter.QUEUE_DROPPED_PACKETS: 0,
        Counter.PFC_RX_PAUSE_US: 0}))
    return observation


def test_agreeing_rates_are_no_departure() -> None:
    check = compare_prediction({"leaf1": _observed(1_000_000, 0)}, {"leaf1": _predicted(2e-3)},
                               2e-3, {"leaf1": LEAF}, SPEEDS)
    assert check.departures == []
    (o_tcp, p_tcp), (o_rdma, p_rdma) = check.compared
    assert o_tcp.bytes_per_s == pytest.approx(10e9) and p_tcp.bytes_per_s == pytest.approx(10e9)
    assert o_tcp.marks_per_s == pytest.approx(500_000) and p_tcp.marks_per_s == pytest.approx(5e5)
    assert o_rdma.paused_share == 0.0 and p_rdma.paused_share == 0.0
    assert o_tcp.paused_share is None  # lossy: no PFC priority to read


def test_marks_and_pause_beyond_the_tolerance_depart() -> None:
    # Observed: 4x the predicted marks; the rdma priority paused 30 % of the 2 s window.
    check = compare_prediction({"leaf1": _observed(4_000_000, 600_000)},
                               {"leaf1": _predicted(2e-3)}, 2e-3, {"leaf1": LEAF}, SPEEDS)
    assert [(d.port, d.metric) for d in check.departures] == [
        ("Ethernet0", "marks_per_s"), ("Ethernet4", "paused_share")]
    marks = check.departures[0]
    assert marks.observed == pytest.approx(2e6) and marks.relative == pytest.approx(0.75)
    assert "leaf1|Ethernet0.queue 1 (tcp) marks_per_s: observed 2e+06 /s" in marks.line()


def test_below_the_floor_nothing_departs() -> None:
    # 0.8 % of the time paused against none predicted: 100 % apart, but under the 1 % floor.
    check = compare_prediction({"leaf1": _observed(1_000_000, 16_000)},
                               {"leaf1": _predicted(2e-3)}, 2e-3, {"leaf1": LEAF}, SPEEDS)
    assert check.departures == []
    check = compare_prediction({"leaf1": _observed(1_000_000, 16_000)},
                               {"leaf1": _predicted(2e-3)}, 2e-3, {"leaf1": LEAF}, SPEEDS,
                               tolerance=2.0)
    assert check.departures == []
