"""``simulate --hosts``: the simulated hosts run the settings a host settings document gives
(backends/host/document.py), so the hosts the simulator runs are the hosts that are deployed.

From the document: each flow's NIC priority (its DSCP-to-priority map: the NIC queue a PAUSE of
that priority stops), the CNPs' priority, and DCQCN's reaction/notification-point parameters.
The engine's host NICs stop every priority a PAUSE names; a document that disables PFC on the
priority a flow is sent on while the switch pauses it describes a NIC that ignores PAUSE, which
the engine does not model: that run is refused rather than simulated wrongly.
"""

from __future__ import annotations

from dataclasses import replace

from qosforge.backends.host.document import HostSettingsDocument
from qosforge.errors import QosforgeError
from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.traffic.spec import DCQCN_RATE_REFERENCE_BPS, FlowSpec, TransportParams


def _paused(config: SwitchConfig, port: int, dscp: int) -> tuple[int, ...]:
    """The priorities switch port ``port`` pauses for the PG ``dscp`` lands in."""
    ingress = config.ports[port]
    tc = ingress.dscp_to_tc[dscp]
    pg = ingress.tc_to_pg[tc]
    return tuple(p for p in range(8) if (ingress.pfc_enabled >> p) & 1 and ingress.pfc_priority_to_pg[p] == pg)


def apply_host_settings(document: HostSettingsDocument, config: SwitchConfig, flows: tuple[FlowSpec, ...],
                        params: TransportParams) -> tuple[tuple[FlowSpec, ...], TransportParams]:
    """The flows on the document's NIC priorities and the transport parameters of its DCQCN."""
    switches = sorted({attachment.switch for attachment in document.attachments})
    if switches and config.name not in switches:
        # A document rendered for another fabric would apply its DSCP map and DCQCN steps here silently.
        raise QosforgeError(f"the document's hosts attach to {', '.join(switches)}, not to {config.name}", place="--hosts",
                            hint="render this intent's hosts: qosforge compile INTENT --target host")
    if flows and document.nic.speed_bps != config.ports[flows[0].src_port].speed_bps:
        raise QosforgeError(f"the document's NIC runs at {document.nic.speed_bps / 1e9:g} Gb/s, the simulated hosts at "
                            f"{config.ports[flows[0].src_port].speed_bps / 1e9:g} Gb/s", place="--hosts",
                            hint="use the host kind rendered for these hosts' speed (hosts/<kind>/host_settings.json)")
    adjusted = []
    for flow in flows:
        priority = document.qos.priority_of(flow.dscp)
        paused = _paused(config, flow.src_port, flow.dscp)
        if priority in paused and priority not in document.qos.pfc_priorities:
            raise QosforgeError(
                f"the hosts send DSCP {flow.dscp} on priority {priority}, which the switch pauses, but do not run PFC on it: "
                "a NIC that ignores PAUSE is not modelled by the software switch (its host NICs stop every paused priority)",
                place="--hosts", hint="lint the hosts against the switch (qosforge lint --hosts) instead; host-pfc-missing names this")
        cnp = document.qos.cnp.priority if document.qos.cnp is not None and flow.kind == "dcqcn" else None
        adjusted.append(replace(flow, host_priority=priority, cnp_host_priority=cnp))
    dcqcn = document.qos.dcqcn
    if dcqcn is not None and flows:
        # The engine states R_AI/R_HAI at 40 Gb/s and scales them by each sender's line rate
        # (engine/dcqcn.py): give it the document's absolute steps at the simulated line rate.
        line_bps = config.ports[flows[0].src_port].speed_bps
        scale = DCQCN_RATE_REFERENCE_BPS / line_bps
        params = replace(params, dcqcn_g=dcqcn.g, dcqcn_timer_s=dcqcn.timer_s, dcqcn_byte_counter=dcqcn.byte_counter_bytes,
                         dcqcn_f=dcqcn.fast_recovery_stages, dcqcn_rai_bps=dcqcn.rai_bps * scale, dcqcn_rhai_bps=dcqcn.rhai_bps * scale,
                         dcqcn_cnp_interval_s=dcqcn.cnp_interval_s, dcqcn_min_rate_bps=dcqcn.min_rate_bps)
    return tuple(adjusted), params


__all__ = ["apply_host_settings"]
