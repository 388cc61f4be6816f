from __future__ import annotations

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
