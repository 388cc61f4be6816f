"""The ``deadlock`` fabric scenario: links fail, routes bounce, lossless traffic fills the cycle.

``qosforge check deadlock`` (compiler/deadlock) says which failures give the lossless class a
cyclic buffer dependency and which routes close it. This scenario takes such a failure, routes
the simulated fabric around it (the same routes, under the intent's routing model:
:func:`with_failed_links`), and
sends line-rate traffic along the routes that close the graph's cycles: for each (source leaf,
destination leaf) of a closing route, ``flows`` long-lived flows between distinct hosts, at the
host link's rate, in the lossless class. Open-loop senders at line rate are what fills the
cycle: a RoCE NIC sends at line rate until congestion control cuts it (DCQCN starts at line
rate, Zhu et al. §3.1), and Hu et al. (HotNets 2016 §3) show that it takes such a burst, not
only the cycle, for PFC to deadlock. ``--transport dcqcn`` runs the class's own transport instead.

The software switch then finds the deadlock itself, from its buffers (softswitch/pfc_deadlock.py),
and the report sets it beside the graph's cycles, with the throughput over time, the time to
deadlock and, when the intent configures the PFC watchdog, when it fired, how long recovery took
and what it dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from qosforge.compiler.deadlock import DependencyCycle
from qosforge.errors import QosforgeError
from qosforge.models.ethernet import wire_bytes
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.fabric_metrics import PortRef
from qosforge.softswitch.helper.fabric import Fabric, failed_cable, with_failed_links
from qosforge.softswitch.helper.fabric_scenarios import (
    FabricRun,
    FabricTraffic,
    _flow_specs,
    _header,
    _run,
)
from qosforge.softswitch.metrics import SimulationResult
from qosforge.softswitch.pfc_deadlock import Observation, StuckCycle
from qosforge.softswitch.traffic.fabric_workloads import FabricFlow
from qosforge.softswitch.traffic.spec import FlowSpec

#: Simulated time before the watchdog can fire and after it has (the run's default is this, the
#: watchdog's detection interval, and this again): the cycle fills in 1-2 ms on roce-pod.
DEADLOCK_MARGIN_S = 5e-3
#: Without a watchdog the deadlock is permanent: this much shows it form and stay.
DEADLOCK_ALONE_S = 10e-3
#: Flows per closing (source, destination) pair by default, where the leaves have the hosts: on
#: roce-pod 16 filled both bounce cycles for every seed tried, 8 only one of them for some seeds
#: (the ECMP hashes decide how many flows each cycle gets; docs/deadlock.md "Simulated").
FLOWS_PER_PAIR = 16
#: Observations per run: the throughput timeline's points and the resolution of the watchdog's times.
OBSERVATIONS = 500


@dataclass(frozen=True)
class DeadlockSetup:
    """The failed fabric, the graph's cycles on it and the traffic that closes them."""

    fabric: Fabric
    failed: tuple[str, ...]
    """The dead cables, ``a:port - b:port``."""
    predicted: tuple[DependencyCycle, ...]
    pairs: tuple[tuple[str, str], ...]
    """(source switch, destination switch) of the routes that close the predicted cycles."""


def failed_fabric(fabric: Fabric, intent: Path, fail_links: tuple[str, ...]) -> DeadlockSetup:
    """Fail ``fail_links`` in the simulated fabric and ask the buffer dependency graph
    (compiler/deadlock, on the intent's own topology) for the cycles the failure creates."""
    from qosforge.compiler.deadlock.check import fabric_cycles
    from qosforge.compiler.deadlock.links import fabric_links
    from qosforge.compiler.loader import load_intent
    from qosforge.compiler.topology import resolve_topology

    if not any(entry.lossless for switch in fabric.switches for entry in switch.ir.classes):
        # The dependency graph only has lossless buffers (PFC pauses nothing else): without one the
        # check below would say "no cyclic buffer dependency", true but not the reason.
        raise QosforgeError(
            "the intent has no lossless class: PFC pauses no queue, so no buffer waits on another "
            "and nothing can deadlock",
            place="INTENT",
            hint="the deadlock scenario needs a class with lossless: true (e.g. "
                 "examples/roce-pod.yaml)",
        )
    cables = tuple(failed_cable(fabric, text) for text in fail_links)
    if len({frozenset(c) for c in cables}) < len(cables):
        raise QosforgeError("the same link is named twice", place="--fail-link", hint="name each failed link once")
    failed = with_failed_links(fabric, cables)
    loaded, source_map = load_intent(intent)
    links = fabric_links(resolve_topology(loaded, source_map))
    ends = {str(fabric.port_ref(p)) for cable in cables for p in cable}
    dead = tuple(sorted({int(links.cable[i]) for i in range(links.n_links) if links.port_name(i, egress=True) in ends}))
    predicted = fabric_cycles(links, links.alive(dead))
    names = tuple(links.cable_name(c) for c in dead)
    if not predicted:
        raise QosforgeError(f"with {' and '.join(names) or 'no link'} down the lossless class has no cyclic buffer dependency: it cannot deadlock here",
                            place="--fail-link", hint="fail links that create a cycle: 'qosforge check deadlock INTENT --fail-links 2' lists them "
                                                      "(e.g. leaf1-spine1 and leaf2-spine2 of roce-pod "
                                                      "routed by shortest-path)")
    pairs = tuple(dict.fromkeys((route.source, route.destination) for cycle in predicted for route in cycle.routes))
    return DeadlockSetup(failed, names, predicted, pairs)


