"""Reuse of per-program work across the switches of a fabric.

The switches of one kind (every leaf of a pod, every spine) get SAI programs that differ only in
the switch's name (and, in the JSON, the ports' peers): validating, serialising and recording each
of them again repeats the same work thousands of times in a large fabric. Each step keys its
result on exactly the program content it reads, so a hit is an identical result, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from qosforge.backends.sai.program import SaiOperation, SaiProgram

V = TypeVar("V")

#: Distinct programs remembered per step; a fabric has a handful of switch kinds.
DEFAULT_ENTRIES = 64


class BoundedMemo(Generic[V]):
    """A dict of the most recent ``entries`` results (oldest evicted first)."""

    def __init__(self, entries: int = DEFAULT_ENTRIES) -> None:
        self._entries = entries
        self._results: dict[Hashable, V] = {}
        self.hits = 0

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        if key in self._results:
            self.hits += 1
            return self._results[key]
        value = compute()
        if len(self._results) >= self._entries:
            del self._results[next(iter(self._results))]
        self._results[key] = value
        return value


class OperationsKey:
    """A program's operations as a dict key whose hash is computed once (hashing ~2,000 frozen
    dataclasses is the cost of a lookup, and validation, JSON and recording each look up)."""

    __slots__ = ("_hash", "operations")

    def __init__(self, operations: tuple[SaiOperation, ...]) -> None:
        self.operations = operations
        self._hash = hash(operations)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, OperationsKey)
            and self._hash == other._hash
            and (self.operations is other.operations or self.operations == other.operations)
        )


_RECENT: dict[int, tuple[tuple[SaiOperation, ...], OperationsKey]] = {}
#: One key object per distinct operations tuple: equal programs get the *same* key, so every memo
#: lookup after the first is an identity check instead of a walk over the operations.
_CANONICAL: BoundedMemo[OperationsKey] = BoundedMemo()


def operations_key(program: SaiProgram) -> OperationsKey:
    """The key of ``program.operations``, shared by the steps that handle the same program and
    by the programs that share one operations tuple (a kind's switches: fabric.py renames them
    with ``replace``, which keeps the tuple), so the tuple is hashed once per kind."""
    operations = program.operations
    recent = _RECENT.get(id(operations))
    if recent is not None and recent[0] is operations:
        return recent[1]
    fresh = OperationsKey(operations)
    key = _CANONICAL.get(fresh, lambda: fresh)
    if len(_RECENT) >= 4:
        del _RECENT[next(iter(_RECENT))]
    _RECENT[id(operations)] = (operations, key)  # the tuple is held, so its id stays its own
    return key


__all__ = ["DEFAULT_ENTRIES", "BoundedMemo", "OperationsKey", "operations_key"]
