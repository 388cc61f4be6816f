"""Each watch rule on synthetic snapshots: the finding lands at the right switch, port and class
with the observed and the predicted value (and the prediction's provenance); a healthy snapshot
gives none."""

from __future__ import annotations

import pytest

from qosforge.backends.counters import Counter, CounterKey, Sample, paths_of
from qosforge.lint.findings import Finding
from qosforge.lint.watch.expectations import (
    ClassExpectation,
    HeadroomExpectation,
    MarkingCurve,
    Predicted,
    SwitchExpectation,
    WatchdogExpectation,
)
from qosforge.lint.watch.observation import Observation
from qosforge.lint.watch.rules import MAX_FRAME_BYTES, Thresholds, evaluate, expected_marks


def _q(value: float, quantity: str, unit: str = "B") -> Predicted:
    return Predicted(value, unit, quantity, f"{quantity} formula", f"{quantity} source")


DCTCP_K = 64_500.0
KMIN, KMAX = 12_500.0, 500_000.0
TLT_K = 400_000.0
XOFF = 47_104.0

SWITCH = SwitchExpectation(
    name="leaf1",
    classes=(
        ClassExpectation("web", "dctcp", 1, None, False, (0, 10),
                         MarkingCurve("green", _q(DCTCP_K, "threshold_bytes"), _q(DCTCP_K, "threshold_bytes"), _q(100.0, "probability_percent", "%")), None),
        ClassExpectation("rdma", "dcqcn", 3, 3, True, (26,),
                         MarkingCurve("green", _q(KMIN, "kmin_bytes"), _q(KMAX, "kmax_bytes"), _q(1.0, "pmax_percent", "%")), None),
        ClassExpectation("bulk", "tcp", 4, None, False, (8,), None, _q(TLT_K, "threshold_bytes")),
    ),
    control_queues={6: "cnp"},
    headroom={"Ethernet0": HeadroomExpectation("pg_lossless_100000_3m_profile", _q(XOFF, "xoff_bytes"), _q(66_560.0, "size_bytes")),
              "Ethernet4": HeadroomExpectation("pg_lossless_100000_3m_profile", _q(XOFF, "xoff_bytes"), _q(66_560.0, "size_bytes"))},
    watchdog=WatchdogExpectation(200, 200, "drop", "PFC_WD source"),
    report="out/report.json",
)

EVERYTHING = (Counter.QUEUE_TRANSMIT_PACKETS, Counter.QUEUE_DROPPED_PACKETS, Counter.QUEUE_WATERMARK_BYTES,
              Counter.QUEUE_ECN_MARKED_PACKETS, Counter.PG_HEADROOM_WATERMARK_BYTES, Counter.PG_DROPPED_PACKETS,
              Counter.PFC_RX_PAUSE_US, Counter.PFCWD_DEADLOCK_DETECTED, Counter.PFCWD_STATUS)


