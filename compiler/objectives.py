"""The intent's ``objectives:``: what ``qosforge tune`` holds a configuration to, per class.

The compiler ignores them (they change no threshold it derives); they live in the intent so an
operator states them once beside the classes they are for, and ``tune`` reads them
(docs/tune.md). Every metric has one direction, so a target is a plain number: a ceiling for
completion time, drops, pause share and queueing delay, a floor for goodput.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: The metrics a class objective may state, with their direction: "max" = the measured value
#: must stay at or below the target, "min" = at or above it.
METRIC_DIRECTIONS: dict[str, Literal["max", "min"]] = {
    "fct_p99_us": "max",
    "goodput_percent": "min",
    "lossless_drops": "max",
    "pfc_pause_percent": "max",
    "queue_delay_p99_us": "max",
}
#: Messages up to this size count in ``fct_p99_us`` unless the objective says otherwise: the
#: "short flow" bound of DCTCP §2.2 (query and short-message traffic, < 100 kB).
DEFAULT_MESSAGE_MAX_KB = 100.0


class ClassObjective(BaseModel):
    """Targets for one class of the intent; a metric left out is measured but not held."""

    # strict: as the intent's models (compiler/intent.py _Strict), no YAML true for a number.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)

    class_name: str = Field(alias="class", min_length=1, description="A class of the intent.")
    fct_p99_us: float | None = Field(
        default=None,
        gt=0,
        description="Ceiling on the 99th-percentile flow completion time, in "
        "microseconds, of the class's messages up to message_max_kb.",
    )
    message_max_kb: float = Field(
        default=DEFAULT_MESSAGE_MAX_KB,
        gt=0,
        description="Messages up to this many kB count in fct_p99_us "
        "(default 100, DCTCP §2.2's short messages).",
    )
    goodput_percent: float | None = Field(
        default=None,
        gt=0,
        le=100,
        description="Floor on the class's delivered payload rate as a "
        "percentage of the line rate of the hosts receiving it.",
    )
    lossless_drops: int | None = Field(
        default=None, ge=0, description="Ceiling on the class's lost lossless packets (0: none)."
    )
    pfc_pause_percent: float | None = Field(
        default=None,
        ge=0,
        le=100,
        description="Ceiling on the share of the window any port spends PFC-paused for the class.",
    )
    queue_delay_p99_us: float | None = Field(
        default=None,
        gt=0,
        description="Ceiling on the 99th percentile of the class's sampled "
        "queueing delay (queue depth / port rate), in microseconds, over its busiest queue.",
    )

    def targets(self) -> dict[str, float]:
        """The metrics this objective holds, with their targets (in the metric's unit)."""
        values = {metric: getattr(self, metric) for metric in METRIC_DIRECTIONS}
        return {metric: float(value) for metric, value in values.items() if value is not None}


class Objectives(BaseModel):
    """``objectives:`` of an intent: per-class targets and the one metric the search minimises."""

    # strict: as the intent's models (compiler/intent.py _Strict), no YAML true for a number.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)

    minimize: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z][A-Za-z0-9_-]*\.[a-z0-9_]+$",
        description="CLASS.METRIC the search minimises (goodput_percent is maximised), "
        "e.g. rdma.fct_p99_us; "
        "default: fct_p99_us of the first class listed.",
    )
    classes: list[ClassObjective] = Field(default_factory=list, description="Targets per class.")

    @model_validator(mode="after")
    def _known_metric(self) -> Self:
        if self.minimize is not None:
            metric = self.minimize.split(".", 1)[1]
            if metric not in METRIC_DIRECTIONS:
                raise ValueError(
                    f"minimize: {metric!r} is not a metric; metrics: {', '.join(METRIC_DIRECTIONS)}"
                )
        names = [objective.class_name for objective in self.classes]
        if len(set(names)) != len(names):
            raise ValueError("a class is listed twice; give one entry per class")
        return self


__all__ = ["DEFAULT_MESSAGE_MAX_KB", "METRIC_DIRECTIONS", "ClassObjective", "Objectives"]
