"""The deadlock scenario (softswitch/helper/fabric_deadlock.py): failed links, bounced routes and
a PFC deadlock the software switch reaches exactly where the buffer dependency graph says."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from qosforge.compiler.deadlock.check import fabric_cycles
from qosforge.compiler.deadlock.links import FabricLinks, fabric_links
from qosforge.compiler.deadlock.routes import next_hops, route_block
from qosforge.compiler.loader import load_intent
from qosforge.compiler.topology import resolve_topology
from qosforge.errors import QosforgeError
from qosforge.softswitch.helper.fabric import (
    Fabric,
    compile_fabric,
    failed_cable,
    with_failed_links,
)
from qosforge.softswitch.helper.fabric_deadlock import (
    DeadlockSetup,
    deadlock_run,
    deadlock_summary,
    failed_fabric,
    replayed_delivery,
    watchdog_interval_s,
)
from qosforge.softswitch.helper.fabric_scenarios import FabricRun, fabric_traffic
from qosforge.softswitch.pfc_deadlock import DeadlockObserver
from qosforge.softswitch.simulation import simulate_fabric_observed

ROOT = Path(__file__).resolve().parents[3]
#: roce-pod's fabric with 8 hosts per leaf and a 1 ms PFC watchdog.
POD = ROOT / "tests" / "validation" / "fabrics" / "deadlock-pod.yaml"
BOUNCE = ("leaf1-spine1", "leaf2-spine2")


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return compile_fabric(POD, ())


@pytest.fixture(scope="module")
def links() -> FabricLinks:
    intent, source_map = load_intent(POD)
    return fabric_links(resolve_topology(intent, source_map))


def _simulate(
    setup: DeadlockSetup, built: FabricRun, watchdog: bool = False, observations: int = 200
) -> dict[str, object]:
    observer = DeadlockObserver(setup.fabric.topology)
    result, observed = simulate_fabric_observed(
        setup.fabric.configs,
        setup.fabric.topology,
        built.flows,
        built.run,
        built.run.duration_s / observations,
        observer,
    )
    traffic = fabric_traffic(setup.fabric, None, "cbr", None, lossless=True)
    return deadlock_summary(
        result,
        observed,
        setup,
        watchdog=watchdog,
        watchdog_s=watchdog_interval_s(setup.fabric, traffic),
        packet_bytes=traffic.packet_bytes,
        delivered_by=replayed_delivery(built, setup.fabric),
    )


def _bounce_run(fabric: Fabric, duration_s: float, watchdog: bool) -> tuple[DeadlockSetup, FabricRun]:
    setup = failed_fabric(fabric, POD, BOUNCE)
    traffic = fabric_traffic(setup.fabric, None, "cbr", None, lossless=True)
    return setup, deadlock_run(setup, traffic, flows=None, duration_s=duration_s, seed=1, watchdog=watchdog)


def test_failed_links_are_routed_around_as_the_graph_routes(fabric: Fabric, links: FabricLinks) -> None:
    """Every double link failure: the software switch's ECMP groups are the graph's next hops."""
    for first, second in itertools.combinations(range(links.n_cables), 2):
        ends = [links.cable_links(c)[0] for c in (first, second)]
        names = [links.port_name(int(link), egress=True) for link in ends]
        cables = tuple(failed_cable(fabric, name) for name in names)
        try:
            failed = with_failed_links(fabric, cables)
        except QosforgeError:
            continue  # a leaf cut off: refused (the graph calls it a partition)
        block = route_block(links, links.hosts(), links.alive((first, second)))
        owner = failed.topology.switch_of()
        for row, destination in enumerate(block.destinations):
            host_port = next(p for p in failed.host_ports if owner[p] == destination)
            for switch in range(links.n_switches):
                if switch == destination:
                    continue
                ours = {links.port_name(int(link), egress=True) for link in next_hops(links, switch, block, row)}
                theirs = {str(failed.port_ref(p)) for p in failed.topology.routes[switch][host_port]}
                assert ours == theirs, (names, switch, destination)


def test_the_simulated_deadlock_is_exactly_the_graphs_cycles(fabric: Fabric, links: FabricLinks) -> None:
    setup, built = _bounce_run(fabric, 3e-3, watchdog=False)
    report = _simulate(setup, built)
    # The graph, asked directly for the same failure: two cycles, one per direction around the bounce.
    dead = tuple(c for c in range(links.n_cables) if {links.cable_name(c)} & set(setup.failed))
    graph = {frozenset(c.buffers) for c in fabric_cycles(links, links.alive(dead))}
    assert len(graph) == 2
    assert report["pfc_deadlock"] is True
    cycles = report["deadlock_cycles"]
    assert isinstance(cycles, list)
    assert {frozenset(c["buffers"]) for c in cycles} == graph
    # Same order too: each buffer waits on the next one the graph names.
    assert all(c["predicted"] for c in cycles)
    assert all(c["pg"] == [3] for c in cycles)
    throughput = report["throughput_gbps"]
    assert isinstance(throughput, dict)
    assert throughput["before_deadlock"] > 100.0 and throughput["deadlocked"] == 0.0
    timeline = report["throughput_timeline"]
    assert isinstance(timeline, dict) and timeline["gbps"][-1] == 0.0
    assert 0.0 < report["time_to_deadlock_s"] < report["deadlock_detected_at_s"] < 3e-3  # type: ignore[operator]
    watchdog = report["pfc_watchdog"]
    assert isinstance(watchdog, dict) and watchdog["enabled"] is False and watchdog["drops"] == 0


def test_throughput_before_the_deadlock_is_over_exactly_zero_to_the_time_to_deadlock(
    fabric: Fabric,
) -> None:
    """The same traffic run for 2 ms and 3 ms observes on different grids (duration / 40, 50 and
    75 us, around a deadlock at ~1.007 ms): the
    throughput before the deadlock must not depend on where the grid falls, and the bytes it
    counts must lie between what a 1 us grid saw delivered just before and just after the time to
    deadlock."""
    reports = []
    for duration_s in (2e-3, 3e-3):
        setup, built = _bounce_run(fabric, duration_s, watchdog=False)
        reports.append(_simulate(setup, built, observations=40))
    onsets = {r["time_to_deadlock_s"] for r in reports}
    assert len(onsets) == 1  # the same events: the same deadlock at the same instant
    [onset] = onsets
    assert isinstance(onset, float)
    short, long = (r["throughput_gbps"]["before_deadlock"] for r in reports)  # type: ignore[index]
    assert short == pytest.approx(long, rel=1e-12)
    # The same traffic observed every 1 us a little past the deadlock: its delivered bytes
    # bracket the ones counted.
    setup, built = _bounce_run(fabric, onset + 5e-6, watchdog=False)
    observer = DeadlockObserver(setup.fabric.topology)
    _result, observed = simulate_fabric_observed(
        setup.fabric.configs, setup.fabric.topology, built.flows, built.run, 1e-6, observer
    )
    before = max((o for o in observed if o.time_s <= onset), key=lambda o: o.time_s)
    after = min((o for o in observed if o.time_s > onset), key=lambda o: o.time_s)
    counted_bytes = short * 1e9 * onset / 8.0
    assert (
        before.delivered_bytes <= counted_bytes + 1e-3
        and counted_bytes <= after.delivered_bytes + 1e-3
    )
    line_rate_bps = sum(setup.fabric.ports[flow.src_port].speed_bps for flow in built.flows)
    assert after.delivered_bytes - before.delivered_bytes <= line_rate_bps * 1e-6 / 8.0
    # Physics: below the senders' line rate, and the fabric carried traffic before it stopped.
    assert 50.0 < short < line_rate_bps / 1e9


@pytest.mark.parametrize("failed", [(), ("leaf1-spine1",), ("leaf2-spine2",)])
def test_the_same_traffic_without_both_failures_does_not_deadlock(fabric: Fabric, failed: tuple[str, ...]) -> None:
    # 2 ms: with both failures the same traffic deadlocks at ~1.007 ms (the tests above).
    setup, built = _bounce_run(fabric, 2e-3, watchdog=False)
    cables = tuple(failed_cable(fabric, name) for name in failed)
    control = DeadlockSetup(with_failed_links(fabric, cables), failed, setup.predicted, setup.pairs)
    report = _simulate(control, built)
    assert report["pfc_deadlock"] is False
    timeline = report["throughput_timeline"]
    assert isinstance(timeline, dict)
    # Still at the rate the fabric carries at the end: the leaves' 100G uplinks, 2 per leaf (1 with a failure).
    assert min(timeline["gbps"][-20:]) > 300.0


def test_the_watchdog_breaks_the_deadlock_and_drops_for_it(fabric: Fabric) -> None:
    # 3 ms: the cycle closes at ~1.007 ms, the watchdog fires one 1 ms interval later and the
    # fabric carries traffic again from ~1.98 ms.
    setup, built = _bounce_run(fabric, 3e-3, watchdog=True)
    report = _simulate(setup, built, watchdog=True)
    assert report["pfc_deadlock"] is True
    watchdog = report["pfc_watchdog"]
    assert isinstance(watchdog, dict) and watchdog["enabled"] is True and watchdog["detection_s"] == pytest.approx(1e-3)
    onset = report["time_to_deadlock_s"]
    assert isinstance(onset, float)
    # It fires one detection interval after a queue on the cycle was paused for good: at the
    # latest one interval after the cycle closed (to within one observation, 15 us), at the
    # earliest one interval after the first pause.
    assert max(onset, 1e-3) < watchdog["fired_at_s"] <= onset + 1e-3 + 15e-6
    assert watchdog["deadlocks"] >= 1 and watchdog["drops"] > 0 and watchdog["dropped_bytes"] == watchdog["drops"] * 1024
    assert set(watchdog["drop_ports"]) and sum(watchdog["drop_ports"].values()) == watchdog["drops"]
    throughput = report["throughput_gbps"]
    assert isinstance(throughput, dict) and throughput["after_recovery"] > 0.0
    assert watchdog["time_to_recovery_s"] == pytest.approx(watchdog["recovered_at_s"] - onset)


def test_a_failure_without_a_cycle_is_refused(fabric: Fabric) -> None:
    with pytest.raises(QosforgeError, match="no cyclic buffer dependency") as error:
        failed_fabric(fabric, POD, ("leaf1-spine1",))
    assert error.value.place == "--fail-link" and "check deadlock" in (error.value.hint or "")


@pytest.mark.parametrize(("name", "message"), [("leaf1-leaf2", "no switch-to-switch link"), ("leaf1:Ethernet0", "no switch-to-switch link"),
                                               ("spine9-leaf1", "no switch-to-switch link")])
def test_a_link_that_is_not_there_is_named(fabric: Fabric, name: str, message: str) -> None:
    with pytest.raises(QosforgeError, match=message) as error:
        failed_cable(fabric, name)
    assert error.value.place == "--fail-link"


def test_a_link_is_named_by_its_switches_or_either_end(fabric: Fabric) -> None:
    by_switches = failed_cable(fabric, "leaf1-spine1")
    assert {str(fabric.port_ref(p)) for p in by_switches} == {"leaf1:Ethernet32", "spine1:Ethernet0"} or len(set(by_switches)) == 2
    assert set(failed_cable(fabric, str(fabric.port_ref(by_switches[1])))) == set(by_switches)
    assert set(failed_cable(fabric, "spine1-leaf1")) == set(by_switches)


def test_a_failure_that_cuts_a_leaf_off_is_refused(fabric: Fabric) -> None:
    cables = (failed_cable(fabric, "leaf1-spine1"), failed_cable(fabric, "leaf1-spine2"))
    with pytest.raises(QosforgeError, match="no route") as error:
        with_failed_links(fabric, cables)
    assert error.value.place == "--fail-link"


def test_the_observed_run_is_the_run(fabric: Fabric) -> None:
    """Stopping the kernel to observe changes no event: the same result as one uninterrupted run."""
    from qosforge.softswitch.simulation import simulate_fabric

    setup, built = _bounce_run(fabric, 2e-3, watchdog=True)
    whole = simulate_fabric(setup.fabric.configs, setup.fabric.topology, built.flows, built.run)
    stopped, _ = simulate_fabric_observed(setup.fabric.configs, setup.fabric.topology, built.flows, built.run, 7e-6, lambda w, t: t)
    assert whole.counters == stopped.counters
    for name in ("drops", "marks", "enqueued", "dequeued_bytes", "queue_max_cells", "pg_max_cells", "pfc_seconds", "queue_histograms"):
        np.testing.assert_array_equal(getattr(whole, name), getattr(stopped, name), err_msg=name)
    np.testing.assert_array_equal(whole.monitors[0].trace_packets, stopped.monitors[0].trace_packets)


def test_the_queued_packets_are_those_a_walk_from_each_head_finds(fabric: Fabric) -> None:
    """pfc_deadlock.queued_packets (the compiled core's walk) gives, at every stop of the deadlock
    run before and after it closes (~1.007 ms), each switch queue's packets exactly as a walk in
    Python from the queue's head along P_NEXT finds them, in queue order."""
    from qosforge.softswitch.engine import layout as L
    from qosforge.softswitch.pfc_deadlock import queued_packets

    setup, built = _bounce_run(fabric, 1.2e-3, watchdog=False)
    n_ports = setup.fabric.topology.n_ports
    checked: list[int] = []

    def walk(world: tuple[np.ndarray, ...], port: int, queue: int) -> list[int]:
        members, packet = [], int(world[L.W_QI][port, queue, L.QI_HEAD])
        while packet >= 0:
            members.append(packet)
            packet = int(world[L.W_PKI][packet, L.P_NEXT])
        return members

    def compare(world: tuple[np.ndarray, ...], time_s: float) -> float:
        qi = world[L.W_QI]
        held = np.nonzero(qi[:n_ports, :, L.QI_PKTS] > 0)
        keys = [(int(p), int(q)) for p, q in zip(*held, strict=True)]
        for (port, queue), members in zip(keys, queued_packets(world, keys), strict=True):
            assert members.tolist() == walk(world, port, queue), (time_s, port, queue)
        checked.append(sum(int(qi[p, q, L.QI_PKTS]) for p, q in keys))
        return time_s

    simulate_fabric_observed(
        setup.fabric.configs, setup.fabric.topology, built.flows, built.run, 300e-6, compare
    )
    # Four stops, the last after the cycle closed: the deadlocked queues full (~125,000 packets).
    assert len(checked) == 4 and max(checked) > 100_000, checked
