"""Built-in scenarios: the flag-configured ``dumbbell`` and ``incast`` on a loaded switch.

``dumbbell`` (for comparison with other simulators): ``flows`` long-lived senders share one
bottleneck port of rate C; base RTT = the given RTT (each of the two data links carries a
quarter of it one way, the ACK path the other half). The bottleneck queue has a static limit of
``buffer`` bytes and, when a threshold is given, one RED/ECN curve: DCTCP's step at K
(min = max = K, 100 %) or RED's (min, max, P_max). With ``flows2`` the last ``flows2`` flows
have base RTT ``rtt2`` instead (flows of two round trips sharing one port): their sender's link
carries rtt2/2 - RTT/4 one way and their ACK path rtt2/2, the bottleneck's link RTT/4 as for the
others (each flow then has its own sender port).

``incast``: ``flows`` senders on the other ports send to one receiver port through a compiled
switch configuration (DSCP of the chosen class), closed-loop with the class's transport.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosforge.errors import QosforgeError
from qosforge.softswitch.asic import AsicModel, ideal_asic
from qosforge.softswitch.config import (
    BufferProfileConfig,
    Curve,
    PgConfig,
    PoolConfig,
    PortConfig,
    QueueConfig,
    SwitchConfig,
    WredConfig,
)
from qosforge.softswitch.traffic.spec import (
    LOSS_BASED_KINDS,
    WINDOW_KINDS,
    FlowKind,
    FlowSpec,
    RunSpec,
    TransportParams,
)

#: At most this many sender ports in the dumbbell; more flows share sender NICs round-robin.
DUMBBELL_MAX_SENDER_PORTS = 16
TRANSPORTS: tuple[FlowKind, ...] = ("newreno", "cubic", "tcp-ecn", "dctcp", "tbtcp", "dcqcn")


@dataclass(frozen=True)
class DumbbellSpec:
    flows: int
    transport: FlowKind
    bandwidth_bps: float
    rtt_s: float
    buffer_bytes: float
    packet_bytes: int = 1500
    ecn_threshold_bytes: float | None = None
    red_min_bytes: float | None = None
    red_max_bytes: float | None = None
    red_pmax: float | None = None
    duration_s: float = 0.3
    warmup_s: float = 0.1
    seed: int = 1
    tbtcp_beta: float = 0.1
    tbtcp_r: float = 4.0
    rto_min_s: float | None = None
    flows2: int = 0
    rtt2_s: float = 0.0


def _check(spec: DumbbellSpec) -> None:
    if spec.flows < 1:
        raise QosforgeError(f"must be at least 1 (got {spec.flows})", place="--flows", hint="the number of long-lived senders")
    if spec.transport not in TRANSPORTS:
        raise QosforgeError(f"unknown transport {spec.transport!r}", place="--transport", hint=f"use one of {', '.join(TRANSPORTS)}")
    if spec.buffer_bytes < spec.packet_bytes:
        raise QosforgeError("the buffer must hold at least one packet", place="--buffer", hint="e.g. 1000pkt")
    red = (spec.red_min_bytes, spec.red_max_bytes, spec.red_pmax)
    if any(v is not None for v in red) and not all(v is not None for v in red):
        raise QosforgeError("RED needs all of --red-min, --red-max and --red-pmax", place="--red-min", hint="e.g. --red-min 20pkt --red-max 80pkt --red-pmax 10%")
    if spec.ecn_threshold_bytes is not None and spec.red_min_bytes is not None:
        raise QosforgeError("give either --ecn-threshold or the RED flags, not both", place="--ecn-threshold", hint="--ecn-threshold K is RED with min = max = K and P_max = 100%")
    if spec.red_min_bytes is not None and spec.red_max_bytes is not None:
        if spec.red_min_bytes > spec.red_max_bytes:
            raise QosforgeError("--red-min is above --red-max", place="--red-min", hint="min <= max")
        if spec.red_max_bytes > spec.buffer_bytes:
            raise QosforgeError("--red-max is above the buffer", place="--red-max", hint="RED thresholds lie within the buffer")
    if spec.red_pmax is not None and not 0.0 < spec.red_pmax <= 1.0:
        raise QosforgeError(f"must be within (0, 100%] (got {spec.red_pmax:g})", place="--red-pmax", hint="e.g. 10%")
    if spec.ecn_threshold_bytes is not None and not 0 < spec.ecn_threshold_bytes <= spec.buffer_bytes:
        raise QosforgeError("the ECN threshold must lie within the buffer", place="--ecn-threshold", hint="e.g. 65pkt with --queue-limit 1000pkt")
    if not spec.rtt_s > 0:
        raise QosforgeError("must be positive", place="--rtt", hint="e.g. 100us")
    if not spec.bandwidth_bps > 0:
        raise QosforgeError("must be positive", place="--bandwidth", hint="e.g. 10G")
    if spec.flows2 and not (spec.flows2 <= spec.flows <= DUMBBELL_MAX_SENDER_PORTS and spec.rtt2_s >= spec.rtt_s / 2.0):
        raise QosforgeError("the second RTT group needs flows2 <= flows <= 16 and rtt2 >= RTT/2", place="flows2",
                            hint="e.g. flows 8, flows2 4, rtt2 300us with RTT 60us")


def dumbbell(spec: DumbbellSpec) -> tuple[SwitchConfig, tuple[FlowSpec, ...], RunSpec]:
    _check(spec)
    senders = min(spec.flows, DUMBBELL_MAX_SENDER_PORTS)
    n_ports = senders + 1
    bottleneck = senders
    asic: AsicModel = ideal_asic(spec.buffer_bytes * n_ports)
    pool = PoolConfig("buffer_pool:dumbbell", "egress", int(spec.buffer_bytes * n_ports), False, 0)
    profile = BufferProfileConfig("buffer_profile:dumbbell", pool.object_id, 0, None, int(spec.buffer_bytes), 0, 0, 0)
    wreds: tuple[WredConfig, ...] = ()
    threshold: tuple[float, float, float] | None = None
    if spec.ecn_threshold_bytes is not None:
        threshold = (spec.ecn_threshold_bytes, spec.ecn_threshold_bytes, 1.0)
    elif spec.red_min_bytes is not None and spec.red_max_bytes is not None and spec.red_pmax is not None:
        threshold = (spec.red_min_bytes, spec.red_max_bytes, spec.red_pmax)
    ect = spec.transport not in LOSS_BASED_KINDS
    if threshold is not None:
        low, high, pmax = threshold
        # ECN transports are marked (ECN_MARK_MODE GREEN); NewReno is not ECN-capable and is
        # dropped by the same curve (GREEN_ENABLE), as RED does for non-ECT packets.
        curve = Curve(not ect, int(low), int(high), pmax)
        off = Curve(False, int(spec.buffer_bytes), int(spec.buffer_bytes), 1.0)
        wreds = (WredConfig("wred:dumbbell", 0, (curve, off, off), (ect, False, False), (curve, off, off)),)
    queues = tuple(QueueConfig(q, profile.object_id, "wred:dumbbell" if wreds and q == 0 else None, None) for q in range(8))
    ports = []
    for p in range(n_ports):
        ports.append(PortConfig(
            object_id=f"port:dumbbell{p}", name=f"dumbbell{p}", speed_bps=spec.bandwidth_bps, cable_m=0.0, peer="host",
            dscp_to_tc=(0,) * 64, dscp_to_color=(0,) * 64, tc_to_queue=(0,) * 8, tc_to_pg=(0,) * 8,
            pfc_priority_to_pg=tuple(range(8)), pfc_priority_to_queue=tuple(range(8)), pfc_enabled=0,
            queues=queues, pgs=tuple(PgConfig(g, None) for g in range(8)), port_max_rate_bytes_per_s=0,
        ))
    config = SwitchConfig("dumbbell", asic, True, (pool,), (profile,), wreds, (), tuple(ports), ("flag-configured dumbbell",))
    first_of_second = spec.flows - spec.flows2
    delays = [spec.rtt_s / 4.0] * n_ports
    for f in range(first_of_second, spec.flows):
        delays[f] = spec.rtt2_s / 2.0 - spec.rtt_s / 4.0
    flows = tuple(
        FlowSpec(
            kind=spec.transport, src_port=f % senders, dst_port=bottleneck, dscp=0,
            packet_bytes=spec.packet_bytes, ect=ect,
            ack_delay_s=(spec.rtt2_s if f >= first_of_second else spec.rtt_s) / 2.0,
            # Staggered starts within one RTT avoid an artificial synchronised first window.
            start_s=spec.rtt_s * f / spec.flows,
            beta=spec.tbtcp_beta, window_reduction_r=spec.tbtcp_r,
        )
        for f in range(spec.flows)
    )
    transport = TransportParams() if spec.rto_min_s is None else TransportParams(rto_min_s=spec.rto_min_s)
    band = threshold[0] / 16 if threshold is not None else spec.packet_bytes
    run = RunSpec(
        duration_s=spec.duration_s, warmup_s=spec.warmup_s, seed=spec.seed, monitors=((bottleneck, 0),),
        link_delays_s=tuple(delays), transport=transport, band_bytes=max(band, 1.0),
    )
    return config, flows, run


def incast_flows(config: SwitchConfig, *, receiver: int, flows: int, transport: FlowKind, dscp: int, important_dscp: int | None = None,
                 size_packets: int = -1, packet_bytes: int = 1500, ack_delay_s: float, senders: tuple[int, ...] | None = None,
                 start_spread_s: float = 0.0, beta: float = 0.1, window_reduction_r: float = 4.0,
                 cnp_dscp: int | None = None, last_packet_bytes: int | None = None) -> tuple[FlowSpec, ...]:
    """``flows`` flows from the other ports (round-robin) to ``receiver``; a finite flow's last
    packet may be shorter (``last_packet_bytes``, softswitch/traffic/spec.py packets_for_payload)."""
    if not 0 <= receiver < len(config.ports):
        raise QosforgeError(f"port index {receiver} does not exist", place="--port", hint=f"0..{len(config.ports) - 1}")
    sources = senders if senders is not None else tuple(p for p in range(len(config.ports)) if p != receiver)
    if not sources:
        raise QosforgeError("the switch needs at least two ports for incast", place="--scenario", hint="use a switch with more ports")
    tlt = important_dscp is not None and transport in (*WINDOW_KINDS, "dcqcn")
    return tuple(
        FlowSpec(kind=transport, src_port=sources[f % len(sources)], dst_port=receiver, dscp=dscp, packet_bytes=packet_bytes,
                 size_packets=size_packets, last_packet_bytes=last_packet_bytes, ect=transport not in LOSS_BASED_KINDS, tlt=tlt, important_dscp=important_dscp if tlt else None,
                 ack_delay_s=ack_delay_s, start_s=start_spread_s * f / max(flows, 1), beta=beta, window_reduction_r=window_reduction_r,
                 cnp_dscp=cnp_dscp if transport == "dcqcn" else None)
        for f in range(flows)
    )


__all__ = ["DUMBBELL_MAX_SENDER_PORTS", "TRANSPORTS", "DumbbellSpec", "dumbbell", "incast_flows"]
