"""The closed-form RED fit: TBTCP Table 1, agreement with brute-force minimisation, properties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import InfeasibleDesignError, ModelInputError
from qosforge.fitting import least_squares
from qosforge.fitting.least_squares import fit_red_batch
from qosforge.fitting.red_model import RedStepModel
from qosforge.fitting.targets import function_target, linear_red_target, tbtcp_target
from qosforge.models.tbtcp import tbtcp_ideal_marking_probability

KB = 1e3
CONTINUOUS = RedStepModel(probability_granularity=None)

# TBTCP §6.2 Table 1: l = t_min = 138 kB, t_max = 550 kB, BDP = 180 kB.
PAPER_TABLE_1 = {1: (0.7, 6.66), 2: (0.35, 1.67), 3: (0.25, 0.76), 4: (0.2, 0.49)}


def _reference_fit(
    bdp: float, start: float, t_max: float, r: float, steps: int = 8, c: float = 0.5
) -> tuple[float, float]:
    """P_max and error (Q in kB) from scipy's adaptive quad, independent of fitting/quadrature."""
    # scipy's integrators are imported by the tests that use them, not at collection (~0.4 CPU
    # s in every worker).
    from scipy.integrate import quad

    width = (t_max - start) / steps
    fractions = (np.arange(steps) + c) / steps

    def p(q: float) -> float:
        return float(tbtcp_ideal_marking_probability(q, bdp, start)) / r

    edges = [(start + i * width, start + (i + 1) * width) for i in range(steps)]
    step_integrals = np.array([quad(p, a, b, points=[start + bdp], limit=200)[0] for a, b in edges])
    p_max = float(step_integrals @ fractions / (width * fractions @ fractions))
    error = sum(
        quad(lambda q, g=g: (p(q) - p_max * g) ** 2, a, b, points=[start + bdp], limit=200)[0]
        for (a, b), g in zip(edges, fractions, strict=True)
    )
    return p_max, error / KB


@pytest.mark.parametrize("r", [1, 2, 3, 4])
def test_table_1_least_squares_matches_independent_quadrature(r: int) -> None:
    fit = fit_red_batch(tbtcp_target(180 * KB, 138 * KB), 138 * KB, 550 * KB, r)
    p_max, error = _reference_fit(180 * KB, 138 * KB, 550 * KB, r)
    assert fit.p_max_unquantized == pytest.approx(p_max, rel=1e-9)
    assert fit.error_unquantized_kilobytes == pytest.approx(error, rel=1e-7)


def test_table_1_values_we_get() -> None:
    # Our reading (docs/fitting.md): midpoint steps, Eq. 9 with the 0.5 cap, Q in kB.
    fits = fit_red_batch(
        tbtcp_target(180 * KB, 138 * KB), 138 * KB, 550 * KB, np.array([1.0, 2.0, 3.0, 4.0])
    )
    np.testing.assert_allclose(
        fits.p_max_unquantized, [0.71831, 0.35915, 0.23944, 0.17958], atol=5e-6
    )
    np.testing.assert_allclose(fits.p_max, [0.72, 0.36, 0.24, 0.18])
    np.testing.assert_allclose(fits.error_kilobytes, [7.8845, 1.9711, 0.87606, 0.49278], rtol=1e-4)


@pytest.mark.parametrize("r", [1, 2, 3, 4])
def test_table_1_paper_p_max_is_our_optimum_on_a_five_percent_grid(r: int) -> None:
    # The paper's P_max values are exactly our least-squares optimum rounded to 0.05; its errors
    # are 0.82-0.89 times ours at those values (docs/fitting.md: what we can and cannot match).
    paper_p_max, paper_error = PAPER_TABLE_1[r]
    model = RedStepModel(probability_granularity=0.05)
    fit = fit_red_batch(tbtcp_target(180 * KB, 138 * KB), 138 * KB, 550 * KB, r, model)
    assert fit.p_max == pytest.approx(paper_p_max)
    assert abs(fit.p_max_unquantized - paper_p_max) < 0.025
    assert 0.8 < paper_error / fit.error_kilobytes < 0.9


