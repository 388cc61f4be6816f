"""Host rules (need ``--hosts FILE``): do the hosts and the switch agree?

A host settings document (backends/host/document.py; ``compile --target host`` writes one per host
kind, or an operator writes one for what a host really runs) says how the host's NIC classifies
(trust DSCP, DSCP -> priority), which priorities it runs PFC on, the DSCP of its CNPs, and which
congestion control each class's senders run. The switch side comes from the config's own tables:
PORT_QOS_MAP pfc_enable and its maps (DSCP_TO_TC_MAP, TC_TO_PRIORITY_GROUP_MAP,
PFC_PRIORITY_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP; sonic-yang-models sonic-port-qos-map.yang),
the queues' schedulers and WRED profiles. Where they disagree nothing fails loudly: traffic lands
in a lossy queue, PFC never stops the sender, CNPs queue behind data.

The host ports checked are those the document's ``attachments`` name (with ``--intent``, those on the
file's switch; a document whose hosts attach only to other switches is refused; a named port the
config lacks is a finding); a document without attachments is checked against every port with a
PORT_QOS_MAP entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.rules.base import rule

if TYPE_CHECKING:
    from qosforge.backends.host.document import ClassDoc, HostSettingsDocument
    from qosforge.backends.sonic.parse import PortConfig

#: Linux congestion controls that react to ECN-Echo (RFC 3168 §6.1.2: reno and cubic halve once
#: per window; dctcp by the fraction of marks, RFC 8257 §3.3) and whether they negotiate ECN on
#: their own (tcp_dctcp sets TCP_CONG_NEEDS_ECN; the others need net.ipv4.tcp_ecn = 1,
#: Documentation/networking/ip-sysctl.rst). Absent: ignores ECN or not known to react (BBR v1
#: reacts to loss and delivery rate only, not to CE marks).
ECN_REACTING = {"dctcp": True, "reno": False, "cubic": False, "d2tcp": False, "tbtcp": False, "ear": False}
#: The kernel default congestion control when the document names none (CONFIG_DEFAULT_TCP_CONG).
KERNEL_DEFAULT_CC = "cubic"


def _rdma(transport_name: str) -> bool:
    """The class's congestion control runs in a RoCE NIC (its TransportSpec, transports/)."""
    from qosforge.transports import find_transport

    known = find_transport(transport_name)
    return known is not None and known.host.nic_dcqcn

E = Severity.ERROR


def _hosts(ctx: LintContext) -> HostSettingsDocument:
    assert ctx.hosts is not None
    return ctx.hosts


def _attached(ctx: LintContext) -> list[str]:
    """The host ports the document's attachments name (with --intent, those on the file's switch:
    port names repeat across switches), in the document's order."""
    on_switch = ctx.intent.switch if ctx.intent is not None else None
    attachments = _hosts(ctx).attachments
    return list(dict.fromkeys(a.port for a in attachments if on_switch in (None, a.switch)))


def _host_ports(ctx: LintContext) -> list[PortConfig]:
    """The ports the host rules check: those the attachments name that the config has (a named
    port it lacks is ``host-attachment-port``'s finding, never a reason to check every port,
    uplinks included); every port with a PORT_QOS_MAP entry when the document names none."""
    named = _attached(ctx)
    if named:
        by_name = {p.name: p for p in ctx.parsed.ports}
        return [by_name[name] for name in named if name in by_name]
    return [p for p in ctx.parsed.ports if p.has_qos_entry]


def _paused_priorities(port: PortConfig, dscp: int) -> tuple[int | None, tuple[int, ...]]:
    """(the PG ``dscp`` lands in, the priorities the switch pauses for that PG) on ``port``."""
    tc = dict(port.maps.dscp_to_tc).get(dscp)
    if tc is None:
        return None, ()
    pg = dict(port.maps.tc_to_priority_group).get(tc, tc)
    to_pg = dict(port.maps.pfc_priority_to_priority_group)
    return pg, tuple(p for p in port.pfc_priorities if to_pg.get(p, p) == pg)


