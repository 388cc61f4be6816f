"""Declarative what-if commands: a model, its inputs as flags with units, and shared behaviour.

Each ``qosforge whatif <name>`` command is a module in this package exposing ``SPEC: WhatIf``.
The framework turns the spec into a click command that:

* parses every flag with :mod:`qosforge.units` according to its :class:`Param` ``kind``;
* evaluates ``--sweep NAME=START:STOP:N`` (repeatable; several sweeps form a grid) by passing
  NumPy arrays to the model, which is vectorised, so a whole grid is one model evaluation;
* prints a rich table (value, unit, formula, source), or one JSON object with ``--format json``
  (sweeps give arrays in the same keys), ``--explain`` adds inputs and full derivations,
  ``--plot FILE.png`` draws the sweep;
* maps model errors raised with ``place=<argument>`` to the flag the user typed.

Writing a command (see ``buffer.py``)::

    SPEC = WhatIf(
        name="buffer",
        summary="Dynamic-threshold share of a shared buffer per congested port.",
        params=(
            Param("--buffer", "buffer_bytes", "size", "Shared buffer B.", required=True),
            Param("--congested-ports", "congested_ports", "integer", "Congested ports M.", default="1"),
        ),
        compute=lambda values: dynamic_threshold_share(**values),
        headline=("per_port_share_bytes",),
    )

``compute`` receives a dict from argument name to parsed value (float or ndarray; ``str`` for
``choice``/``text``; ``bool`` for ``flag``; ``None`` when an optional flag was not given) and returns
a model result dataclass (see :mod:`qosforge.provenance`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import click
import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from qosforge.cli.options import OutputPath, Rename, hidden_alias_option, merge_renamed
from qosforge.errors import QosforgeError, UnitError
from qosforge.files import PLOT_SUFFIXES, check_output_file, write_atomically
from qosforge.plotting import legend_beside, plain_ticks
from qosforge.presentation import as_text, tidy
from qosforge.provenance import QuantityView, quantities, result_to_json, to_jsonable
from qosforge.ranges import Range
from qosforge.units import (
    format_bytes,
    format_rate,
    format_time,
    parse_fraction,
    parse_length_m,
    parse_number,
    parse_percent,
    parse_rate_bps,
    parse_size_bytes,
    parse_time_s,
)

ParamKind = Literal[
    "size", "rate", "time", "length", "fraction", "percent", "number", "integer", "choice", "text", "flag"
]

#: Largest grid a sweep may evaluate; beyond this memory, not time, becomes the limit.
MAX_SWEEP_POINTS = 20_000_000
#: Grids at least this large show a spinner on a terminal while they are evaluated.
SPINNER_POINTS = 1_000_000
#: Rows shown in a human sweep table before eliding the middle.
MAX_TABLE_ROWS = 40


@dataclass(frozen=True)
class Param:
    """One model input exposed as a flag.

    ``packet_size_argument`` names the argument that gives the packet size, allowing ``65pkt``.
    """

    flag: str
    argument: str
    kind: ParamKind
    help: str
    default: str | None = None
    required: bool = False
    choices: tuple[str, ...] = ()
    packet_size_argument: str | None = None
    aliases: tuple[str, ...] = ()
    """Old flag names, accepted but hidden (qosforge.cli.options: one name per concept)."""
    bounds: Range | None = None
    """The intent's range for the same quantity (qosforge/ranges.py): RTTs 1 us..10 ms, cables
    up to 10 km; a value outside is refused at the flag, as the intent refuses it at the field."""

    @property
    def sweepable(self) -> bool:
        return self.kind not in ("choice", "text", "flag")

    @property
    def sweep_name(self) -> str:
        return self.flag.lstrip("-")


@dataclass(frozen=True)
class WhatIf:
    name: str
    summary: str
    params: tuple[Param, ...]
    compute: Callable[[dict[str, Any]], Any]
    headline: tuple[str, ...] = ()
    description: str = ""
    examples: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class SweepAxis:
    param: Param
    start: float
    stop: float
    points: int
    values: np.ndarray


def _parse_value(param: Param, text: str, packet_bytes: float | None) -> Any:
    """Parse one flag value according to its kind, within the intent's range where it has one;
    errors name the flag."""
    return _check_bounds(param, _parse_text(param, text, packet_bytes)) if param.kind not in ("choice", "text", "flag") else \
        _parse_text(param, text, packet_bytes)


def _parse_text(param: Param, text: str, packet_bytes: float | None) -> Any:
    try:
        if param.kind == "size":
            return parse_size_bytes(text, packet_bytes=packet_bytes)
        if param.kind == "rate":
            return parse_rate_bps(text)
        if param.kind == "time":
            return parse_time_s(text, allow_zero=True)
        if param.kind == "length":
            return parse_length_m(text)
        if param.kind == "fraction":
            return parse_fraction(text)
        if param.kind == "percent":
            return parse_percent(text)
        if param.kind == "number":
            return parse_number(text)
        if param.kind == "integer":
            number = parse_number(text, kind="whole number")
            if number != int(number):
                raise UnitError(f"{text!r} is not a whole number", hint=f"use e.g. {round(number)}")
            return float(number)
        if param.kind == "choice":
            if text not in param.choices:
                raise UnitError(
                    f"{text!r} is not one of {', '.join(param.choices)}",
                    hint=f"pick one of {', '.join(param.choices)}",
                )
            return text
        return text
    except QosforgeError as error:
        raise error.with_place(param.flag) from None


def _check_bounds(param: Param, value: Any) -> Any:
    if param.bounds is not None:
        try:
            param.bounds.check(float(value))
        except ValueError as error:
            raise QosforgeError(str(error), place=param.flag, hint=f"e.g. {param.flag} {param.bounds.example}") from None
    return value


def _parse_sweep(text: str, params_by_name: Mapping[str, Param], values: Mapping[str, Any]) -> SweepAxis:
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
    start = _parse_value(param, parts[0], packet_bytes)
    stop = _parse_value(param, parts[1], packet_bytes)
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


def _format_quantity(value: Any, unit: str) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    number = float(value)
    if unit == "B":
        exact = f"{number:,.0f} B" if number == round(number) else f"{number:,.2f} B"
        return exact if abs(number) < 1000 else f"{format_bytes(number)} ({exact})"
    if unit == "bps":
        return format_rate(number)
    if unit == "s":
        return format_time(number)
    if unit in ("1", ""):
        return f"{number:.6g}"
    return f"{number:.6g} {unit}"


def _render_scalar(console: Console, spec: WhatIf, result: Any, explain: bool) -> None:
    provenance = getattr(result, "provenance", None)
    table = Table(title=f"qosforge whatif {spec.name}", title_justify="left")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_column("formula")
    sources: list[str] = []
    for view in quantities(result):
        derivation = provenance.derivation_of(view.name) if provenance else None
        formula = derivation.formula if derivation else "input"
        if derivation and derivation.source not in sources:
            sources.append(derivation.source)
        marker = f" [{sources.index(derivation.source) + 1}]" if derivation else ""
        table.add_row(Text.assemble(f"{view.description}\n", (view.name, "dim")), _format_quantity(view.value, view.unit), formula + marker)
    console.print(table)
    for number, source in enumerate(sources, start=1):
        console.print(f"[{number}] {source}", markup=False, highlight=False)
    if explain and provenance is not None:
        _render_explain(console, provenance)


def _render_explain(console: Console, provenance: Any) -> None:
    inputs = Table(title="inputs", title_justify="left")
    inputs.add_column("name")
    inputs.add_column("value", justify="right")
    inputs.add_column("unit")
    for item in provenance.inputs:
        inputs.add_row(item.name, as_text(item.value), item.unit)
    console.print(inputs)
    derivations = Table(title=f"derivation ({provenance.model})", title_justify="left")
    derivations.add_column("quantity")
    derivations.add_column("formula")
    derivations.add_column("source")
    for derivation in provenance.derivations:
        derivations.add_row(derivation.quantity, derivation.formula, derivation.source)
    console.print(derivations)


def _headline_views(spec: WhatIf, result: Any) -> list[QuantityView]:
    views = list(quantities(result))
    if spec.headline:
        wanted = set(spec.headline)
        views = [view for view in views if view.name in wanted]
    return views


def _render_sweep(console: Console, spec: WhatIf, result: Any, axes: list[SweepAxis], grid: Mapping[str, np.ndarray]) -> None:
    outputs = [v for v in _headline_views(spec, result) if v.name not in {a.param.argument for a in axes}]
    table = Table(title=f"qosforge whatif {spec.name} sweep ({next(iter(grid.values())).size} points)", title_justify="left")
    for axis in axes:
        table.add_column(axis.param.sweep_name, justify="right")
    for view in outputs:
        table.add_column(f"{view.name}", justify="right")
    total = next(iter(grid.values())).size
    shown = range(total) if total <= MAX_TABLE_ROWS else [*range(MAX_TABLE_ROWS // 2), -1, *range(total - MAX_TABLE_ROWS // 2, total)]
    for row in shown:
        if row == -1:
            table.add_row(*(["…"] * (len(axes) + len(outputs))))
            continue
        cells = [_format_axis_value(axis, float(grid[axis.param.argument][row])) for axis in axes]
        cells += [_format_quantity(np.broadcast_to(view.value, (total,))[row], view.unit) for view in outputs]
        table.add_row(*cells)
    console.print(table)


#: Unit of a swept input's values as the models receive them (SI base units, see qosforge.units).
_AXIS_UNITS = {"size": "B", "rate": "bps", "time": "s", "length": "m", "fraction": "1", "percent": "%"}


def _axis_unit(axis: SweepAxis) -> str:
    return _AXIS_UNITS.get(axis.param.kind, "1")


def _format_axis_value(axis: SweepAxis, value: float) -> str:
    unit = _axis_unit(axis)
    if unit == "m":
        return f"{value:g} m"
    return _format_quantity(value, unit)


def _plot_sweep(path: Path, spec: WhatIf, result: Any, axes: list[SweepAxis], grid: Mapping[str, np.ndarray]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outputs = [v for v in _headline_views(spec, result) if v.name not in {a.param.argument for a in axes}]
    outputs = [v for v in outputs if not isinstance(v.value, str)]
    figure, subplots = plt.subplots(len(outputs), 1, figsize=(7, 2.6 * len(outputs)), squeeze=False)
    x_axis = axes[0]
    shape = tuple(axis.points for axis in axes)
    x_values = grid[x_axis.param.argument].reshape(shape)
    for subplot, view in zip(subplots[:, 0], outputs, strict=True):
        # The model returns each output over the flattened grid (or a scalar): lay it out as the grid.
        y_values = np.broadcast_to(np.asarray(view.value, dtype=float).reshape(-1), (x_values.size,)).reshape(shape)
        if len(axes) == 1:
            subplot.plot(x_values, y_values)
        else:
            lines = x_values.reshape(shape[0], -1)
            series = y_values.reshape(shape[0], -1)
            other = grid[axes[1].param.argument].reshape(shape).reshape(shape[0], -1)
            step = max(1, series.shape[1] // 8)
            for column in range(0, series.shape[1], step):
                subplot.plot(lines[:, column], series[:, column], label=f"{axes[1].param.sweep_name}={other[0, column]:g}")
            legend_beside(subplot)
        subplot.set_ylabel(f"{view.name} [{view.unit}]", fontsize="small")
        subplot.grid(True, alpha=0.3)
        plain_ticks(subplot)
    subplots[-1, 0].set_xlabel(f"{x_axis.param.sweep_name} [{_axis_unit(x_axis)}]")
    figure.suptitle(f"qosforge whatif {spec.name}")
    figure.tight_layout()
    write_atomically(path, lambda temporary: figure.savefig(temporary, dpi=110))
    plt.close(figure)


def build_command(spec: WhatIf) -> click.Command:
    """Make the click command for one what-if spec."""
    params_by_name = {param.sweep_name: param for param in spec.params}
    params_by_name.update({param.argument: param for param in spec.params})
    params_by_name.update({alias.lstrip("-"): param for param in spec.params for alias in param.aliases})

    renames = tuple(Rename(alias, param.flag, param.argument) for param in spec.params for alias in param.aliases)

    def run(**options: Any) -> None:
        options = merge_renamed(options, renames, click.get_current_context())
        if options["plot"] is not None:
            check_output_file(Path(options["plot"]), flag="--plot", suffixes=PLOT_SUFFIXES)
        raw = {param.argument: options[param.argument] for param in spec.params}
        for param in spec.params:
            if param.required and raw[param.argument] is None:
                names = (param.sweep_name, param.argument, *(alias.lstrip("-") for alias in param.aliases))
                swept = any(s.split("=")[0].strip().lstrip("-") in names for s in options["sweep"])
                if not swept:
                    raise QosforgeError("is required", place=param.flag, hint=f"e.g. {param.flag} {_example(param)}; see --help")
        values: dict[str, Any] = {}
        ordered = sorted(spec.params, key=lambda p: p.packet_size_argument is not None)
        for param in ordered:
            text = raw[param.argument]
            if param.kind == "flag":
                values[param.argument] = bool(text)
                continue
            if text is None:
                values[param.argument] = None
                continue
            packet = values.get(param.packet_size_argument) if param.packet_size_argument else None
            values[param.argument] = _parse_value(param, str(text), packet)
        axes = [_parse_sweep(text, params_by_name, values) for text in options["sweep"]]
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
        elif options["plot"] is not None:
            raise QosforgeError("--plot draws a sweep", place="--plot", hint="add --sweep NAME=START:STOP:N")
        try:
            from qosforge.cli.progress import progress

            # A grid is one vectorised call: a spinner (terminal only) for the large ones.
            with progress(f"evaluating {total_points:,} points", total=None) if total_points >= SPINNER_POINTS else nullcontext():
                result = spec.compute(values)
        except QosforgeError as error:
            flag = next((p.flag for p in spec.params if p.argument == error.place), None)
            raise (error.with_place(flag) if flag else error) from None
        if options["plot"] is not None:
            _plot_sweep(Path(options["plot"]), spec, result, axes, grid)
        if options["output_format"] == "json":
            payload = result_to_json(result)
            if axes:
                payload["sweep"] = [
                    {"name": axis.param.sweep_name, "argument": axis.param.argument, "start": axis.start, "stop": axis.stop, "points": axis.points}
                    for axis in axes
                ]
                for argument, column in grid.items():
                    payload[argument] = to_jsonable(column)
            # Sweeps can hold millions of values: one compact line; scalar results stay indented.
            click.echo(json.dumps(tidy(payload), indent=None if axes else 2, allow_nan=False, default=str))
            return
        console = Console(highlight=False, markup=False, soft_wrap=False, width=max(100, Console().width))
        if axes:
            _render_sweep(console, spec, result, axes, grid)
            if options["explain"] and getattr(result, "provenance", None) is not None:
                _render_explain(console, result.provenance)
        else:
            _render_scalar(console, spec, result, options["explain"])
        if options["plot"] is not None:
            console.print(f"plot written to {options['plot']}")

    click_params: list[click.Parameter] = []
    for param in spec.params:
        default_note = f" [default: {param.default}]" if param.default is not None else ""
        if param.kind == "flag":
            click_params.append(click.Option([param.flag, param.argument], is_flag=True, default=False, help=param.help))
            continue
        choice_note = f" One of: {', '.join(param.choices)}." if param.choices else ""
        click_params.append(
            click.Option(
                [param.flag, param.argument],
                default=param.default,
                metavar=_metavar(param),
                help=param.help + choice_note + default_note + (" [required]" if param.required else ""),
                show_default=False,
            )
        )
    click_params += [hidden_alias_option(rename) for rename in renames]
    click_params += [
        click.Option(["--format", "output_format"], type=click.Choice(["table", "json"]), default="table", show_default=True, help="Readable table or one JSON object (stable keys)."),
        click.Option(["--sweep"], multiple=True, metavar="NAME=START:STOP:N", help="Evaluate over N evenly spaced values of an input (repeat for a grid)."),
        click.Option(["--plot"], default=None, type=OutputPath("sweep.png"), metavar="FILE.png", help="Draw the sweep to a PNG file."),
        click.Option(["--explain"], is_flag=True, default=False, help="Show inputs, formulas and sources."),
    ]
    help_text = spec.summary + ("\n\n" + spec.description if spec.description else "")
    if spec.examples:
        help_text += "\n\nExamples:\n\n" + "\n\n".join(f"\b\n  {example}" for example in spec.examples)
    return click.Command(spec.name, params=click_params, callback=run, help=help_text, short_help=spec.summary)


#: A value of each kind for hints, where neither the flag's help nor its range gives one.
_KIND_EXAMPLES = {"size": "64kB", "rate": "10G", "time": "100us", "length": "40m", "fraction": "2%", "percent": "1%",
                  "number": "1", "integer": "16"}


def _example(param: Param) -> str:
    """A value to show in a hint: the default, the help's "e.g. X", the range's, or the kind's
    (never a literal "...")."""
    if param.default is not None:
        return param.default
    typed = re.search(r"e\.g\. ([^\s,;)]+)", param.help)
    if typed:
        return typed.group(1)
    if param.bounds is not None:
        return param.bounds.example
    return param.choices[0] if param.choices else _KIND_EXAMPLES.get(param.kind, "VALUE")


def _metavar(param: Param) -> str:
    return {
        "size": "SIZE",
        "rate": "RATE",
        "time": "TIME",
        "length": "LENGTH",
        "fraction": "PERCENT",
        "percent": "PERCENT",
        "number": "NUMBER",
        "integer": "N",
        "choice": "|".join(param.choices) or "CHOICE",
        "text": "TEXT",
        "flag": "",
    }[param.kind]
