"""Reuse of per-program work across the switches of a fabric.

The switches of one kind (every leaf of a pod, every spine) get SAI programs that differ only in
the switch's name (and, in the JSON, the ports' peers): validating, serialising and recording each
of them again repeats the same work thousands of times in a large fabric. Each step keys its
result on exactly the program content it reads, so a hit is an identical result, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

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


__all__ = ["DEFAULT_ENTRIES", "BoundedMemo"]
