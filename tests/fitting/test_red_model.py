"""The chip's RED step model: step values, quantisation, validation, vendor profiles."""

from __future__ import annotations

import numpy as np
import pytest

from qosforge.errors import ModelInputError, ProfileError
from qosforge.fitting.red_model import (
    RedStepModel,
    quantize_probability,
    quantize_thresholds,
    red_model_from_profile,
    step_marking_probability,
)
from qosforge.vendor_profiles import load_vendor_profile


def test_default_is_tbtcp_broadcom_midpoint_steps() -> None:
    model = RedStepModel()
    assert model.steps == 8 and model.step_offset == 0.5
    # TBTCP §6.2: step i marks with (i + 0.5)·12.5 % of P_max.
    np.testing.assert_allclose(model.step_fractions(), (np.arange(8) + 0.5) * 0.125)
    assert "TBTCP §6.2" in model.source_of("steps")


def test_step_curve_is_zero_at_t_min_then_steps_then_one_above_t_max() -> None:
    values = np.arange(1, 9) / 10.0
    t_min, t_max = 100.0, 900.0  # steps of 100 bytes: (100, 200], (200, 300], ...
    queue = np.array([0.0, 100.0, 100.5, 200.0, 200.5, 899.0, 900.0, 900.5])
    expected = [0.0, 0.0, 0.1, 0.1, 0.2, 0.8, 0.8, 1.0]
    np.testing.assert_allclose(step_marking_probability(queue, t_min, t_max, values), expected)
    assert step_marking_probability(150.0, t_min, t_max, values) == pytest.approx(0.1)


def test_quantize_probability_rounds_to_whole_percent_and_clips() -> None:
    got = quantize_probability(np.array([-0.1, 0.004, 0.005001, 0.35, 0.9399999, 1.7]), 0.01)
    np.testing.assert_array_equal(got, [0.0, 0.0, 0.01, 0.35, 0.94, 1.0])
    assert quantize_probability(0.123456, None) == pytest.approx(0.123456)
    # A grid that does not divide 1 keeps its top at the last whole grid step.
    assert quantize_probability(1.0, 0.3) == pytest.approx(0.9)


def test_quantize_thresholds_rounds_t_min_up_and_t_max_down() -> None:
    assert quantize_thresholds(138_000.0, 550_000.0, 208.0) == (138_112.0, 549_952.0)
    assert quantize_thresholds(138_000.0, 550_000.0, None) == (138_000.0, 550_000.0)
    t_min, t_max = quantize_thresholds(np.array([416.0, 417.0]), np.array([1040.0, 1247.0]), 208.0)
    np.testing.assert_array_equal(t_min, [416.0, 624.0])
    np.testing.assert_array_equal(t_max, [1040.0, 1040.0])


@pytest.mark.parametrize(
    ("kwargs", "place"),
    [
        ({"steps": 0}, "steps"),
        ({"steps": 2.5}, "steps"),
        ({"step_offset": 1.5}, "step_offset"),
        ({"steps": 1, "step_offset": 0.0}, "step_offset"),
        ({"probability_granularity": 0.0}, "probability_granularity"),
        ({"threshold_granularity_bytes": -208.0}, "threshold_granularity_bytes"),
    ],
)
def test_invalid_chip_models_name_the_field(kwargs: dict[str, float], place: str) -> None:
    with pytest.raises(ModelInputError) as raised:
        RedStepModel(**kwargs)  # type: ignore[arg-type]
    assert raised.value.place == place and raised.value.hint


def test_model_from_the_trident2_profile() -> None:
    profile = load_vendor_profile("broadcom-trident2")
    model = red_model_from_profile(profile)
    assert model.steps == profile.red.steps.value
    assert model.step_offset == profile.red.step_offset.value
    assert model.probability_granularity == profile.red.probability_granularity.value
    assert model.per_step_programmable is bool(profile.red.per_step_programmable.value)
    assert model.source_of("steps").startswith("vendor profile broadcom-trident2")
    overridden = red_model_from_profile(profile, steps=16, step_offset=1.0)
    assert (overridden.steps, overridden.step_offset) == (16, 1.0)
    assert overridden.source_of("steps") == "given explicitly (--steps)"


class _Entry:
    def __init__(self, value: object, field: str) -> None:
        self.value, self.source, self.note, self._field = value, "test", None, field

    def known(self, field_name: str) -> object:
        if self.value is None:
            raise ProfileError(
                f"{field_name} is unknown",
                place=f"profile: {field_name}",
                hint="give it explicitly",
            )
        return self.value


class _Profile:
    name = "fake"

    class red:  # mirrors the profile's attribute name
        steps = _Entry(None, "steps")
        step_offset = _Entry(0.5, "step_offset")
        probability_granularity = _Entry(None, "probability_granularity")
        per_step_programmable = _Entry(None, "per_step_programmable")
        threshold_granularity_bytes = _Entry(None, "threshold_granularity_bytes")


def test_unknown_steps_in_a_profile_is_an_error_unless_given() -> None:
    with pytest.raises(ProfileError):
        red_model_from_profile(_Profile())
    model = red_model_from_profile(_Profile(), steps=8)
    # Unknown granularity falls back to SAI's whole percent; unknown per-step support means no.
    assert model.probability_granularity == 0.01
    assert model.per_step_programmable is False
    assert model.threshold_granularity_bytes is None