def test_table_1_ratio_of_errors_follows_paper() -> None:
    # Relative errors between rows agree with the paper to within 6 %.
    model = RedStepModel(probability_granularity=0.05)
    fits = fit_red_batch(
        tbtcp_target(180 * KB, 138 * KB), 138 * KB, 550 * KB, np.array([1.0, 2.0, 3.0, 4.0]), model
    )
    ours = fits.error_kilobytes / fits.error_kilobytes[0]
    paper = np.array([PAPER_TABLE_1[r][1] for r in (1, 2, 3, 4)]) / PAPER_TABLE_1[1][1]
    np.testing.assert_allclose(ours, paper, rtol=0.06)


def _brute_force_p_max(
    bdp: float, start: float, t_max: float, r: float, steps: int, c: float
) -> float:
    """minimize_scalar over P_max in [0, 1] of the error on a fine Simpson quadrature."""
    from scipy.integrate import simpson
    from scipy.optimize import minimize_scalar

    width = (t_max - start) / steps
    fractions = (np.arange(steps) + c) / steps
    pieces = []
    for i in range(steps):
        a, b = start + i * width, start + (i + 1) * width
        cuts = [a, *sorted(x for x in (start + bdp,) if a < x < b), b]
        for low, high in itertools.pairwise(cuts):
            q = np.linspace(low, high, 2001)
            pieces.append((q, tbtcp_ideal_marking_probability(q, bdp, start) / r, fractions[i]))

    def error(p_max: float) -> float:
        return sum(float(simpson((target - p_max * g) ** 2, x=q)) for q, target, g in pieces)

    return float(
        minimize_scalar(error, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-12}).x
    )


def test_closed_form_equals_brute_force_minimisation_on_random_parameter_sets() -> None:
    rng = np.random.default_rng(20240611)
    for _ in range(40):
        bdp = rng.uniform(5, 2000) * KB
        start = rng.uniform(0, 500) * KB
        t_max = start + rng.uniform(5, 3000) * KB
        r = rng.uniform(1, 8)
        steps = int(rng.integers(1, 17))
        c = rng.uniform(0.05, 1.0)
        model = RedStepModel(steps=steps, step_offset=c, probability_granularity=None)
        fit = fit_red_batch(tbtcp_target(bdp, start), start, t_max, r, model)
        brute = _brute_force_p_max(bdp, start, t_max, r, steps, c)
        assert abs(fit.p_max_unquantized - brute) <= 1e-6 * max(brute, 1e-3), (
            bdp,
            start,
            t_max,
            r,
            steps,
            c,
        )


sizes_kb = st.floats(min_value=1.0, max_value=2000.0)
offsets = st.floats(min_value=0.05, max_value=1.0)


@settings(max_examples=60, deadline=None)
@given(
    bdp=sizes_kb,
    start=st.floats(0.0, 500.0),
    span=sizes_kb,
    r=st.floats(1.0, 16.0),
    steps=st.integers(1, 16),
    c=offsets,
)
def test_optimal_error_scales_as_one_over_r_squared(
    bdp: float, start: float, span: float, r: float, steps: int, c: float
) -> None:
    model = RedStepModel(steps=steps, step_offset=c, probability_granularity=None)
    base = fit_red_batch(
        tbtcp_target(bdp * KB, start * KB), start * KB, (start + span) * KB, 1.0, model
    )
    scaled = fit_red_batch(
        tbtcp_target(bdp * KB, start * KB), start * KB, (start + span) * KB, r, model
    )
    if base.p_max_optimal <= 1.0:  # unclipped: P* scales by 1/r, the error by 1/r²
        assert scaled.p_max_unquantized == pytest.approx(base.p_max_unquantized / r, rel=1e-9)
        assert scaled.error_unquantized_kilobytes == pytest.approx(
            base.error_unquantized_kilobytes / r**2, rel=1e-7, abs=1e-15
        )


@settings(max_examples=60, deadline=None)
@given(
    bdp=sizes_kb, start=st.floats(0.0, 500.0), span=sizes_kb, steps=st.integers(1, 16), c=offsets
)
def test_programmable_steps_never_increase_the_error(
    bdp: float, start: float, span: float, steps: int, c: float
) -> None:
    model = RedStepModel(
        steps=steps, step_offset=c, probability_granularity=None, per_step_programmable=True
    )
    single = fit_red_batch(
        tbtcp_target(bdp * KB, start * KB), start * KB, (start + span) * KB, 1.0, model
    )
    each = fit_red_batch(
        tbtcp_target(bdp * KB, start * KB),
        start * KB,
        (start + span) * KB,
        1.0,
        model,
        per_step=True,
    )
    assert (
        each.error_unquantized_kilobytes <= single.error_unquantized_kilobytes * (1 + 1e-9) + 1e-15
    )


