"""The fabric scenarios of ``qosforge simulate``: ``fabric-incast``, ``all-to-all``, ``pause-storm``.

Each turns a workload between hosts (softswitch/traffic/fabric_workloads.py) into transport
flows between the hosts' edge ports of a :class:`Fabric`, in one traffic class with its
transport (as ``incast`` does on one switch), and states what to watch: the congested or
stalled egress queue (the monitored queue of today's JSON keys, and the origin of
``pause_depth``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast, get_args

from qosforge.compiler.resolved import ACK_WIRE_BYTES
from qosforge.errors import QosforgeError
from qosforge.ir import ClassIR
from qosforge.softswitch.helper.compiled import class_chosen_by, host_transport, tbtcp_host_settings
from qosforge.softswitch.helper.fabric import Fabric
from qosforge.softswitch.helper.fabric_capacity import uplink_report
from qosforge.softswitch.helper.host_kernel import class_transport_params
from qosforge.softswitch.helper.topology import first_path
from qosforge.softswitch.traffic.fabric_workloads import (
    FabricFlow,
    all_to_all_arrivals,
    fabric_incast,
    pause_storm,
)
from qosforge.softswitch.traffic.flow_sizes import FlowSizeDistribution
from qosforge.softswitch.traffic.spec import (
    HEADER_BYTES,
    LOSS_BASED_KINDS,
    OPEN_LOOP_KINDS,
    WINDOW_KINDS,
    FlowKind,
    FlowSpec,
    LoadBalancing,
    PauseSpec,
    RunSpec,
    packets_for_payload,
)

#: Queue-trace points kept for the monitored queue of a fabric run (memory stays small).
FABRIC_TRACE_POINTS = 4096


@dataclass(frozen=True)
class FabricTraffic:
    """What one class sends: its DSCPs, the transport its hosts run, host settings."""

    entry: ClassIR
    transport: FlowKind
    packet_bytes: int
    cnp_dscp: int | None
    rto_min_s: float | None = None
    chosen_by: str = "--class"
    """How ``entry`` was chosen (``class_chosen_by`` in the report)."""


@dataclass(frozen=True)
class FabricRun:
    flows: tuple[FlowSpec, ...]
    run: RunSpec
    origin: int
    """The congested (incast receiver's) or stalled egress port: the monitored queue's port."""
    queue: int
    header: dict[str, object]


#: Frame size of a lossy class's flows unless stated (a full Ethernet MTU).
DEFAULT_PACKET_BYTES = 1500


def fabric_traffic(fabric: Fabric, class_name: str | None, transport: FlowKind | None, packet_bytes: int | None, *, lossless: bool = False,
                   rto_min_s: float | None = None) -> FabricTraffic:
    """The class the scenario runs in (default: the intent's first declared class, its first
    lossless one when ``lossless``) and its hosts' transport. Without ``packet_bytes``, a
    lossless class sends frames of the intent's lossless MTU (the frame its PFC headroom was
    computed for, models/pfc_headroom.py), another class 1500 B."""
    first = fabric.switches[0]
    entry = first.traffic_class(class_name, lossless=lossless)
    kind = transport or host_transport(entry)
    if packet_bytes is None:
        packet_bytes = int(fabric.design.lossless_mtu_bytes) if entry.lossless else DEFAULT_PACKET_BYTES
    return FabricTraffic(entry, kind, packet_bytes, first.cnp_dscp, rto_min_s, class_chosen_by(class_name, lossless=lossless))


class AckPathDelays:
    """The uncongested ACK path back to each sender, computed once per (sender, receiver) pair
    (workloads repeat pairs): each link's one-way latency (the intent's, wire plus forwarding,
    :class:`Fabric`) and one ACK-sized frame's serialisation per link (compiler/topology.py
    ResolvedTopology.rtt_s's terms), over a shortest path."""

    def __init__(self, fabric: Fabric) -> None:
        self._fabric = fabric
        self._delays_s: dict[tuple[int, int], float] = {}

    def __call__(self, src_port: int, dst_port: int) -> float:
        known = self._delays_s.get((src_port, dst_port))
        if known is not None:
            return known
        fabric = self._fabric
        path = first_path(fabric.topology, src_port, dst_port)
        if not path:
            raise QosforgeError(f"no path from {fabric.port_ref(src_port)} to {fabric.port_ref(dst_port)}", place="--switch", hint="select connected switches")
        links = [src_port, *path]  # the sender's host link, then every egress port on the way
        wire, forwarding, ports = fabric.link_delays_s, fabric.forwarding_delays_s, fabric.ports
        delay_s = float(sum(wire[p] + forwarding[p] + ACK_WIRE_BYTES * 8.0 / ports[p].speed_bps for p in links))
        self._delays_s[src_port, dst_port] = delay_s
        return delay_s


