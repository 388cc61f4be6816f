"""``qosforge fit red``: fit a chip's RED step profile to TBTCP's ideal curve (TBTCP §4.4, §6.2).

Prints the programmed t_min/t_max/P_max (or every step's probability), the fit error as the paper
quotes it, and the host-side QCD/RAI parameters; ``--format json`` prints one JSON object with the
same numbers, ``--sweep`` evaluates a grid in one vectorised fit, ``--plot`` draws the curves.
Parsing, the chip model and the fit are the application layer's (qosforge/api/fit.py); this
module turns flags into its request and draws the outcome.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.table import Table

from qosforge.api.fit import FitRedOutcome, FitRedRequest, SweepAxis, fit_red
from qosforge.cli.options import OutputPath, format_option
from qosforge.defaults import DEFAULT_TBTCP_BETA, DEFAULT_TBTCP_R
from qosforge.errors import QosforgeError
from qosforge.files import PLOT_SUFFIXES, check_output_file, write_atomically
from qosforge.fitting.red_model import step_marking_probability
from qosforge.fitting.tbtcp_red import TbtcpRedFit
from qosforge.models.tbtcp import SOURCE_RAI
from qosforge.plotting import legend_beside, plain_ticks
from qosforge.units import format_bytes

#: Sweep rows shown in the human table before eliding the middle.
_MAX_TABLE_ROWS = 40


@click.command("red")
@click.option(
    "--bdp",
    "bdp",
    required=True,
    metavar="SIZE",
    help="Bandwidth-delay product, e.g. 180kB (TBTCP §7: 10G × 150us).",
)
@click.option(
    "--t-min",
    "t_min",
    metavar="SIZE",
    help="t_min = l, where marking starts (>= the LSO burst), e.g. 138kB. Default: --lso-burst.",
)
@click.option(
    "--t-max",
    "t_max",
    metavar="SIZE",
    help="t_max, above which every packet is marked, e.g. 550kB.",
)
@click.option(
    "--r",
    "r",
    metavar="NUMBER",
    help=f"Curve scaling r (target p(Q)/r); QCD cuts the window by r per mark [default: {DEFAULT_TBTCP_R}, the intent's tbtcp.r, as compile; 1 with --per-step].",
)
@click.option(
    "--beta",
    "beta",
    default=f"{DEFAULT_TBTCP_BETA:g}",
    show_default=True,
    metavar="NUMBER",
    help="RAI window increase per RTT (TBTCP §5.1), 0 < beta < 0.5.",
)
@click.option(
    "--steps",
    "steps",
    type=int,
    metavar="N",
    help="RED steps between t_min and t_max (default: the profile's, else 8).",
)
@click.option(
    "--step-offset",
    "step_offset",
    metavar="C",
    help="Step i marks with P_max·(i + C)/steps (default: the profile's, else 0.5).",
)
@click.option(
    "--probability-granularity",
    "granularity",
    metavar="PERCENT",
    help="Probability grid, a percentage with its % sign, e.g. 1% (default: the profile's, else whole percent) or 'continuous'.",
)
@click.option(
    "--asic",
    "asic",
    metavar="PROFILE",
    help="Vendor profile giving steps, offset, granularities and per-step support.",
)
@click.option(
    "--per-step",
    "per_step",
    is_flag=True,
    help="Fit every step's probability (chips that allow it, TBTCP §8); r = 1.",
)
@click.option(
    "--optimize-t-max",
    "optimize_t_max",
    is_flag=True,
    help="Also choose t_max, minimising the error up to the port buffer with every packet marked "
         "above t_max; "
    "for TBTCP's curve (at most 0.5/r) that is always the port buffer (docs/fitting.md).",
)
@click.option(
    "--port-buffer",
    "port_buffer",
    metavar="SIZE",
    help="Buffer the port can use (default with --asic: the whole shared buffer).",
)
@click.option(
    "--lso-burst",
    "lso_burst",
    metavar="SIZE",
    help="NIC LSO burst; t_min must be at least this (TBTCP §6.2).",
)
@click.option(
    "--sweep",
    "sweeps",
    multiple=True,
    metavar="NAME=START:STOP:N",
    help="Sweep bdp, t-min, t-max, r or beta (repeat for a grid).",
)
@click.option(
    "--plot",
    "plot",
    type=OutputPath("fit.png", dir_okay=False, path_type=Path),
    metavar="FILE.png",
    help="Draw ideal, scaled and programmed curves (or the sweep).",
)
@format_option("table", "json")
def red_command(**options: Any) -> None:
    """Fit P_max (and optionally t_max) of a step RED profile to TBTCP's ideal curve.

    \b
    Example (TBTCP Table 1, r = 4):
      qosforge fit red --bdp 180kB --t-min 138kB --t-max 550kB --r 4
    """
    if options["plot"] is not None:
        check_output_file(Path(options["plot"]), flag="--plot", suffixes=PLOT_SUFFIXES)
    outcome = fit_red(
        FitRedRequest(
            bdp=options["bdp"],
            t_min=options["t_min"],
            t_max=options["t_max"],
            r=options["r"],
            beta=options["beta"],
            steps=options["steps"],
            step_offset=options["step_offset"],
            granularity=options["granularity"],
            asic=options["asic"],
            per_step=options["per_step"],
            optimize_t_max=options["optimize_t_max"],
            port_buffer=options["port_buffer"],
            lso_burst=options["lso_burst"],
            sweeps=tuple(options["sweeps"]),
        )
    )
    axes = list(outcome.axes)
    if options["plot"] is not None:
        _plot(options["plot"], outcome.result, axes)
    for note in outcome.notes:
        click.echo(f"note: {note}", err=True)
    if options["output_format"] == "json":
        from qosforge.presentation import tidy

        click.echo(json.dumps(tidy(outcome.report()), indent=2, allow_nan=False))
    elif axes:
        _render_sweep(outcome.result, axes)
    else:
        _render(outcome)


def _render(outcome: FitRedOutcome) -> None:
    console = Console(markup=False)
    result, model = outcome.result, outcome.model
    sources: list[str] = []

    def cite(source: str) -> str:
        if source not in sources:
            sources.append(source)
        return f"[{sources.index(source) + 1}]"

    def formula(name: str) -> str:
        derivation = result.provenance.derivation_of(name)
        return f"{derivation.formula} {cite(derivation.source)}" if derivation else "input"

    mode = (
        "per-step probabilities"
        if result.per_step
        else f"single P_max, target p(Q)/{result.window_reduction_r:g}"
    )
    table = Table(title=f"qosforge fit red ({model.name}; {mode})", title_justify="left")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_column("formula / source", overflow="fold")
    table.add_row("t_min (l)", format_bytes(result.t_min_bytes), formula("t_min_bytes"))
    table.add_row("t_max", format_bytes(result.t_max_bytes), formula("t_max_bytes"))
    table.add_row("P_max programmed", f"{100 * result.p_max:.4g} %", formula("p_max"))
    table.add_row(
        "P_max least squares", f"{100 * result.p_max_unquantized:.6g} %", formula("p_max_optimal")
    )
    table.add_row("error (Q in kB)", f"{result.error_kilobytes:.4g}", formula("error_kilobytes"))
    table.add_row("error at unrounded optimum", f"{result.error_unquantized_kilobytes:.4g}", "")
    if outcome.port_buffer_bytes is not None and not math.isnan(result.error_to_limit_kilobytes):
        table.add_row(
            f"error up to port buffer ({format_bytes(outcome.port_buffer_bytes)})",
            f"{result.error_to_limit_kilobytes:.4g}",
            f"{formula('error_to_limit_kilobytes')} (port buffer: {outcome.port_buffer_source})",
        )
    table.add_row(
        "host: QCD cut per mark r",
        f"{result.window_reduction_r:g} MSS",
        formula("window_reduction_r"),
    )
    table.add_row(
        "host: RAI beta",
        f"{result.beta:g} MSS/RTT",
        f"one MSS every {result.rtts_per_mss_increase:g} RTTs {cite(SOURCE_RAI)}",
    )
    console.print(table)
    steps = Table(
        title=f"programmed steps ({result.steps} steps, offset {result.step_offset:g})",
        title_justify="left",
    )
    steps.add_column("step", justify="right")
    steps.add_column("queue depth", justify="right")
    steps.add_column("marking probability (%)", justify="right")
    width = (result.t_max_bytes - result.t_min_bytes) / result.steps
    for index, probability in enumerate(np.asarray(result.step_probabilities)):
        low, high = result.t_min_bytes + index * width, result.t_min_bytes + (index + 1) * width
        steps.add_row(
            str(index), f"({format_bytes(low)}, {format_bytes(high)}]", f"{100 * probability:.4g}"
        )
    console.print(steps)
    for number, source in enumerate(sources, start=1):
        console.print(f"[{number}] {source}", markup=False, highlight=False)


def _render_sweep(result: TbtcpRedFit, axes: list[SweepAxis]) -> None:
    console = Console(markup=False)
    shape = tuple(axis.values.size for axis in axes)
    grids = np.meshgrid(*(axis.values for axis in axes), indexing="ij")
    total = int(np.prod(shape))
    outputs = {
        "t_max": (result.t_max_bytes, format_bytes),
        "P_max": (result.p_max, lambda v: f"{100 * v:.4g} %"),
        "P_max (unrounded)": (result.p_max_unquantized, lambda v: f"{100 * v:.6g} %"),
        "error": (result.error_kilobytes, lambda v: f"{v:.4g}"),
    }
    if any(axis.argument == "t_max_bytes" for axis in axes) and "t_max" in outputs:
        # The swept t_max is already a column; the programmed one differs only by cell rounding.
        programmed = np.broadcast_to(result.t_max_bytes, shape)
        swept = grids[[axis.argument for axis in axes].index("t_max_bytes")]
        if np.array_equal(programmed, swept):
            del outputs["t_max"]
    table = Table(
        title=f"qosforge fit red sweep ({total} points; error with Q in kB)", title_justify="left"
    )
    for axis in axes:
        table.add_column(axis.name, justify="right")
    for name in outputs:
        table.add_column(name, justify="right")
    rows = list(range(total))
    if total > _MAX_TABLE_ROWS:
        rows = [*range(_MAX_TABLE_ROWS // 2), -1, *range(total - _MAX_TABLE_ROWS // 2, total)]
    for row in rows:
        if row == -1:
            table.add_row(*(["…"] * (len(axes) + len(outputs))))
            continue
        cells = []
        for axis, grid in zip(axes, grids, strict=True):
            value = float(grid.reshape(-1)[row])
            cells.append(format_bytes(value) if axis.argument.endswith("_bytes") else f"{value:g}")
        for values, show in outputs.values():
            cells.append(show(float(np.broadcast_to(values, shape).reshape(-1)[row])))
        table.add_row(*cells)
    console.print(table)


def _plot(path: Path, result: TbtcpRedFit, axes: list[SweepAxis]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from qosforge.models.tbtcp import tbtcp_ideal_marking_probability

    if axes:
        figure, subplots = plt.subplots(2, 1, figsize=(7, 5.5), sharex=True)
        shape = tuple(axis.values.size for axis in axes)
        x_values = axes[0].values
        for subplot, (label, values) in zip(
            subplots,
            (("P_max programmed (%)", 100 * np.asarray(result.p_max)), ("error (Q in kB)", result.error_kilobytes)),
            strict=True,
        ):
            series = np.broadcast_to(values, shape).reshape(shape[0], -1)
            step = max(1, series.shape[1] // 8)
            for column in range(0, series.shape[1], step):
                subplot.plot(
                    x_values / (1e3 if axes[0].argument.endswith("_bytes") else 1.0),
                    series[:, column],
                )
            subplot.set_ylabel(label)
            subplot.grid(True, alpha=0.3)
            plain_ticks(subplot)
        unit = " [kB]" if axes[0].argument.endswith("_bytes") else ""
        subplots[-1].set_xlabel(f"{axes[0].name}{unit}")
        figure.suptitle("qosforge fit red sweep")
    else:
        figure, subplot = plt.subplots(figsize=(7, 4))
        t_min, t_max = float(result.t_min_bytes), float(result.t_max_bytes)
        bdp = float(result.bdp_bytes)
        right = max(t_max, t_min + bdp) * 1.1
        queue = np.linspace(0.0, right, 4001)
        ideal = tbtcp_ideal_marking_probability(queue, bdp, t_min)
        r = float(result.window_reduction_r)
        subplot.plot(queue / 1e3, 100 * ideal, label="ideal p(Q) (TBTCP Eq. 9)")
        if r != 1.0:
            subplot.plot(queue / 1e3, 100 * ideal / r, label=f"scaled p(Q)/{r:g}")
        programmed = step_marking_probability(queue, t_min, t_max, result.step_probabilities)
        subplot.plot(
            queue / 1e3,
            100 * programmed,
            label=f"programmed steps (P_max {100 * result.p_max:.4g} %)",
            drawstyle="steps-post",
        )
        subplot.set_xlabel("queue depth Q [kB]")
        subplot.set_ylabel("marking probability (%)")
        # The curves are in percent (0..100: the steps reach 100 % above t_max), so is the axis.
        subplot.set_ylim(-2.0, 105.0)
        subplot.grid(True, alpha=0.3)
        plain_ticks(subplot)
        legend_beside(subplot)
        subplot.set_title(f"error {result.error_kilobytes:.4g} (Q in kB)")
    figure.tight_layout()
    try:
        write_atomically(path, lambda temporary: figure.savefig(temporary, dpi=110))
    except OSError as error:
        raise QosforgeError(
            f"cannot write {path}: {error.strerror}", place="--plot", hint="choose a writable path"
        ) from None
    finally:
        plt.close(figure)


__all__ = ["red_command"]
