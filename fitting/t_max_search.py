"""Choose t_max as well as P_max (beyond TBTCP, which fixes t_max = 550 kB by hand, §6.2).

The paper's error ∫_{t_min}^{t_max} shrinks to 0 as t_max → t_min, so it cannot rank t_max
values. Here the error is taken over the whole depth the port can use, [t_min, limit], with the
chip marking everything above t_max (TBTCP §6.2: "once the queue depth reaches t_max, we follow
the RED rule to mark all packets"):

    E(t_max) = ∫_{t_min}^{t_max} (p/r − f)² dQ + ∫_{t_max}^{limit} (p/r − 1)² dQ,

with f the *programmed* profile for that t_max. E is piecewise smooth in t_max (the probability
grid makes it jump), so it is searched on a grid that the batch fit evaluates in one call: every
cell when the chip has cells (zooming in when there are too many), else two zooming grids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qosforge.errors import ModelInputError
from qosforge.fitting.least_squares import BYTES_PER_KB, RedFit, fit_red_batch
from qosforge.fitting.quadrature import sample_intervals
from qosforge.fitting.red_model import RedStepModel, quantize_thresholds
from qosforge.fitting.targets import TargetCurve
from qosforge.provenance import FloatArray

#: Candidate t_max values evaluated per grid pass; two passes resolve t_max to ~limit/GRID².
GRID_POINTS = 2048


@dataclass(frozen=True)
class TmaxChoice:
    """The best t_max within [t_min, limit] and the fit there."""

    fit: RedFit
    error_to_limit_kilobytes: float
    limit_bytes: float
    candidates_evaluated: int


def error_to_limit_kilobytes(target: TargetCurve, fit: RedFit, limit_bytes: float) -> FloatArray:
    """E(t_max) above for every set of ``fit`` (the target's parameter sets must match)."""
    t_max = np.atleast_1d(np.asarray(fit.t_max_bytes, dtype=np.float64))
    r = np.broadcast_to(np.asarray(fit.window_reduction_r, dtype=np.float64), t_max.shape)
    curve = target.broadcast_to(t_max.shape) if target.shape != t_max.shape else target
    edges = np.stack([t_max, np.full_like(t_max, limit_bytes)], axis=1)
    tail = sample_intervals(curve, edges, slice(0, t_max.size))
    residual = tail.values / r[:, None, None] - 1.0
    tail_error = np.einsum("skn,skn,skn->s", tail.weights, residual, residual) / BYTES_PER_KB
    return np.asarray(np.atleast_1d(fit.error_kilobytes) + tail_error, dtype=np.float64)


def choose_t_max(
    target: TargetCurve,
    t_min_bytes: float,
    limit_bytes: float,
    window_reduction_r: float = 1.0,
    model: RedStepModel | None = None,
    *,
    per_step: bool = False,
) -> TmaxChoice:
    """Fit P_max (or every step) and t_max for one parameter set (``target`` of shape ())."""
    model = model if model is not None else RedStepModel()
    cell = model.threshold_granularity_bytes
    t_min_q, limit_q = quantize_thresholds(t_min_bytes, limit_bytes, cell)
    if not limit_q > t_min_q:
        raise ModelInputError(
            f"leaves no room above t_min ({t_min_bytes:g} B) for t_max",
            place="port_buffer_bytes",
            hint="the port must queue more than t_min; raise the port buffer or lower t_min",
        )
    evaluated = 0
    if cell is not None:
        cells = round((limit_q - t_min_q) / cell)
        stride = max(1, cells // GRID_POINTS)
        candidates = t_min_q + cell * np.arange(stride, cells + 1, stride, dtype=np.float64)
    else:
        candidates = np.linspace(t_min_q, limit_q, GRID_POINTS + 1)[1:]
    best, evaluated = _best(
        target, t_min_q, candidates, window_reduction_r, model, per_step, limit_q
    )
    # Zoom in around the best candidate: every cell within one stride, or a finer grid.
    spacing = float(candidates[1] - candidates[0]) if candidates.size > 1 else 0.0
    if spacing > 0.0 and (cell is None or spacing > cell):
        low, high = max(t_min_q, best - spacing), min(limit_q, best + spacing)
        if cell is not None:
            zoom = np.arange(low + cell, high + 0.5 * cell, cell)
        else:
            zoom = np.linspace(low, high, GRID_POINTS + 1)[1:]
        zoom = np.append(zoom, best)
        best, more = _best(target, t_min_q, zoom, window_reduction_r, model, per_step, limit_q)
        evaluated += more
    fit = fit_red_batch(target, t_min_q, best, window_reduction_r, model, per_step=per_step)
    total = float(error_to_limit_kilobytes(target, fit, limit_q)[0])
    return TmaxChoice(
        fit=fit,
        error_to_limit_kilobytes=total,
        limit_bytes=float(limit_q),
        candidates_evaluated=evaluated,
    )


def _best(
    target: TargetCurve,
    t_min: float,
    candidates: FloatArray,
    r: float,
    model: RedStepModel,
    per_step: bool,
    limit: float,
) -> tuple[float, int]:
    candidates = candidates[candidates > t_min]
    fits = fit_red_batch(target, t_min, candidates, r, model, per_step=per_step)
    errors = error_to_limit_kilobytes(target, fits, limit)
    return float(np.atleast_1d(fits.t_max_bytes)[int(np.argmin(errors))]), int(candidates.size)


__all__ = ["GRID_POINTS", "TmaxChoice", "choose_t_max", "error_to_limit_kilobytes"]