@rule(
    "host-pfc-not-lossless", E, "hosts", "host PFC priorities are lossless on the switch",
    rationale="A host NIC that runs PFC on a priority treats it as lossless: it pauses the switch when its receive buffer "
         "fills. A switch port whose pfc_enable lacks that priority (sonic-port-qos-map.yang) ignores the host's PAUSE "
         "and has no headroom for it, so the host's lossless traffic is dropped (IEEE 802.1Q §36, priority-based flow control from 802.1Qbb: both ends of a link "
         "must enable PFC on the same priorities).",
    fix="enable PFC on the same priorities at both ends: recompile the hosts (compile --target host) or the switch",
    needs="hosts",
)
def _pfc_not_lossless(ctx: LintContext) -> Iterator[Finding]:
    hosts = _hosts(ctx)
    for port in _host_ports(ctx):
        for priority in sorted(set(hosts.qos.pfc_priorities) - set(port.pfc_priorities)):
            yield _pfc_not_lossless.report(ctx, "PORT_QOS_MAP", port.name, "pfc_enable",
                             f"host kind {hosts.host_kind} runs PFC on priority {priority}, which {port.name} does not "
                             f"(pfc_enable {','.join(map(str, port.pfc_priorities)) or 'none'}): the host expects "
                             f"priority {priority} lossless, the switch drops it and ignores the host's PAUSE frames",
                             values={"priority": priority})


@rule(
    "host-pfc-missing", E, "hosts", "switch lossless priorities run PFC on the hosts",
    rationale="A switch port that pauses a priority relies on the sender to stop: a host NIC without PFC on that priority "
         "ignores the PAUSE frames, the PG fills its headroom (sized for one round trip of a sender that does stop) "
         "and drops lossless traffic (IEEE 802.1Q §36, priority-based flow control).",
    fix="run PFC on the switch's lossless priorities on every host NIC (mlnx_qos --pfc, the host target's nic-setup.sh)",
    needs="hosts",
)
def _pfc_missing(ctx: LintContext) -> Iterator[Finding]:
    hosts = _hosts(ctx)
    for port in _host_ports(ctx):
        for priority in sorted(set(port.pfc_priorities) - set(hosts.qos.pfc_priorities)):
            yield _pfc_missing.report(ctx, "PORT_QOS_MAP", port.name, "pfc_enable",
                             f"{port.name} pauses priority {priority} (lossless), but host kind {hosts.host_kind} does not run PFC "
                             f"on it (host PFC: {','.join(map(str, hosts.qos.pfc_priorities)) or 'none'}): the host ignores the "
                             "switch's PAUSE frames and the PG's headroom overflows: lossless drops",
                             values={"priority": priority})


@rule(
    "host-dscp-priority", E, "hosts", "a lossless class's DSCP rides the priority its switch PG pauses",
    rationale="With DSCP trust the switch classifies a packet by its DSCP (DSCP_TO_TC_MAP, TC_TO_PRIORITY_GROUP_MAP; sonic-yang-models sonic-port-qos-map.yang) but "
         "pauses the priorities mapped to the PG (PFC_PRIORITY_TO_PRIORITY_GROUP_MAP); the host NIC stops only the "
         "priority it sent the packet on (its own DSCP-to-priority map, mlnx_qos --dscp2prio). A class sent on another "
         "priority than the one its PG pauses is never stopped and overflows the headroom.",
    fix="map the class's DSCPs to the switch's PFC priority on the host (mlnx_qos --dscp2prio set,DSCP,PRIORITY)",
    needs="hosts",
)
def _dscp_priority(ctx: LintContext) -> Iterator[Finding]:
    hosts = _hosts(ctx)
    for port in _host_ports(ctx):
        for klass in hosts.classes:
            for dscp in klass.dscp:
                pg, paused = _paused_priorities(port, dscp)
                if pg is None or not paused:
                    continue  # lossy on the switch: no PAUSE the host's priority must match
                priority = hosts.qos.priority_of(dscp)
                if priority in paused:
                    continue
                yield _dscp_priority.report(ctx, "PORT_QOS_MAP", port.name, "dscp_to_tc_map",
                                 f"class '{klass.name}': the host sends DSCP {dscp} on priority {priority}, but {port.name} puts it "
                                 f"in lossless PG {pg}, which pauses priority {','.join(map(str, paused))}: the switch's PAUSE "
                                 "never stops these packets and the PG's headroom overflows",
                                 values={"dscp": dscp, "host_priority": priority, "pg": pg})


