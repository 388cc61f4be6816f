"""Intent -> IR: resolve the topology, plan classes, size buffers, derive thresholds.

Switches with the same signature (vendor profile and the speed and cable of every port) get the
same computed plan: it is computed once and only the switch name and port peers differ, which
keeps large generated fabrics linear in the number of distinct switch kinds, not switches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from qosforge.compiler.buffers import (
    EGRESS_LOSSLESS_PROFILE,
    EGRESS_LOSSY_PROFILE,
    INGRESS_LOSSY_PROFILE,
    BufferPlan,
    plan_buffers,
)
from qosforge.compiler.capabilities import apply_target_capabilities, check_targets
from qosforge.compiler.deadlock import check_deadlock_free, check_routes_reach_every_host
from qosforge.compiler.host_tcp import host_tcp
from qosforge.compiler.hosts import host_nic_lookup
from qosforge.compiler.intent import ClassSpec, Intent
from qosforge.compiler.loader import SourceMap
from qosforge.compiler.plan import TRIM_CLASS_NAME, ClassPlan, PlannedClass, plan_classes
from qosforge.compiler.ports import check_port_layout
from qosforge.compiler.reachable import check_reachable, rtt_input_path
from qosforge.compiler.thresholds import class_thresholds, wred_profile_name
from qosforge.compiler.topology import (
    FORWARDING_LATENCY_UNKNOWN,
    ResolvedSwitch,
    ResolvedTopology,
    resolve_topology,
)
from qosforge.compiler.trimming import (
    EGRESS_LOSSY_TRIM_PROFILE,
    EGRESS_TRIM_PROFILE,
    TrimPlan,
    plan_trimming,
)
from qosforge.errors import QosforgeError
from qosforge.ir import (
    ClassIR,
    Derived,
    FabricIR,
    PfcWatchdogIR,
    PortIR,
    PriorityGroupIR,
    QosMapsIR,
    QueueIR,
    SchedulerIR,
    SwitchIR,
    WredIR,
    derived_constant,
)
from qosforge.provenance import Derivation, Provenance, input_value
from qosforge.transports import transport
from qosforge.units import format_rate
from qosforge.vendor_profiles import load_vendor_profile
from qosforge.vendor_profiles.schema import VendorProfile

SOURCE_RTT = "qosforge topology model (compiler/topology.py): 2 x sum of one-way link latencies on the longest host-to-host path + serialisation of one MTU out and one ACK back per hop"
SOURCE_PFCWD = "SONiC `pfcwd start_default` base values (sonic-swss orchagent/pfcwdorch.cpp, the SONiC sources)"
PFCWD_POLL_INTERVAL_MS = 200


#: Model input names (models/*, their error places) -> the intent design field that gives them.
_DESIGN_INPUTS = {
    "alpha": "alpha", "congested_ports": "congested_ports",
    "lossless_mtu_bytes": "lossless_mtu", "port_mtu_bytes": "port_mtu",
    "small_packet_percent": "small_packet_percent", "small_packet_fraction": "small_packet_percent",
}


#: A port's priority groups and queues (compile.py _port_parts).
_PortParts = tuple[tuple[PriorityGroupIR, ...], tuple[QueueIR, ...]]


@dataclass(frozen=True)
class _SwitchTemplate:
    """Everything about a switch that depends only on its signature."""

    buffer_plan: BufferPlan
    wred_profiles: tuple[WredIR, ...]
    schedulers: tuple[SchedulerIR, ...]
    classes: tuple[ClassIR, ...]
    queue_wred: dict[tuple[float, int], str | None]
    buffer_bytes: Derived
    trim: TrimPlan | None = None
    port_parts: dict[tuple[float, float], _PortParts] = field(default_factory=dict)
    """Each (speed, cable) port kind's priority groups and queues, built for its first port and
    shared (frozen IR) by the rest: a 10,000-switch fabric has a few kinds but 300,000 ports."""


def compile_intent(
    intent: Intent,
    source_map: SourceMap,
    *,
    switches: tuple[str, ...] = (),
    accepted_approximations: tuple[str, ...] = (),
    targets: tuple[str, ...] | None = None,
) -> FabricIR:
    """Compile the intent for ``targets`` (default: the intent's ``targets``).

    The returned fabric's ``switches`` are the full plan; ``fabric.for_target(t)`` is what target
    ``t`` renders, with its capability gaps and accepted approximations applied.
    """
    chosen = tuple(dict.fromkeys(targets)) if targets else tuple(intent.targets)
    check_targets(chosen, source_map, from_cli=bool(targets))
    topology = resolve_topology(intent, source_map)
    selected = _select(topology, switches, source_map)
    profiles = _load_profiles(intent, selected, source_map)
    _check_ports(intent, selected, profiles, source_map)
    _check_congested_ports(intent, topology, source_map)
    _check_explicit_ecn(intent, topology, source_map)
    host_nic = host_nic_lookup(intent, topology, source_map)
    rtt_by_class = {spec.name: _class_rtt(spec, topology, intent) for spec in intent.classes}
    plans: dict[str, ClassPlan] = {}
    # Deadlock freedom is the whole fabric's, whichever switches are compiled (compiler/deadlock).
    first_profile = selected[0].profile
    plans[first_profile] = plan_classes(intent, source_map, profiles[first_profile])
    healthy_routes = check_routes_reach_every_host(topology, source_map)
    check_deadlock_free(intent, topology, source_map, plans[first_profile], healthy_routes)
    templates: dict[tuple[str, tuple[tuple[float, float], ...]], _SwitchTemplate] = {}
    approximations = tuple(sorted(set(intent.approximations) | set(accepted_approximations)))
    compiled: list[SwitchIR] = []
    for switch in selected:
        profile = profiles[switch.profile]
        if switch.profile not in plans:
            plans[switch.profile] = plan_classes(intent, source_map, profile)
        plan = plans[switch.profile]
        if switch.signature not in templates:
            templates[switch.signature] = _template(intent, source_map, switch, profile, plan, rtt_by_class)
        template = templates[switch.signature]
        compiled.append(_assemble(intent, switch, profile, plan, template, host_nic))
    result = FabricIR(name=intent.metadata.name, source_file=source_map.file, switches=tuple(compiled), targets=chosen)
    return apply_target_capabilities(result, intent, source_map, approximations)


def _check_explicit_ecn(intent: Intent, topology: ResolvedTopology, source_map: SourceMap) -> None:
    """Every explicit ECN entry names a speed some port of the topology runs at: a marking for a
    speed no port has would silently never apply."""
    speeds = sorted({port.speed_bps for switch in topology.switches for port in switch.ports})
    for index, spec in enumerate(intent.classes):
        for position, entry in enumerate(spec.ecn or ()):
            if not any(abs(entry.speed - speed) <= 1e-9 * speed for speed in speeds):
                raise source_map.error(("classes", index, "ecn", position, "speed"),
                                       f"class '{spec.name}': no port of the topology runs at {format_rate(entry.speed)}",
                                       f"give the marking for a speed the topology has: {', '.join(format_rate(s) for s in speeds)}")


def _select(topology: ResolvedTopology, names: tuple[str, ...], source_map: SourceMap) -> tuple[ResolvedSwitch, ...]:
    if not names:
        return topology.switches
    known = {s.name: s for s in topology.switches}
    missing = [n for n in names if n not in known]
    if missing:
        sample = ", ".join(sorted(known)[:8]) + (" ..." if len(known) > 8 else "")
        raise QosforgeError(f"no switch named {missing[0]!r} in {source_map.file}", place="--switch", hint=f"switches: {sample}")
    return tuple(known[n] for n in names)


def _load_profiles(intent: Intent, switches: tuple[ResolvedSwitch, ...], source_map: SourceMap) -> dict[str, VendorProfile]:
    profiles: dict[str, VendorProfile] = {}
    for switch in switches:
        if switch.profile in profiles:
            continue
        try:
            profiles[switch.profile] = load_vendor_profile(switch.profile)
        except QosforgeError as error:
            raise source_map.error(_profile_path(intent, switch), error.message, error.hint) from None
    return profiles


def _check_ports(intent: Intent, switches: tuple[ResolvedSwitch, ...], profiles: dict[str, VendorProfile], source_map: SourceMap) -> None:
    """Every switch's ports must fit its ASIC's front panel (compiler/ports.py); checked once per
    switch kind (profile and port speeds), so large generated fabrics stay fast."""
    checked: set[tuple[str, tuple[float, ...]]] = set()
    for switch in switches:
        speeds = tuple(sorted(p.speed_bps for p in switch.ports))
        if (switch.profile, speeds) in checked:
            continue
        checked.add((switch.profile, speeds))
        problem = check_port_layout(speeds, profiles[switch.profile])
        if problem is not None:
            path, hint = _port_problem_place(intent, switch, problem.speed_bps)
            raise source_map.error(path, f"switch '{switch.name}': {problem.message}", hint)


_FEWER_PORTS = "or a vendor profile with more ports (qosforge profiles list)"


def switch_ports_path(intent: Intent, source_map: SourceMap, switch_name: str) -> tuple[str | int, ...]:
    """The intent field that gives ``switch_name`` its ports (its port list, or the generator
    field that sets its port count), for errors found after compiling (a backend's port layout)."""
    switch = next((s for s in resolve_topology(intent, source_map).switches if s.name == switch_name), None)
    if switch is None:
        return ("topology",)
    path, _hint = _port_problem_place(intent, switch, None)
    return path


def _port_problem_place(intent: Intent, switch: ResolvedSwitch, speed_bps: float | None) -> tuple[tuple[str | int, ...], str]:
    """Where in the intent a port-layout problem of ``switch`` comes from, and what to change."""
    speed_hint = f"use a speed {switch.profile} runs at (qosforge profiles show {switch.profile}) or another profile"
    generator = "leaf_spine" if intent.topology.leaf_spine is not None else "clos" if intent.topology.clos is not None else None
    if generator is None:
        index = next(i for i, s in enumerate(intent.topology.switches or []) if s.name == switch.name)
        ports = (intent.topology.switches or [])[index].ports
        position = next((i for i, p in enumerate(ports) if speed_bps is not None and p.speed == speed_bps), 0)
        path: tuple[str | int, ...] = ("topology", "switches", index, "ports", position if speed_bps is not None else 0)
        return path, speed_hint if speed_bps is not None else f"list fewer ports on this switch {_FEWER_PORTS}"
    spec = intent.topology.leaf_spine or intent.topology.clos
    assert spec is not None
    if speed_bps is not None:
        link = "host_link" if switch.role == "leaf" and spec.host_link.speed == speed_bps else "fabric_link"
        if switch.role != "leaf" and generator == "clos" and intent.topology.clos is not None and intent.topology.clos.super_link is not None and intent.topology.clos.super_link.speed == speed_bps:
            link = "super_link"
        return ("topology", generator, link, "speed"), speed_hint
    if switch.role == "leaf":
        return ("topology", generator, "hosts_per_leaf"), f"lower hosts_per_leaf or the spine count {_FEWER_PORTS}"
    if generator == "leaf_spine":
        return ("topology", "leaf_spine", "leaves"), f"use the three-tier 'clos' generator to spread the leaves over pods, fewer leaves, {_FEWER_PORTS}"
    if switch.role == "spine":
        return ("topology", "clos", "leaves_per_pod"), f"lower leaves_per_pod or super_spines per plane {_FEWER_PORTS}"
    return ("topology", "clos", "pods"), f"a super-spine has one port per pod: use fewer pods {_FEWER_PORTS}"


def _profile_path(intent: Intent, switch: ResolvedSwitch) -> tuple[str | int, ...]:
    clos = intent.topology.clos
    if clos is not None:
        if switch.role == "super-spine" and clos.super_spine_profile is not None:
            return ("topology", "clos", "super_spine_profile")
        if switch.role != "leaf" and clos.spine_profile is not None:
            return ("topology", "clos", "spine_profile")
        return ("topology", "clos", "leaf_profile")
    if intent.topology.leaf_spine is not None:
        if switch.role == "spine" and intent.topology.leaf_spine.spine_profile is not None:
            return ("topology", "leaf_spine", "spine_profile")
        return ("topology", "leaf_spine", "leaf_profile")
    index = next(i for i, s in enumerate(intent.topology.switches or []) if s.name == switch.name)
    return ("topology", "switches", index, "profile")


def _phy_delay_by_kind(switch: ResolvedSwitch) -> dict[tuple[float, float], float]:
    """The longest PHY delay among each (speed, cable) kind of the switch's ports."""
    longest: dict[tuple[float, float], float] = {}
    for port in switch.ports:
        kind = (port.speed_bps, port.cable_m)
        longest[kind] = max(longest.get(kind, 0.0), port.phy_delay_s)
    return longest


def _class_rtt(spec: ClassSpec, topology: ResolvedTopology, intent: Intent) -> Derived:
    if spec.rtt is not None:
        return derived_constant(spec.rtt, "s", quantity="rtt_s", formula="intent classes[].rtt", source="operator-given RTT")
    rtt = topology.rtt_s(intent.design.mtu)
    return Derived(
        value=rtt,
        unit="s",
        quantity="rtt_s",
        provenance=Provenance(
            model="topology_rtt",
            inputs=(
                input_value("hops", float(topology.hops), "links"),
                input_value("one_way_latency_s", sum(topology.path_link_latencies_s), "s"),
                input_value("mtu_bytes", intent.design.mtu, "B"),
            ),
            derivations=(Derivation("rtt_s", "2*sum(link latency) + sum(MTU*8/rate) + sum(84B*8/rate)",
                                    SOURCE_RTT + ("; " + FORWARDING_LATENCY_UNKNOWN if topology.latency_derived_from_wire else "")),),
        ),
    )


def _class_error(source_map: SourceMap, intent: Intent, spec: ClassSpec, error: QosforgeError, rate_bps: float) -> QosforgeError:
    index = intent.classes.index(spec)
    field: tuple[str | int, ...] = ("classes", index)
    place = error.place or ""
    if place == "rtt":  # the RTT drives the refused value: point at where it comes from
        return source_map.error(rtt_input_path(intent, spec), f"class '{spec.name}' at {rate_bps / 1e9:g}G: {error.message}", error.hint)
    if spec.tlt is not None and ("threshold" in place or "tlt" in place or "flows" in place):
        field += ("tlt",)
    else:
        block = transport(spec.transport).block
        if block is not None and spec.parameters() is not None:
            field += (block,)
    detail = f" [{place}]" if place else ""
    return source_map.error(field, f"class '{spec.name}' at {rate_bps / 1e9:g}G: {error.message}{detail}", error.hint)


def _check_congested_ports(intent: Intent, topology: ResolvedTopology, source_map: SourceMap) -> None:
    """M counts a switch's own ports congested at once (TLT §4.2; the dynamic-threshold share of
    Choudhury & Hahne): an M above every switch's port count describes no state the fabric can be
    in, so every capacity derived from it would be for a switch that is not there."""
    most = max(len(switch.ports) for switch in topology.switches)
    if intent.design.congested_ports > most:
        raise source_map.error(
            ("design", "congested_ports"),
            f"M = {intent.design.congested_ports} congested ports, but no switch has more than {most} ports",
            f"set design.congested_ports to at most {most}, the ports that can congest at once",
        )


def _switch_design(intent: Intent, switch: ResolvedSwitch) -> Intent:
    """The intent as one switch sees it: M is at most the switch's own port count (a 2-port spine
    cannot have 8 ports congested), so its shares and capacities are for a state it can be in; the
    report's derivations show the M each switch used."""
    if intent.design.congested_ports <= len(switch.ports):
        return intent
    design = intent.design.model_copy(update={"congested_ports": len(switch.ports)})
    return intent.model_copy(update={"design": design})


def _template(
    intent: Intent,
    source_map: SourceMap,
    switch: ResolvedSwitch,
    profile: VendorProfile,
    plan: ClassPlan,
    rtt_by_class: dict[str, Derived],
) -> _SwitchTemplate:
    intent = _switch_design(intent, switch)
    lossless = [c for c in plan.classes if c.lossless]
    try:
        buffer_plan = plan_buffers(
            profile=profile,
            design=intent.design,
            port_kinds=tuple((p.speed_bps, p.cable_m) for p in switch.ports),
            phy_delay_by_kind=_phy_delay_by_kind(switch),
            lossless_pg_count=len(lossless),
            has_lossless=bool(lossless),
        )
    except QosforgeError as error:
        path = _profile_path(intent, switch)
        if error.place == "classes.lossless" and lossless and lossless[0].spec is not None:
            path = ("classes", intent.classes.index(lossless[0].spec), "lossless")
        elif error.place in _DESIGN_INPUTS:  # a design value the models refuse
            path = ("design", _DESIGN_INPUTS[error.place])
        raise source_map.error(path, f"switch '{switch.name}': {error.message}", error.hint) from None
    speeds = sorted({p.speed_bps for p in switch.ports})
    wred: dict[str, WredIR] = {}
    classes: list[ClassIR] = []
    queue_wred: dict[tuple[float, int], str | None] = {}
    for planned in plan.classes:
        spec = planned.spec
        for rate in speeds:
            if spec is None:
                queue_wred[(rate, planned.queue)] = None
                continue
            rtt = rtt_by_class[spec.name]
            try:
                thresholds = class_thresholds(
                    spec,
                    rate_bps=rate,
                    rtt_s=rtt.value,
                    design=intent.design,
                    profile=profile,
                    shared_buffer_bytes=buffer_plan.mmu_shared_bytes.value,
                    per_port_share_bytes=buffer_plan.per_port_share_bytes.value,
                )
            except QosforgeError as error:
                raise _class_error(source_map, intent, spec, error, rate) from None
            if thresholds.tlt_flows is not None and intent.design.concurrent_flows is not None and thresholds.tlt_flows.value < intent.design.concurrent_flows:
                raise source_map.error(
                    ("design", "concurrent_flows"),
                    f"class '{spec.name}' at {rate / 1e9:g}G: the buffer carries {thresholds.tlt_flows.value:.0f} flows without important loss at M={intent.design.congested_ports}, fewer than the {intent.design.concurrent_flows} required",
                    "lower concurrent_flows or congested_ports, lower the TLT threshold, or use a switch with more buffer (TLT §4.2)",
                )
            name = wred_profile_name(spec.name, rate)
            if thresholds.curves:
                wred[name] = WredIR(name, thresholds.curves, thresholds.ect_marking)
                check_reachable(intent, source_map, spec, rate, wred[name], planned.lossless, buffer_plan, profile)
            queue_wred[(rate, planned.queue)] = name if thresholds.curves else None
            bdp = Derived(
                value=rate * rtt.value / 8.0,
                unit="B",
                quantity="bdp_bytes",
                provenance=Provenance("bdp", (input_value("rate_bps", rate, "bps"), input_value("rtt_s", rtt.value, "s")), (Derivation("bdp_bytes", "rate_bps*rtt_s/8", "definition of the bandwidth-delay product"),)),
            )
            classes.append(
                ClassIR(
                    name=spec.name,
                    transport=spec.transport,
                    traffic_class=planned.traffic_class,
                    queue=planned.queue,
                    priority_group=planned.priority_group if planned.lossless else None,
                    lossless=planned.lossless,
                    dscp=tuple(spec.dscp),
                    important_dscp=tuple(spec.tlt.important_dscp) if spec.tlt else (),
                    rtt_s=rtt,
                    bdp_bytes=bdp,
                    marking=thresholds.marking,
                    tlt_threshold_bytes=thresholds.tlt_threshold_bytes,
                    tlt_flows_without_important_loss=thresholds.tlt_flows,
                    host_settings=thresholds.host_settings,
                    rate_bps=rate,
                    model_marking=thresholds.model_marking,
                    warnings=thresholds.warnings,
                    load_balancing=spec.load_balancing.mode,
                    flowlet_gap_s=spec.load_balancing.flowlet_gap or 0.0,
                    host_tcp=host_tcp(intent, intent.classes.index(spec)),
                )
            )
    trim = None
    if plan.trim is not None:
        try:
            weight = max(s.weight for s in intent.classes if s.trim is not None)
            trim = plan_trimming(plan.trim, buffer_plan, profile, weight)
        except QosforgeError as error:
            index = next(i for i, s in enumerate(intent.classes) if s.trim is not None)
            raise source_map.error(("classes", index, "trim"), f"switch '{switch.name}': {error.message}", error.hint) from None
    schedulers = tuple(_scheduler(c) for c in plan.classes if c.name != TRIM_CLASS_NAME or trim is None)
    schedulers += trim.schedulers if trim is not None else ()
    return _SwitchTemplate(
        buffer_plan=buffer_plan,
        wred_profiles=tuple(sorted(wred.values(), key=lambda w: w.name)),
        schedulers=schedulers,
        classes=tuple(classes),
        queue_wred=queue_wred,
        buffer_bytes=derived_constant(float(profile.buffer_bytes.known("buffer_bytes")), "B", quantity="buffer_bytes", formula=f"vendor profile {profile.name}", source=profile.buffer_bytes.source),
        trim=trim,
    )


def _scheduler_name(planned: PlannedClass) -> str:
    return f"scheduler_{planned.name}"


def _scheduler(planned: PlannedClass) -> SchedulerIR:
    if planned.strict_priority:
        return SchedulerIR(_scheduler_name(planned), "STRICT")
    weight = planned.spec.weight if planned.spec is not None else 1
    return SchedulerIR(_scheduler_name(planned), "DWRR", weight=weight)


def _port_parts(plan: ClassPlan, template: _SwitchTemplate, kind: tuple[float, float],
                ) -> _PortParts:
    """A port's priority groups and queues, which depend only on its (speed, cable) kind."""
    speed_bps = kind[0]
    groups = [PriorityGroupIR(0, INGRESS_LOSSY_PROFILE, False)]
    if plan.lossless_priorities:
        headroom = template.buffer_plan.headroom_by_port_kind[kind]
        groups += [PriorityGroupIR(tc, headroom.profile_name, True)
                   for tc in plan.lossless_priorities]
    queues = tuple(
        QueueIR(
            index=c.queue,
            class_name=c.name,
            scheduler=_scheduler_name(c),
            buffer_profile=_queue_profile(c, plan, template),
            wred_profile=template.queue_wred.get((speed_bps, c.queue)),
            lossless=c.lossless,
        )
        for c in plan.classes
    )
    return tuple(groups), queues


def _assemble(intent: Intent, switch: ResolvedSwitch, profile: VendorProfile, plan: ClassPlan, template: _SwitchTemplate,
              host_nic: Callable[[str, str], str]) -> SwitchIR:
    lossless_tcs = plan.lossless_priorities
    buffer_plan = template.buffer_plan
    ports: list[PortIR] = []
    for port in switch.ports:
        kind = (port.speed_bps, port.cable_m)
        parts = template.port_parts.get(kind)
        if parts is None:
            parts = template.port_parts[kind] = _port_parts(plan, template, kind)
        nic = host_nic(switch.name, port.name) if port.peer == "host" else None
        ports.append(PortIR(port.name, port.speed_bps, port.cable_m, port.peer, *parts,
                            lossless_tcs, host_nic=nic))
    maps = QosMapsIR(
        dscp_to_tc=plan.dscp_to_tc,
        dscp_to_color=plan.dscp_to_color,  # type: ignore[arg-type]
        tc_to_queue=tuple((c.traffic_class, c.queue) for c in plan.classes),
        tc_to_priority_group=tuple((tc, tc if tc in lossless_tcs else 0) for tc in range(8)),
        pfc_priority_to_priority_group=tuple((p, p) for p in lossless_tcs),
        pfc_priority_to_queue=tuple((p, p) for p in lossless_tcs),
    )
    watchdog = None
    if lossless_tcs and intent.design.pfc_watchdog:
        watchdog = PfcWatchdogIR(
            detection_ms=round(intent.design.pfc_watchdog_detection * 1000),
            restoration_ms=round(intent.design.pfc_watchdog_restoration * 1000),
            poll_interval_ms=PFCWD_POLL_INTERVAL_MS,
            action="drop",
            source=SOURCE_PFCWD,
        )
    return SwitchIR(
        name=switch.name,
        vendor_profile=profile.name,
        buffer_bytes=template.buffer_bytes,
        pools=buffer_plan.pools,
        buffer_profiles=buffer_plan.profiles + (template.trim.profiles if template.trim is not None else ()),
        wred_profiles=template.wred_profiles,
        schedulers=template.schedulers,
        maps=maps,
        ports=tuple(ports),
        classes=template.classes,
        pfc_watchdog=watchdog,
        control_classes=plan.control,
        trimming=template.trim.trimming if template.trim is not None else None,
    )


def _queue_profile(planned: PlannedClass, plan: ClassPlan, template: _SwitchTemplate) -> str:
    if planned.lossless:
        return EGRESS_LOSSLESS_PROFILE
    if template.trim is not None and planned.name == TRIM_CLASS_NAME:
        return EGRESS_TRIM_PROFILE
    if template.trim is not None and planned.name in plan.trimmed_classes:
        return EGRESS_LOSSY_TRIM_PROFILE
    return EGRESS_LOSSY_PROFILE


__all__ = ["compile_intent", "switch_ports_path"]
