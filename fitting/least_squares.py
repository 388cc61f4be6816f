"""Closed-form least-squares fit of a chip's RED step curve to a target curve (docs/architecture.md §4).

TBTCP §6.2 fits P_max by minimising err = ∫_{t_min}^{t_max} (p(Q)/r − f(Q))² dQ, where the chip's
curve is f(Q) = P_max·g_i on step i with g_i = (i + c)/steps. f is linear in P_max, so
d err/d P_max = 0 gives

    P* = Σ_i g_i·∫_{A_i} p/r dQ  /  (s·Σ_i g_i²),      s = (t_max − t_min)/steps,

no iterative optimiser needed. The error is a convex quadratic in P_max, so clipping P* to [0, 1]
gives the constrained optimum and rounding that to the chip's probability grid gives the best
programmable value. Where every step is programmable (TBTCP §8) each step is fitted alone:
a_i = ∫_{A_i} p/r dQ / s, the mean of the target over the step.

Everything is vectorised over parameter sets (the batch API used for sweeps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qosforge.errors import InfeasibleDesignError, ModelInputError
from qosforge.fitting.quadrature import sample_intervals
from qosforge.fitting.red_model import RedStepModel, quantize_probability, quantize_thresholds
from qosforge.fitting.targets import TargetCurve
from qosforge.provenance import Derivation, FloatArray, Provenance, input_value, quantity

SOURCE_FIT = (
    "TBTCP §6.2 'Fitting the Curve to Switch ECN Configuration' (least squares over [t_min, t_max])"
)
SOURCE_SCALE = "TBTCP §6.2 'Scaling the Probability Curve' (target p(Q)/r)"
SOURCE_PER_STEP = "TBTCP §8 'Hardware consideration' (configure each step's probability, r = 1)"

#: The paper quotes the error with Q in kB (TBTCP §6.2, Table 1); 1 kB = 10^3 bytes there.
BYTES_PER_KB = 1e3
#: Parameter sets per vectorised chunk; bounds memory at ~chunk × steps × 3 pieces × 12 nodes.
CHUNK_SETS = 8192


@dataclass(frozen=True, kw_only=True)
class RedFit:
    """A fitted RED step profile per parameter set (arrays for a batch, floats for one set)."""

    t_min_bytes: Any = quantity("B", "programmed t_min (cell-rounded up)")
    t_max_bytes: Any = quantity("B", "programmed t_max (cell-rounded down)")
    window_reduction_r: Any = quantity("MSS", "curve scaling r: the target is p(Q)/r")
    p_max_optimal: Any = quantity("1", "closed-form least-squares P_max before clipping to [0, 1]")
    p_max_unquantized: Any = quantity("1", "optimal P_max within the chip's range [0, 1]")
    p_max: Any = quantity("1", "programmed P_max (rounded to the chip's probability grid)")
    step_probabilities_unquantized: Any = quantity("1", "optimal marking probability of each step")
    step_probabilities: Any = quantity("1", "programmed marking probability of each step")
    error_unquantized_kilobytes: Any = quantity("kB", "∫(p/r − f)² dQ at the optimum, Q in kB")
    error_kilobytes: Any = quantity("kB", "∫(p/r − f)² dQ of the programmed profile, Q in kB")
    steps: int
    step_offset: float
    per_step: bool
    target: str
    provenance: Provenance


def _check_inputs(t_min: Any, t_max: Any, r: Any) -> None:
    if not np.all(np.asarray(t_min) >= 0):
        raise ModelInputError(
            "must be >= 0",
            place="t_min_bytes",
            hint="t_min = l is a queue depth, e.g. 138kB (TBTCP §6.2)",
        )
    if not np.all(np.asarray(t_max) > np.asarray(t_min)):
        raise ModelInputError(
            "must be greater than t_min",
            place="t_max_bytes",
            hint="pick t_max above t_min, e.g. t_min 138kB and t_max 550kB (TBTCP §6.2)",
        )
    if not np.all(np.asarray(r) >= 1):
        raise ModelInputError(
            "must be >= 1",
            place="window_reduction_r",
            hint="r is the curve scaling factor and QCD window cut per mark, 1..4 in TBTCP Table 1",
        )


def fit_red_batch(
    target: TargetCurve,
    t_min_bytes: Any,
    t_max_bytes: Any,
    window_reduction_r: Any = 1.0,
    model: RedStepModel | None = None,
    *,
    per_step: bool = False,
) -> RedFit:
    """Fit the chip's step curve to ``target``/r for every parameter set (vectorised).

    ``t_min_bytes``, ``t_max_bytes``, ``window_reduction_r`` and the target's parameter sets
    broadcast to one batch shape. Thresholds are first rounded to the chip's cells; the fit and
    the reported errors use the programmed thresholds.
    """
    model = model if model is not None else RedStepModel()
    _check_inputs(t_min_bytes, t_max_bytes, window_reduction_r)
    t_min_q, t_max_q = quantize_thresholds(
        t_min_bytes, t_max_bytes, model.threshold_granularity_bytes
    )
    if not np.all(np.asarray(t_max_q) > np.asarray(t_min_q)):
        raise InfeasibleDesignError(
            f"t_min and t_max fall into the same {model.threshold_granularity_bytes:g}-byte cell",
            place="t_max_bytes",
            hint="move t_max at least one cell above t_min",
        )
    shape = np.broadcast_shapes(
        np.shape(t_min_q), np.shape(t_max_q), np.shape(window_reduction_r), target.shape
    )
    size = int(np.prod(shape))
    if target.shape != shape:
        target = target.broadcast_to(shape)

    def flat(values: Any) -> FloatArray:
        return np.broadcast_to(np.asarray(values, dtype=np.float64), shape).reshape(size)

    t_min, t_max, r = flat(t_min_q), flat(t_max_q), flat(window_reduction_r)
    steps = model.steps
    fractions = model.step_fractions()
    columns = {name: np.empty(size) for name in ("p_opt", "p_un", "p_q", "err_un", "err_q")}
    steps_un = np.empty((size, steps))
    steps_q = np.empty((size, steps))
    for begin in range(0, size, CHUNK_SETS):
        rows = slice(begin, min(begin + CHUNK_SETS, size))
        chunk = _fit_chunk(
            target, rows, t_min[rows], t_max[rows], r[rows], model, fractions, per_step
        )
        for name, values in chunk.items():
            if name == "steps_un":
                steps_un[rows] = values
            elif name == "steps_q":
                steps_q[rows] = values
            else:
                columns[name][rows] = values

    scalar = shape == ()

    def out(values: FloatArray) -> Any:
        return float(values[0]) if scalar else values.reshape(shape)

    def out_steps(values: FloatArray) -> Any:
        return values[0] if scalar else values.reshape((*shape, steps))

    return RedFit(
        t_min_bytes=out(t_min),
        t_max_bytes=out(t_max),
        window_reduction_r=out(r),
        p_max_optimal=out(columns["p_opt"]),
        p_max_unquantized=out(columns["p_un"]),
        p_max=out(columns["p_q"]),
        step_probabilities_unquantized=out_steps(steps_un),
        step_probabilities=out_steps(steps_q),
        error_unquantized_kilobytes=out(columns["err_un"] / BYTES_PER_KB),
        error_kilobytes=out(columns["err_q"] / BYTES_PER_KB),
        steps=steps,
        step_offset=model.step_offset,
        per_step=per_step,
        target=target.name,
        provenance=_provenance(
            target, model, per_step, t_min_bytes, t_max_bytes, window_reduction_r
        ),
    )


def _fit_chunk(
    target: TargetCurve,
    rows: slice,
    t_min: FloatArray,
    t_max: FloatArray,
    r: FloatArray,
    model: RedStepModel,
    fractions: FloatArray,
    per_step: bool,
) -> dict[str, FloatArray]:
    steps = model.steps
    width = (t_max - t_min) / steps
    edges = t_min[:, None] + (t_max - t_min)[:, None] * (np.arange(steps + 1) / steps)
    sampled = sample_intervals(target, edges, rows)
    scaled = sampled.values / r[:, None, None]
    # ∫_{A_i} p/r dQ per step: the only data the closed form needs.
    step_integrals = np.einsum("skn,skn->sk", sampled.weights, scaled)
    if per_step:
        optimal_steps = step_integrals / width[:, None]
        steps_un = np.clip(optimal_steps, 0.0, 1.0)
        steps_q = quantize_probability(steps_un, model.probability_granularity)
        # Per-step mode has no single P_max; report the top step, which is what SAI's max
        # probability field would carry.
        p_opt, p_un, p_q = optimal_steps.max(axis=1), steps_un.max(axis=1), steps_q.max(axis=1)
    else:
        p_opt = (step_integrals @ fractions) / (width * float(fractions @ fractions))
        p_un = np.clip(p_opt, 0.0, 1.0)
        p_q = quantize_probability(p_un, model.probability_granularity)
        steps_un = p_un[:, None] * fractions
        steps_q = p_q[:, None] * fractions

    def squared_error(step_values: FloatArray) -> FloatArray:
        # Summed on the nodes rather than expanded as a quadratic, so small errors keep their
        # digits (no cancellation between ∫p² and the cross term).
        residual = scaled - step_values[:, :, None]
        return np.asarray(
            np.einsum("skn,skn,skn->s", sampled.weights, residual, residual), dtype=np.float64
        )

    return {
        "p_opt": p_opt,
        "p_un": p_un,
        "p_q": p_q,
        "steps_un": steps_un,
        "steps_q": steps_q,
        "err_un": squared_error(steps_un),
        "err_q": squared_error(steps_q),
    }


def _provenance(
    target: TargetCurve, model: RedStepModel, per_step: bool, t_min: Any, t_max: Any, r: Any
) -> Provenance:
    if per_step:
        step_formula = (
            "a_i = ∫_{A_i} p/r dQ / s, clipped to [0, 1], rounded to the probability grid"
        )
        step_source = SOURCE_PER_STEP
    else:
        step_formula = (
            "P* = Σ g_i ∫_{A_i} p/r dQ / (s Σ g_i²), g_i = (i + c)/steps; a_i = P_max·g_i"
        )
        step_source = f"{SOURCE_FIT}; closed form because f is linear in P_max"
    return Provenance(
        model="fit_red_batch",
        inputs=(
            input_value("t_min_bytes", t_min, "B"),
            input_value("t_max_bytes", t_max, "B"),
            input_value("window_reduction_r", r, "MSS"),
            input_value("steps", float(model.steps), "steps"),
            input_value("step_offset", model.step_offset, "1"),
            input_value(
                "probability_granularity",
                "continuous"
                if model.probability_granularity is None
                else model.probability_granularity,
                "1",
            ),
            input_value(
                "threshold_granularity_bytes",
                "none (thresholds in bytes, not rounded to cells)"
                if model.threshold_granularity_bytes is None
                else model.threshold_granularity_bytes,
                "B",
            ),
            input_value("target", f"{target.name}: {target.formula}", ""),
        ),
        derivations=(
            Derivation(
                "t_min_bytes",
                "ceil(t_min/cell)·cell",
                model.source_of("threshold_granularity_bytes"),
            ),
            Derivation(
                "t_max_bytes",
                "floor(t_max/cell)·cell",
                model.source_of("threshold_granularity_bytes"),
            ),
            Derivation("p_max_optimal", step_formula, step_source),
            Derivation(
                "p_max_unquantized",
                "clip(p_max_optimal, 0, 1)",
                "err is a convex quadratic in P_max, so clipping gives the constrained optimum",
            ),
            Derivation("window_reduction_r", "input", SOURCE_SCALE),
            Derivation(
                "p_max",
                "round(p_max_unquantized/granularity)·granularity",
                model.source_of("probability_granularity"),
            ),
            Derivation(
                "step_probabilities",
                step_formula,
                f"{step_source}; steps {model.source_of('steps')}",
            ),
            Derivation(
                "step_probabilities_unquantized",
                step_formula.replace(", rounded to the probability grid", ""),
                step_source,
            ),
            Derivation(
                "error_unquantized_kilobytes",
                "∫_{t_min}^{t_max} (p(Q)/r − f*(Q))² dQ / 1000 at the unrounded optimum f*",
                f"{SOURCE_FIT}; {SOURCE_SCALE}",
            ),
            Derivation(
                "error_kilobytes",
                "∫_{t_min}^{t_max} (p(Q)/r − f(Q))² dQ / 1000",
                f"{SOURCE_FIT}; {SOURCE_SCALE}",
            ),
            Derivation("target", target.formula, target.source),
        ),
    )


__all__ = ["BYTES_PER_KB", "RedFit", "fit_red_batch"]
