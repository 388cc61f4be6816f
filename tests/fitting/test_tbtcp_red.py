"""TBTCP switch profile + host parameters, per-step mode and the t_max search."""

from __future__ import annotations

import numpy as np
import pytest

from qosforge.errors import ModelInputError
from qosforge.fitting.least_squares import fit_red_batch
from qosforge.fitting.red_model import RedStepModel
from qosforge.fitting.t_max_search import choose_t_max, error_to_limit_kilobytes
from qosforge.fitting.targets import function_target, tbtcp_target
from qosforge.fitting.tbtcp_red import fit_tbtcp_red
from qosforge.provenance import quantities

KB = 1e3
PER_STEP = RedStepModel(per_step_programmable=True)


def test_table_1_row_r4_with_host_parameters() -> None:
    fit = fit_tbtcp_red(180 * KB, 138 * KB, 550 * KB, 4, beta=0.1)
    assert fit.t_min_bytes == 138 * KB and fit.t_max_bytes == 550 * KB
    assert fit.p_max == pytest.approx(0.18)
    assert fit.p_max_unquantized == pytest.approx(0.179577, abs=1e-6)
    assert fit.window_reduction_r == 4.0
    assert fit.beta == 0.1 and fit.rtts_per_mss_increase == pytest.approx(10.0)
    assert np.isnan(fit.error_to_limit_kilobytes)
    for view in quantities(fit):
        if view.name != "bdp_bytes":
            assert fit.provenance.derivation_of(view.name) is not None, view.name


def test_per_step_fit_is_the_mean_of_the_ideal_curve_over_each_step() -> None:
    fit = fit_tbtcp_red(180 * KB, 138 * KB, 550 * KB, 1, model=PER_STEP, per_step=True)
    # Above BDP + l = 318 kB the ideal curve is flat at 0.5, so steps 4..7 (from 344 kB) are 0.5.
    np.testing.assert_allclose(fit.step_probabilities[4:], 0.5)
    assert list(np.diff(fit.step_probabilities) >= 0) == [True] * 7
    single = fit_tbtcp_red(180 * KB, 138 * KB, 550 * KB, 1)
    assert fit.error_kilobytes < single.error_kilobytes / 10


def test_per_step_needs_a_programmable_chip_and_r_one() -> None:
    with pytest.raises(ModelInputError) as raised:
        fit_tbtcp_red(180 * KB, 138 * KB, 550 * KB, 1, per_step=True)
    assert raised.value.place == "per_step"
    with pytest.raises(ModelInputError) as raised:
        fit_tbtcp_red(180 * KB, 138 * KB, 550 * KB, 2, model=PER_STEP, per_step=True)
    assert raised.value.place == "window_reduction_r"


@pytest.mark.parametrize(
    ("kwargs", "place"),
    [
        ({"bdp_bytes": 0.0}, "bdp_bytes"),
        ({"bdp_bytes": -5.0}, "bdp_bytes"),
        ({"t_max_bytes": 100 * KB}, "t_max_bytes"),
        ({"window_reduction_r": 0.5}, "window_reduction_r"),
        ({"beta": 0.5}, "beta"),
        ({"lso_burst_bytes": 200 * KB}, "t_min_bytes"),
        ({"port_buffer_bytes": 100 * KB}, "t_min_bytes"),
        ({"port_buffer_bytes": 500 * KB}, "t_max_bytes"),
        ({"t_max_bytes": None}, "t_max_bytes"),
    ],
)
def test_bad_input_names_the_parameter(kwargs: dict[str, float | None], place: str) -> None:
    arguments: dict[str, float | None] = {
        "bdp_bytes": 180 * KB,
        "t_min_bytes": 138 * KB,
        "t_max_bytes": 550 * KB,
    }
    arguments.update(kwargs)
    with pytest.raises(ModelInputError) as raised:
        fit_tbtcp_red(**arguments)  # type: ignore[arg-type]
    assert raised.value.place == place and raised.value.hint


def test_vectorised_sweep_matches_single_fits() -> None:
    bdp = np.array([100 * KB, 180 * KB, 400 * KB])
    sweep = fit_tbtcp_red(bdp[:, None], 138 * KB, 550 * KB, np.array([1.0, 4.0]))
    assert sweep.p_max.shape == (3, 2)
    assert sweep.bdp_bytes.shape == (3, 2)
    one = fit_tbtcp_red(400 * KB, 138 * KB, 550 * KB, 4.0)
    assert sweep.p_max_unquantized[2, 1] == pytest.approx(one.p_max_unquantized, rel=1e-12)


def test_error_to_limit_adds_the_mark_everything_region() -> None:
    fit = fit_tbtcp_red(180 * KB, 138 * KB, 550 * KB, 1, port_buffer_bytes=1e6)
    # Above 550 kB the chip marks 1 where the ideal curve is 0.5: (1 − 0.5)² over 450 kB.
    assert fit.error_to_limit_kilobytes == pytest.approx(fit.error_kilobytes + 0.25 * 450, rel=1e-9)


def test_optimised_t_max_for_tbtcp_uses_the_whole_port_buffer() -> None:
    # Marking everything (1) is further from p/r <= 0.5 than a ramp of steps, so every extra byte
    # under RED lowers the error: the optimum is the port limit.
    fit = fit_tbtcp_red(180 * KB, 138 * KB, None, 2, port_buffer_bytes=1e6)
    assert fit.t_max_bytes == pytest.approx(1e6)
    for t_max in (400 * KB, 700 * KB, 900 * KB):
        other = fit_tbtcp_red(180 * KB, 138 * KB, t_max, 2, port_buffer_bytes=1e6)
        assert fit.error_to_limit_kilobytes < other.error_to_limit_kilobytes


def test_t_max_search_beats_a_dense_scan_for_a_curve_that_reaches_one() -> None:
    def ramp(q: np.ndarray) -> np.ndarray:
        return np.clip((q - 100 * KB) / (400 * KB), 0.0, 1.0)

    target = function_target(ramp, breakpoints_bytes=(100 * KB, 500 * KB))
    model = RedStepModel(probability_granularity=None)
    choice = choose_t_max(target, 100 * KB, 1e6, 1.0, model)
    scan = np.linspace(110 * KB, 1e6, 900)
    scanned = error_to_limit_kilobytes(
        target, fit_red_batch(target, 100 * KB, scan, 1.0, model), 1e6
    )
    assert choice.error_to_limit_kilobytes <= scanned.min() + 1e-9
    assert 100 * KB < choice.fit.t_max_bytes < 1e6  # an interior optimum


def test_t_max_search_on_cells_returns_a_whole_cell() -> None:
    model = RedStepModel(threshold_granularity_bytes=208.0)
    choice = choose_t_max(tbtcp_target(180 * KB, 138 * KB), 138 * KB, 1e6, 1.0, model)
    assert choice.fit.t_max_bytes % 208.0 == 0.0
    assert choice.fit.t_max_bytes == 1e6 // 208 * 208


def test_t_max_search_needs_room_above_t_min() -> None:
    with pytest.raises(ModelInputError) as raised:
        choose_t_max(tbtcp_target(180 * KB, 138 * KB), 138 * KB, 138 * KB, 1.0)
    assert raised.value.place == "port_buffer_bytes"