def class_flow_spec(fabric: Fabric, traffic: FabricTraffic, src: int, dst: int, size_bytes: int | None, start_s: float,
                    delays: AckPathDelays, *, rate_bps: float | None = None, pattern: FlowKind = "cbr") -> FlowSpec:
    """One flow of ``traffic``'s class from the host on engine port ``src`` to the host on ``dst``;
    ``delays`` gives each (src, dst) pair's ACK path. With ``rate_bps`` an open-loop source
    (``pattern`` cbr or poisson) in the class's DSCP instead of the class's transport."""
    entry, kind = traffic.entry, traffic.transport if rate_bps is None else pattern
    beta, window_r = tbtcp_host_settings(entry)
    important = entry.important_dscp[0] if entry.important_dscp else None
    tlt = important is not None and kind in (*WINDOW_KINDS, "dcqcn")
    # A flow's size is its payload: whole packets, then the remainder in a shorter last one.
    size, last = (-1, None) if size_bytes is None else packets_for_payload(size_bytes, traffic.packet_bytes, HEADER_BYTES[kind])
    rate_pps = 0.0 if rate_bps is None else rate_bps / (8.0 * traffic.packet_bytes)
    return FlowSpec(kind=kind, src_port=src, dst_port=dst, dscp=entry.dscp[0], packet_bytes=traffic.packet_bytes, size_packets=size,
                    last_packet_bytes=last, start_s=start_s, rate_pps=rate_pps, ect=kind not in (*LOSS_BASED_KINDS, *OPEN_LOOP_KINDS), tlt=tlt,
                    important_dscp=important if tlt else None, ack_delay_s=delays(src, dst), beta=beta, window_reduction_r=window_r,
                    cnp_dscp=traffic.cnp_dscp if kind == "dcqcn" else None,
                    selective_repeat=kind == "dcqcn" and entry.transport == "irn",
                    load_balancing=_load_balancing(entry.load_balancing),
                    flowlet_gap_s=entry.flowlet_gap_s)


def _load_balancing(mode: str) -> LoadBalancing:
    for known in get_args(LoadBalancing):
        if mode == known:
            return cast(LoadBalancing, known)
    raise ValueError(f"unknown load-balancing mode {mode!r}")


def _flow_specs(fabric: Fabric, traffic: FabricTraffic, workload: tuple[FabricFlow, ...]) -> tuple[FlowSpec, ...]:
    delays = AckPathDelays(fabric)
    return tuple(class_flow_spec(fabric, traffic, fabric.host_ports[flow.src_host], fabric.host_ports[flow.dst_host], flow.size_bytes,
                                 flow.start_s, delays) for flow in workload)


def _run(fabric: Fabric, traffic: FabricTraffic, duration_s: float, warmup_s: float, seed: int, origin: int,
         pauses: tuple[PauseSpec, ...] = ()) -> tuple[RunSpec, int]:
    ports = fabric.ports
    queue = ports[origin].tc_to_queue[traffic.entry.traffic_class]
    params = class_transport_params(traffic.entry, traffic.rto_min_s)
    run = RunSpec(duration_s=duration_s, warmup_s=warmup_s, seed=seed, monitors=((origin, queue),), transport=params, pauses=pauses,
                  pfc_watchdog=True, queue_histograms=True, trace_points=FABRIC_TRACE_POINTS, link_delays_s=fabric.link_delays_s,
                  forwarding_delays_s=fabric.forwarding_delays_s)
    return run, queue


def _header(fabric: Fabric, traffic: FabricTraffic, scenario: str, flows: int) -> dict[str, object]:
    return {"scenario": scenario, "fabric_switches": [s.ir.name for s in fabric.switches], "hosts": len(fabric.hosts),
            "class": traffic.entry.name, "class_chosen_by": traffic.chosen_by, "transport": traffic.transport, "flows": flows, "packet_bytes": traffic.packet_bytes,
            "vendor_profiles": sorted({s.config.asic.name for s in fabric.switches})}


