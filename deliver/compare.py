"""Compare two ``/qos`` documents leaf by leaf: configuration leaves only (``state`` containers
are ignored), module prefixes normalised (``openconfig-qos:queues`` = ``queues``, identity
``openconfig-qos-types:STATIC`` = ``STATIC``), list entries matched by their keys, leaf-lists
compared as sets, numbers compared by value whether RFC 7951 wrote them as strings (64-bit) or not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*:(?=[^:]*$)")
_INTEGER = re.compile(r"^-?\d+$")


@dataclass(frozen=True)
class Difference:
    path: str
    intended: str | None
    actual: str | None


def _name(member: str) -> str:
    return member.split(":", 1)[1] if ":" in member else member


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    text = str(value)
    if _INTEGER.match(text):
        return str(int(text))
    return _PREFIX.sub("", text)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def config_leaves(document: dict[str, Any]) -> dict[str, str]:
    """``{path: normalised value}`` of every configuration leaf under the document's members."""
    leaves: dict[str, str] = {}
    _walk(document, "", leaves, in_config=False)
    return leaves


def _walk(node: dict[str, Any], path: str, leaves: dict[str, str], *, in_config: bool) -> None:
    for member, value in node.items():
        name = _name(member)
        if name == "state":
            continue
        here = f"{path}/{name}"
        if isinstance(value, dict):
            _walk(value, here, leaves, in_config=in_config or name == "config")
        elif isinstance(value, list) and value and all(isinstance(entry, dict) for entry in value):
            for entry in value:
                keys = {_name(k): _scalar(v) for k, v in entry.items() if _is_scalar(v)}
                selector = "".join(f"[{k}={v}]" for k, v in sorted(keys.items()))
                _walk({k: v for k, v in entry.items() if not _is_scalar(v)}, here + selector, leaves, in_config=in_config)
        elif in_config and isinstance(value, list):
            leaves[here] = "[" + ", ".join(sorted((_scalar(v) for v in value), key=lambda s: (len(s), s))) + "]"
        elif in_config:
            leaves[here] = _scalar(value)


def qos_members(document: dict[str, Any]) -> dict[str, Any]:
    """The members of ``/qos`` from ``{"openconfig-qos:qos": {...}}`` (or from the bare container)."""
    for key in ("openconfig-qos:qos", "qos"):
        if key in document and isinstance(document[key], dict):
            inner: dict[str, Any] = document[key]
            return inner
    return document


def compare(intended: dict[str, Any], actual: dict[str, Any]) -> tuple[Difference, ...]:
    """Leaf-by-leaf differences between two ``/qos`` documents, sorted by path."""
    want = config_leaves(qos_members(intended))
    have = config_leaves(qos_members(actual))
    return tuple(
        Difference(path="/qos" + path, intended=want.get(path), actual=have.get(path))
        for path in sorted(set(want) | set(have))
        if want.get(path) != have.get(path)
    )
