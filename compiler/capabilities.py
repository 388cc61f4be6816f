"""What each target can express, and what happens when it cannot (docs/architecture.md §5 "Capabilities").

The compiler plans one full-fidelity IR; each target then gets a *view* of it. Where a target
(or the switch's ASIC through that target) cannot express part of the intent, we do not fake
it: without an accepted approximation that is a compile error naming the gap and the
alternatives; with the named approximation accepted, the view drops what cannot be expressed and
carries a :class:`CapabilityGap` saying what the operator loses (shown in the report).

TLT (TLT §4.1-4.2) needs unimportant packets colored red and dropped at K while the transport's
ECN marking goes on:

* **sonic**: config_db has no DSCP->color table and no ECN (ECT) thresholds apart from the WRED
  drop thresholds (sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang, sonic-swss orchagent/qosorch.cpp): approximation ``tlt-without-color``.
* **sai**: DSCP_TO_COLOR and per-color WRED are standard. A transport that ECN-marks (DCTCP,
  D2TCP, EAR, DCQCN, TBTCP) also needs the red packets marked: SAI puts that in the ECT
  thresholds (``SAI_WRED_ATTR_ECN_RED_*`` with ``SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE``,
  SAI inc/saiwred.h), and it only keeps TLT's drop if the ASIC still applies the red drop
  curve to ECT packets. Both are vendor facts (``ecn_ect_thresholds``, ``color_drop_applies_to_ect``
  in the profile); where either is false or unknown the exact rendering is refused. Approximation
  ``tlt-unmarked-red``: the red drop stays, the red packets are not ECN-marked (the transport sees
  loss at K, which TLT §4.2 sizes at >= BDP for exactly that case).
"""

from __future__ import annotations

from dataclasses import replace

from qosforge.compiler.intent import Intent
from qosforge.compiler.loader import SourceMap
from qosforge.ir import CapabilityGap, FabricIR, QosMapsIR, SwitchIR, TargetView, WredIR
from qosforge.vendor_profiles import load_vendor_profile

TLT_WITHOUT_COLOR = "tlt-without-color"
TLT_UNMARKED_RED = "tlt-unmarked-red"
APPROXIMATIONS = (TLT_WITHOUT_COLOR, TLT_UNMARKED_RED)
AVAILABLE_TARGETS = ("sonic", "sai")
PLANNED_TARGETS = {"openconfig": "the OpenConfig backend"}

TLT_ALTERNATIVES = (
    "compile for the SAI target, which has DSCP_TO_COLOR maps and per-color WRED (exact TLT)",
    "remove the class's 'tlt' block (plain transport, no important-packet protection)",
    f"accept the named approximation '{TLT_WITHOUT_COLOR}' (intent 'approximations: [{TLT_WITHOUT_COLOR}]' or "
    f"--accept-approximation {TLT_WITHOUT_COLOR}): the class is rendered without color-aware dropping and "
    "its important packets get no protection beyond the dynamic threshold",
)


def _sai_tlt_alternatives(profile: str) -> tuple[str, ...]:
    return (
        f"use a switch profile whose ASIC honours ECT thresholds and applies the color drop to ECT packets instead of {profile} (qosforge profiles show <name>)",
        "remove the class's 'tlt' block (plain transport, no important-packet protection)",
        f"accept the named approximation '{TLT_UNMARKED_RED}' (intent 'approximations: [{TLT_UNMARKED_RED}]' or "
        f"--accept-approximation {TLT_UNMARKED_RED}): unimportant (red) packets are still dropped at K but not ECN-marked, "
        "so the transport reacts to their loss instead of to marks",
    )


def check_targets(targets: tuple[str, ...], source_map: SourceMap, *, from_cli: bool) -> None:
    for index, target in enumerate(targets):
        if target in AVAILABLE_TARGETS:
            continue
        message = f"target '{target}' ({PLANNED_TARGETS.get(target, target)}) is not available in this qosforge version"
        if from_cli:
            from qosforge.errors import QosforgeError

            raise QosforgeError(message, place="--target", hint=f"use one of: {', '.join(AVAILABLE_TARGETS)}")
        raise source_map.error(("targets", index), message, f"use one of: {', '.join(AVAILABLE_TARGETS)}")


def apply_target_capabilities(fabric: FabricIR, intent: Intent, source_map: SourceMap, approximations: tuple[str, ...]) -> FabricIR:
    """Attach one view per target to the fabric (the fabric's own switches stay full-fidelity)."""
    views = []
    for target in fabric.targets:
        if target == "sonic":
            views.append(TargetView("sonic", _sonic_view(fabric, intent, source_map, approximations)))
        elif target == "sai":
            views.append(TargetView("sai", _sai_view(fabric, intent, source_map, approximations)))
    return replace(fabric, views=tuple(views))


def _tlt_classes(intent: Intent) -> list[tuple[int, str, str]]:
    return [(i, spec.name, spec.transport) for i, spec in enumerate(intent.classes) if spec.tlt is not None]