@rule(
    "host-cnp-dscp", E, "hosts", "the hosts' CNP DSCP reaches the switch's strict-priority CNP queue",
    rationale="DCQCN's notification point sends CNPs with a configured DSCP (mlx5 ecn/roce_np/cnp_dscp); the switch must "
         "map that DSCP to a strict-priority queue so CNPs overtake the congested data (DCQCN §3.1: the NP's "
         "feedback must arrive quickly; SONiC and NVIDIA RoCE defaults: DSCP 48 on a strict queue).",
    fix="use the intent's design.cnp_dscp on both sides (compile --target host renders ecn/roce_np/cnp_dscp)",
    needs="hosts",
)
def _cnp_dscp(ctx: LintContext) -> Iterator[Finding]:
    hosts = _hosts(ctx)
    if not any(_rdma(c.transport) for c in hosts.classes):
        return
    schedulers = {s.name: s for s in ctx.parsed.schedulers}
    for port in _host_ports(ctx):
        if hosts.qos.cnp is None:
            yield _cnp_dscp.report(ctx, "PORT_QOS_MAP", port.name, "dscp_to_tc_map",
                             f"host kind {hosts.host_kind} runs RoCE classes but names no CNP DSCP: its CNPs carry the NIC's "
                             "default DSCP, which this port may queue behind data", values={})
            continue
        dscp = hosts.qos.cnp.dscp
        tc = dict(port.maps.dscp_to_tc).get(dscp)
        queue_index = dict(port.maps.tc_to_queue).get(tc, tc) if tc is not None else None
        queue = next((q for q in port.queues if q.index == queue_index), None)
        scheduler = schedulers.get(queue.scheduler or "") if queue is not None else None
        if scheduler is not None and scheduler.kind == "STRICT":
            continue
        where = (f"queue {queue_index} ({scheduler.kind if scheduler is not None and scheduler.kind else 'no scheduler'})"
                 if queue_index is not None else "no queue (the DSCP is not in the port's DSCP_TO_TC_MAP)")
        yield _cnp_dscp.report(ctx, "PORT_QOS_MAP", port.name, "dscp_to_tc_map",
                         f"host kind {hosts.host_kind} sends CNPs with DSCP {dscp}, which {port.name} maps to {where}, not a "
                         "strict-priority CNP queue: CNPs wait behind the data they should slow down",
                         values={"cnp_dscp": dscp})


@rule(
    "host-attachment-port", E, "hosts", "every port the host document attaches to exists",
    rationale="The host rules compare a host's settings with the switch port it attaches to (its "
              "PORT entry and PORT_QOS_MAP, sonic-yang-models sonic-port.yang and "
              "sonic-port-qos-map.yang). An attachment to a port the config does not have (a "
              "typo, another switch's config, a renamed port) checks nothing of that host, and "
              "checking every port instead would hold the uplinks to host settings.",
    fix="name the switch's host ports in the document's attachments (compile --target host "
        "writes them), or lint the config of the switch they are on",
    needs="hosts",
)
def _attachment_port(ctx: LintContext) -> Iterator[Finding]:
    on_switches = {a.switch for a in _hosts(ctx).attachments}
    if ctx.intent is None and len(on_switches) > 1:
        # Port names repeat across switches: without --intent, which of them this config is
        # cannot be told, so a port another switch has is no finding (docs/hosts.md).
        return
    have = {p.name for p in ctx.parsed.ports}
    for name in _attached(ctx):
        if name not in have:
            yield _attachment_port.report(
                ctx, "PORT", name, None,
                f"host kind {_hosts(ctx).host_kind} attaches to port {name}, which this config "
                "does not have: nothing of those hosts is checked", values={"port": name})


@rule(
    "host-trust-pcp", E, "hosts", "hosts classify by DSCP where the switch trusts DSCP",
    rationale="A switch port with a DSCP_TO_TC_MAP classifies by DSCP and pauses the priorities of "
              "the PG the DSCP lands in (sonic-yang-models sonic-port-qos-map.yang). A NIC that "
              "trusts PCP (mlnx_qos --trust pcp) ignores its DSCP-to-priority map and sends on "
              "the priority of the packet's VLAN PCP (untagged: 0), so the priority the switch "
              "pauses is not the one the host stops (IEEE 802.1Q §36.1.3: PFC pauses a priority).",
    fix="trust DSCP on the hosts (mlnx_qos --trust dscp; compile --target host renders it)",
    needs="hosts",
)
def _trust_pcp(ctx: LintContext) -> Iterator[Finding]:
    hosts = _hosts(ctx)
    if hosts.qos.trust != "pcp":
        return
    for port in _host_ports(ctx):
        if port.maps.dscp_to_tc:
            yield _trust_pcp.report(
                ctx, "PORT_QOS_MAP", port.name, "dscp_to_tc_map",
                f"host kind {hosts.host_kind} trusts PCP, but {port.name} classifies by DSCP "
                f"(dscp_to_tc_map {port.map_names.dscp_to_tc or 'global'}): the hosts' priorities "
                "do not follow their DSCPs, so the switch's PAUSE may not stop the traffic it is "
                "for", values={"trust": "pcp"})


