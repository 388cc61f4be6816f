"""qosforge.presentation: representation noise is rounded away where JSON is written, nothing else."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from qosforge.presentation import presentable, tidy


def test_representation_noise_is_gone() -> None:
    assert presentable(0.1 + 0.2) == 0.3
    assert presentable(12e6 / 30) == 400000.0 and presentable(40e9 * 80e-6 / 8) == 400000.0
    assert presentable(1e-5 * 10) == 1e-4 and presentable(0.0) == 0.0 and math.isinf(presentable(math.inf))


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300))
def test_a_value_moves_by_at_most_half_a_unit_in_the_twelfth_digit(value: float) -> None:
    shown = presentable(value)
    assert abs(shown - value) <= 5e-12 * abs(value) + 1e-300
    assert presentable(shown) == shown  # idempotent


def test_tidy_keeps_structure_ints_and_bools() -> None:
    document = {"a": [0.1 + 0.2, 3, True, None, "0.30000000000000004"], "b": {"c": (7.999999999999999e-05,)}}
    assert tidy(document) == {"a": [0.3, 3, True, None, "0.30000000000000004"], "b": {"c": [8e-05]}}
