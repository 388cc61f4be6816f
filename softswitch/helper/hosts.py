"""``simulate --hosts``: the simulated hosts run the settings a host settings document gives
(backends/host/document.py), so the hosts the simulator runs are the hosts that are deployed.

Every NIC field of the document's ``qos`` is honoured (docs/hosts.md "simulate --hosts"):

* ``trust``: ``dscp`` sends each flow on the priority its DSCP maps to (``dscp_to_priority``,
  else mlnx_qos's DSCP >> 3). ``pcp``: the NIC takes a packet's priority from its 802.1p PCP,
  which nothing in the document sets for the flows (no VLAN egress map or RoCE service level),
  so they leave on priority 0, the default priority (IEEE 802.1Q-2018 §6.9.3 default user
  priority; Linux skb->priority 0), their PCP in an 802.1Q tag (4 B more on the wire); the
  switch still classifies them by DSCP, pauses their PG's priority, and the NIC does not stop.
* ``pfc_priorities``: the NIC honours PAUSE on those priorities only; a PAUSE of another is
  ignored and the NIC keeps sending (the switch's headroom then takes what it sends).
* ``cnp``: CNPs carry its DSCP (each switch classifies them by it) on its priority.
* ``dcqcn``: the reaction point runs on a flow only where its priority is in ``rp_priorities``
  (else CNPs do not slow it), the notification point only where it is in ``np_priorities``
  (else the receiver sends no CNP), with the document's parameters.

The kernel part (``kernel`` and each class's ``congestion_control``, ``rto_min_s`` and
``initial_window_segments``) makes each window flow's Linux TCP host (softswitch/helper/host_kernel.py):
its congestion control, ECN negotiation, minimum RTO and initial window.
"""

from __future__ import annotations

from dataclasses import replace

from qosforge.backends.host.document import HostSettingsDocument
from qosforge.errors import QosforgeError
from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.helper.host_kernel import HostModel, apply_host_kernel
from qosforge.softswitch.traffic.spec import (
    DCQCN_RATE_REFERENCE_BPS,
    FlowSpec,
    HostSettings,
    NicSettings,
    TransportParams,
)

#: The priority of a frame nothing assigns one to: 0 (IEEE 802.1Q-2018 §6.9.3;
#: Linux skb->priority).
PCP_DEFAULT_PRIORITY = 0


def host_settings(document: HostSettingsDocument) -> HostSettings:
    """The settings the world build gives every simulated host NIC."""
    qos = document.qos
    nic = NicSettings(trust=qos.trust, pfc_priorities=frozenset(qos.pfc_priorities), retransmission=qos.retransmission)
    return HostSettings(nic=nic)


def flow_priority(document: HostSettingsDocument, dscp: int) -> int:
    """The priority a host's NIC sends (and a receiving NIC files) a packet of ``dscp`` on."""
    if document.qos.trust == "pcp":
        return PCP_DEFAULT_PRIORITY
    return document.qos.priority_of(dscp)


def apply_host_settings(document: HostSettingsDocument, config: SwitchConfig, flows: tuple[FlowSpec, ...],
                        params: TransportParams, *, transport_flag: bool = False, rto_min_flag_s: float | None = None
                        ) -> tuple[tuple[FlowSpec, ...], TransportParams, HostSettings, tuple[HostModel, ...]]:
    """The flows as the document's hosts send them (priority, tag, DCQCN points, CNP DSCP and
    priority; the TCP host of their class), the transport parameters of its DCQCN, the NICs'
    settings and each TCP class's host model. ``transport_flag``: the run's ``--transport``
    chose the congestion control; ``rto_min_flag_s``: its ``--rto-min``."""
    switches = sorted({attachment.switch for attachment in document.attachments})
    if switches and config.name not in switches:
        # A document rendered for another fabric would apply its DSCP map and DCQCN steps here silently.
        raise QosforgeError(f"the document's hosts attach to {', '.join(switches)}, not to {config.name}", place="--hosts",
                            hint="render this intent's hosts: qosforge compile INTENT --target host")
    if flows and document.nic.speed_bps != config.ports[flows[0].src_port].speed_bps:
        raise QosforgeError(f"the document's NIC runs at {document.nic.speed_bps / 1e9:g} Gb/s, the simulated hosts at "
                            f"{config.ports[flows[0].src_port].speed_bps / 1e9:g} Gb/s", place="--hosts",
                            hint="use the host kind rendered for these hosts' speed (hosts/<kind>/host_settings.json)")
    dcqcn = document.qos.dcqcn
    if dcqcn is None and any(flow.kind == "dcqcn" for flow in flows):
        raise QosforgeError("the document's NIC runs no DCQCN (no qos.dcqcn), "
                            "but the simulated class is RoCE with DCQCN",
                            place="--hosts: qos.dcqcn",
                            hint="render hosts with a DCQCN NIC (host_nic: nvidia-connectx-6dx)")
    cnp = document.qos.cnp
    adjusted = []
    for flow in flows:
        priority = flow_priority(document, flow.dscp)
        flow = replace(flow, host_priority=priority, vlan_tagged=document.qos.trust == "pcp")
        if flow.kind == "dcqcn" and dcqcn is not None:
            flow = replace(flow, dcqcn_reaction_point=priority in dcqcn.rp_priorities,
                           dcqcn_notification_point=priority in dcqcn.np_priorities)
            if cnp is not None:
                flow = replace(flow, cnp_dscp=cnp.dscp, cnp_host_priority=cnp.priority)
        adjusted.append(flow)
    if dcqcn is not None and flows:
        # The engine states R_AI/R_HAI at 40 Gb/s and scales them by each sender's line rate
        # (engine/dcqcn.py): give it the document's absolute steps at the simulated line rate.
        line_bps = config.ports[flows[0].src_port].speed_bps
        scale = DCQCN_RATE_REFERENCE_BPS / line_bps
        params = replace(params, dcqcn_g=dcqcn.g, dcqcn_timer_s=dcqcn.timer_s, dcqcn_byte_counter=dcqcn.byte_counter_bytes,
                         dcqcn_f=dcqcn.fast_recovery_stages, dcqcn_rai_bps=dcqcn.rai_bps * scale, dcqcn_rhai_bps=dcqcn.rhai_bps * scale,
                         dcqcn_cnp_interval_s=dcqcn.cnp_interval_s, dcqcn_min_rate_bps=dcqcn.min_rate_bps)
    kernel_flows, models = apply_host_kernel(document, tuple(adjusted), transport_flag=transport_flag,
                                             rto_min_flag_s=rto_min_flag_s)
    return kernel_flows, params, host_settings(document), models


__all__ = ["apply_host_settings", "flow_priority", "host_settings"]
