"""Collected results (softswitch/metrics.py): pause seconds, closing pauses still running."""

from __future__ import annotations

import numpy as np
import pytest

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.metrics import pause_seconds


def test_pause_seconds_count_after_the_warm_up_and_close_at_the_end() -> None:
    times = np.zeros((2, 8, L.PT_COLS))
    times[:, :, L.PT_SENT_SINCE] = -1.0
    times[:, :, L.PT_RECEIVED_SINCE] = -1.0
    times[0, 3, L.PT_SENT_S] = 0.25  # closed pauses, already counted by the kernel
    times[0, 3, L.PT_SENT_SINCE] = 0.5  # and one still running at the end (1.0 s)
    times[1, 0, L.PT_RECEIVED_SINCE] = 0.05  # running since before the warm-up (0.1 s)
    seconds = pause_seconds(times, end_s=1.0, warmup_s=0.1)
    assert seconds[0, 3, 0] == pytest.approx(0.75)
    assert seconds[1, 0, 1] == pytest.approx(0.9)
    assert seconds.sum() == pytest.approx(1.65)
