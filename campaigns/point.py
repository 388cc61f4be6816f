"""A grid point: the command it runs, its full parameter set, and the files it ships.

A point is identified by its full parameter set (every flag's value, defaults included, the
intent's name and content hash, the ``--set`` values), so a re-run recognises finished points
whatever order the flags were typed in, and an edited intent makes new points.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from qosforge.campaigns.grid import Value


@dataclass(frozen=True)
class ShippedFile:
    """A file a point needs (an intent): its contents travel with the task, never its path.

    ``argument`` is its index in the point's argv (the equivalent command line; the worker keeps its
    local copy in a folder of that name); ``name`` is the path the user gave, which replaces the
    copy's path in the result.
    """

    argument: int
    name: str
    contents: str
    field: str = "intent"
    """The request field the local copy's path fills (the application layer's request)."""


@dataclass(frozen=True)
class PointSpec:
    """What a worker needs to run one point, and the parameters that identify it."""

    command: tuple[str, ...]
    params: Mapping[str, Any]
    argv: tuple[str, ...]
    """The equivalent command line (``qosforge <command> ARGV`` gives the same result); the worker
    runs the point from ``fields``, not from this."""
    files: tuple[ShippedFile, ...] = ()
    fields: Mapping[str, Any] = field(default_factory=dict)
    """The application-layer request's fields (qosforge/api/simulate.py SimulateRequest): every
    flag's value by its parameter name, defaults included."""
    typed: frozenset[str] = frozenset()
    """The fields whose value is not the flag's default: what the user chose for this point."""

    @property
    def point_id(self) -> str:
        return point_id(self.command, self.params)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def point_id(command: tuple[str, ...], params: Mapping[str, Any]) -> str:
    """First 20 hex digits of SHA-256 over the command and the sorted parameters (80 bits: no
    collision in any campaign that fits in memory)."""
    text = canonical_json({"command": list(command), "params": dict(params)})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def param_text(value: Value | tuple[str, ...] | list[str]) -> str:
    """How a value appears in argv and legends: flag text as written, numbers plainly."""
    if isinstance(value, (tuple, list)):
        return ",".join(str(item) for item in value)
    return str(value)


__all__ = ["PointSpec", "ShippedFile", "canonical_json", "content_hash", "param_text", "point_id"]
