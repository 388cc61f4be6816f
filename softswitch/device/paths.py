"""gNMI paths of published values, and matching them against what a client asks for.

A published value is a :class:`Leaf`: its origin, its path as (name, keys) elements, and a value.
A request path selects the leaves it is a prefix of (gNMI specification §2.2.2, "Paths"), with
the wildcards of the gNMI path conventions (``gnmi-path-conventions.md``): ``*`` for one element's
name or a key's value, ``...`` for any number of elements, and an omitted key as every entry of
the list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

Elem = tuple[str, tuple[tuple[str, str], ...]]
"""One path element: its name and its keys, sorted by key name."""


class Json(str):
    """A value that is JSON text (sent as ``json_ietf_val``/``json_val``, not a string)."""


Value = int | float | str | bool


@dataclass(frozen=True)
class Leaf:
    origin: str
    """``openconfig`` (the default origin, written empty on the wire) or another schema's origin."""
    elems: tuple[Elem, ...]
    value: Value
    target: str = ""
    """The path's ``target``: empty for the switch's own data; sonic-gnmi names the Redis
    database there (``COUNTERS_DB``, sonic-gnmi sonic_data_client/db_client.go)."""

    def text(self) -> str:
        """The path as the gNMI path conventions write it: ``/a/b[k=v]/c``."""
        return "/" + "/".join(name + "".join(f"[{k}={v}]" for k, v in keys) for name, keys in self.elems)


def elem(element: str, /, **keys: str) -> Elem:
    return element, tuple(sorted(keys.items()))


def parse_path(text: str) -> tuple[Elem, ...]:
    """``/a/b[k=v]/c`` into elements (keys may hold ``/``; ``]`` and ``=`` may not)."""
    elems: list[Elem] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "/":
            i += 1
            continue
        j = i
        while j < n and text[j] not in "/[":
            j += 1
        name = text[i:j]
        keys: dict[str, str] = {}
        while j < n and text[j] == "[":
            close = text.index("]", j)
            key, _, value = text[j + 1:close].partition("=")
            keys[key] = value
            j = close + 1
        elems.append((name, tuple(sorted(keys.items()))))
        i = j
    return tuple(elems)


def from_proto(path: Any) -> tuple[Elem, ...]:
    """The elements of a ``gnmi.Path`` (the deprecated ``element`` strings too)."""
    if path.elem:
        return tuple((e.name, tuple(sorted(e.key.items()))) for e in path.elem)
    return tuple(parse_path("/".join(path.element)))


def to_proto(gnmi_pb2: Any, elems: Iterable[Elem], origin: str = "", target: str = "") -> Any:
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=name, key=dict(keys)) for name, keys in elems], origin=origin, target=target)


def _elem_matches(pattern: Elem, actual: Elem) -> bool:
    name, keys = pattern
    if name != "*" and name != actual[0]:
        return False
    values = dict(actual[1])
    return all(value == "*" or values.get(key) == value for key, value in keys)


def matches(pattern: tuple[Elem, ...], elems: tuple[Elem, ...]) -> bool:
    """Whether ``pattern`` selects the leaf at ``elems`` (a prefix match with wildcards)."""
    if not pattern:
        return True
    head, rest = pattern[0], pattern[1:]
    if head[0] == "...":
        return any(matches(rest, elems[i:]) for i in range(len(elems) + 1))
    if not elems or not _elem_matches(head, elems[0]):
        return False
    return matches(rest, elems[1:])


def same_origin(requested: str, leaf_origin: str) -> bool:
    """An empty origin is ``openconfig`` (gNMI specification §2.2.2.1, mixed schema)."""
    return (requested or "openconfig") == (leaf_origin or "openconfig")