def _line_rate_pps(fabric: Fabric, spec: FlowSpec) -> float:
    """Back-to-back frames on the sender's link: each takes its line time (models/ethernet.py)."""
    return float(fabric.ports[spec.src_port].speed_bps / (8.0 * wire_bytes(spec.packet_bytes)))


def deadlock_run(setup: DeadlockSetup, traffic: FabricTraffic, *, flows: int | None, duration_s: float, seed: int, watchdog: bool) -> FabricRun:
    """``flows`` line-rate flows per closing (source, destination) pair, each from its own host
    to its own host (a host sends and receives at most one flow: the senders never share a NIC);
    None: :data:`FLOWS_PER_PAIR`, or fewer where the leaves have fewer hosts to spare."""
    fabric = setup.fabric
    if not traffic.entry.lossless:
        raise QosforgeError(f"class {traffic.entry.name!r} is lossy: PFC does not pause it, so it cannot deadlock", place="--class",
                            hint="choose a lossless class")
    by_switch: dict[str, list[int]] = {}
    for site in fabric.hosts:
        by_switch.setdefault(site.switch, []).append(site.host)
    if flows is None:
        sources = {s: sum(1 for pair in setup.pairs if pair[0] == s) for s, _ in setup.pairs}
        sinks = {d: sum(1 for pair in setup.pairs if pair[1] == d) for _, d in setup.pairs}
        flows = min([FLOWS_PER_PAIR, *(len(by_switch[s]) // n for s, n in sources.items()), *(len(by_switch[d]) // n for d, n in sinks.items())])
        if flows < 1:
            raise QosforgeError("the leaves have too few hosts for one flow per pair", place="INTENT", hint="give the leaves more hosts")
    sending: dict[str, int] = {}
    receiving: dict[str, int] = {}
    workload = []
    for source, destination in setup.pairs:
        for _ in range(flows):
            src, dst = sending.get(source, 0), receiving.get(destination, 0)
            if src >= len(by_switch[source]) or dst >= len(by_switch[destination]):
                raise QosforgeError(f"{flows} flows from {source} to {destination} need more hosts than the leaves have "
                                    f"({len(by_switch[source])} on {source}, {len(by_switch[destination])} on {destination})", place="--flows",
                                    hint="lower --flows: each flow has its own sending and receiving host")
            workload.append(FabricFlow(by_switch[source][src], by_switch[destination][dst], 0.0, None))
            sending[source], receiving[destination] = src + 1, dst + 1
    specs = _flow_specs(fabric, traffic, tuple(workload))
    if traffic.transport == "cbr":
        # ECN-capable as the class's RoCEv2 senders are (DCQCN marks ECT, DCQCN SIGCOMM 2015 §3.1): line-rate
        # senders whose reaction point is off. A non-ECT open-loop probe (a traffic file's `rate:`) would be
        # dropped by the class's WRED curve instead of marked, and the buffers would never fill.
        # Line rate counts each frame's line time (models/ethernet.py): back to back on the wire.
        specs = tuple(replace(spec, ect=True, rate_pps=_line_rate_pps(fabric, spec))
                      for spec in specs)
    first = setup.predicted[0]
    # Monitor the egress that fills the first predicted buffer: the first hop the cycle pauses.
    origin = fabric.topology.peers[fabric.port_index(_ref(first.buffers[0]))]
    run, queue = _run(fabric, traffic, duration_s, 0.0, seed, origin)
    run = replace(run, pfc_watchdog=watchdog)
    header = {**_header(fabric, traffic, "deadlock", len(specs)), "failed_links": list(setup.failed),
              "traffic_pairs": [f"{s} > {d}" for s, d in setup.pairs], "flows_per_pair": flows, "queue": queue}
    return FabricRun(specs, run, origin, queue, header)


def _ref(name: str) -> PortRef:
    switch, _, port = name.partition(":")
    return PortRef(switch, port)


def watchdog_interval_s(fabric: Fabric, traffic: FabricTraffic) -> tuple[float, float]:
    """The PFC watchdog's (detection, restoration) the switches' programs set for the class's
    priority (SAI_PORT_ATTR_PFC_TC_DLD_INTERVAL / DLR_INTERVAL), the longest over the ports; (0, 0)
    where no port watches it."""
    priority = traffic.entry.traffic_class
    detection = restoration = 0.0
    for config in fabric.configs:
        for port in config.ports:
            if (port.pfc_enabled >> priority) & 1:
                detection = max(detection, port.pfc_deadlock_detection_s[priority])
                restoration = max(restoration, port.pfc_deadlock_recovery_s[priority])
    return detection, restoration


def default_duration_s(watchdog: bool, detection_s: float) -> float:
    """Long enough to see the cycle fill and, with a watchdog, fire and recover."""
    return DEADLOCK_MARGIN_S + detection_s + DEADLOCK_MARGIN_S if watchdog and detection_s > 0 else DEADLOCK_ALONE_S


def _same_cycle(observed: tuple[str, ...], predicted: tuple[str, ...]) -> bool:
    """Equal as cycles: the same buffers in the same dependency order, from any start."""
    if len(observed) != len(predicted) or not observed:
        return False
    start = predicted.index(observed[0]) if observed[0] in predicted else -1
    return start >= 0 and predicted[start:] + predicted[:start] == observed


def _cycle_json(fabric: Fabric, cycle: StuckCycle, predicted: tuple[DependencyCycle, ...]) -> dict[str, object]:
    buffers = tuple(str(fabric.port_ref(port)) for port, _ in cycle.buffers)
    return {"buffers": list(buffers), "pg": sorted({pg for _, pg in cycle.buffers}), "waits_behind": [str(fabric.port_ref(p)) for p in cycle.egress],
            "deadlocked_at_s": cycle.since_s, "predicted": any(_same_cycle(buffers, p.buffers) for p in predicted)}


def replayed_delivery(built: FabricRun, fabric: Fabric) -> Callable[[float], int]:
    """Bytes the receivers of ``built``'s run have by a given time, read from the same run
    replayed from the start up to that time (its seed and events are the same, stop or no stop:
    softswitch/simulation.py SegmentedRun), so an instant between two observations is exact."""
    from qosforge.softswitch.simulation import SegmentedRun

    def delivered_by(time_s: float) -> int:
        replay = SegmentedRun(fabric.configs, fabric.topology, built.flows, built.run)
        replay.advance(time_s)
        return int(replay.world[L.W_CNT][L.C_DELIVERED_BYTES])

    return delivered_by


def deadlock_summary(result: SimulationResult, observations: list[Observation], setup: DeadlockSetup, *, watchdog: bool,
                     watchdog_s: tuple[float, float], packet_bytes: int,
                     delivered_by: Callable[[float], int]) -> dict[str, object]:
    """The scenario's JSON keys: the graph's cycles, the deadlock the switches reached, the
    throughput over time, and what the PFC watchdog did about it. ``delivered_by(t)``: bytes
    delivered by time ``t`` (:func:`replayed_delivery`), for the throughput before the deadlock
    over exactly [0, time to deadlock]: the observations' grid (the run's length over
    :data:`OBSERVATIONS`) rarely has a point there."""
    fabric = setup.fabric
    times = np.array([0.0, *(o.time_s for o in observations)])
    delivered = np.array([0, *(o.delivered_bytes for o in observations)], dtype=np.float64)
    gbps = np.diff(delivered) * 8.0 / np.diff(times) / 1e9
    fired_at = next((o.time_s for o in observations if o.watchdog_deadlocks > 0), None)
    # The deadlock as it stood before the watchdog first fired: every cycle that got stuck, from
    # when it did (cycles may close one after another, each at its own time).
    before = [o.stuck for o in observations if o.stuck is not None and (fired_at is None or o.time_s < fired_at)]
    stuck_cycles: dict[frozenset[tuple[int, int]], StuckCycle] = {}
    for state in before:
        for cycle in state.cycles:
            stuck_cycles.setdefault(frozenset(cycle.buffers), cycle)
    keys: dict[str, object] = {"predicted_cycles": [c.to_json() for c in setup.predicted], "pfc_deadlock": bool(stuck_cycles)}
    recovered_at = again_at = onset = all_stuck = None
    if stuck_cycles:
        onset = min(c.since_s for c in stuck_cycles.values())
        all_stuck = max(c.since_s for c in stuck_cycles.values())
        last = before[-1]
        keys["deadlock_cycles"] = [_cycle_json(fabric, c, setup.predicted) for c in sorted(stuck_cycles.values(), key=lambda c: c.since_s)]
        keys["waiting_buffers"] = [str(fabric.port_ref(port)) for port, _ in last.waiting]
        keys["deadlocked_bytes"] = last.held_cells * result.cell_bytes
        keys["time_to_deadlock_s"] = onset
        keys["deadlock_detected_at_s"] = before[0].time_s
        if fired_at is not None:
            fired = next(i for i, o in enumerate(observations) if o.time_s == fired_at)
            recovered = next((i for i in range(fired, len(observations)) if gbps[i] > 0.0), None)
            if recovered is not None:
                recovered_at = observations[recovered].time_s
                again = next((o.stuck for o in observations[recovered:] if o.stuck is not None and min(c.since_s for c in o.stuck.cycles) > fired_at), None)
                again_at = None if again is None else min(c.since_s for c in again.cycles)
    end = times[-1]
    interval_s = float(times[1] - times[0]) if times.size > 1 else 0.0
    if onset is None:
        before_gbps = float(delivered[-1] * 8.0 / end / 1e9) if end > 0 else None
    else:
        before_gbps = delivered_by(onset) * 8.0 / onset / 1e9 if onset > 0 else None
    keys["throughput_gbps"] = {
        "before_deadlock": before_gbps,
        # From when the last cycle stuck (before it, traffic around the others may still flow) to the
        # start of the observation in which the watchdog fired (that one already carries traffic again).
        "deadlocked": None if all_stuck is None else _mean(gbps, times, all_stuck, end if fired_at is None else fired_at - interval_s),
        "after_recovery": None if recovered_at is None else _mean(gbps, times, recovered_at, again_at if again_at is not None else end),
    }
    keys["throughput_timeline"] = {"interval_s": interval_s, "gbps": [round(float(g), 3) for g in gbps]}
    drops = result.drops[:, :, L.DR_WATCHDOG].sum(axis=1)
    detection, restoration = watchdog_s
    keys["pfc_watchdog"] = {
        "deadlocks": result.counters["pfc_deadlocks"], "drops": result.counters["watchdog_drops"],
        "enabled": watchdog and detection > 0, "detection_s": detection, "restoration_s": restoration,
        "fired_at_s": fired_at, "recovered_at_s": recovered_at,
        "time_to_recovery_s": None if recovered_at is None or onset is None else recovered_at - onset,
        "dropped_bytes": int(result.counters["watchdog_drops"]) * packet_bytes,
        "drop_ports": {str(fabric.port_ref(int(p))): int(drops[p]) for p in np.flatnonzero(drops[:fabric.topology.n_ports])},
        "deadlocked_again_at_s": again_at,
    }
    return keys


def _mean(gbps: np.ndarray, times: np.ndarray, start_s: float, end_s: float) -> float | None:
    """Mean throughput over the observation intervals wholly inside [start, end]."""
    inside = (times[:-1] >= start_s - 1e-12) & (times[1:] <= end_s + 1e-12)
    return float(gbps[inside].mean()) if inside.any() else None


__all__ = [
    "DEADLOCK_ALONE_S",
    "DEADLOCK_MARGIN_S",
    "FLOWS_PER_PAIR",
    "OBSERVATIONS",
    "DeadlockSetup",
    "deadlock_run",
    "deadlock_summary",
    "default_duration_s",
    "failed_fabric",
    "replayed_delivery",
    "watchdog_interval_s",
]
