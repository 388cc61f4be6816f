"""What each target can express, and what happens when it cannot (DESIGN.md §5 "Capabilities").

SONiC config_db has no DSCP->color table and no ECN (ECT) thresholds apart from the WRED drop
thresholds (reference/sonic_qos.md §3.6, §3.22), so TLT's color-aware dropping cannot be written
there. We do not fake it: without an accepted approximation that is a compile error naming the
gap and the alternatives; with ``tlt-without-color`` accepted, the class is rendered as its plain
transport and the gap is carried in the IR and the report, with what the operator loses.
"""

from __future__ import annotations

from dataclasses import replace

from qosforge.compiler.intent import Intent
from qosforge.compiler.ir import CapabilityGap, FabricIR, QosMapsIR, SwitchIR, WredIR
from qosforge.compiler.loader import SourceMap

TLT_WITHOUT_COLOR = "tlt-without-color"
AVAILABLE_TARGETS = ("sonic",)
PLANNED_TARGETS = {"sai": "the SAI backend", "openconfig": "the OpenConfig backend"}

TLT_ALTERNATIVES = (
    "compile for the SAI target, which has DSCP_TO_COLOR maps and per-color WRED (exact TLT)",
    "remove the class's 'tlt' block (plain transport, no important-packet protection)",
    f"accept the named approximation '{TLT_WITHOUT_COLOR}' (intent 'approximations: [{TLT_WITHOUT_COLOR}]' or "
    f"--accept-approximation {TLT_WITHOUT_COLOR}): the class is rendered without color-aware dropping and "
    "its important packets get no protection beyond the dynamic threshold",
)


def apply_target_capabilities(fabric: FabricIR, intent: Intent, source_map: SourceMap, approximations: tuple[str, ...]) -> FabricIR:
    for index, target in enumerate(intent.targets):
        if target not in AVAILABLE_TARGETS:
            raise source_map.error(("targets", index), f"target '{target}' ({PLANNED_TARGETS.get(target, target)}) is not available in this qosforge version", f"use one of: {', '.join(AVAILABLE_TARGETS)}")
    if "sonic" not in intent.targets:
        return fabric
    tlt_classes = [(i, spec) for i, spec in enumerate(intent.classes) if spec.tlt is not None]
    if not tlt_classes:
        return fabric
    if TLT_WITHOUT_COLOR not in approximations:
        index, spec = tlt_classes[0]
        raise source_map.error(
            ("classes", index, "tlt"),
            f"class '{spec.name}' uses TLT color-aware dropping, which SONiC config_db cannot express "
            "(no DSCP_TO_COLOR table, no ECN thresholds separate from the WRED drop thresholds). Alternatives: "
            + "; ".join(f"({n}) {text}" for n, text in enumerate(TLT_ALTERNATIVES, start=1)),
            f"add 'approximations: [{TLT_WITHOUT_COLOR}]' to accept the approximation, or remove the tlt block",
        )
    names = {spec.name for _, spec in tlt_classes}
    return replace(fabric, switches=tuple(_without_color(switch, names) for switch in fabric.switches))


def _without_color(switch: SwitchIR, tlt_class_names: set[str]) -> SwitchIR:
    """Drop the red color curve and ECT marking of TLT classes; every DSCP becomes green."""
    gaps = [
        CapabilityGap(
            target="sonic",
            class_name=name,
            feature="TLT color-aware dropping (DSCP_TO_COLOR + red WRED drop + ECT marking)",
            detail="SONiC config_db has no DSCP->color map and no ECT-specific ECN thresholds (reference/sonic_qos.md §3.6, §3.22)",
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

