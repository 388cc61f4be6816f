"""Per-flow and per-group results over a measurement window: throughput, FCT, fairness."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def jain_index(values: Sequence[float] | np.ndarray) -> float | None:
    """Jain's fairness index (Σx)² / (n·Σx²) (Jain, Chiu, Hawe, "A Quantitative Measure of
    Fairness and Discrimination for Resource Allocation in Shared Computer Systems", DEC-TR-301,
    1984, §3; as ns-3's examples/tcp/dctcp-example.cc PrintFairness computes it): 1 when every
    flow got the same, 1/n when one flow got everything. None when no flow got anything: the
    index is 0/0 there, undefined (no allocation to be fair or unfair about), not 1."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("Jain's index of no flows")
    if np.any(x < 0) or not np.all(np.isfinite(x)):
        raise ValueError("throughputs must be finite and >= 0")
    peak = float(x.max())
    if peak == 0.0:
        return None
    # The index does not change with the unit: relative to the largest share, squares neither
    # underflow (a denormal rate) nor overflow.
    x = x / peak
    return min(float(np.sum(x)) ** 2 / (x.size * float(np.sum(x * x))), 1.0)


@dataclass(frozen=True)
class GroupStats:
    name: str
    flows: int
    total_throughput_bps: float
    mean_throughput_bps: float
    min_throughput_bps: float
    max_throughput_bps: float
    jain_index: float | None
    """None for a group that got nothing in the window (:func:`jain_index`)."""


def group_stats(names: Sequence[str], throughput_bps: Sequence[float] | np.ndarray) -> tuple[GroupStats, ...]:
    """Per group (in order of first appearance): its flows' mean, min, max and total throughput
    and Jain's index."""
    values = np.asarray(throughput_bps, dtype=float)
    if len(names) != values.size:
        raise ValueError(f"{len(names)} group names for {values.size} throughputs")
    out = []
    for name in dict.fromkeys(names):
        x = values[[i for i, n in enumerate(names) if n == name]]
        out.append(GroupStats(name, int(x.size), float(x.sum()), float(x.mean()), float(x.min()), float(x.max()), jain_index(x)))
    return tuple(out)


def completion_time_s(start_s: float, finish_s: float, end_s: float) -> float | None:
    """A sized flow's FCT: its last byte received in order minus its start, if by ``end_s``
    (the engine marks an unfinished flow's finish -1)."""
    if finish_s < 0.0 or not math.isfinite(finish_s) or finish_s > end_s:
        return None
    return finish_s - start_s


__all__ = ["GroupStats", "completion_time_s", "group_stats", "jain_index"]
