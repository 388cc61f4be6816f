"""Jain's fairness index and per-group statistics (softswitch/flow_metrics.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.softswitch.flow_metrics import group_stats, jain_index


def test_jain_of_known_allocations() -> None:
    # Jain, Chiu, Hawe (DEC-TR-301 §3): equal shares 1, one flow with everything 1/n.
    assert jain_index([5.0, 5.0, 5.0, 5.0]) == 1.0
    assert jain_index([0.0, 0.0, 0.0, 8.0]) == pytest.approx(0.25)
    assert jain_index([1.0, 3.0]) == pytest.approx(16 / 20)


def test_jain_of_nothing_delivered_is_undefined() -> None:
    # 0/0: no allocation to be fair about (it was 1.0, read as "perfectly fair").
    assert jain_index([0.0, 0.0, 0.0]) is None
    with pytest.raises(ValueError, match="no flows"):
        jain_index([])
    [idle, busy] = group_stats(["idle", "busy", "idle", "busy"], [0.0, 2e6, 0.0, 6e6])
    assert idle.jain_index is None and idle.total_throughput_bps == 0.0
    assert busy.jain_index == pytest.approx(64 / 80)


#: Rates from nothing to 1 Tb/s; scaled by 1e-3 they stay representable (no value rounds to 0).
_RATES = st.floats(min_value=0.0, max_value=1e12, allow_nan=False).filter(
    lambda v: v == 0.0 or v > 1e-290
)


@given(st.lists(_RATES, min_size=1, max_size=50), st.floats(min_value=1e-3, max_value=1e3))
def test_jain_lies_between_1_over_n_and_1_and_ignores_scale(
    values: list[float], scale: float
) -> None:
    index = jain_index(values)
    if not any(values):
        assert index is None
        return
    assert index is not None
    assert 1.0 / len(values) - 1e-9 <= index <= 1.0
    assert jain_index([v * scale for v in values]) == pytest.approx(index, rel=1e-9)