def _host(fabric: Fabric, name: str | None, default: int, flag: str) -> int:
    """A host by its "switch:port", or the default host."""
    if name is None:
        return default
    for site in fabric.hosts:
        if f"{site.switch}:{site.port}" == name:
            return site.host
    raise QosforgeError(f"no host on {name!r}", place=flag, hint=f"hosts sit on edge ports, e.g. {fabric.hosts[0].switch}:{fabric.hosts[0].port}")


def fabric_incast_run(fabric: Fabric, traffic: FabricTraffic, *, receiver: str | None, flows: int, size_bytes: int | None, duration_s: float,
                      warmup_s: float, seed: int) -> FabricRun:
    """``flows`` senders on the other leaves to one host (default: the last leaf's first host)."""
    last_leaf = fabric.hosts[-1].switch
    default = next(site.host for site in fabric.hosts if site.switch == last_leaf)
    host = _host(fabric, receiver, default, "--port")
    workload = fabric_incast(fabric.hosts, host, flows, size_bytes)
    origin = fabric.host_ports[host]
    run, queue = _run(fabric, traffic, duration_s, warmup_s, seed, origin)
    header = {**_header(fabric, traffic, "fabric-incast", flows), "receiver": str(fabric.port_ref(origin)), "queue": queue,
              "flow_size_bytes": size_bytes}
    return FabricRun(_flow_specs(fabric, traffic, workload), run, origin, queue, header)


def all_to_all_run(fabric: Fabric, traffic: FabricTraffic, *, load: float, distribution: FlowSizeDistribution, duration_s: float,
                   warmup_s: float, seed: int) -> FabricRun:
    """Poisson arrivals at ``load`` of every host's link, sizes from ``distribution``."""
    host_rate = min(port.speed_bps for port in fabric.ports if port.peer == "host")
    workload = all_to_all_arrivals(fabric.hosts, host_rate, load, distribution, duration_s, seed)
    if not workload:
        raise QosforgeError("no flow starts within the run at this load", place="--duration", hint="simulate longer or raise --load")
    origin = fabric.host_ports[0]
    run, queue = _run(fabric, traffic, duration_s, warmup_s, seed, origin)
    uplink_load, notes = uplink_report(fabric, load, host_rate)
    header = {**_header(fabric, traffic, "all-to-all", len(workload)), "load": load, "flow_size_dist": distribution.name,
              "flow_size_mean_bytes": distribution.mean_bytes, "monitored_port": str(fabric.port_ref(origin)), "queue": queue,
              "uplink_load": uplink_load, "notes": notes}
    return FabricRun(_flow_specs(fabric, traffic, workload), run, origin, queue, header)


def pause_storm_run(fabric: Fabric, traffic: FabricTraffic, *, stalled: str | None, stall_s: float, stall_start_s: float, flows: int,
                    size_bytes: int | None, duration_s: float, warmup_s: float, seed: int) -> FabricRun:
    """One host stops draining: its NIC pauses the class's priority on its edge port from
    ``stall_start_s`` for ``stall_s`` (XOFF, then XON), with background traffic around it."""
    if not traffic.entry.lossless:
        raise QosforgeError(f"class {traffic.entry.name!r} is lossy: PFC does not pause it", place="--class", hint="choose a lossless class")
    last_leaf = fabric.hosts[-1].switch
    default = next(site.host for site in fabric.hosts if site.switch == last_leaf)
    host = _host(fabric, stalled, default, "--port")
    plan = pause_storm(fabric.hosts, host, stall_s, flows, size_bytes, stall_start_s=stall_start_s)
    origin = fabric.host_ports[host]
    priority = 1 << traffic.entry.traffic_class
    pauses = (PauseSpec(plan.stall_start_s, origin, priority, True), PauseSpec(plan.stall_start_s + plan.stall_s, origin, priority, False))
    run, queue = _run(fabric, traffic, duration_s, warmup_s, seed, origin, pauses)
    header = {**_header(fabric, traffic, "pause-storm", len(plan.flows)), "stalled_port": str(fabric.port_ref(origin)), "queue": queue,
              "stall_start_s": plan.stall_start_s, "stall_s": plan.stall_s}
    return FabricRun(_flow_specs(fabric, traffic, plan.flows), run, origin, queue, header)


__all__ = ["FabricRun", "FabricTraffic", "all_to_all_run", "class_flow_spec", "fabric_incast_run", "fabric_traffic", "pause_storm_run"]
