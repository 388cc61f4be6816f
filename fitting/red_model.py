"""The RED marking curve a commodity switch chip can actually program (docs/architecture.md §4).

Chips implement RED as a step function (TBTCP §6.2, after Floyd & Jacobson [8]): the range
(t_min, t_max] is cut into ``steps`` equal intervals, step i marks with P_max·(i + c)/steps, the
queue marks nothing at or below t_min and everything above t_max. This module holds that chip
model (:class:`RedStepModel`), evaluates the programmed curve, and rounds values to what the chip
accepts (probability in whole percent, thresholds in cells).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qosforge.errors import ModelInputError

SOURCE_STEPS = (
    "TBTCP §6.2 ('the range between t_min and t_max is divided into eight equal-sized "
    "intervals', Broadcom Trident)"
)
SOURCE_OFFSET = "TBTCP §6.2 (step value (i + 0.5)·12.5%·P_max: the midpoint of each of the 8 steps)"
SOURCE_PROBABILITY_GRANULARITY = (
    "SAI saiwred.h SAI_WRED_ATTR_*_DROP_PROBABILITY 'Percentage 0 ~ 100' (uint32); SONiC "
    "WRED_PROFILE.*_drop_probability 0..100 (the SAI headers (opencomputeproject/SAI inc/) and sonic-sairedis, the SONiC sources (sonic-buildimage, sonic-swss))"
)
SOURCE_THRESHOLD_GRANULARITY = (
    "thresholds kept in bytes, no cell rounding (the chip's threshold granularity is not given)"
)
SOURCE_PER_STEP = (
    "TBTCP §8 'Hardware consideration' (per-step probabilities not exposed by commodity chips)"
)

#: TBTCP §6.2: eight equal-sized intervals on the Broadcom chip the paper used.
DEFAULT_STEPS = 8
#: TBTCP §6.2: step i marks with (i + 0.5)·12.5 % of P_max, i.e. the step's midpoint value.
DEFAULT_STEP_OFFSET = 0.5
#: SAI/SONiC program RED probabilities as integer percent (0..100).
DEFAULT_PROBABILITY_GRANULARITY = 0.01


@dataclass(frozen=True)
class RedStepModel:
    """What a chip's RED engine can program.

    ``probability_granularity`` is a fraction (0.01 = whole percent) or None for a continuous
    probability; ``threshold_granularity_bytes`` is the cell size or None for byte thresholds.
    ``sources`` maps each field name to where its value comes from (paper, SAI, vendor profile).
    """

    steps: int = DEFAULT_STEPS
    step_offset: float = DEFAULT_STEP_OFFSET
    probability_granularity: float | None = DEFAULT_PROBABILITY_GRANULARITY
    threshold_granularity_bytes: float | None = None
    per_step_programmable: bool = False
    name: str = "default (TBTCP §6.2 Broadcom step RED)"
    sources: tuple[tuple[str, str], ...] = (
        ("steps", SOURCE_STEPS),
        ("step_offset", SOURCE_OFFSET),
        ("probability_granularity", SOURCE_PROBABILITY_GRANULARITY),
        ("threshold_granularity_bytes", SOURCE_THRESHOLD_GRANULARITY),
        ("per_step_programmable", SOURCE_PER_STEP),
    )

    def __post_init__(self) -> None:
        validate_red_model(self)

    def source_of(self, field_name: str) -> str:
        return dict(self.sources).get(field_name, "unknown")

    def step_fractions(self) -> Any:
        """(i + c)/steps for i = 0..steps−1: each step's value as a fraction of P_max."""
        return (np.arange(self.steps, dtype=np.float64) + self.step_offset) / self.steps


def red_model_from_profile(
    profile: Any,
    *,
    steps: int | None = None,
    step_offset: float | None = None,
    probability_granularity: float | None = None,
) -> RedStepModel:
    """The chip model of a vendor profile (``qosforge.vendor_profiles``), duck-typed so that
    ``fitting`` keeps depending on numpy/scipy only (docs/architecture.md §1).

    Explicit arguments override the profile. Steps and step offset have no safe default, so an
    unknown value raises the profile's own error (which says to give it explicitly). Unknown
    probability granularity falls back to whole percent, the SAI/SONiC interface's own limit;
    unknown threshold granularity means byte thresholds; unknown per-step support means no.
    """
    red = profile.red
    name = str(profile.name)

    def source(field_name: str) -> str:
        entry = getattr(red, field_name)
        note = f" ({entry.note})" if getattr(entry, "note", None) else ""
        return f"vendor profile {name}: {entry.source}{note}"

    sources = {
        "steps": source("steps") if steps is None else "given explicitly (--steps)",
        "step_offset": source("step_offset")
        if step_offset is None
        else "given explicitly (--step-offset)",
        "probability_granularity": source("probability_granularity"),
        "threshold_granularity_bytes": source("threshold_granularity_bytes"),
        "per_step_programmable": source("per_step_programmable"),
    }
    if probability_granularity is not None:
        sources["probability_granularity"] = "given explicitly (--probability-granularity)"
    elif red.probability_granularity.value is None:
        sources["probability_granularity"] = f"unknown in {name}; {SOURCE_PROBABILITY_GRANULARITY}"
    if red.threshold_granularity_bytes.value is None:
        sources["threshold_granularity_bytes"] = (
            f"unknown in {name}: {SOURCE_THRESHOLD_GRANULARITY}"
        )
    granularity = probability_granularity
    if granularity is None:
        known_granularity = red.probability_granularity.value
        granularity = (
            DEFAULT_PROBABILITY_GRANULARITY
            if known_granularity is None
            else float(known_granularity)
        )
    cell = red.threshold_granularity_bytes.value
    return RedStepModel(
        steps=int(red.steps.known("red.steps")) if steps is None else steps,
        step_offset=float(red.step_offset.known("red.step_offset"))
        if step_offset is None
        else step_offset,
        probability_granularity=granularity,
        threshold_granularity_bytes=None if cell is None else float(cell),
        per_step_programmable=bool(red.per_step_programmable.value),
        name=name,
        sources=tuple(sources.items()),
    )


