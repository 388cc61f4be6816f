"""Named approximations shared by several targets.

``tlt-without-color``: a target without DSCP->color (drop precedence) and per-color WRED renders a
TLT class as its plain transport: the red drop curve and the ECT marking go, every DSCP is green,
and the class's important packets get no protection beyond the dynamic threshold (TLT §4.2).
"""

from __future__ import annotations

from dataclasses import replace

from qosforge.ir import CapabilityGap, QosMapsIR, SwitchIR, WredIR

TLT_WITHOUT_COLOR = "tlt-without-color"


def without_color(switch: SwitchIR, tlt_class_names: set[str], target: str, detail: str, alternatives: tuple[str, ...]) -> SwitchIR:
    """Approximation ``tlt-without-color``: drop the non-green curves and ECT marking of the
    switch's WRED profiles; every DSCP becomes green. Shared by every target without colors."""
    gaps = [
        CapabilityGap(
            target=target,
            class_name=name,
            feature="TLT color-aware dropping (DSCP_TO_COLOR + red WRED drop + ECT marking)",
            detail=detail,
            alternatives=alternatives,
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
