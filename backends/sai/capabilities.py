"""What the SAI target cannot express exactly: TLT's red drop together with ECN marking of the
red (ECT) packets on an ASIC that does not honour ECT thresholds under a color drop.

DSCP_TO_COLOR and per-color WRED are standard SAI. A transport that ECN-marks (DCTCP, D2TCP, EAR,
DCQCN, TBTCP) also needs the red packets marked: SAI puts that in the ECT thresholds
(``SAI_WRED_ATTR_ECN_RED_*`` with ``SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE``, SAI ``saiwred.h``,
``saiswitch.h``), and TLT's drop only survives if the ASIC still applies the red drop curve to ECT
packets. Both are vendor facts (``ecn_ect_thresholds``, ``color_drop_applies_to_ect`` in the
profile); where either is false or unknown the exact rendering is refused. Approximation
``tlt-unmarked-red``: the red drop stays, the red packets are not ECN-marked (the transport sees
loss at K, which TLT §4.2 sizes at >= BDP for exactly that case).
"""

from __future__ import annotations

from dataclasses import replace

from qosforge.backends.registry import Approximation, CapabilityRefusal, Refused
from qosforge.ir import CapabilityGap, SwitchIR

TARGET_NAME = "sai"
TLT_UNMARKED_RED = "tlt-unmarked-red"


def tlt_alternatives(profile: str) -> tuple[str, ...]:
    return (
        f"use a switch profile whose ASIC honours ECT thresholds and applies the color drop to ECT packets instead of {profile} (qosforge profiles show <name>)",
        "remove the class's 'tlt' block (plain transport, no important-packet protection)",
        f"accept the named approximation '{TLT_UNMARKED_RED}' (intent 'approximations: [{TLT_UNMARKED_RED}]' or "
        f"--accept-approximation {TLT_UNMARKED_RED}): ECN marking is OFF for the class's unimportant packets on this target "
        "(their DSCP maps to red and ECN_MARK_MODE marks green only), so DCTCP/ECN sees no marks for them: the queue is "
        "held only by the red drop at TLT's K, well above the ECN K, giving a deeper queue and losses with retransmissions "
        "instead of marks",
    )


APPROXIMATIONS = (Approximation(TLT_UNMARKED_RED, tlt_alternatives("the switch's profile")[2]),)


def _marking_tlt_classes(switch: SwitchIR) -> set[str]:
    """TLT classes whose queues need ECT marking thresholds (their transport ECN-marks)."""
    tlt = {c.name for c in switch.classes if c.important_dscp}
    ect_profiles = {w.name for w in switch.wred_profiles if w.ect_marking}
    return {q.class_name for p in switch.ports for q in p.queues if q.class_name in tlt and q.wred_profile in ect_profiles}


def _gap(switch: SwitchIR) -> tuple[str, str] | None:
    """(feature, detail) when the switch's ASIC cannot honour ECT marking under a color drop."""
    from qosforge.vendor_profiles import load_vendor_profile

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


def sai_view(switch: SwitchIR, approximations: frozenset[str]) -> SwitchIR:
    names = _marking_tlt_classes(switch)
    gap = _gap(switch) if names else None
    if gap is None:
        return switch
    feature, detail = gap
    alternatives = tlt_alternatives(switch.vendor_profile)
    if TLT_UNMARKED_RED not in approximations:
        raise CapabilityRefusal(tuple(
            Refused(
                name,
                f"class '{name}' on switch '{switch.name}' needs {feature}, which the SAI target cannot express exactly: {detail}. Alternatives: "
                + "; ".join(f"({n}) {text}" for n, text in enumerate(alternatives, start=1)),
                f"add 'approximations: [{TLT_UNMARKED_RED}]', use another switch profile, or remove the tlt block",
                "tlt",
            )
            for name in sorted(names)
        ))
    gaps = tuple(
        CapabilityGap(TARGET_NAME, name, feature, detail, alternatives[:2], approximation=TLT_UNMARKED_RED)
        for name in sorted(names)
    )
    wred = tuple(replace(w, ect_marking=()) for w in switch.wred_profiles)
    return replace(switch, wred_profiles=wred, gaps=switch.gaps + gaps)
