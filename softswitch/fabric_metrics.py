"""Fabric-wide results: flow completion times and how far PFC pauses spread."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FlowCompletionStats:
    """Flow completion times of the finished flows (seconds); nan when none finished."""

    count: int
    """Finished flows."""
    unfinished: int
    mean_s: float
    p50_s: float
    p99_s: float

    def as_json(self) -> dict[str, float | int | None]:
        """The fields as a JSON-safe dict (nan -> None)."""
        raise NotImplementedError


def flow_completion_stats(start_s: np.ndarray, finish_s: np.ndarray) -> FlowCompletionStats:
    """FCT = finish - start of each flow; finish < 0 or nan means unfinished."""
    raise NotImplementedError


@dataclass(frozen=True)
class PortRef:
    """An egress port ``port`` of switch ``switch``."""

    switch: str
    port: str


def pause_depth(
    origin: PortRef, paused: Iterable[PortRef], links: Mapping[PortRef, PortRef]
) -> int:
    """The largest number of switch hops from ``origin`` to a port paused because of it.

    ``links`` maps each switch egress port to the port at the other end of its cable (both
    directions present or not; either is enough). One hop = crossing one switch-to-switch link
    upstream: from a paused egress port on switch S to the peer's egress port that feeds S.
    """
    raise NotImplementedError


__all__ = ["FlowCompletionStats", "PortRef", "flow_completion_stats", "pause_depth"]