def _sonic_view(fabric: FabricIR, intent: Intent, source_map: SourceMap, approximations: tuple[str, ...]) -> tuple[SwitchIR, ...]:
    tlt = _tlt_classes(intent)
    if not tlt:
        return fabric.switches
    if TLT_WITHOUT_COLOR not in approximations:
        index, name, _ = tlt[0]
        raise source_map.error(
            ("classes", index, "tlt"),
            f"class '{name}' uses TLT color-aware dropping, which SONiC config_db cannot express "
            "(no DSCP_TO_COLOR table, no ECN thresholds separate from the WRED drop thresholds). Alternatives: "
            + "; ".join(f"({n}) {text}" for n, text in enumerate(TLT_ALTERNATIVES, start=1)),
            f"add 'approximations: [{TLT_WITHOUT_COLOR}]' to accept the approximation, compile with --target sai, or remove the tlt block",
        )
    names = {name for _, name, _ in tlt}
    return tuple(_without_color(switch, names) for switch in fabric.switches)


def _without_color(switch: SwitchIR, tlt_class_names: set[str]) -> SwitchIR:
    """Drop the red color curve and ECT marking of TLT classes; every DSCP becomes green."""
    gaps = [
        CapabilityGap(
            target="sonic",
            class_name=name,
            feature="TLT color-aware dropping (DSCP_TO_COLOR + red WRED drop + ECT marking)",
            detail="SONiC config_db has no DSCP->color map and no ECT-specific ECN thresholds (sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang, sonic-swss orchagent/qosorch.cpp)",
            alternatives=TLT_ALTERNATIVES[:2],
            approximation=TLT_WITHOUT_COLOR,
        )
        for name in sorted(tlt_class_names)
    ]
    wred = tuple(
        WredIR(profile.name, tuple(c for c in profile.curves if c.color == "green"), ())
        for profile in switch.wred_profiles
    )
    emptied = {w.name for w in wred if not w.curves}
    wred = tuple(w for w in wred if w.curves)
    ports = tuple(
        replace(port, queues=tuple(replace(q, wred_profile=None) if q.wred_profile in emptied else q for q in port.queues))
        for port in switch.ports
    )
    classes = tuple(
        replace(c, tlt_threshold_bytes=None, tlt_flows_without_important_loss=None) if c.name in tlt_class_names else c
        for c in switch.classes
    )
    maps: QosMapsIR = replace(switch.maps, dscp_to_color=tuple((code, "green") for code, _ in switch.maps.dscp_to_color))
    return replace(switch, wred_profiles=wred, ports=ports, classes=classes, maps=maps, gaps=switch.gaps + tuple(gaps))


def _marking_tlt_classes(switch: SwitchIR, class_names: set[str]) -> set[str]:
    """TLT classes whose queues need ECT marking thresholds (their transport ECN-marks)."""
    ect_profiles = {w.name for w in switch.wred_profiles if w.ect_marking}
    return {q.class_name for p in switch.ports for q in p.queues if q.class_name in class_names and q.wred_profile in ect_profiles}


def _sai_gap(switch: SwitchIR) -> tuple[str, str] | None:
    """(feature, detail) when the switch's ASIC cannot honour ECT marking under a color drop."""
    profile = load_vendor_profile(switch.vendor_profile)
    facts = {
        "ecn_ect_thresholds": profile.ecn_ect_thresholds,
        "color_drop_applies_to_ect": profile.color_drop_applies_to_ect,
    }
    missing = [f"{name} is {'unknown' if fact.value is None else str(fact.value).lower()} ({fact.source})" for name, fact in facts.items() if fact.value is not True]
    if not missing:
        return None
    return (
        "TLT red drop at K together with the transport's ECN marking of red (ECT) packets",
        f"vendor profile {profile.name}: " + "; ".join(missing),
    )


def _sai_view(fabric: FabricIR, intent: Intent, source_map: SourceMap, approximations: tuple[str, ...]) -> tuple[SwitchIR, ...]:
    tlt = _tlt_classes(intent)
    if not tlt:
        return fabric.switches
    result = []
    for switch in fabric.switches:
        names = _marking_tlt_classes(switch, {name for _, name, _ in tlt})
        gap = _sai_gap(switch) if names else None
        if gap is None:
            result.append(switch)
            continue
        feature, detail = gap
        if TLT_UNMARKED_RED not in approximations:
            index, name, _ = next(t for t in tlt if t[1] in names)
            alternatives = _sai_tlt_alternatives(switch.vendor_profile)
            raise source_map.error(
                ("classes", index, "tlt"),
                f"class '{name}' on switch '{switch.name}' needs {feature}, which the SAI target cannot express exactly: {detail}. Alternatives: "
                + "; ".join(f"({n}) {text}" for n, text in enumerate(alternatives, start=1)),
                f"add 'approximations: [{TLT_UNMARKED_RED}]', use another switch profile, or remove the tlt block",
            )
        gaps = tuple(
            CapabilityGap("sai", name, feature, detail, _sai_tlt_alternatives(switch.vendor_profile)[:2], approximation=TLT_UNMARKED_RED)
            for name in sorted(names)
        )
        wred = tuple(replace(w, ect_marking=()) for w in switch.wred_profiles)
        result.append(replace(switch, wred_profiles=wred, gaps=switch.gaps + gaps))
    return tuple(result)