@dataclass(frozen=True)
class Request:
    """A requested path with its prefix applied: origin, target and elements."""

    origin: str
    target: str
    elems: tuple[Elem, ...]

    def selects(self, leaf: Leaf) -> bool:
        return same_origin(self.origin, leaf.origin) and self.target == leaf.target and matches(self.elems, leaf.elems)

    def text(self) -> str:
        path = Leaf(self.origin, self.elems, 0).text()
        return (f"{self.origin}:" if self.origin else "") + path + (f" (target {self.target})" if self.target else "")


def exact(wanted: Request) -> bool:
    """No wildcard: every element named, every key given (the path's leaves are one subtree)."""
    return all(name not in ("*", "...") and all(value != "*" for _, value in keys) for name, keys in wanted.elems)


ListKey = tuple[str, str, int, str]
"""Where a list is in the published tree: origin, target, depth and element name."""


class LeafIndex:
    """Leaves by every path prefix, so an exact request finds its subtree by lookup instead of
    matching every leaf (watch's SONiC request names one path per priority group: hundreds).

    A lookup needs every list's keys: a request that leaves a key out (the gNMI path
    conventions' "omitted key", every entry of the list) is matched leaf by leaf, as Get does,
    so that Get and Subscribe select the same leaves."""

    def __init__(self, leaves: list[Leaf]) -> None:
        self.leaves = leaves
        self._by_prefix: dict[tuple[str, str, tuple[Elem, ...]], list[int]] = {}
        self._list_keys: dict[ListKey, frozenset[str]] = {}
        """The key names of each list the leaves pass through."""
        for position, leaf in enumerate(leaves):
            origin = leaf.origin or "openconfig"
            for length in range(len(leaf.elems) + 1):
                self._by_prefix.setdefault((origin, leaf.target, leaf.elems[:length]), []).append(position)
            for depth, (name, keys) in enumerate(leaf.elems):
                if keys:
                    where = (origin, leaf.target, depth, name)
                    names = frozenset(key for key, _ in keys)
                    self._list_keys[where] = self._list_keys.get(where, frozenset()) | names

    def refreshed(self, leaves: list[Leaf]) -> LeafIndex:
        """The same paths, in the same order, with new values: shares this index's lookup table
        (a snapshot of the same switch layout, softswitch/device/publish.py Publisher)."""
        index = LeafIndex.__new__(LeafIndex)
        index.leaves = leaves
        index._by_prefix = self._by_prefix
        index._list_keys = self._list_keys
        return index

    def _keys_given(self, wanted: Request) -> bool:
        """Whether ``wanted`` gives every key of every list it passes through."""
        origin = wanted.origin or "openconfig"
        for depth, (name, keys) in enumerate(wanted.elems):
            needed = self._list_keys.get((origin, wanted.target, depth, name))
            if needed is not None and not needed <= {key for key, _ in keys}:
                return False
        return True

    def positions(self, wanted: Request) -> list[int]:
        if exact(wanted) and self._keys_given(wanted):
            key = (wanted.origin or "openconfig", wanted.target, tuple((name, tuple(sorted(keys))) for name, keys in wanted.elems))
            return self._by_prefix.get(key, [])
        return [i for i, leaf in enumerate(self.leaves) if wanted.selects(leaf)]


def request(prefix: Any, path: Any) -> Request:
    """A request path with its prefix (gNMI specification §2.4.1): the prefix's elements first,
    its origin and target unless the path sets its own."""
    origin = (path.origin if path is not None else "") or (prefix.origin if prefix is not None else "")
    target = (path.target if path is not None else "") or (prefix.target if prefix is not None else "")
    elems = (from_proto(prefix) if prefix is not None else ()) + (from_proto(path) if path is not None else ())
    return Request(origin, target, elems)


def select(leaves: Iterable[Leaf], wanted: Request) -> Iterator[Leaf]:
    return (leaf for leaf in leaves if wanted.selects(leaf))


__all__ = ["Elem", "Json", "Leaf", "LeafIndex", "Request", "Value", "elem", "exact", "from_proto", "matches", "parse_path", "request", "same_origin", "select", "to_proto"]
