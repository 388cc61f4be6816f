"""Which of the switch's ports each topology port is: positions in SAI_SWITCH_ATTR_PORT_LIST.

A recording replays only against a switch whose port list has the recorded length: saiplayer
matches the recorded ``G`` list to the live one element by element and refuses another count
(sonic-sairedis ``saiplayer/SaiPlayer.cpp: match_list_lengths``, "get response list count not
match recording"). So the program discovers the layout's *whole* port list and binds the
topology's ports to a subset of it:

* By lanes where the lane width is known: SONiC names a port ``Ethernet<N>`` after its first lane
  slot N (0-based, ``lanes_per_port`` slots per port), so ``EthernetN`` is list position
  ``N / lanes_per_port``. On the vslib layouts this is exact: vslib's port i is ``eth<i>``
  (``LaneMap.cpp: getDefaultLaneMap``), which SONiC's virtual-switch SKU Force10-S6000 names
  ``Ethernet<4i>`` (sonic-buildimage ``device/dell/x86_64-dell_s6000_s1220-r0/Force10-S6000/
  port_config.ini``: Ethernet0 = lanes 29-32 = vslib eth0). The width comes from the vendor
  profile's optional ``lanes_per_port`` (e.g. 8 for a 400G port), else from the layout when all
  its ports have the same published lane count.
* Otherwise by name order: the topology's ports, naturally sorted (``Ethernet4`` before
  ``Ethernet12``), take positions 0, 1, 2, ...

Ports of the layout that no topology port binds to are discovered (so the list has the switch's
length) and never configured; their ids are ``port:unused<position>``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from qosforge.backends.phases import RenderValueError
from qosforge.backends.sai.program import PortContext, SwitchInventory
from qosforge.errors import ProfileError
from qosforge.vendor_profiles import load_vendor_profile
from qosforge.vendor_profiles.layout import ports_per_front_panel_port

_SONIC_PORT = re.compile(r"^Ethernet(\d+)$")


def unused_port_id(position: int) -> str:
    return f"port:unused{position}"


def _natural(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def profile_lanes_per_port(profile_name: str) -> int | None:
    """The vendor profile's ``lanes_per_port`` when it states one (an optional, sourced field)."""
    try:
        profile = load_vendor_profile(profile_name)
    except ProfileError:
        return None
    value = getattr(profile, "lanes_per_port", None)
    value = getattr(value, "value", value)  # a Sourced[int] or a bare int
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


class PortCapacityError(RenderValueError):
    """More topology ports than the switch layout's port list: a value error at the switch's port
    list (IR path ``("ports",)``), which the compiler places at the intent line that gives the
    switch those ports."""


def _breakout_text(speeds_bps: Sequence[float], profile_name: str | None) -> str | None:
    """``16 front-panel ports broken out 4x10G`` when the profile's breakout modes are what carry
    these ports (the compiler's front-panel check passed through them), else None."""
    if profile_name is None:
        return None
    try:
        profile = load_vendor_profile(profile_name)
    except ProfileError:
        return None
    parts = []
    for speed in sorted(set(speeds_bps), reverse=True):
        count = sum(1 for s in speeds_bps if s == speed)
        per_port = ports_per_front_panel_port(speed, profile)
        if per_port > 1:
            parts.append(f"{-(-count // per_port)} front-panel ports broken out {per_port}x{speed / 1e9:g}G")
    return " and ".join(parts) or None


def bind_ports(switch: str, port_names: Sequence[str], inventory: SwitchInventory, lanes_per_port: int | None,
               *, speeds_bps: Sequence[float] = (), profile_name: str | None = None) -> tuple[int, ...]:
    """Each port's position in the layout's port list, in ``port_names`` order."""
    capacity = len(inventory.ports)
    if len(port_names) > capacity:
        breakout = _breakout_text(speeds_bps, profile_name)
        fewer = f"use at most {capacity} ports on this switch, or a vendor profile whose switch has more ports"
        raise PortCapacityError(
            switch, ("ports",),
            f"switch {switch}: the topology gives it {len(port_names)} ports, but its switch layout {inventory.name} lists {capacity} "
            f"unbroken ports ({inventory.ports_source})" + (f"; they fit the front panel as {breakout}" if breakout else ""),
            hint=(f"a recording replays only on a switch with this port list: break out those ports on the switch (SONiC "
                  f"'config interface breakout', platform.json breakout_modes) and replay on a virtual switch whose lane map has "
                  f"the broken-out ports (vslib lanemap.ini); or {fewer}") if breakout else fewer,
        )
    numbers = [_SONIC_PORT.match(name) for name in port_names]
    if all(numbers):
        slots = [int(match.group(1)) for match in numbers if match is not None]
        # The profile's lane width describes its own chip; a profile that borrows another
        # family's layout (e.g. a 1-lane SFP+ Trident on vslib's 4-lane BCM56850) may not fit
        # it, so the layout's own width is tried next, and name order is the last resort.
        for width in dict.fromkeys(w for w in (lanes_per_port, inventory.lanes_per_port) if w):
            if all(slot % width == 0 and slot // width < capacity for slot in slots):
                return tuple(slot // width for slot in slots)
    order = sorted(range(len(port_names)), key=lambda i: _natural(port_names[i]))
    positions = [0] * len(port_names)
    for position, index in enumerate(order):
        positions[index] = position
    return tuple(positions)


def port_list(ports: Sequence[PortContext], inventory: SwitchInventory) -> tuple[str, ...]:
    """The SAI_SWITCH_ATTR_PORT_LIST answer: the layout's ports with the program's bound in."""
    if not inventory.ports:  # a program from before layouts carried their ports
        return tuple(port.object_id for port in ports)
    ids = [unused_port_id(position) for position in range(len(inventory.ports))]
    for port in ports:
        if port.layout_index is not None and 0 <= port.layout_index < len(ids):
            ids[port.layout_index] = port.object_id
    return tuple(ids)


__all__ = ["PortCapacityError", "bind_ports", "port_list", "profile_lanes_per_port", "unused_port_id"]
