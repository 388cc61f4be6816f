"""A profile's front panel as port modes: what compiler/ports.py checks a topology against and
what the SAI backend names when a breakout is what fits the ports (shared below both layers)."""

from __future__ import annotations

import math

from qosforge.vendor_profiles.schema import VendorProfile


def front_panel_modes(profile: VendorProfile) -> tuple[tuple[int, tuple[float, ...]], ...]:
    """(ports per front-panel port, speeds) of every mode, the native 1x mode first."""
    natives = tuple((1, (group.speed_bps,)) for group in profile.ports.value or ())
    return natives + tuple(
        (mode.ports, tuple(mode.speeds_bps)) for mode in profile.breakout_modes.value or ()
    )


def ports_per_front_panel_port(speed_bps: float, profile: VendorProfile) -> int:
    """How many ports of ``speed_bps`` one front-panel port of ``profile`` carries (natively 1,
    more in a breakout mode; the densest mode wins), 0 when no mode runs at that speed."""
    modes = front_panel_modes(profile)
    return max(
        (ports for ports, speeds in modes if any(math.isclose(speed_bps, s) for s in speeds)),
        default=0,
    )


__all__ = ["front_panel_modes", "ports_per_front_panel_port"]
