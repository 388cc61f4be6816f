"""``whatif``: one evaluation of a what-if calculator, as a typed request and its outcome.

The request holds the calculator's name, each input's flag text as the user gave it (parsed here
with qosforge.units, so an error names the flag) and the ``--sweep NAME=START:STOP:N`` texts;
:func:`whatif` parses them, lays the sweeps out as a grid and evaluates the model once over it
(the models are vectorised: a whole grid is one NumPy evaluation). The outcome holds the model's
result and the grid; :meth:`WhatIfOutcome.document` is the object ``--format json`` prints and a
sweep point's row holds. Tables and plots are the CLI's (qosforge/cli/whatif/_framework.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from qosforge.api.calculators import calculator
from qosforge.api.calculators._framework import Param, WhatIf, example, parse_value
from qosforge.api.reporting import Reporter
from qosforge.errors import QosforgeError

#: Largest grid a sweep may evaluate; beyond this memory, not time, becomes the limit.
MAX_SWEEP_POINTS = 20_000_000
#: Grids at least this large show a spinner on a terminal while they are evaluated.
SPINNER_POINTS = 1_000_000


@dataclass(frozen=True)
class WhatIfRequest:
    """A calculator (``qosforge whatif NAME``) and its inputs as typed.

    ``values``: argument name (``Param.argument``, e.g. ``rtt_s``) -> the flag's text (None or
    absent: not given; a bool for an on/off flag). The CLI passes every option, defaults
    included; a caller from Python may give only what it sets, defaults then apply as on the
    command line. ``sweeps``: ``NAME=START:STOP:N`` texts (several form a grid). ``plot_path``:
    where the caller will draw the sweep; checked here (suffix, folder) before any work."""

    calculator: str
    values: Mapping[str, str | bool | None] = field(default_factory=dict)
    sweeps: tuple[str, ...] = ()
    plot_path: str | None = None


@dataclass(frozen=True)
class SweepAxis:
    param: Param
    start: float
    stop: float
    points: int
    values: np.ndarray


@dataclass(frozen=True)
class WhatIfOutcome:
    """``result``: the model's result dataclass (its quantities over the grid's points, flattened
    in ``numpy.meshgrid(..., indexing="ij")`` order). ``grid``: each swept argument's values at
    those points (empty without a sweep)."""

    spec: WhatIf
    result: Any
    axes: tuple[SweepAxis, ...] = ()
    grid: Mapping[str, np.ndarray] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        """What ``--format json`` prints: every quantity, its units and provenance, plus for a
        sweep the axes and each swept input's column (floats presentable, qosforge.presentation)."""
        from qosforge.presentation import tidy
        from qosforge.provenance import result_to_json, to_jsonable

        payload = result_to_json(self.result)
        if self.axes:
            payload["sweep"] = [
                {"name": axis.param.sweep_name, "argument": axis.param.argument, "start": axis.start, "stop": axis.stop, "points": axis.points}
                for axis in self.axes
            ]
            for argument, column in self.grid.items():
                payload[argument] = to_jsonable(column)
        document: dict[str, Any] = tidy(payload)
        return document


def _sweep_axis(text: str, spec: WhatIf, values: Mapping[str, Any]) -> SweepAxis:
    params_by_name = _params_by_name(spec)
    name, separator, span = text.partition("=")
    parts = span.split(":")
    if not separator or len(parts) != 3:
        raise QosforgeError(
            f"{text!r} is not NAME=START:STOP:N",
            place="--sweep",
            hint="e.g. --sweep congested-ports=1:32:32 or --sweep buffer=4MB:16MB:13",
        )
    param = params_by_name.get(name.strip().lstrip("-")) or params_by_name.get(name.strip().replace("-", "_"))
    if param is None or not param.sweepable:
        # params_by_name holds each Param under its flag, argument and old names: list it once.
        sweepable = ", ".join(sorted({p.sweep_name for p in params_by_name.values() if p.sweepable}))
        raise QosforgeError(f"cannot sweep {name!r}", place="--sweep", hint=f"sweep one of: {sweepable}")
    packet_bytes = values.get(param.packet_size_argument) if param.packet_size_argument else None
    start = parse_value(param, parts[0], packet_bytes)
    stop = parse_value(param, parts[1], packet_bytes)
    try:
        points = int(parts[2])
    except ValueError:
        points = 0
    if points < 2:
        raise QosforgeError(
            f"{parts[2]!r} is not a point count of at least 2", place="--sweep", hint="e.g. ...:32"
        )
    axis_values = np.linspace(start, stop, points)
    if param.kind == "integer":
        axis_values = np.unique(np.round(axis_values))
    return SweepAxis(param=param, start=start, stop=stop, points=int(axis_values.size), values=axis_values)


