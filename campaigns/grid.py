"""Grid specs: one flag value, a comma-separated list, or ``START:STOP:N``.

``START:STOP:N`` means what ``qosforge whatif --sweep NAME=START:STOP:N`` means: N evenly spaced
values from START to STOP, both included; whole-number inputs are rounded and repeats dropped.
Values step in the unit the user wrote (``10us:100us:4`` -> 10us, 40us, 70us, 100us) and stay
text, so the command that runs the point parses them with its own parsers.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from qosforge.errors import QosforgeError, UnitError
from qosforge.units import split_quantity

#: A parameter value as recorded in a row: flag text, a whole number, a number or a flag.
Value = str | int | float | bool

#: Largest campaign grid; 10^6 rows of JSON already outgrow a laptop's memory for the plot.
#: Far above any campaign a cluster finishes in a day (docs/campaigns.md: ~3 ms of scheduler CPU a
#: point); a million-point Dask graph alone took minutes to build and ship.
MAX_GRID_POINTS = 100_000


@dataclass(frozen=True)
class Axis:
    """One swept parameter: its row key and its values in the order they were given."""

    key: str
    values: tuple[Value, ...]


def is_range(text: str) -> bool:
    return text.count(":") == 2 and "," not in text


def split_list(text: str, place: str) -> tuple[str, ...]:
    """``'a,b,c'`` -> ``('a', 'b', 'c')``; empty items and repeats are errors (a point twice)."""
    items = tuple(item.strip() for item in text.split(","))
    if any(not item for item in items):
        raise QosforgeError(f"{text!r} has an empty item", place=place, hint="write values like 10us,20us,40us")
    repeated = sorted({item for item in items if items.count(item) > 1})
    if repeated:
        raise QosforgeError(f"{text!r} repeats {', '.join(repeated)}", place=place, hint="list each value once")
    return items


def expand_range(text: str, place: str, *, whole: bool) -> tuple[str, ...]:
    """``'START:STOP:N'`` -> N values as text in START's unit (see the module docstring)."""
    start_text, stop_text, count_text = (part.strip() for part in text.split(":"))
    try:
        start, start_unit = split_quantity(start_text)
        stop, stop_unit = split_quantity(stop_text)
    except UnitError as error:
        raise QosforgeError(f"{text!r}: {error.message}", place=place, hint="write START:STOP:N, e.g. 10us:100us:10") from None
    bare = stop if start_unit else start
    if bool(start_unit) != bool(stop_unit) and bare != 0:  # never guess a missing unit (0 needs none)
        raise QosforgeError(f"{text!r} gives a unit on one end only", place=place,
                            hint=f"write the unit on both ends, e.g. {start_text}:{stop_text}{start_unit}:{count_text}" if start_unit
                            else f"write the unit on both ends, e.g. {start_text}{stop_unit}:{stop_text}:{count_text}")
    if start_unit and stop_unit and start_unit != stop_unit:
        raise QosforgeError(f"{text!r} starts in {start_unit} and stops in {stop_unit}", place=place,
                            hint=f"write both ends in one unit, e.g. {start_text}:<STOP in {start_unit}>:{count_text}")
    try:
        count = int(count_text)
    except ValueError:
        count = 0
    if count < 2:
        raise QosforgeError(f"{count_text!r} in {text!r} is not a point count of at least 2", place=place, hint="e.g. 1:32:8")
    unit = start_unit or stop_unit
    numbers = np.linspace(start, stop, count)
    if whole:
        if start != math.floor(start) or stop != math.floor(stop):
            raise QosforgeError(f"{text!r} does not start and stop on whole numbers", place=place, hint="e.g. 2:200:12")
        numbers = np.array(list(dict.fromkeys(round(number) for number in numbers.tolist())))
    return tuple(f"{number:.12g}{unit}" for number in numbers)


def values_of(text: str, place: str, *, numeric: bool, whole: bool) -> tuple[str, ...]:
    """Every value a flag's text stands for: a list, a range (numeric flags only) or itself."""
    if "," in text:
        return split_list(text, place)
    if numeric and is_range(text):
        return expand_range(text, place, whole=whole)
    return (text,)


def seeds_axis(count: int) -> Axis:
    """``--seeds N``: seeds 1..N."""
    if count < 1:
        raise QosforgeError(f"must be at least 1 (got {count})", place="--seeds", hint="e.g. --seeds 5 runs seeds 1..5")
    return Axis("seed", tuple(range(1, count + 1)))


def grid_size(axes: Sequence[Axis]) -> int:
    return math.prod(len(axis.values) for axis in axes)


def check_grid_size(axes: Sequence[Axis]) -> None:
    size = grid_size(axes)
    if size > MAX_GRID_POINTS:
        raise QosforgeError(f"the grid has {size:,} points", place=" x ".join(axis.key for axis in axes),
                            hint=f"keep a campaign at or below {MAX_GRID_POINTS:,} points, or split it")


def combinations(axes: Sequence[Axis]) -> Iterator[dict[str, Value]]:
    """Every point of the grid, the first axis varying slowest (the row order of --parquet)."""
    for values in itertools.product(*(axis.values for axis in axes)):
        yield dict(zip((axis.key for axis in axes), values, strict=True))


__all__ = ["MAX_GRID_POINTS", "Axis", "Value", "check_grid_size", "combinations", "expand_range", "grid_size", "seeds_axis",
           "split_list", "values_of"]
