"""How long PFC pauses last, per transmit port and priority (sent and received, after the warm-up).

Both the MMU (XOFF/XON it sends from an ingress port) and the kernel (PAUSE frames taking effect
at a transmit port) keep these times in ``W_PFCT``; a pause still running when the run ends is
closed by the collector (softswitch/metrics.py).
"""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.jit import compiled


@compiled
def pause_time(times: np.ndarray, port: int, priority: int, since_col: int, total_col: int, now: float, warmup: float, on: int) -> bool:
    """Open (``on`` = 1) or close a pause of ``port``'s ``priority``; True when one starts now.

    The seconds added on closing are those after the warm-up only."""
    if on == 1:
        if times[port, priority, since_col] < 0.0:
            times[port, priority, since_col] = now
            return True
        return False
    if times[port, priority, since_col] >= 0.0:
        times[port, priority, total_col] += max(now - max(times[port, priority, since_col], warmup), 0.0)
        times[port, priority, since_col] = -1.0
    return False


__all__ = ["pause_time"]