@rule(
    "host-cnp-lossless", E, "hosts", "CNPs ride a lossy priority",
    rationale="DCQCN's congestion notifications must reach the sender while the data they slow "
              "down is queued (DCQCN §3.1: CNPs are sent at high priority; NVIDIA's RoCE defaults "
              "send them on priority 6, DSCP 48, a lossy strict queue). On a PFC priority, at the "
              "host or on the switch, CNPs are paused by the very congestion they report, and a "
              "pause then waits for its own feedback.",
    fix="send CNPs on a priority and DSCP that neither the hosts nor the switch run PFC on (the "
        "intent's design.cnp_dscp; mlx5 ecn/roce_np/cnp_802p_prio)",
    needs="hosts",
)
def _cnp_lossless(ctx: LintContext) -> Iterator[Finding]:
    hosts = _hosts(ctx)
    cnp = hosts.qos.cnp
    if cnp is None or not any(_rdma(c.transport) for c in hosts.classes):
        return
    for port in _host_ports(ctx):
        pg, paused = _paused_priorities(port, cnp.dscp)
        if cnp.priority in hosts.qos.pfc_priorities:
            where = f"on priority {cnp.priority}, which the hosts run PFC on"
        elif paused:
            where = (f"with DSCP {cnp.dscp}, which {port.name} puts in lossless PG {pg} (pauses "
                     f"priority {','.join(map(str, paused))})")
        else:
            continue
        yield _cnp_lossless.report(
            ctx, "PORT_QOS_MAP", port.name, "pfc_enable",
            f"host kind {hosts.host_kind} sends CNPs {where}: a PAUSE holds the congestion "
            "notifications back behind the data they should slow down",
            values={"cnp_dscp": cnp.dscp, "cnp_priority": cnp.priority})


@rule(
    "host-kernel-cc", Severity.WARNING, "hosts",
    "the kernel's default congestion control is the one ECN-marked TCP classes run",
    rationale="net.ipv4.tcp_congestion_control is what every TCP socket runs unless the "
              "application selects another (TCP_CONGESTION, tcp(7)) or the route does (congctl, "
              "ip-route(8)); a passive open runs the listener's. DCTCP works only when both ends "
              "run it (RFC 8257 §5; Linux Documentation/networking/dctcp.rst): a host whose "
              "default is another runs the class's congestion control only where something "
              "selects it per socket or route.",
    fix="set net.ipv4.tcp_congestion_control to the class's (the host target's 99-qosforge.conf), "
        "or select it per socket or route on both ends",
    needs="hosts",
)
def _kernel_cc(ctx: LintContext) -> Iterator[Finding]:
    hosts = _hosts(ctx)
    default = hosts.kernel.tcp_congestion_control
    if default is None:
        return
    for klass in hosts.classes:
        if _rdma(klass.transport) or klass.congestion_control in (None, default):
            continue
        for port in _marking_ports(ctx, klass):
            yield _kernel_cc.report(
                ctx, "PORT_QOS_MAP", port.name, "dscp_to_tc_map",
                f"class '{klass.name}' runs {klass.congestion_control}, but host kind "
                f"{hosts.host_kind}'s kernel default is {default}: only sockets or routes that "
                f"select {klass.congestion_control} run it, on both ends",
                values={"dscp": klass.dscp[0], "class_cc": str(klass.congestion_control),
                        "kernel_cc": default})


def _marking_queue(ctx: LintContext, port: PortConfig, klass: ClassDoc) -> tuple[int, str] | None:
    """(queue, WRED profile) where ``port`` ECN-marks ``klass``'s first DSCP, or None."""
    tc = dict(port.maps.dscp_to_tc).get(klass.dscp[0])
    if tc is None:
        return None
    queue_index = dict(port.maps.tc_to_queue).get(tc, tc)
    queue = next((q for q in port.queues if q.index == queue_index), None)
    wred = ctx.parsed.wred(queue.wred_profile) if queue is not None else None
    if wred is None or not any(curve.mark for curve in wred.curves):
        return None
    return queue_index, wred.name


