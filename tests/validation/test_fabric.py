"""Fabric validation: the whole fabric on the software switch, every switch loaded from
its own SAI program, linked as the intent's topology says.

1. PFC headroom at every hop: a lossless line-rate sender behind two switch hops into a host that
   stops draining; the pause spreads hop by hop back to the sender and, with the headroom each
   switch's program carries (models/pfc_headroom.py through the compiler), nothing lossless is
   dropped anywhere; with the headroom of one hop (the spine) cut by half, that hop drops. (The
   headroom model counts the line time in flight as buffer bytes, so it is conservative by a
   frame's framing overhead: 1062/1024 for 1024 B datagrams, 102/64 for 64 B ones; a 30 % cut
   still held once frames took their preamble and gap on the wire.)
   The traffic is the design's worst case, as scenario 3 on one switch (test_pfc.py): the intent's
   mix of minimum-size and lossless-MTU frames at line rate, and port-MTU frames the other way so
   every PFC frame waits for a whole frame.
2. DCTCP incast through a spine: the queue at the congested port (the receiver's leaf port) follows
   the single-switch prediction, DCTCP §3.3 (models/dctcp.py), with the same tolerances as
   scenario 4 on one switch (test_dctcp.py); base RTT = the path's propagation and serialisation.
3. Pause storm and the PFC watchdog: with the detection/recovery intervals the SAI program sets,
   the stalled port's queue is declared deadlocked as many times as those intervals allow within
   the stall, only there, and its recovery stops the spread short of the sending leaves, which
   the same run without the watchdog reaches (pause depth 2); with it nothing lossless is lost
   to headroom. (Nor without it, measured at seed 1; with only the first half of SAI's XON rule
   the spine towards the stalled leaf drops lossless frames in this storm:
   docs/softswitch-validation.md "When a paused priority resumes".)
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from qosforge.models.dctcp import dctcp_queue_sawtooth
from qosforge.models.ethernet import wire_bytes
from qosforge.softswitch.config import PortConfig
from qosforge.softswitch.engine.build import classify_ports
from qosforge.softswitch.helper.fabric import Fabric, compile_fabric
from qosforge.softswitch.helper.fabric_report import fabric_summary
from qosforge.softswitch.helper.fabric_scenarios import (
    fabric_incast_run,
    fabric_traffic,
    pause_storm_run,
)
from qosforge.softswitch.simulation import simulate_fabric
from qosforge.softswitch.traffic.spec import FlowSpec, PauseSpec, RunSpec

from .conftest import ASSUMPTIONS, EXAMPLES, with_profile_values

HERE = Path(__file__).resolve().parent
MIN_FRAME_BYTES = 64  # IEEE 802.3 clause 4.4.2 minFrameSize (models/pfc_headroom.py)
HEADROOM_CUT = 0.5
CYCLES = 2
#: A leaf, the spine it links to and another leaf: a chain, so the pause crosses every hop.
CHAIN = ("leaf1", "spine1", "leaf2")
#: Pause storm: flows from every other host to the stalled one (and as many to a bystander), enough
#: DCQCN senders to fill the stalled leaf's and the spines' buffers within the detection interval.
STORM_FLOWS_PER_HOST = 16


def _ports(fabric: Fabric) -> list[PortConfig]:
    return [port for config in fabric.configs for port in config.ports]


def _headroom_run(fabric: Fabric) -> tuple[tuple[FlowSpec, ...], RunSpec, int]:
    """Worst-case lossless traffic from a leaf1 host to a leaf2 host that pauses in cycles."""
    ports = _ports(fabric)
    lossless = next(c for c in fabric.switches[0].ir.classes if c.lossless)
    claimed = {d for c in fabric.switches[0].ir.classes for d in (*c.dscp, *c.important_dscp)}
    lossy_dscp = next(d for d in range(64) if d not in claimed)
    by_switch = {name: [p for h, p in zip(fabric.hosts, fabric.host_ports, strict=True) if h.switch == name] for name in ("leaf1", "leaf2")}
    sender, (receiver, helper) = by_switch["leaf1"][0], by_switch["leaf2"][:2]
    design = fabric.design
    small = design.small_packet_fraction
    rate = ports[sender].speed_bps / 8.0
    line_pps = rate / (small * MIN_FRAME_BYTES + (1 - small) * design.lossless_mtu_bytes)
    dscp = lossless.dscp[0]
    # RoCEv2 traffic is ECT (DCQCN §3): the lossless WRED profile enables green, as SONiC does, so
    # non-ECT packets would be WRED-dropped between K_min and K_max instead of filling headroom.
    flows = [FlowSpec("cbr", sender, receiver, dscp, packet_bytes=int(design.lossless_mtu_bytes), ect=True, rate_pps=(1 - small) * line_pps)]
    if small > 0:
        flows.append(FlowSpec("cbr", sender, receiver, dscp, packet_bytes=MIN_FRAME_BYTES, ect=True, rate_pps=small * line_pps))
    # Port-MTU frames towards the sender keep every egress a PFC frame leaves by busy (lossy class).
    flows.append(FlowSpec("cbr", helper, sender, lossy_dscp, packet_bytes=int(design.port_mtu_bytes), ect=False,
                          rate_pps=ports[helper].speed_bps / 8.0 / design.port_mtu_bytes))
    # Pause long enough for every switch on the way to fill to its limit and pause upstream.
    total_pool_bytes = sum(max(pool.size_bytes for pool in config.pools) for config in fabric.configs)
    period = 1.2 * total_pool_bytes / rate
    priority = 1 << lossless.traffic_class
    pauses = tuple(PauseSpec(k * 2 * period + offset, receiver, priority, on) for k in range(CYCLES) for offset, on in ((0.0, True), (period, False)))
    run = RunSpec(duration_s=2 * period * CYCLES, host_queue_packets=64, pauses=pauses, pfc_watchdog=False, queue_histograms=True, trace_points=256)
    return tuple(flows), run, receiver


@pytest.fixture(scope="module", params=["roce-pod", "mixed-fabric"])
def roce_chain(request: pytest.FixtureRequest) -> Fabric:
    """The leaf1 - spine1 - leaf2 chain of each example with a lossless class."""
    return compile_fabric(EXAMPLES / f"{request.param}.yaml", CHAIN, assume=ASSUMPTIONS[request.param])


def test_computed_headroom_absorbs_every_hop(roce_chain: Fabric) -> None:
    flows, run, receiver = _headroom_run(roce_chain)
    result = simulate_fabric(roce_chain.configs, roce_chain.topology, flows, run)
    summary = fabric_summary(result, roce_chain, receiver, "fabric-incast")
    # The pause spread over both switch hops back to the sender's leaf, and every PG on the way
    # used headroom: each hop was exercised.
    assert summary["pause_depth"] == 2, summary["paused_ports"]
    sent = {report["name"]: sum(p["pfc_pause_seconds_sent"] for p in report["ports"]) for report in summary["switches"]}  # type: ignore[union-attr]
    assert all(seconds > 0 for seconds in sent.values()), sent
    assert result.counters["lossless_drops"] == 0


def test_headroom_cut_on_one_hop_drops_there(roce_chain: Fabric) -> None:
    spine = next(i for i, s in enumerate(roce_chain.switches) if s.ir.name == "spine1")
    cut = with_profile_values(roce_chain.switches[spine].program, "SAI_BUFFER_PROFILE_ATTR_XOFF_TH", HEADROOM_CUT,
                              assume=roce_chain.switches[spine].config_assumptions)
    configs = tuple(cut if i == spine else config for i, config in enumerate(roce_chain.configs))
    flows, run, _ = _headroom_run(roce_chain)
    result = simulate_fabric(configs, roce_chain.topology, flows, run)
    owner = roce_chain.topology.switch_of()
    lossless_by_switch = np.zeros(len(configs), dtype=np.int64)
    for port, switch in enumerate(owner):
        lossless_by_switch[switch] += result.drops[port, :, 3].sum()
    assert lossless_by_switch[spine] > 0
    assert lossless_by_switch.sum() == lossless_by_switch[spine], lossless_by_switch


def test_dctcp_incast_through_a_spine_matches_the_single_switch_prediction() -> None:
    fabric = compile_fabric(EXAMPLES / "roce-pod.yaml", (), assume=ASSUMPTIONS["roce-pod"])
    traffic = fabric_traffic(fabric, "tcp", "dctcp", 1500)
    rtt = traffic.entry.rtt_s.value
    duration = max(2000 * rtt, 20e-3)
    flows = 10
    built = fabric_incast_run(fabric, traffic, receiver=None, flows=flows, size_bytes=None, duration_s=duration, warmup_s=duration / 2, seed=1)
    result = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    ports = _ports(fabric)
    port = ports[built.origin]
    config = fabric.configs[fabric.topology.switch_of()[built.origin]]
    # The prediction as on one switch: K over the packet's cell footprint, C·RTT over the path.
    sender = built.flows[0].src_port
    classification = classify_ports(ports[sender], port, traffic.entry.dscp[0])
    wred = next(w for w in config.wreds if w.object_id == port.queues[classification.queue].wred)
    curve = wred.ect_mark[classification.color] if config.ect_thresholds_effective else wred.drop[classification.color]
    footprint = math.ceil(1500 / config.asic.cell_bytes) * config.asic.cell_bytes
    threshold = curve.min_bytes / footprint
    bdp = port.speed_bps * rtt / 8.0 / 1500
    sawtooth = dctcp_queue_sawtooth(threshold, bdp, flows)
    depth = result.monitors[0]
    # Line time: each datagram leaves as a frame with preamble and gap (models/ethernet.py).
    line_bytes = result.dequeued_bytes[built.origin, built.queue] * wire_bytes(1500) / 1500
    utilisation = line_bytes * 8.0 / port.speed_bps / result.measured_s
    assert utilisation >= 0.99, utilisation
    # DCTCP §3.3's Q_max = K + N assumes the N flows synchronised: all of them grow by one packet in
    # the round trip before the marks reach them. A flow that was cut holds its window for the round
    # trip of its reduction (CWR, RFC 3168 §6.1.2; Linux and ns-3 do), so unsynchronised flows
    # overshoot K by fewer than N: the queue's top sits between K and K + N. The analysis has an ACK
    # per packet; the hosts' receivers ACK every second segment (RFC 1122 §4.2.3.2, Linux), so each
    # ACK releases two packets at once and the instantaneous top can sit up to one packet per flow
    # above the fluid K + N.
    top = sawtooth.max_packets + flows + 1.0
    assert threshold - 1.0 <= depth.p99_packets <= top, (threshold, depth.p99_packets, sawtooth.max_packets)
    measured = float(np.percentile(depth.trace_packets, 99) - np.percentile(depth.trace_packets, 1))
    assert sawtooth.amplitude_packets / 2 <= measured <= 2 * sawtooth.amplitude_packets, (measured, sawtooth.amplitude_packets)
    # The spines saw the flows spread over both of them and queued nothing worth a mark.
    assert result.counters["lossless_drops"] == 0


def _expected_deadlocks(stall_s: float, detection_s: float, recovery_s: float) -> int:
    """Detections within a stall: the first after ``detection_s`` of pause, then one every
    detection + recovery interval while the host still pauses (SAI PFC_DLD/DLR semantics)."""
    count = 0
    while detection_s + count * (detection_s + recovery_s) < stall_s:
        count += 1
    return count


def test_watchdog_stops_the_pause_storm_where_its_intervals_say() -> None:
    fabric = compile_fabric(HERE / "fabrics" / "lossless-watchdog.yaml", ())
    traffic = fabric_traffic(fabric, None, None, 1024, lossless=True)
    stalled = f"{fabric.hosts[-1].switch}:{fabric.hosts[-1].port}"
    origin = fabric.host_ports[-1]
    port = _ports(fabric)[origin]
    tc = traffic.entry.traffic_class
    detection, recovery = port.pfc_deadlock_detection_s[tc], port.pfc_deadlock_recovery_s[tc]
    assert detection > 0 and recovery > 0, "the program sets no PFC watchdog"
    stall = 2.5 * detection
    built = pause_storm_run(fabric, traffic, stalled=stalled, stall_s=stall, stall_start_s=detection, flows=STORM_FLOWS_PER_HOST, size_bytes=None,
                            duration_s=2 * detection + stall, warmup_s=0.0, seed=1)
    with_watchdog = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    without = simulate_fabric(fabric.configs, fabric.topology, built.flows, dataclasses.replace(built.run, pfc_watchdog=False))
    assert with_watchdog.counters["pfc_deadlocks"] == _expected_deadlocks(stall, detection, recovery)
    assert without.counters["pfc_deadlocks"] == 0
    # Only the stalled port's queue was declared deadlocked and dropped by the recovery.
    watchdog_drops = with_watchdog.drops[:, :, 5].sum(axis=1)
    assert watchdog_drops[origin] > 0
    assert watchdog_drops.sum() == watchdog_drops[origin]
    # The pause spread upstream; the recovery cut it short everywhere it had reached.
    upstream = [p for p in range(fabric.topology.n_ports) if p != origin]
    paused_without = without.pfc_seconds[upstream, :, 1].sum(axis=1)  # type: ignore[index]
    paused_with = with_watchdog.pfc_seconds[upstream, :, 1].sum(axis=1)  # type: ignore[index]
    depth_without = fabric_summary(without, fabric, origin, "pause-storm")["pause_depth"]
    assert depth_without == 2, "without the watchdog the storm reaches the sending leaves"
    # Within the first detection interval the storm already reaches the sending leaves (the
    # watchdog cannot act before it), so it shortens the pauses rather than the depth they reached.
    assert fabric_summary(with_watchdog, fabric, origin, "pause-storm")["pause_depth"] <= depth_without
    assert paused_with.sum() < 0.75 * paused_without.sum(), (paused_with.sum(), paused_without.sum())
    # With the watchdog nothing lossless is lost to headroom: the recovery's drops are what it
    # costs, and they are the lossless class's only losses (counted as such, with their cause).
    assert with_watchdog.lossless_drops_by_reason["lossless_headroom"] == 0
    watchdog_losses = with_watchdog.lossless_drops_by_reason["pfc_watchdog"]
    assert with_watchdog.counters["lossless_drops"] == watchdog_losses > 0
