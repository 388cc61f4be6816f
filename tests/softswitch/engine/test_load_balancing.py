"""Load balancing in the event core (engine/kernel.py ``_balanced_member``) and the receivers'
reordering counts (engine/hosts.py ``_count_reordering``).

The harness is one switch whose route to the receiver is an equal-cost group of two ports, each
with a host: a packet of the flow reaches the receiving flow whichever member it leaves by, so
the two members are two paths, and their wire delays can differ."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from qosforge.errors import QosforgeError
from qosforge.softswitch.engine.build import HOST, Topology, flowlet_tables
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.metrics import SimulationResult, reordering_totals
from qosforge.softswitch.simulation import simulate_fabric
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

PKT = 1500
RATE_BPS = 10e9
#: Ports 0 and 1: the two members (paths) towards the receiver on port 2; senders on 3, 4, 5.
MEMBERS = (0, 1)
RECEIVER = 2


def _switch() -> tuple[object, RunSpec]:
    config, _, run = dumbbell(
        DumbbellSpec(
            flows=5,
            transport="dctcp",
            bandwidth_bps=RATE_BPS,
            rtt_s=20e-6,
            buffer_bytes=400 * PKT,
            ecn_threshold_bytes=400 * PKT,
        )
    )
    return config, run


def _topology(n_ports: int) -> Topology:
    """Every host reached by its own port, except the receiver: by the group (0, 1)."""
    last_hop = [(d,) for d in range(n_ports)]
    last_hop[RECEIVER] = MEMBERS
    return Topology.from_host_routes((n_ports,), (HOST,) * n_ports, (tuple(last_hop),))


def _run(
    flows: tuple[FlowSpec, ...],
    *,
    duration_s: float = 2e-3,
    delays_s: tuple[float, ...] | None = None,
    seed: int = 1,
) -> SimulationResult:
    config, run = _switch()
    n_ports = len(config.ports)  # type: ignore[attr-defined]
    run = replace(
        run,
        duration_s=duration_s,
        warmup_s=0.0,
        seed=seed,
        monitors=(),
        link_delays_s=delays_s or (1e-6,) * n_ports,
    )
    return simulate_fabric((config,), _topology(n_ports), flows, run)  # type: ignore[arg-type]


def _cbr(
    src: int, dst: int, gap_s: float, mode: str, flowlet_gap_s: float = 0.0, size: int = -1
) -> FlowSpec:
    return FlowSpec(
        kind="cbr",
        src_port=src,
        dst_port=dst,
        dscp=0,
        packet_bytes=PKT,
        rate_pps=1.0 / gap_s,
        size_packets=size,
        load_balancing=mode,
        flowlet_gap_s=flowlet_gap_s,
    )  # type: ignore[arg-type]


def _member_packets(result: SimulationResult) -> tuple[int, int]:
    return int(result.enqueued[MEMBERS[0]].sum()), int(result.enqueued[MEMBERS[1]].sum())


def test_ecmp_keeps_a_flow_on_one_member() -> None:
    result = _run((_cbr(3, RECEIVER, 10e-6, "ecmp"),))
    counts = _member_packets(result)
    assert min(counts) == 0 and max(counts) > 150


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spraying_uses_every_member_about_evenly(seed: int) -> None:
    result = _run((_cbr(3, RECEIVER, 2e-6, "spray"),), seed=seed)
    first, second = _member_packets(result)
    total = first + second
    assert total > 900
    # Binomial(n, 1/2): within 4 standard deviations of n/2.
    assert abs(first - total / 2) < 4 * np.sqrt(total / 4)


def test_a_flowlet_keeps_its_member_while_packets_come_closer_than_the_gap() -> None:
    # A packet every 10 us, gap 50 us: one flowlet for the whole run, one member.
    result = _run((_cbr(3, RECEIVER, 10e-6, "flowlet", flowlet_gap_s=50e-6),))
    counts = _member_packets(result)
    assert min(counts) == 0 and max(counts) > 150


def test_a_pause_longer_than_the_gap_starts_a_new_flowlet_which_may_take_another_member() -> None:
    # A packet every 10 us, gap 5 us: every packet starts a flowlet, chosen at random.
    result = _run((_cbr(3, RECEIVER, 10e-6, "flowlet", flowlet_gap_s=5e-6),))
    first, second = _member_packets(result)
    assert min(first, second) > 0.35 * (first + second)


def test_adaptive_routing_picks_the_member_with_the_shorter_queue() -> None:
    # Two senders at 60 % each overload member 0 (120 % of its rate): its queue grows. The
    # balanced flow must then leave by member 1 almost always.
    busy = (
        _cbr(4, MEMBERS[0], PKT * 8 / (0.6 * RATE_BPS), "ecmp"),
        _cbr(5, MEMBERS[0], PKT * 8 / (0.6 * RATE_BPS), "ecmp"),
    )
    balanced = _cbr(3, RECEIVER, 5e-6, "adaptive")
    result = _run((*busy, balanced))
    # Member 1 carries the balanced flow's packets alone.
    second = _member_packets(result)[1]
    sent = 2e-3 / 5e-6
    assert second > 0.95 * sent
    # ECMP, by contrast, leaves the flow where its hash puts it, whatever the queues: some
    # seed's hash puts it on the full member.
    on_full = [
        _member_packets(_run((*busy, replace(balanced, load_balancing="ecmp")), seed=seed))[1]
        < 0.05 * sent
        for seed in range(1, 9)
    ]
    assert any(on_full)


def test_adaptive_routing_with_a_gap_chooses_once_per_flowlet() -> None:
    result = _run((_cbr(3, RECEIVER, 10e-6, "adaptive", flowlet_gap_s=50e-6),))
    counts = _member_packets(result)
    assert min(counts) == 0


def _window(mode: str, kind: str = "dctcp") -> FlowSpec:
    return FlowSpec(
        kind=kind,
        src_port=3,
        dst_port=RECEIVER,
        dscp=0,
        packet_bytes=PKT,
        size_packets=1000,
        ack_delay_s=5e-6,  # type: ignore[arg-type]
        load_balancing=mode,
    )  # type: ignore[arg-type]


#: Member 0 a 1 us wire, member 1 a 30 us one: a sprayed flow's packets overtake each other.
UNEQUAL = (1e-6, 30e-6, 1e-6, 1e-6, 1e-6, 1e-6)


@pytest.mark.parametrize("kind", ["dctcp", "dcqcn"])
def test_ecmp_delivers_in_order(kind: str) -> None:
    result = _run((_window("ecmp", kind),), delays_s=UNEQUAL, duration_s=5e-3)
    totals = reordering_totals(result)
    assert totals == {
        "ooo_packets": 0,
        "retransmissions": 0,
        "spurious_retransmissions": 0,
        "flows_with_ooo": 0,
    }
    assert result.flow_completion.count == 1


def test_spraying_over_paths_of_different_delay_is_counted_out_of_order() -> None:
    in_order = _run((_window("ecmp"),), delays_s=UNEQUAL, duration_s=5e-3)
    result = _run((_window("spray"),), delays_s=UNEQUAL, duration_s=5e-3)
    totals = reordering_totals(result)
    # Packets on the 29 us longer path arrive after later ones.
    assert totals["ooo_packets"] > 50
    assert totals["flows_with_ooo"] == 1
    assert (
        result.flow_reordering is not None
        and int(result.flow_reordering[0, 0]) == totals["ooo_packets"]
    )
    # Nothing is dropped on this idle switch: every retransmission was spurious, and each one
    # that has arrived by the end delivered a segment twice.
    assert result.counters["drops"] == 0 and totals["retransmissions"] > 0
    assert (
        0.8 * totals["retransmissions"]
        <= totals["spurious_retransmissions"]
        <= totals["retransmissions"]
    )
    # Three duplicate ACKs from reordering are taken for loss: the window is cut for nothing.
    assert result.counters["fast_retransmits"] > 0
    assert result.goodput_bps < in_order.goodput_bps


def test_a_go_back_n_receiver_pays_for_reordering_with_retransmissions() -> None:
    in_order = _run((_window("ecmp", kind="dcqcn"),), delays_s=UNEQUAL, duration_s=5e-3)
    sprayed = _run((_window("spray", kind="dcqcn"),), delays_s=UNEQUAL, duration_s=5e-3)
    assert sprayed.counters["drops"] == 0
    # The receiver discards every packet behind a gap and NACKs: the sender resends from there,
    # more than the flow's own 1,000 packets here.
    assert reordering_totals(sprayed)["retransmissions"] > 1000
    assert sprayed.goodput_bps < 0.75 * in_order.goodput_bps


def test_flowlet_tables_exist_only_for_flows_with_flowlets() -> None:
    assert flowlet_tables((_cbr(3, RECEIVER, 1e-5, "spray"),), 4)[0].shape == (0, 0)
    times, members = flowlet_tables((_cbr(3, RECEIVER, 1e-5, "flowlet", 5e-5),), 4)
    assert times.shape == members.shape == (4, 64) and np.all(np.isneginf(times))


@pytest.mark.parametrize(
    ("mode", "gap_s", "message"),
    [
        ("flowlet", 0.0, "needs an inactivity gap"),
        ("spray", 5e-5, "has no flowlets"),
        ("adaptive", -1.0, "is not a duration"),
    ],
)
def test_a_flowlet_gap_that_does_not_fit_the_mode_is_refused(
    mode: str, gap_s: float, message: str
) -> None:
    with pytest.raises(QosforgeError, match=message):
        _run((_cbr(3, RECEIVER, 1e-5, mode, flowlet_gap_s=gap_s),))
