"""Run counters that are statistics of the measured window.

A run reports drops, marks, forwarded and delivered bytes after its warm-up only; the counts of
host and PFC reactions (timeouts, fast retransmits, ACKs and their ECN echoes, CNPs, important
packets sent, host queue drops, PFC frames) are read beside them, so they count over the same
window: a warm-up's start-up losses must not show as timeouts of a loss-free window.
"""

from __future__ import annotations

from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import PRM_WARMUP, W_CNT, W_PRMF


@compiled
def count_measured(w: World, now: float, counter: int) -> None:
    """Add one to ``counter`` when ``now`` is past the warm-up."""
    if now >= w[W_PRMF][PRM_WARMUP]:
        w[W_CNT][counter] += 1


__all__ = ["count_measured"]
