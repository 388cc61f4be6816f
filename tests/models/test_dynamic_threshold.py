from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.errors import ModelInputError
from qosforge.models.dynamic_threshold import (
    alpha_from_dynamic_th,
    dynamic_th_from_alpha,
    dynamic_threshold_share,
)


def test_tlt_worked_share() -> None:
    # TLT §4.2: 12 MB, alpha = 1, 16 congested ports -> 705.88 kB per port; 1 port -> 6 MB.
    assert dynamic_threshold_share(12e6, 1.0, 16).per_port_share_bytes == pytest.approx(705_882.35, abs=0.01)
    assert dynamic_threshold_share(12e6, 1.0, 1).per_port_share_bytes == pytest.approx(6e6)


def test_share_is_the_fixed_point_of_the_dynamic_threshold_rule() -> None:
    result = dynamic_threshold_share(9e6, 0.5, 7)
    q = result.per_port_share_bytes
    assert q == pytest.approx(0.5 * (9e6 - 7 * q))
    assert result.free_buffer_bytes == pytest.approx(9e6 - 7 * q)


def test_vectorised_matches_scalar() -> None:
    ports = np.arange(1, 33, dtype=float)
    vector = dynamic_threshold_share(12e6, 2.0, ports).per_port_share_bytes
    assert vector.shape == (32,)
    for m, value in zip(ports, vector, strict=True):
        assert value == pytest.approx(dynamic_threshold_share(12e6, 2.0, m).per_port_share_bytes)


@pytest.mark.parametrize(("kwargs", "place"), [({"buffer_bytes": 0}, "buffer_bytes"), ({"alpha": -1}, "alpha"), ({"congested_ports": 0}, "congested_ports")])
def test_bad_inputs_name_the_parameter(kwargs: dict[str, float], place: str) -> None:
    arguments = {"buffer_bytes": 12e6, "alpha": 1.0, "congested_ports": 4.0} | kwargs
    with pytest.raises(ModelInputError) as caught:
        dynamic_threshold_share(**arguments)
    assert caught.value.place == place


def test_dynamic_th_round_trip_and_range() -> None:
    for exponent in range(-8, 8):
        assert dynamic_th_from_alpha(alpha_from_dynamic_th(exponent)) == exponent
    with pytest.raises(ModelInputError, match="not a power of two"):
        dynamic_th_from_alpha(3.0)
    with pytest.raises(ModelInputError, match="outside"):
        dynamic_th_from_alpha(256.0)


@pytest.mark.parametrize(
    ("alpha", "suggest", "hint"),
    [
        (3.0, (), "use 2 (dynamic_th 1) or 4 (dynamic_th 2)"),
        # Beyond the range, the hint names its end, not 512 or 1024 (dynamic_th 9, 10).
        (1000.0, (), "use 128 (dynamic_th 7)"),
        (1000.0, tuple(range(-7, 4)), "use 8 (dynamic_th 3)"),
        (0.001, tuple(range(-7, 4)), "use 0.0078125 (dynamic_th -7)"),
    ],
)
def test_a_power_of_two_hint_names_only_accepted_alphas(
    alpha: float, suggest: tuple[int, ...], hint: str
) -> None:
    with pytest.raises(ModelInputError, match="not a power of two") as caught:
        dynamic_th_from_alpha(alpha, suggest=suggest)
    assert caught.value.hint == hint


@given(
    st.floats(min_value=1e5, max_value=1e9),
    st.sampled_from([2.0**n for n in range(-8, 8)]),
    st.integers(min_value=1, max_value=127),
)
def test_more_congested_ports_never_get_more(buffer_bytes: float, alpha: float, ports: int) -> None:
    fewer = dynamic_threshold_share(buffer_bytes, alpha, ports).per_port_share_bytes
    more = dynamic_threshold_share(buffer_bytes, alpha, ports + 1).per_port_share_bytes
    assert more <= fewer
    assert 0 < more < buffer_bytes


# One alpha conversion (alpha_from_dynamic_th) for compile, lint and the software switch.
special_maps = st.dictionaries(
    st.integers(min_value=-8, max_value=7),
    st.sampled_from([0.0, math.inf]) | st.floats(min_value=1e-3, max_value=1e3),
    max_size=3,
)


@given(st.integers(min_value=-60, max_value=60), special_maps)
def test_alpha_is_two_to_the_n_except_where_the_vendor_says_otherwise(exponent: int, special: dict[int, float]) -> None:
    alpha = alpha_from_dynamic_th(exponent, special)
    if exponent in special:
        assert alpha == special[exponent]
    else:
        # SAI inc/saibuffer.h SHARED_DYNAMIC_TH: "2^n of available buffer of the pool", exactly.
        assert alpha == math.ldexp(1.0, exponent) == alpha_from_dynamic_th(exponent)
        assert alpha_from_dynamic_th(exponent + 1) == 2 * alpha


@given(st.integers(min_value=-8, max_value=7))
def test_without_special_values_the_conversion_inverts_dynamic_th_from_alpha(exponent: int) -> None:
    assert dynamic_th_from_alpha(alpha_from_dynamic_th(exponent, {})) == exponent


def test_mellanox_ends() -> None:
    # mlnx_sai/src/mlnx_sai_buffer.c sai_buffer_alpha_bounds_t: SAI_BUFFER_ALPHA_0 = -8, SAI_BUFFER_ALPHA_INFINITY = 7.
    spectrum = {-8: 0.0, 7: math.inf}
    assert alpha_from_dynamic_th(-8, spectrum) == 0.0 and math.isinf(alpha_from_dynamic_th(7, spectrum))
    assert alpha_from_dynamic_th(6, spectrum) == 64.0 and alpha_from_dynamic_th(7) == 128.0


@given(st.floats(min_value=1e5, max_value=1e9), st.integers(min_value=1, max_value=127), st.integers(min_value=-8, max_value=7))
def test_infinite_alpha_shares_the_buffer_equally_and_bounds_every_finite_alpha(buffer_bytes: float, ports: int, exponent: int) -> None:
    unlimited = dynamic_threshold_share(buffer_bytes, math.inf, ports)
    assert unlimited.per_port_share_bytes == pytest.approx(buffer_bytes / ports)
    assert unlimited.free_buffer_bytes == pytest.approx(0.0, abs=1e-6 * buffer_bytes)
    finite = dynamic_threshold_share(buffer_bytes, 2.0**exponent, ports).per_port_share_bytes
    assert finite < unlimited.per_port_share_bytes


def test_infinite_alpha_in_a_vector_leaves_the_finite_points_unchanged() -> None:
    alphas = np.array([0.5, 1.0, math.inf])
    vector = dynamic_threshold_share(12e6, alphas, 4).per_port_share_bytes
    assert vector[0] == dynamic_threshold_share(12e6, 0.5, 4).per_port_share_bytes
    assert vector[1] == dynamic_threshold_share(12e6, 1.0, 4).per_port_share_bytes
    assert vector[2] == 3e6
