"""Port-name ranges as intents and traffic files write them: ``Ethernet[0-124/4]``."""

from __future__ import annotations

import re

_RANGE = re.compile(
    r"^(?P<prefix>[A-Za-z_/-]*[A-Za-z_/-])\[(?P<start>\d+)-(?P<stop>\d+)"
    r"(?:/(?P<step>\d+))?\](?P<suffix>[A-Za-z0-9_/-]*)$"
)


def expand_port_names(pattern: str) -> list[str]:
    """``Ethernet[0-124/4]`` -> Ethernet0, Ethernet4, ..., Ethernet124; plain names pass through."""
    match = _RANGE.match(pattern)
    if match is None:
        if "[" in pattern or "]" in pattern:
            raise ValueError(f"{pattern!r} is not a port range; write e.g. Ethernet[0-124/4]")
        return [pattern]
    start, stop = int(match["start"]), int(match["stop"])
    step = int(match["step"] or 1)
    if stop < start or step < 1:
        raise ValueError(f"{pattern!r}: the range must run upwards with a positive step")
    return [f"{match['prefix']}{index}{match['suffix']}" for index in range(start, stop + 1, step)]


__all__ = ["expand_port_names"]