def _marking_ports(ctx: LintContext, klass: ClassDoc) -> list[PortConfig]:
    return [port for port in _host_ports(ctx) if _marking_queue(ctx, port, klass) is not None]


def _reacts(hosts: HostSettingsDocument, klass: ClassDoc, priority: int) -> str | None:
    """Why ``klass``'s senders ignore ECN marks, or None when they react to them."""
    if _rdma(klass.transport):
        dcqcn = hosts.qos.dcqcn
        if dcqcn is None or priority not in dcqcn.rp_priorities:
            return f"its RoCE senders run no DCQCN reaction point on priority {priority} (roce_rp enable), so CNPs change nothing"
        if priority not in dcqcn.np_priorities:
            return f"its receivers run no DCQCN notification point on priority {priority} (roce_np enable): no CNP is sent"
        return None
    # Linux negotiates ECN when the SYN's sender asks (net.ipv4.tcp_ecn = 1, or a congestion
    # control that needs ECN: tcp_ecn_send_syn, net/ipv4/tcp_output.c) and the listener accepts
    # (tcp_ecn 1 or 2, or its congestion control needs ECN: tcp_ecn_create_request,
    # net/ipv4/tcp_input.c); a route with features ecn does both (RTAX_FEATURE_ECN, the
    # receivers' routes back to the class's peers as tcp-routes.sh sets them). The class's
    # receivers are hosts of this document; their listeners run the kernel's default congestion
    # control.
    default = hosts.kernel.tcp_congestion_control or KERNEL_DEFAULT_CC
    cc = klass.congestion_control or default
    tcp_ecn = hosts.kernel.tcp_ecn
    shown_ecn = tcp_ecn if tcp_ecn is not None else "2 (default)"
    if cc not in ECN_REACTING:
        return f"its senders run {cc}, which does not react to ECN marks"
    if not ECN_REACTING[cc] and tcp_ecn != 1 and not klass.route_ecn:
        return (f"its senders run {cc} with net.ipv4.tcp_ecn = {shown_ecn}: "
                "they do not request ECN, send Not-ECT packets, and the queue drops instead of marking")
    if tcp_ecn == 0 and not ECN_REACTING.get(default, False) and not klass.route_ecn:
        return (f"its receivers refuse ECN (net.ipv4.tcp_ecn = 0, listeners on the kernel default "
                f"{default}): no connection negotiates ECN, so even {cc} senders send Not-ECT "
                "packets and the queue drops instead of marking")
    return None


@rule(
    "host-cc-ignores-ecn", E, "hosts", "ECN-marked classes' senders react to ECN",
    rationale="A queue that ECN-marks a class only helps if the class's senders react: DCTCP needs tcp_dctcp at both ends "
         "(RFC 8257 §3.2-3.3, §5; Linux Documentation/networking/dctcp.rst), classic TCP reacts only with ECN "
         "negotiated (net.ipv4.tcp_ecn = 1 or its routes' features ecn, RFC 3168 §6.1.1; the default 2 never requests it, so its Not-ECT packets "
         "are dropped instead of marked), RoCE needs DCQCN's reaction and notification points on the class's priority "
         "(mlx5 ecn/roce_rp and roce_np enable). Otherwise marks are ignored and the queue grows to drops or PFC.",
    fix="run the class's congestion control on its senders and receivers, with ECN negotiated: its "
        "routes' features ecn or a net.ipv4.tcp_ecn that asks (the host target's tcp-routes.sh, "
        "99-qosforge.conf and nic-setup.sh)",
    needs="hosts",
)
def _cc_ignores_ecn(ctx: LintContext) -> Iterator[Finding]:
    hosts = _hosts(ctx)
    for port in _host_ports(ctx):
        for klass in hosts.classes:
            marking = _marking_queue(ctx, port, klass)
            if marking is None:
                continue
            queue_index, wred = marking
            dscp = klass.dscp[0]
            reason = _reacts(hosts, klass, hosts.qos.priority_of(dscp))
            if reason is not None:
                yield _cc_ignores_ecn.report(ctx, "PORT_QOS_MAP", port.name, "dscp_to_tc_map",
                                 f"class '{klass.name}' (DSCP {dscp}) is ECN-marked in queue {queue_index} of {port.name} "
                                 f"(WRED {wred}), but {reason}",
                                 values={"dscp": dscp, "queue": queue_index})


__all__: list[str] = []