def validate_red_model(model: RedStepModel) -> None:
    """Reject chip models that cannot describe a RED step curve, naming the CLI flag."""
    if (
        not isinstance(model.steps, (int, np.integer))
        or isinstance(model.steps, bool)
        or model.steps < 1
    ):
        raise ModelInputError(
            f"must be a whole number >= 1 (got {model.steps!r})",
            place="steps",
            hint="the number of RED steps between t_min and t_max, 8 on Broadcom (TBTCP §6.2)",
        )
    if not 0.0 <= model.step_offset <= 1.0:
        raise ModelInputError(
            f"must be within 0..1 (got {model.step_offset:g})",
            place="step_offset",
            hint="step i marks with P_max·(i + c)/steps; 0.5 is the step midpoint "
            "(TBTCP §6.2), 1 the step's top",
        )
    if model.steps == 1 and model.step_offset == 0.0:
        raise ModelInputError(
            "a single step with offset 0 never marks, so nothing can be fitted",
            place="step_offset",
            hint="use an offset above 0 (0.5 = step midpoint) or more steps",
        )
    granularity = model.probability_granularity
    if granularity is not None and not 0.0 < granularity <= 1.0:
        raise ModelInputError(
            f"must be within (0, 1] (got {granularity:g})",
            place="probability_granularity",
            hint="use 0.01 for whole-percent probabilities (SAI/SONiC)",
        )
    cell = model.threshold_granularity_bytes
    if cell is not None and not cell > 0.0:
        raise ModelInputError(
            f"must be > 0 (got {cell:g})",
            place="threshold_granularity_bytes",
            hint="the chip's buffer cell size in bytes, or leave it unknown",
        )


def quantize_probability(probability: Any, granularity: float | None) -> Any:
    """Clip to [0, 1] and round to the nearest programmable value.

    The fit error is a convex quadratic in each programmed probability, so the nearest grid point
    to the (clipped) optimum is the best programmable value, not just a convenient one.
    """
    clipped = np.clip(probability, 0.0, 1.0)
    if granularity is None:
        return clipped
    levels = 1.0 / granularity
    highest = np.floor(levels + 1e-9)
    # Count in grid units (the epsilon keeps 0.35/0.01 from landing on 34.999...); divide by a
    # whole number of levels where there is one, so 94 % comes out as 0.94, not 0.9400000000000001.
    units = np.clip(np.round(clipped * levels + 1e-9), 0.0, highest)
    if abs(levels - round(levels)) < 1e-9:
        return units / round(levels)
    return units * granularity


def quantize_thresholds(
    t_min_bytes: Any, t_max_bytes: Any, cell_bytes: float | None
) -> tuple[Any, Any]:
    """Round t_min up and t_max down to whole cells.

    t_min rounds up so marking still starts at or above l, which must cover the LSO burst
    (TBTCP §6.2); t_max rounds down so the profile stays within the buffer the port can use.
    """
    if cell_bytes is None:
        return t_min_bytes, t_max_bytes
    t_min = np.ceil(np.asarray(t_min_bytes) / cell_bytes - 1e-9) * cell_bytes
    t_max = np.floor(np.asarray(t_max_bytes) / cell_bytes + 1e-9) * cell_bytes

    def same_kind(rounded: Any, given: Any) -> Any:
        return rounded if isinstance(given, np.ndarray) else float(rounded)

    return same_kind(t_min, t_min_bytes), same_kind(t_max, t_max_bytes)


def step_marking_probability(
    queue_bytes: Any, t_min_bytes: float, t_max_bytes: float, step_probabilities: Any
) -> Any:
    """The programmed chip curve f(Q) of one profile, vectorised over ``queue_bytes``.

    0 for Q <= t_min, step i's value on A_i = (t_min + i·s, t_min + (i + 1)·s], 1 above t_max
    (TBTCP §6.2). ``step_probabilities`` is the 1-D array of the steps' marking probabilities.
    """
    values = np.asarray(step_probabilities, dtype=np.float64).reshape(-1)
    queue = np.asarray(queue_bytes, dtype=np.float64)
    width = (t_max_bytes - t_min_bytes) / values.size
    # Intervals are open on the left and closed on the right, hence ceil − 1.
    index = np.clip(np.ceil((queue - t_min_bytes) / width).astype(np.int64) - 1, 0, values.size - 1)
    curve = np.where(queue <= t_min_bytes, 0.0, np.where(queue > t_max_bytes, 1.0, values[index]))
    return float(curve) if curve.ndim == 0 else curve


__all__ = [
    "DEFAULT_PROBABILITY_GRANULARITY",
    "DEFAULT_STEPS",
    "DEFAULT_STEP_OFFSET",
    "RedStepModel",
    "quantize_probability",
    "quantize_thresholds",
    "red_model_from_profile",
    "step_marking_probability",
    "validate_red_model",
]