@settings(max_examples=60, deadline=None)
@given(bdp=sizes_kb, start=st.floats(0.0, 500.0), span=sizes_kb, r=st.floats(1.0, 8.0))
def test_invariant_to_expressing_sizes_in_bytes_or_kilobytes(
    bdp: float, start: float, span: float, r: float
) -> None:
    in_bytes = fit_red_batch(tbtcp_target(bdp * KB, start * KB), start * KB, (start + span) * KB, r)
    in_kb = fit_red_batch(
        tbtcp_target(bdp, start), start, start + span, r
    )  # the same numbers read as kB
    assert in_bytes.p_max_unquantized == pytest.approx(in_kb.p_max_unquantized, rel=1e-9)
    assert in_bytes.p_max == in_kb.p_max or abs(in_bytes.p_max_unquantized * 100 % 1 - 0.5) < 1e-6
    # error_kilobytes divides a byte integral by 1000: the kB-valued run is 1000× smaller.
    assert in_bytes.error_kilobytes == pytest.approx(
        in_kb.error_kilobytes * KB, rel=1e-7, abs=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(bdp=sizes_kb, start=st.floats(0.0, 500.0), span=sizes_kb, r=st.floats(1.0, 8.0))
def test_programmed_p_max_is_the_best_value_on_the_percent_grid(
    bdp: float, start: float, span: float, r: float
) -> None:
    fit = fit_red_batch(tbtcp_target(bdp * KB, start * KB), start * KB, (start + span) * KB, r)
    assert round(fit.p_max * 100) == pytest.approx(fit.p_max * 100, abs=1e-9)
    assert fit.error_kilobytes >= fit.error_unquantized_kilobytes * (1 - 1e-9)
    # Brute-force check on a fine Simpson grid: neither grid neighbour does better.
    from scipy.integrate import simpson

    fractions = RedStepModel().step_fractions()
    q = np.linspace(start * KB, (start + span) * KB, 20001)
    index = np.clip(np.ceil((q - start * KB) / (span * KB / 8)) - 1, 0, 7).astype(int)
    target = tbtcp_ideal_marking_probability(q, bdp * KB, start * KB) / r

    def err(p_max: float) -> float:
        return float(simpson((target - p_max * fractions[index]) ** 2, x=q))

    for other in np.clip(fit.p_max + np.array([-0.01, 0.01]), 0.0, 1.0):
        assert err(fit.p_max) <= err(float(other)) * (1 + 1e-3) + 1e-9


def test_batch_equals_one_at_a_time_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(least_squares, "CHUNK_SETS", 7)
    rng = np.random.default_rng(3)
    bdp = rng.uniform(10, 500, 30) * KB
    start = rng.uniform(0, 300, 30) * KB
    t_max = start + rng.uniform(20, 900, 30) * KB
    r = rng.integers(1, 5, 30).astype(float)
    batch = fit_red_batch(tbtcp_target(bdp, start), start, t_max, r)
    assert batch.p_max.shape == (30,) and batch.step_probabilities.shape == (30, 8)
    for i in range(30):
        one = fit_red_batch(tbtcp_target(bdp[i], start[i]), start[i], t_max[i], r[i])
        assert one.p_max_unquantized == pytest.approx(batch.p_max_unquantized[i], rel=1e-12)
        assert one.error_kilobytes == pytest.approx(batch.error_kilobytes[i], rel=1e-12)


def test_batch_broadcasts_grid_shapes() -> None:
    fit = fit_red_batch(
        tbtcp_target(180 * KB, 138 * KB),
        138 * KB,
        np.array([[400 * KB], [550 * KB]]),
        np.array([1.0, 2.0, 4.0]),
    )
    assert fit.p_max.shape == (2, 3)
    assert fit.step_probabilities.shape == (2, 3, 8)
    assert fit.p_max_unquantized[1, 0] == pytest.approx(0.718309568, rel=1e-8)


def test_linear_target_is_fitted_exactly_by_midpoint_steps() -> None:
    # Mean of a ramp over step i is P0·(i + 0.5)/steps: the midpoint profile with P_max = P0, and
    # the residual is the ramp within each step: error = span·(P0/steps)²/12.
    span = 400 * KB
    fit = fit_red_batch(
        linear_red_target(100 * KB, 100 * KB + span, 0.2),
        100 * KB,
        100 * KB + span,
        1.0,
        CONTINUOUS,
    )
    assert fit.p_max_unquantized == pytest.approx(0.2, rel=1e-12)
    assert fit.error_unquantized_kilobytes == pytest.approx(
        span * (0.2 / 8) ** 2 / 12 / KB, rel=1e-9
    )


def test_user_function_target_with_breakpoints() -> None:
    def curve(q: np.ndarray) -> np.ndarray:
        return np.where(q < 300 * KB, 0.1, 0.3)

    fit = fit_red_batch(
        function_target(curve, breakpoints_bytes=(300 * KB,)), 100 * KB, 500 * KB, 1.0, CONTINUOUS
    )
    width = 50 * KB
    means = np.array([0.1, 0.1, 0.1, 0.1, 0.3, 0.3, 0.3, 0.3])
    fractions = RedStepModel().step_fractions()
    assert fit.p_max_unquantized == pytest.approx(
        means @ fractions / (fractions @ fractions), rel=1e-12
    )
    per_step = fit_red_batch(
        function_target(curve, breakpoints_bytes=(300 * KB,)),
        100 * KB,
        500 * KB,
        1.0,
        RedStepModel(per_step_programmable=True),
        per_step=True,
    )
    np.testing.assert_allclose(per_step.step_probabilities, means)
    assert per_step.error_kilobytes == pytest.approx(0.0, abs=1e-12)
    assert width > 0


def test_clipping_at_one_and_quantised_thresholds() -> None:
    # A target at 0.9 everywhere wants P* = 0.9·Σg/Σg² > 1 with c = 0.1: clipped to 1.
    model = RedStepModel(step_offset=0.1, threshold_granularity_bytes=256.0)
    fit = fit_red_batch(
        function_target(lambda q: np.full_like(q, 0.9)), 1000.0, 100_000.0, 1.0, model
    )
    assert fit.p_max_optimal > 1.0
    assert fit.p_max_unquantized == 1.0 and fit.p_max == 1.0
    assert fit.t_min_bytes == 1024.0  # rounded up to a cell
    assert fit.t_max_bytes == 99_840.0  # rounded down to a cell


@pytest.mark.parametrize(
    ("t_min", "t_max", "r", "place"),
    [
        (138 * KB, 138 * KB, 1.0, "t_max_bytes"),
        (138 * KB, 100 * KB, 1.0, "t_max_bytes"),
        (-1.0, 100 * KB, 1.0, "t_min_bytes"),
        (138 * KB, 550 * KB, 0.5, "window_reduction_r"),
    ],
)
def test_bad_input_names_the_parameter(t_min: float, t_max: float, r: float, place: str) -> None:
    with pytest.raises(ModelInputError) as raised:
        fit_red_batch(function_target(lambda q: q * 0), t_min, t_max, r)
    assert raised.value.place == place and raised.value.hint


def test_thresholds_in_the_same_cell_are_infeasible() -> None:
    with pytest.raises(InfeasibleDesignError) as raised:
        fit_red_batch(
            function_target(lambda q: q * 0),
            1000.0,
            1100.0,
            1.0,
            RedStepModel(threshold_granularity_bytes=208.0),
        )
    assert raised.value.place == "t_max_bytes"


def test_provenance_derives_every_output() -> None:
    fit = fit_red_batch(tbtcp_target(180 * KB, 138 * KB), 138 * KB, 550 * KB, 2.0)
    from qosforge.provenance import quantities

    for view in quantities(fit):
        assert fit.provenance.derivation_of(view.name) is not None, view.name
    assert "TBTCP §6.2" in fit.provenance.derivation_of("p_max_optimal").source  # type: ignore[union-attr]


@pytest.mark.parametrize(("cell", "shown"), [(None, "not rounded to cells"), (208.0, "208.0")])
def test_threshold_granularity_input_says_what_it_is(cell: float | None, shown: str) -> None:
    # Byte thresholds used to be shown as the value "bytes" with unit B in explain's inputs.
    fit = fit_red_batch(tbtcp_target(180 * KB, 138 * KB), 138 * KB, 550 * KB, 2.0, RedStepModel(threshold_granularity_bytes=cell))
    granularity = next(item for item in fit.provenance.inputs if item.name == "threshold_granularity_bytes")
    assert shown in str(granularity.value)
