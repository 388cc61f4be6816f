"""DCQCN RED marking defaults (Zhu et al. SIGCOMM 2015, scaled with link rate) and overrides."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import InfeasibleDesignError, ModelInputError
from qosforge.models.dcqcn import dcqcn_marking, dcqcn_marking_probability


def test_defaults_at_40g_are_the_papers() -> None:
    marking = dcqcn_marking(40e9)
    assert marking.kmin_bytes == pytest.approx(5e3)
    assert marking.kmax_bytes == pytest.approx(200e3)
    assert marking.pmax_percent == pytest.approx(1.0)
    assert marking.requires_lossless is True


def test_defaults_scale_with_link_rate() -> None:
    marking = dcqcn_marking(np.array([10e9, 25e9, 100e9, 400e9]))
    assert marking.kmin_bytes.tolist() == pytest.approx([1.25e3, 3.125e3, 12.5e3, 50e3])
    assert marking.kmax_bytes.tolist() == pytest.approx([50e3, 125e3, 500e3, 2e6])
    assert marking.pmax_percent.tolist() == pytest.approx([1.0] * 4)
    # the thresholds stay at the same queueing delays: 1 us and 40 us.
    assert np.allclose(marking.kmin_delay_s, 1e-6) and np.allclose(marking.kmax_delay_s, 40e-6)


def test_overrides_replace_defaults_and_say_so() -> None:
    marking = dcqcn_marking(100e9, kmax_bytes=1e6, pmax_percent=20.0)
    assert marking.kmin_bytes == pytest.approx(12.5e3)
    assert marking.kmax_bytes == 1e6 and marking.pmax_percent == 20.0
    kmax = marking.provenance.derivation_of("kmax_bytes")
    kmin = marking.provenance.derivation_of("kmin_bytes")
    assert kmax is not None and kmax.source == "user override"
    assert kmin is not None and "SIGCOMM 2015" in kmin.source and "40G" in kmin.formula


@pytest.mark.parametrize(
    ("kwargs", "place"),
    [
        ({"kmin_bytes": 300e3}, "kmin_bytes"),  # above the 200 kB default K_max at 40G
        ({"kmax_bytes": 4e3}, "kmax_bytes"),  # below the 5 kB default K_min at 40G
        ({"kmin_bytes": 100e3, "kmax_bytes": 100e3}, "kmin_bytes"),  # K_min must be strictly below
        ({"pmax_percent": 0.0}, "pmax_percent"),
        ({"pmax_percent": 150.0}, "pmax_percent"),
        ({"kmin_bytes": -1.0}, "kmin_bytes"),
    ],
)
def test_bad_thresholds(kwargs: dict[str, float], place: str) -> None:
    with pytest.raises(ModelInputError) as error:
        dcqcn_marking(40e9, **kwargs)
    assert error.value.place == place and error.value.hint


def test_pmax_of_one_is_allowed() -> None:
    assert dcqcn_marking(40e9, pmax_percent=100.0).pmax_percent == 100.0


def test_lossless_is_required() -> None:
    with pytest.raises(InfeasibleDesignError) as error:
        dcqcn_marking(40e9, lossless=False)
    assert error.value.place == "lossless" and "PFC" in error.value.message


def test_rate_must_be_positive() -> None:
    with pytest.raises(ModelInputError) as error:
        dcqcn_marking(0.0)
    assert error.value.place == "rate_bps"


def test_red_marking_probability() -> None:
    queue = np.array([0.0, 5e3, 102.5e3, 200e3, 200e3 + 1])
    p = dcqcn_marking_probability(queue, 5e3, 200e3, 0.01)
    assert p.tolist() == pytest.approx([0.0, 0.0, 0.005, 0.01, 1.0])
    assert isinstance(dcqcn_marking_probability(1e5, 5e3, 200e3, 0.01), float)


@settings(max_examples=200, deadline=None)
@given(rates=st.lists(st.floats(1e8, 1.6e12), min_size=2, max_size=20))
def test_scaled_thresholds_are_monotone_in_speed(rates: list[float]) -> None:
    rate = np.sort(np.array(rates))
    marking = dcqcn_marking(rate)
    assert np.all(np.diff(marking.kmin_bytes) >= 0)
    assert np.all(np.diff(marking.kmax_bytes) >= 0)
    assert np.all(marking.kmin_bytes < marking.kmax_bytes)
