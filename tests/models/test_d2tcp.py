"""D2TCP §3.2: deadline imminence d = T_c/D with T_c = B/(3W/4), capped to [0.5, 2]; p = alpha^d."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import ModelInputError
from qosforge.models.d2tcp import (
    d2tcp_deadline,
    d2tcp_deadline_penalty,
    d2tcp_marking_threshold,
    d2tcp_penalty,
)
from qosforge.models.dctcp import dctcp_marking_threshold


def test_completion_time_counts_rtts_then_seconds() -> None:
    # B = 300 kB, W = 20 kB per RTT -> T_c = 300/(0.75*20) = 20 RTTs = 4 ms at 200 us.
    result = d2tcp_deadline(300e3, 20e3, 200e-6, 8e-3)
    assert result.completion_rtts == pytest.approx(20.0)
    assert result.completion_s == pytest.approx(4e-3)
    assert result.imminence_raw == pytest.approx(0.5)
    assert result.imminence == pytest.approx(0.5)
    assert result.meets_deadline_agnostic is True
    assert result.deadline_slack_s == pytest.approx(4e-3)
    assert result.required_rate_bps == pytest.approx(300e3 * 8 / 8e-3)


def test_imminence_is_capped_to_paper_range() -> None:
    far = d2tcp_deadline(10e3, 20e3, 200e-6, 1.0)
    near = d2tcp_deadline(10e6, 20e3, 200e-6, 1e-3)
    assert far.imminence == 0.5 and far.imminence_raw < 0.5
    assert near.imminence == 2.0 and near.imminence_raw > 2.0
    assert near.within_cap is False and near.meets_deadline_agnostic is False


def test_just_meeting_the_deadline_gives_dctcp_behaviour() -> None:
    result = d2tcp_deadline(150e3, 20e3, 100e-6, 1e-3)  # T_c = 10 RTTs = 1 ms = D
    assert result.imminence == pytest.approx(1.0)
    assert d2tcp_penalty(0.3, result.imminence).penalty == pytest.approx(0.3)


def test_gamma_correction_penalty() -> None:
    # §3.2.1: near deadline (d > 1) -> smaller penalty; far (d < 1) -> larger; alpha=1 -> halve.
    assert d2tcp_penalty(0.5, 2.0).penalty == pytest.approx(0.25)
    assert d2tcp_penalty(0.25, 0.5).penalty == pytest.approx(0.5)
    full = d2tcp_penalty(1.0, 2.0)
    assert full.penalty == 1.0 and full.window_factor == 0.5
    assert d2tcp_penalty(0.0, 1.0).window_factor == 1.0


def test_combined_deadline_and_penalty() -> None:
    result = d2tcp_deadline_penalty(10e6, 20e3, 200e-6, 1e-3, 0.5)
    assert result.imminence == 2.0 and result.penalty == pytest.approx(0.25)
    assert result.provenance.derivation_of("penalty") is not None


def test_switch_side_is_dctcp() -> None:
    assert d2tcp_marking_threshold is dctcp_marking_threshold
    # D2TCP §4.1.1 uses DCTCP's K = 65 packets at 10 Gbps.
    result = d2tcp_marking_threshold(10e9, 100e-6, 1500.0, 65 * 1500.0)
    assert result.threshold_packets == 65


@pytest.mark.parametrize(
    ("args", "kwargs", "place"),
    [
        ((0.0, 1e4, 1e-4, 1e-3), {}, "remaining_bytes"),
        ((1e4, 0.0, 1e-4, 1e-3), {}, "window_bytes"),
        ((1e4, 1e4, 0.0, 1e-3), {}, "rtt_s"),
        ((1e4, 1e4, 1e-4, 0.0), {}, "deadline_s"),
        ((1e4, 1e4, 1e-4, 1e-3), {"d_min": 0.0}, "d_min"),
        ((1e4, 1e4, 1e-4, 1e-3), {"d_max": 0.8}, "d_max"),
    ],
)
def test_bad_inputs_name_their_parameter(
    args: tuple[float, ...], kwargs: dict[str, float], place: str
) -> None:
    with pytest.raises(ModelInputError) as caught:
        d2tcp_deadline(*args, **kwargs)
    assert caught.value.place == place and caught.value.hint


def test_penalty_rejects_alpha_outside_unit_interval() -> None:
    with pytest.raises(ModelInputError) as caught:
        d2tcp_penalty(1.5, 1.0)
    assert caught.value.place == "congestion_alpha"


def test_vectorised_sweep() -> None:
    deadlines = np.linspace(1e-4, 1.0, 1_000_000)
    result = d2tcp_deadline(1e6, 64e3, 100e-6, deadlines)
    assert result.imminence.shape == (1_000_000,)
    assert np.all(np.diff(result.imminence) <= 0)


@settings(max_examples=200, deadline=None)
@given(
    b=st.floats(min_value=1e3, max_value=1e9),
    w=st.floats(min_value=1.5e3, max_value=1e7),
    rtt=st.floats(min_value=1e-6, max_value=1e-2),
    d=st.floats(min_value=1e-5, max_value=10.0),
    alpha=st.floats(min_value=0.0, max_value=1.0),
)
def test_properties(b: float, w: float, rtt: float, d: float, alpha: float) -> None:
    result = d2tcp_deadline_penalty(b, w, rtt, d, alpha)
    assert 0.5 <= result.imminence <= 2.0
    if result.meets_deadline_agnostic:
        assert result.imminence_raw <= 1.0
    # a more imminent deadline never increases the penalty (alpha <= 1)
    assert result.penalty <= d2tcp_penalty(alpha, 0.5).penalty + 1e-12
    assert 0.5 <= result.window_factor <= 1.0
