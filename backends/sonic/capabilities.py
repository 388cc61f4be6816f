"""What SONiC config_db cannot express, coded once: the capability view the compiler applies and
the check the renderer runs on what it is given both call :func:`inexpressible`.

config_db has no DSCP->color table (every packet stays green) and no ECN thresholds for ECT
packets apart from the WRED drop thresholds (sonic-swss ``orchagent/qosorch.cpp``: WRED_PROFILE
carries one min/max/probability per color and an ``ecn`` mode; sonic-swss #4718). TLT's
color-aware dropping (TLT §4.1-4.2) needs both, so a TLT class is refused with its alternatives
unless the operator accepts the named approximation ``tlt-without-color``.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosforge.backends.approximations import TLT_WITHOUT_COLOR, without_color
from qosforge.backends.registry import Approximation, CapabilityRefusal, Refused
from qosforge.ir import SwitchIR

TARGET_NAME = "sonic"

TLT_ALTERNATIVES = (
    "compile for the SAI target, which has DSCP_TO_COLOR maps and per-color WRED (exact TLT)",
    "remove the class's 'tlt' block (plain transport, no important-packet protection)",
    f"accept the named approximation '{TLT_WITHOUT_COLOR}' (intent 'approximations: [{TLT_WITHOUT_COLOR}]' or "
    f"--accept-approximation {TLT_WITHOUT_COLOR}): the class is rendered without color-aware dropping and "
    "its important packets get no protection beyond the dynamic threshold",
)
APPROXIMATIONS = (Approximation(TLT_WITHOUT_COLOR, TLT_ALTERNATIVES[2]),)
SONIC_NO_COLOR_DETAIL = "SONiC config_db has no DSCP->color map and no ECT-specific ECN thresholds (sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang, sonic-swss orchagent/qosorch.cpp)"


@dataclass(frozen=True)
class Inexpressible:
    """One thing in a switch's IR that config_db cannot carry, and the classes it belongs to."""

    class_names: tuple[str, ...]
    description: str


def inexpressible(switch: SwitchIR) -> tuple[Inexpressible, ...]:
    found: list[Inexpressible] = []
    colored = [(dscp, color) for dscp, color in switch.maps.dscp_to_color if color != "green"]
    if colored:
        dscps = {dscp for dscp, _color in colored}
        found.append(Inexpressible(
            tuple(c.name for c in switch.classes if dscps & set(c.dscp)),
            f"DSCP {sorted(dscps)} colored {sorted({c for _d, c in colored})}; SONiC config_db has no "
            "DSCP_TO_COLOR table, so every packet stays green",
        ))
    for wred in switch.wred_profiles:
        if wred.ect_marking:
            found.append(Inexpressible(
                tuple(dict.fromkeys(q.class_name for port in switch.ports for q in port.queues if q.wred_profile == wred.name)),
                f"WRED profile {wred.name} has separate ECT marking thresholds; SONiC config_db "
                "marks ECN with the drop thresholds only (sonic-swss #4718)",
            ))
    return tuple(found)


def sonic_view(switch: SwitchIR, approximations: frozenset[str]) -> SwitchIR:
    """The switch as config_db can carry it, or a refusal naming the alternatives."""
    names = sorted({name for item in inexpressible(switch) for name in item.class_names})
    if not names:
        return switch
    if TLT_WITHOUT_COLOR not in approximations:
        raise CapabilityRefusal(tuple(
            Refused(
                name,
                f"class '{name}' uses TLT color-aware dropping, which SONiC config_db cannot express "
                "(no DSCP_TO_COLOR table, no ECN thresholds separate from the WRED drop thresholds). Alternatives: "
                + "; ".join(f"({n}) {text}" for n, text in enumerate(TLT_ALTERNATIVES, start=1)),
                f"add 'approximations: [{TLT_WITHOUT_COLOR}]' to accept the approximation, compile with --target sai, or remove the tlt block",
                "tlt",
            )
            for name in names
        ))
    return without_color(switch, set(names), TARGET_NAME, SONIC_NO_COLOR_DETAIL, TLT_ALTERNATIVES[:2])
