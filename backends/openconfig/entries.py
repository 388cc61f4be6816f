"""Bound list entries built once per process and refilled for every entry of their kind.

pyangbind builds every node of a list entry eagerly when it is added: a classifier term carries
the whole ``conditions`` tree (IPv4, IPv6, L2, MPLS, transport, with the identity enumerations of
each leaf), ~0.1 s of CPU per term, which was ~70% of a switch rendering (cProfile of
examples/roce-pod.yaml). The values of an entry are what the model must check, not the
construction of its empty nodes: so each kind of entry is built once, and every entry of that kind
is made by setting its leaves on it through the bindings (each value type-, range- and
pattern-checked as before), encoding it with the bindings' own RFC 7951 encoder, and giving the
encoded copy its key. A kind is always refilled with the same leaves (the callers set a fixed
leaf set per kind), so nothing of a previous entry can remain in the next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from qosforge.backends.openconfig.model import Document, encode_node, new_root

_ENTRIES: dict[str, Any] = {}
_SCRATCH_KEY = "qosforge-scratch"
"""The key of the reused entries (every encoded copy gets its own key, so this never appears)."""


def reused_entry(kind: str, add: Callable[[Any, str], Any]) -> Any:
    """The process's bound entry of ``kind``; ``add(qos, key)`` adds it to a fresh ``/qos`` once."""
    entry = _ENTRIES.get(kind)
    if entry is None:
        entry = _ENTRIES[kind] = add(new_root().qos, _SCRATCH_KEY)
    return entry


def encoded_entry(entry: Any, key_leaf: str) -> Document:
    """``entry`` as the bindings encode it inside its list, keyed by its ``config/<key_leaf>``."""
    encoded = encode_node(entry)
    encoded[key_leaf] = encoded["config"][key_leaf]
    return encoded


def with_members(encoded: Document, container: Any, members: dict[str, Any]) -> Document:
    """``encoded`` (the encoding of the bound ``container``) with ``members`` added, in the
    model's member order, as the encoder would have placed them."""
    order = [getattr(container, element).yang_name() for element in container._pyangbind_elements]
    unknown = set(members) - set(order)
    if unknown:
        raise ValueError(f"{sorted(unknown)} are not members of {container._yang_name}")
    return {
        name: members[name] if name in members else encoded[name]
        for name in order
        if name in members or name in encoded
    }
