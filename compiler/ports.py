"""Check a switch's ports against its ASIC's port layout (vendor profile ``ports``,
``breakout_modes``): every speed must be one a front-panel port runs at, natively or in a breakout
mode, and the ports must fit on the front panel.

A breakout mode splits one front-panel port into ``k`` ports (SONiC platform.json
``breakout_modes``, e.g. ``4x25G[10G]``); a speed offered by several modes uses the one with the
most ports per front-panel port, and ports of different speeds never share a front-panel port
(SONiC applies one breakout mode per front-panel port). A profile whose layout is ``unknown`` is
not checked.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from qosforge.vendor_profiles.layout import front_panel_modes as _modes
from qosforge.vendor_profiles.layout import ports_per_front_panel_port
from qosforge.vendor_profiles.schema import VendorProfile


@dataclass(frozen=True)
class PortLayoutProblem:
    """Why a switch's ports do not fit its ASIC; ``speed_bps`` is the unsupported speed, or None
    when the speeds are fine but there are too many ports."""

    message: str
    speed_bps: float | None


def _gbps(speed_bps: float) -> str:
    return f"{speed_bps / 1e9:g}G"


def describe_layout(profile: VendorProfile) -> str:
    """``32x40G, breakout 1x40G, 4x10G`` (what the profile's front panel offers)."""
    groups = ", ".join(f"{group.count}x{_gbps(group.speed_bps)}" for group in profile.ports.value or ())
    modes = ", ".join(f"{mode.ports}x{'/'.join(_gbps(s) for s in mode.speeds_bps)}" for mode in profile.breakout_modes.value or ())
    return f"{groups}, breakout {modes}" if modes else groups


def check_port_layout(speeds_bps: Iterable[float], profile: VendorProfile) -> PortLayoutProblem | None:
    """None if ports of these speeds fit the profile's front panel, else what does not fit."""
    if profile.ports.value is None:
        return None
    modes = _modes(profile)
    front_panel = sum(group.count for group in profile.ports.value)
    demand = Counter(speeds_bps)
    needed = 0
    uses: list[str] = []
    for speed, count in sorted(demand.items(), reverse=True):
        per_port = ports_per_front_panel_port(speed, profile)
        if per_port == 0:
            speeds = sorted({s for _, mode_speeds in modes for s in mode_speeds}, reverse=True)
            return PortLayoutProblem(
                f"{count} port{'s' if count != 1 else ''} at {_gbps(speed)}, a speed no front-panel port of {profile.name} runs at "
                f"({describe_layout(profile)}; speeds {', '.join(_gbps(s) for s in speeds)})",
                speed,
            )
        used = math.ceil(count / per_port)
        needed += used
        uses.append(f"{count} port{'s' if count != 1 else ''} at {_gbps(speed)}" + (f" ({per_port} per front-panel port)" if per_port > 1 else ""))
    if needed > front_panel:
        return PortLayoutProblem(
            f"{' + '.join(uses)} need {needed} front-panel ports "
            f"but {profile.name} has {front_panel} ({describe_layout(profile)})",
            None,
        )
    return None


__all__ = ["PortLayoutProblem", "check_port_layout", "describe_layout"]
