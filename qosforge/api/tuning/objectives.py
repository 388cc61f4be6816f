"""Objectives for ``tune``: the ``--objective`` grammar, the default set, and the score.

Grammar of one ``--objective`` (repeatable, one per class)::

    class=NAME,METRIC<=VALUE,METRIC>=VALUE,max_kb=N

``fct_p99_us``, ``lossless_drops``, ``pfc_pause_percent`` and ``queue_delay_p99_us`` are
ceilings (``<=``), ``goodput_percent`` is a floor (``>=``); ``METRIC=VALUE`` means the metric's
own direction. ``max_kb`` bounds the messages ``fct_p99_us`` counts. ``--minimize CLASS.METRIC``
names the metric the search minimises (goodput is maximised).

The score (lower is better) combines them as a penalty method::

    score = primary / primary_at_start + PENALTY * sum(violations)

``primary`` is the minimised metric (its reciprocal for goodput), divided by its value at the
compiled start over the same seeds, so the start scores 1 plus its own violations. A ceiling's
violation is ``max(0, value / target - 1)`` (for a target of 0, the value itself: one lost
lossless packet costs ``PENALTY``); a floor's is ``max(0, 1 - value / target)``. With
``PENALTY`` = 10 a configuration that misses a target by 10 % gives up as much as one that
doubles the primary metric, so the search keeps to the targets first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from qosforge.compiler.objectives import (
    DEFAULT_MESSAGE_MAX_KB,
    METRIC_DIRECTIONS,
    ClassObjective,
    Objectives,
)
from qosforge.errors import QosforgeError

#: Score per unit of relative violation (see the module docstring).
PENALTY = 10.0
#: The default share of the window a lossless port may spend paused: above it PFC, not ECN,
#: is what holds the class's queues (DCQCN §2: PFC is the safety net, ECN the control).
DEFAULT_PFC_PAUSE_PERCENT = 10.0

_ITEM = re.compile(r"^\s*([a-z_0-9]+)\s*(<=|>=|=)\s*([^\s].*?)\s*$")
_FLAG = "--objective"


def parse_objective(text: str) -> ClassObjective:
    """One ``--objective`` value as a class objective; bad text names the flag and the item."""
    fields: dict[str, object] = {}
    for item in (part for part in text.split(",") if part.strip()):
        match = _ITEM.match(item)
        if match is None:
            raise QosforgeError(
                f"{item.strip()!r} is not KEY=VALUE, METRIC<=VALUE or METRIC>=VALUE",
                place=_FLAG,
                hint="e.g. --objective 'class=rdma,fct_p99_us<=500,max_kb=100,lossless_drops<=0'",
            )
        key, operator, value = match.groups()
        if key == "class":
            if operator != "=":
                raise QosforgeError(
                    f"write class={value}",
                    place=_FLAG,
                    hint="class=NAME names the class the targets are for",
                )
            fields["class"] = value
            continue
        if key == "max_kb":
            fields["message_max_kb"] = _number(key, value)
            continue
        direction = METRIC_DIRECTIONS.get(key)
        if direction is None:
            raise QosforgeError(
                f"{key!r} is not a metric",
                place=_FLAG,
                hint=f"metrics: {', '.join(METRIC_DIRECTIONS)}; qualifier: max_kb",
            )
        wanted = "<=" if direction == "max" else ">="
        if operator not in ("=", wanted):
            kind = "a ceiling" if direction == "max" else "a floor"
            raise QosforgeError(f"{key} is {kind}", place=_FLAG, hint=f"write {key}{wanted}{value}")
        number = _number(key, value)
        # A packet count is a whole number; the objective model takes ints strictly, as the
        # intent's YAML must write them (a YAML true is no count).
        fields[key] = int(number) if key == "lossless_drops" and number.is_integer() else number
    if "class" not in fields:
        raise QosforgeError(
            f"{text!r} names no class",
            place=_FLAG,
            hint="start it with class=NAME, e.g. class=rdma,fct_p99_us<=500",
        )
    try:
        return ClassObjective.model_validate(fields)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise QosforgeError(
            f"{where}: {first['msg']}",
            place=_FLAG,
            hint="see qosforge tune --help for the metrics and their units",
        ) from None


def _number(key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise QosforgeError(
            f"{key}={value!r} is not a number",
            place=_FLAG,
            hint="give the value in the metric's unit without a suffix (fct_p99_us<=500 is 500 us)",
        ) from None
    if not math.isfinite(number):
        raise QosforgeError(
            f"{key}={value!r} is not a finite number", place=_FLAG, hint="e.g. fct_p99_us<=500"
        )
    return number


def parse_minimize(text: str) -> tuple[str, str]:
    """``CLASS.METRIC`` as its two parts."""
    name, _, metric = text.partition(".")
    if not name or metric not in METRIC_DIRECTIONS:
        raise QosforgeError(
            f"{text!r} is not CLASS.METRIC",
            place="--minimize",
            hint=f"e.g. rdma.fct_p99_us; metrics: {', '.join(METRIC_DIRECTIONS)}",
        )
    return name, metric


@dataclass(frozen=True)
class ObjectiveSet:
    """What one tune holds configurations to: per-class targets and the minimised metric."""

    classes: tuple[ClassObjective, ...]
    minimize: tuple[str, str]
    source: str
    """Where it came from: "--objective", "the intent's objectives", or "the default set"."""

    def message_max_bytes(self, class_name: str) -> float:
        for objective in self.classes:
            if objective.class_name == class_name:
                return objective.message_max_kb * 1e3
        return DEFAULT_MESSAGE_MAX_KB * 1e3

    def describe(self) -> list[str]:
        """One line per target and the minimised metric, for the report."""
        lines = [
            f"minimise {self.minimize[0]}.{self.minimize[1]}"
            + (" (maximise goodput)" if self.minimize[1] == "goodput_percent" else "")
        ]
        for objective in self.classes:
            for metric, target in objective.targets().items():
                sign = "<=" if METRIC_DIRECTIONS[metric] == "max" else ">="
                lines.append(f"{objective.class_name}.{metric} {sign} {target:g}")
        return lines


def default_objectives(classes: Sequence[tuple[str, bool]]) -> tuple[ClassObjective, ...]:
    """The default set, for ``(class name, lossless)`` in the intent's order: every lossless
    class loses no packet and spends at most 10 % of the window paused; every class's
    completion time of messages up to 100 kB is measured (the first class's is minimised)."""
    return tuple(
        ClassObjective.model_validate(
            {"class": name, "lossless_drops": 0, "pfc_pause_percent": DEFAULT_PFC_PAUSE_PERCENT}
            if lossless
            else {"class": name}
        )
        for name, lossless in classes
    )


def objective_set(
    flags: Sequence[str],
    minimize: str | None,
    declared: Objectives | None,
    classes: Sequence[tuple[str, bool]],
) -> ObjectiveSet:
    """The objectives a tune uses: ``--objective`` flags, else the intent's, else the default
    set; ``--minimize``, else the intent's ``minimize``, else the first class's fct_p99_us."""
    names = [name for name, _ in classes]
    if flags:
        chosen, source = tuple(parse_objective(text) for text in flags), "--objective"
        for objective in chosen:
            if objective.class_name not in names:
                raise QosforgeError(
                    f"no class {objective.class_name!r} in the intent",
                    place=_FLAG,
                    hint=f"classes: {', '.join(names)}",
                )
        seen = [objective.class_name for objective in chosen]
        if len(set(seen)) != len(seen):
            raise QosforgeError(
                "a class is given twice",
                place=_FLAG,
                hint="put all of a class's targets in one --objective",
            )
    elif declared is not None and declared.classes:
        chosen, source = tuple(declared.classes), "the intent's objectives"
    else:
        chosen, source = default_objectives(classes), "the default set"
    if minimize is not None:
        target = parse_minimize(minimize)
        if target[0] not in names:
            raise QosforgeError(
                f"no class {target[0]!r} in the intent",
                place="--minimize",
                hint=f"classes: {', '.join(names)}",
            )
    elif declared is not None and declared.minimize is not None:
        name, metric = declared.minimize.split(".", 1)
        target = (name, metric)
    else:
        target = (chosen[0].class_name if chosen else names[0], "fct_p99_us")
    return ObjectiveSet(classes=chosen, minimize=target, source=source)


def violations(
    objectives: ObjectiveSet, metrics: Mapping[str, Mapping[str, float | None]]
) -> dict[str, float]:
    """Each target's violation (0: met), keyed ``CLASS.METRIC``; a metric the run could not
    measure (no message of the class finished) counts as missed by 100 %."""
    out: dict[str, float] = {}
    for objective in objectives.classes:
        measured = metrics.get(objective.class_name, {})
        for metric, target in objective.targets().items():
            value = measured.get(metric)
            if value is None:
                out[f"{objective.class_name}.{metric}"] = 1.0
            elif METRIC_DIRECTIONS[metric] == "min":
                out[f"{objective.class_name}.{metric}"] = max(0.0, 1.0 - value / target)
            elif target == 0:
                out[f"{objective.class_name}.{metric}"] = max(0.0, value)
            else:
                out[f"{objective.class_name}.{metric}"] = max(0.0, value / target - 1.0)
    return out


def primary_value(
    objectives: ObjectiveSet, metrics: Mapping[str, Mapping[str, float | None]]
) -> float | None:
    """The minimised metric as a cost (goodput as its reciprocal); None if not measured."""
    name, metric = objectives.minimize
    value = metrics.get(name, {}).get(metric)
    if value is None:
        return None
    if metric == "goodput_percent":
        return 1.0 / max(value, 1e-9)
    return value


def score(
    objectives: ObjectiveSet,
    metrics: Mapping[str, Mapping[str, float | None]],
    primary_at_start: float,
) -> float:
    """The scalar the search minimises (module docstring); an unmeasured primary scores as
    twice the start's."""
    primary = primary_value(objectives, metrics)
    relative = 2.0 if primary is None or primary_at_start <= 0 else primary / primary_at_start
    return relative + PENALTY * sum(violations(objectives, metrics).values())


__all__ = [
    "DEFAULT_PFC_PAUSE_PERCENT",
    "PENALTY",
    "ObjectiveSet",
    "default_objectives",
    "objective_set",
    "parse_minimize",
    "parse_objective",
    "primary_value",
    "score",
    "violations",
]