def _params_by_name(spec: WhatIf) -> dict[str, Param]:
    """Each input under its flag name, argument name and old flag names (what --sweep accepts)."""
    params_by_name = {param.sweep_name: param for param in spec.params}
    params_by_name.update({param.argument: param for param in spec.params})
    params_by_name.update({alias.lstrip("-"): param for param in spec.params for alias in param.aliases})
    return params_by_name


def _parsed_inputs(spec: WhatIf, request: WhatIfRequest) -> dict[str, Any]:
    """Every input parsed (a packet-size input first, so ``65pkt`` can use it); a required one
    that is neither given nor swept is refused at its flag."""
    raw = {param.argument: request.values.get(param.argument, param.default if param.kind != "flag" else False) for param in spec.params}
    for param in spec.params:
        if param.required and raw[param.argument] is None:
            names = (param.sweep_name, param.argument, *(alias.lstrip("-") for alias in param.aliases))
            swept = any(s.split("=")[0].strip().lstrip("-") in names for s in request.sweeps)
            if not swept:
                raise QosforgeError("is required", place=param.flag, hint=f"e.g. {param.flag} {example(param)}; see --help")
    values: dict[str, Any] = {}
    for param in sorted(spec.params, key=lambda p: p.packet_size_argument is not None):
        text = raw[param.argument]
        if param.kind == "flag":
            values[param.argument] = bool(text)
        elif text is None:
            values[param.argument] = None
        else:
            packet = values.get(param.packet_size_argument) if param.packet_size_argument else None
            values[param.argument] = parse_value(param, str(text), packet)
    return values


def whatif(request: WhatIfRequest, reporter: Reporter) -> WhatIfOutcome:
    """Parse the request's inputs and sweeps and evaluate the calculator once over the grid."""
    spec = calculator(request.calculator)
    if request.plot_path is not None:
        from qosforge.files import PLOT_SUFFIXES, check_output_file

        check_output_file(Path(request.plot_path), flag="--plot", suffixes=PLOT_SUFFIXES)
    values = _parsed_inputs(spec, request)
    axes = tuple(_sweep_axis(text, spec, values) for text in request.sweeps)
    if len({axis.param.argument for axis in axes}) != len(axes):
        raise QosforgeError("the same input is swept twice", place="--sweep", hint="sweep each input at most once")
    total_points = int(np.prod([axis.points for axis in axes])) if axes else 1
    if total_points > MAX_SWEEP_POINTS:
        raise QosforgeError(f"the sweep grid has {total_points:,} points", place="--sweep", hint=f"keep it at or below {MAX_SWEEP_POINTS:,} points")
    grid: dict[str, np.ndarray] = {}
    if axes:
        meshes = np.meshgrid(*(axis.values for axis in axes), indexing="ij")
        for axis, mesh in zip(axes, meshes, strict=True):
            grid[axis.param.argument] = mesh.ravel()
        values.update(grid)
    elif request.plot_path is not None:
        raise QosforgeError("--plot draws a sweep", place="--plot", hint="add --sweep NAME=START:STOP:N")
    try:
        # A grid is one vectorised call: a spinner (terminal only) for the large ones.
        with reporter.progress(f"evaluating {total_points:,} points") if total_points >= SPINNER_POINTS else nullcontext():
            result = spec.compute(values)
    except QosforgeError as error:
        flag = next((p.flag for p in spec.params if p.argument == error.place), None)
        raise (error.with_place(flag) if flag else error) from None
    return WhatIfOutcome(spec=spec, result=result, axes=axes, grid=grid)


__all__ = ["MAX_SWEEP_POINTS", "SPINNER_POINTS", "SweepAxis", "WhatIfOutcome", "WhatIfRequest", "whatif"]
