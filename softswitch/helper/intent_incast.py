"""The ``incast`` scenario on one switch of a compiled intent: ``flows`` senders on the other
ports into one receiver port, in one traffic class, closed-loop with the class's transport
(``qosforge simulate INTENT --scenario incast``; the gNMI device tests run it too)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qosforge.errors import QosforgeError
from qosforge.softswitch.helper.compiled import CompiledSwitch
from qosforge.softswitch.traffic.spec import FlowKind, FlowSpec, RunSpec


@dataclass(frozen=True)
class IntentIncast:
    compiled: CompiledSwitch
    entry: Any
    """The class's plan entry (compiled.traffic_class)."""
    kind: FlowKind
    flows: tuple[FlowSpec, ...]
    run: RunSpec
    receiver: int
    queue: int
    packet_bytes: int


def intent_incast(intent: Path, switch_name: str | None, class_name: str | None, port_name: str | None, flows: int, transport: FlowKind | None,
                  flow_size_bytes: int | None, packet_bytes: int | None, duration_s: float, warmup_s: float, seed: int, rto_min_s: float | None,
                  assume: dict[str, str]) -> IntentIncast:
    """One switch of the intent, ``flows`` flows into one port. Without ``packet_bytes`` a lossless
    class sends the intent's lossless MTU, the frame its PFC headroom was sized for, as the fabric
    scenarios do (softswitch/helper/fabric_scenarios.py fabric_traffic); other classes 1500 B."""
    from qosforge.softswitch.helper.compiled import (
        compile_for_softswitch,
        host_transport,
        tbtcp_host_settings,
    )
    from qosforge.softswitch.helper.host_kernel import class_transport_params
    from qosforge.softswitch.helper.single_switch import incast_flows
    from qosforge.softswitch.traffic.spec import HEADER_BYTES, packets_for_payload

    if not intent.is_file():
        raise QosforgeError(f"no such file: {intent}", place="INTENT", hint="give an intent YAML, e.g. examples/tlt-softswitch.yaml")
    compiled = compile_for_softswitch(intent, switch_name, assume=assume)
    entry = compiled.traffic_class(class_name)
    receiver = compiled.port_index(port_name)
    kind = transport if transport else host_transport(entry)
    beta, window_r = tbtcp_host_settings(entry)
    config = compiled.config
    packet = packet_bytes if packet_bytes is not None else (int(compiled.design.lossless_mtu_bytes) if entry.lossless else 1500)
    size_packets, last_bytes = (-1, None) if flow_size_bytes is None else packets_for_payload(flow_size_bytes, packet, HEADER_BYTES[kind])
    forward = 2 * config.ports[receiver].cable_delay_s
    # The intent's RTT covers the fabric's longest path; what the one switch does not carry
    # (other hops, the reverse path) becomes the ACK delay.
    ack_delay = max(entry.rtt_s.value - forward, forward)
    flow_specs = incast_flows(config, receiver=receiver, flows=flows, transport=kind, dscp=entry.dscp[0],
                              important_dscp=entry.important_dscp[0] if entry.important_dscp else None, size_packets=size_packets,
                              packet_bytes=packet, ack_delay_s=ack_delay, beta=beta, window_reduction_r=window_r,
                              cnp_dscp=compiled.cnp_dscp, last_packet_bytes=last_bytes)
    queue = config.ports[receiver].tc_to_queue[entry.traffic_class]
    # The class's TCP hosts as the intent states them (--rto-min over the minimum RTO).
    params = class_transport_params(entry, rto_min_s)
    # The compiled switch runs the PFC watchdog its SAI program configures (PFC_TC_DLD/DLR_INTERVAL,
    # ENABLE_PFC_DLDR), as the switch with that PFC_WD config does; it acts only on a priority
    # paused for the whole detection interval, which no incast's short pauses are.
    run = RunSpec(duration_s=duration_s, warmup_s=warmup_s, seed=seed, monitors=((receiver, queue),), transport=params, pfc_watchdog=True)
    return IntentIncast(compiled, entry, kind, flow_specs, run, receiver, queue, packet)


__all__ = ["IntentIncast", "intent_incast"]