def _healthy(t_ns: int = 0, pause_us: int = 0) -> list[Sample]:
    """Both ports busy and within the design: queues below K or marking (the web queue above K
    marks 40 packets per 100 ms), headroom below xoff."""
    out = []
    for port in ("Ethernet0", "Ethernet4"):
        for counter, index, value in (
            (Counter.QUEUE_TRANSMIT_PACKETS, 1, 1000), (Counter.QUEUE_TRANSMIT_PACKETS, 3, 1000),
            (Counter.QUEUE_TRANSMIT_PACKETS, 4, 1000), (Counter.QUEUE_TRANSMIT_PACKETS, 6, 10), (Counter.QUEUE_TRANSMIT_PACKETS, 0, 0),
            (Counter.QUEUE_DROPPED_PACKETS, 1, 5), (Counter.QUEUE_DROPPED_PACKETS, 3, 0),
            (Counter.QUEUE_WATERMARK_BYTES, 1, 200_000), (Counter.QUEUE_ECN_MARKED_PACKETS, 1, 40 + 40 * t_ns // 100_000_000),
            (Counter.QUEUE_WATERMARK_BYTES, 3, 30_000), (Counter.QUEUE_ECN_MARKED_PACKETS, 3, 0),
            (Counter.QUEUE_WATERMARK_BYTES, 4, int(TLT_K)), (Counter.QUEUE_ECN_MARKED_PACKETS, 4, 0),
            (Counter.PG_HEADROOM_WATERMARK_BYTES, 3, 30_000), (Counter.PG_DROPPED_PACKETS, 3, 0),
            (Counter.PFC_RX_PAUSE_US, 3, pause_us), (Counter.PFCWD_DEADLOCK_DETECTED, 3, 0),
        ):
            out.append(Sample(counter, CounterKey(port, index), value, t_ns, f"test/{counter.value}"))
        out.append(Sample(Counter.PFCWD_STATUS, CounterKey(port, 3), "operational", t_ns, "test/status"))
    return out


def _replace(samples: list[Sample], counter: Counter, key: CounterKey, value: int | str) -> list[Sample]:
    return [Sample(s.counter, s.key, value, s.timestamp_ns, s.path) if (s.counter, s.key) == (counter, key) else s for s in samples]


DEFAULTS = Thresholds()


def _run(samples: list[Sample], once: bool = True, thresholds: Thresholds = DEFAULTS) -> list[Finding]:
    observation = Observation("leaf1", once=once)
    observation.add(samples)
    return evaluate(SWITCH, observation, thresholds)


def _only(findings: list[Finding], rule: str) -> Finding:
    matching = [f for f in findings if f.rule == rule]
    assert len(matching) == 1, [(f.rule, f.where, f.message) for f in findings]
    assert all(f.rule == rule for f in findings), [(f.rule, f.where) for f in findings]
    return matching[0]


def test_healthy_snapshot_gives_nothing() -> None:
    assert _run(_healthy()) == []


def test_lossless_pg_drop() -> None:
    finding = _only(_run(_replace(_healthy(), Counter.PG_DROPPED_PACKETS, CounterKey("Ethernet4", 3), 17)), "watch-lossless-pg-drop")
    assert (finding.table, finding.key, finding.field) == ("leaf1", "Ethernet4", "pg 3 (rdma)")
    assert finding.values["observed"] == 17 and finding.values["predicted"] == 0
    assert "xoff 47,104 B" in str(finding.values["predicted_source"])
    assert finding.values["class"] == "rdma"


def test_lossless_queue_drop_unless_the_watchdog_dropped() -> None:
    dropped = _replace(_healthy(), Counter.QUEUE_DROPPED_PACKETS, CounterKey("Ethernet0", 3), 9)
    finding = _only(_run(dropped), "watch-lossless-queue-drop")
    assert (finding.key, finding.field, finding.values["observed"]) == ("Ethernet0", "queue 3 (rdma)", 9)
    stormed = _replace(dropped, Counter.PFCWD_DEADLOCK_DETECTED, CounterKey("Ethernet0", 3), 1)
    assert [f.rule for f in _run(stormed)] == ["watch-pfcwd-triggered"]


def test_headroom_above_xoff() -> None:
    finding = _only(_run(_replace(_healthy(), Counter.PG_HEADROOM_WATERMARK_BYTES, CounterKey("Ethernet0", 3), 50_000)), "watch-headroom-exceeded")
    assert (finding.key, finding.field) == ("Ethernet0", "pg 3 (rdma)")
    assert finding.values["observed"] == 50_000 and finding.values["predicted"] == XOFF
    assert finding.values["predicted_quantity"] == "xoff_bytes" and finding.values["predicted_source"] == "xoff_bytes source"
    assert _run(_replace(_healthy(), Counter.PG_HEADROOM_WATERMARK_BYTES, CounterKey("Ethernet0", 3), int(XOFF))) == []


def test_watchdog_trigger_by_status_alone() -> None:
    finding = _only(_run(_replace(_healthy(), Counter.PFCWD_STATUS, CounterKey("Ethernet4", 3), "stormed")), "watch-pfcwd-triggered")
    assert (finding.key, finding.field) == ("Ethernet4", "queue 3 (rdma)")


def test_ecn_off_step_marking() -> None:
    samples = _replace(_healthy(), Counter.QUEUE_ECN_MARKED_PACKETS, CounterKey("Ethernet4", 1), 0)
    finding = _only(_run(samples), "watch-ecn-off")
    assert (finding.key, finding.field) == ("Ethernet4", "queue 1 (web)")
    assert finding.values["observed"] == 200_000 and finding.values["predicted"] == DCTCP_K
    # a watermark within one jumbo frame of K may not have admitted a packet above K
    near = _replace(samples, Counter.QUEUE_WATERMARK_BYTES, CounterKey("Ethernet4", 1), int(DCTCP_K) + MAX_FRAME_BYTES - 1)
    assert _run(near) == []


def test_ecn_off_red_needs_enough_expected_marks() -> None:
    # rdma's RED curve: 1 % at K_max = 500 kB. 30 kB above K_min expects ~0.002 marks: no finding.
    assert _run(_healthy()) == []
    high = _replace(_healthy(), Counter.QUEUE_WATERMARK_BYTES, CounterKey("Ethernet0", 3), 700_000)
    finding = _only(_run(high), "watch-ecn-off")
    assert finding.field == "queue 3 (rdma)"
    assert float(finding.values["expected_marks_at_least"]) >= 13.8


def test_expected_marks_physics() -> None:
    # step: one mark per jumbo frame above K
    assert expected_marks(DCTCP_K + 3 * MAX_FRAME_BYTES, DCTCP_K, DCTCP_K, 100) == 3
    # RED below K_max: sum of P_max (q - K_min)/(K_max - K_min) at each frame
    q = [KMIN + i * MAX_FRAME_BYTES for i in (1, 2)]
    assert expected_marks(KMIN + 2 * MAX_FRAME_BYTES, KMIN, KMAX, 1.0) == pytest.approx(sum(0.01 * (x - KMIN) / (KMAX - KMIN) for x in q))
    assert expected_marks(KMIN, KMIN, KMAX, 1.0) == 0


def test_tlt_threshold() -> None:
    high = _replace(_healthy(), Counter.QUEUE_WATERMARK_BYTES, CounterKey("Ethernet0", 4), int(TLT_K) + 60_000)
    finding = _only(_run(high), "watch-tlt-threshold")
    assert (finding.key, finding.field, finding.values["predicted"]) == ("Ethernet0", "queue 4 (bulk)", TLT_K)
    assert "40 important packets" in finding.message


def test_unplanned_queue() -> None:
    finding = _only(_run(_replace(_healthy(), Counter.QUEUE_TRANSMIT_PACKETS, CounterKey("Ethernet4", 0), 321)), "watch-unplanned-queue")
    assert (finding.key, finding.field, finding.values["observed"], finding.values["predicted"]) == ("Ethernet4", "queue 0", 321, 0)
    # the control class's queue (CNP) is planned
    assert _run(_replace(_healthy(), Counter.QUEUE_TRANSMIT_PACKETS, CounterKey("Ethernet4", 6), 50)) == []


def _stream(pauses_us: list[int], step_ms: int = 100) -> list[Sample]:
    samples: list[Sample] = []
    for i, pause in enumerate(pauses_us):
        samples += [s for s in _healthy(i * step_ms * 1_000_000) if not (s.counter is Counter.PFC_RX_PAUSE_US and s.key.port == "Ethernet0")]
        samples.append(Sample(Counter.PFC_RX_PAUSE_US, CounterKey("Ethernet0", 3), pause, i * step_ms * 1_000_000, "test/pause"))
    return samples


def test_pfc_storm_and_pause_in_a_stream() -> None:
    # paused throughout 300 ms (100 ms per 100 ms sample): a storm longer than the 200 ms detection time
    findings = _run(_stream([0, 100_000, 200_000, 300_000]), once=False)
    storm = next(f for f in findings if f.rule == "watch-pfc-storm")
    assert (storm.key, storm.field, storm.values["predicted"]) == ("Ethernet0", "priority 3 (rdma)", 200.0)
    assert storm.values["observed"] == pytest.approx(300.0)
    pause = next(f for f in findings if f.rule == "watch-pfc-pause")
    assert pause.values["observed"] == pytest.approx(100.0)
    assert {f.rule for f in findings} == {"watch-pfc-storm", "watch-pfc-pause"}


def test_repeated_device_time_does_not_break_a_storm() -> None:
    # a target slower than the client publishes the same device time twice: the run goes on
    samples = _stream([0, 100_000, 200_000, 300_000])
    repeat = [Sample(s.counter, s.key, s.value, s.timestamp_ns, s.path) for s in samples if s.timestamp_ns == 200_000_000]
    storms = [f for f in _run(samples[: len(samples) * 3 // 4] + repeat + samples[len(samples) * 3 // 4:], once=False) if f.rule == "watch-pfc-storm"]
    assert len(storms) == 1 and storms[0].values["observed"] == pytest.approx(300.0)


def test_a_stale_watermark_is_no_evidence_in_a_stream() -> None:
    # a watermark that never rises during the stream (a peak from before it) with marks not growing
    samples = [s for t in (0, 10**8, 2 * 10**8) for s in _replace(_healthy(t), Counter.QUEUE_ECN_MARKED_PACKETS, CounterKey("Ethernet0", 1), 40)]
    assert [f for f in _run(samples, once=False) if f.rule == "watch-ecn-off"] == []
    rising = samples + _replace(_replace(_healthy(3 * 10**8), Counter.QUEUE_ECN_MARKED_PACKETS, CounterKey("Ethernet0", 1), 40),
                                Counter.QUEUE_WATERMARK_BYTES, CounterKey("Ethernet0", 1), 250_000)
    assert [f.key for f in _run(rising, once=False) if f.rule == "watch-ecn-off"] == ["Ethernet0"]


def test_intermittent_pause_is_no_storm() -> None:
    # 40 ms of every 100 ms: 40 % paused, under the 50 % default, and never paused throughout
    assert _run(_stream([0, 40_000, 80_000, 120_000, 160_000]), once=False) == []
    findings = _run(_stream([0, 40_000, 80_000, 120_000, 160_000]), once=False, thresholds=Thresholds(max_pause_fraction=0.3))
    assert [f.rule for f in findings] == ["watch-pfc-pause"]


def test_a_stream_judges_changes_not_history() -> None:
    # PG drops that happened before the watch started do not count in a stream
    before = _replace(_healthy(0), Counter.PG_DROPPED_PACKETS, CounterKey("Ethernet0", 3), 50)
    after = _replace(_healthy(10**9), Counter.PG_DROPPED_PACKETS, CounterKey("Ethernet0", 3), 50)
    assert _run(before + after, once=False) == []
    grown = _replace(_healthy(10**9), Counter.PG_DROPPED_PACKETS, CounterKey("Ethernet0", 3), 52)
    assert _only(_run(before + grown, once=False), "watch-lossless-pg-drop").values["observed"] == 2


def test_unavailable_counter_is_reported_once_and_its_rules_do_not_run() -> None:
    without_pg = [s for s in _healthy() if s.counter not in (Counter.PG_DROPPED_PACKETS,)]
    findings = _run(_replace(without_pg, Counter.QUEUE_TRANSMIT_PACKETS, CounterKey("Ethernet0", 0), 0))
    finding = _only(findings, "watch-counter-unavailable")
    assert finding.field == "pg-dropped-packets" and "watch-lossless-pg-drop" in finding.message
    # ECN-off needs the marks too: without them it does not run and says so
    without_marks = [s for s in _healthy() if s.counter is not Counter.QUEUE_ECN_MARKED_PACKETS]
    [missing] = [f for f in _run(without_marks) if f.rule == "watch-counter-unavailable"]
    assert missing.field == "queue-ecn-marked-packets"


@pytest.mark.parametrize("counter", EVERYTHING)
def test_every_rule_counter_has_a_family_path(counter: Counter) -> None:
    from qosforge.backends.openconfig import telemetry as oc
    from qosforge.backends.sonic import telemetry as sonic

    assert paths_of(sonic.PATHS, counter) or paths_of(oc.PATHS, counter)
