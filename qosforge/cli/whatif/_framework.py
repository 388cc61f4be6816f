"""The ``qosforge whatif <name>`` commands, made from the calculators' specs, and their output.

Each calculator is declared in :mod:`qosforge.api.calculators` (``SPEC: WhatIf``). The framework
turns the spec into a click command that:

* takes every input as a flag (``--sweep NAME=START:STOP:N`` repeatable; several form a grid)
  and hands them, as typed, to :func:`qosforge.api.whatif.whatif`, which parses them with
  :mod:`qosforge.units`, maps model errors to the flag the user typed and evaluates the
  vectorised model once over the whole grid;
* prints a rich table (value, unit, formula, source), or one JSON object with ``--format json``
  (:meth:`~qosforge.api.whatif.WhatIfOutcome.document`; sweeps give arrays in the same keys),
  ``--explain`` adds inputs and full derivations, ``--plot FILE.png`` draws the sweep.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.api.whatif import SweepAxis, WhatIfRequest, whatif
from qosforge.cli.options import (
    OutputPath,
    Rename,
    format_parameter,
    hidden_alias_option,
    merge_renamed,
)
from qosforge.files import write_atomically
from qosforge.plotting import legend_beside, plain_ticks
from qosforge.presentation import as_text
from qosforge.provenance import QuantityView, quantities
from qosforge.units import format_byte_count, format_bytes, format_rate, format_time

#: Rows shown in a human sweep table before eliding the middle.
MAX_TABLE_ROWS = 40


def _format_quantity(value: Any, unit: str) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    number = float(value)
    if unit == "B":
        exact = format_byte_count(number)
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
    renames = tuple(Rename(alias, param.flag, param.argument) for param in spec.params for alias in param.aliases)

    def run(**options: Any) -> None:
        from qosforge.cli.reporter import CliReporter

        options = merge_renamed(options, renames, click.get_current_context())
        request = WhatIfRequest(calculator=spec.name, values={param.argument: options[param.argument] for param in spec.params},
                                sweeps=tuple(options["sweep"]), plot_path=options["plot"])
        outcome = whatif(request, CliReporter())
        result, axes, grid = outcome.result, list(outcome.axes), outcome.grid
        if options["plot"] is not None:
            _plot_sweep(Path(options["plot"]), spec, result, axes, grid)
        if options["output_format"] == "json":
            # Sweeps can hold millions of values: one compact line; scalar results stay indented.
            click.echo(json.dumps(outcome.document(), indent=None if axes else 2, allow_nan=False, default=str))
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
        format_parameter("table", "json"),
        click.Option(["--sweep"], multiple=True, metavar="NAME=START:STOP:N", help="Evaluate over N evenly spaced values of an input (repeat for a grid)."),
        click.Option(["--plot"], default=None, type=OutputPath("sweep.png"), metavar="FILE.png", help="Draw the sweep to a PNG file."),
        click.Option(["--explain"], is_flag=True, default=False, help="Show inputs, formulas and sources."),
    ]
    help_text = spec.summary + ("\n\n" + spec.description if spec.description else "")
    if spec.examples:
        help_text += "\n\nExamples:\n\n" + "\n\n".join(f"\b\n  {example}" for example in spec.examples)
    return click.Command(spec.name, params=click_params, callback=run, help=help_text, short_help=spec.summary)


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
