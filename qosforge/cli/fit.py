"""``qosforge fit red``: fit a chip's RED step profile to TBTCP's ideal curve (TBTCP §4.4, §6.2).

Prints the programmed t_min/t_max/P_max (or every step's probability), the fit error as the paper
quotes it, and the host-side QCD/RAI parameters; ``--format json`` prints one JSON object with the
same numbers, ``--sweep`` evaluates a grid in one vectorised fit, ``--plot`` draws the curves.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.table import Table

from qosforge.cli.options import OutputPath
from qosforge.defaults import DEFAULT_TBTCP_BETA, DEFAULT_TBTCP_R
from qosforge.errors import QosforgeError
from qosforge.files import PLOT_SUFFIXES, check_output_file, write_atomically
from qosforge.fitting.red_model import (
    SOURCE_PER_STEP,
    RedStepModel,
    red_model_from_profile,
    step_marking_probability,
)
from qosforge.fitting.tbtcp_red import TbtcpRedFit, fit_tbtcp_red
from qosforge.models.tbtcp import SOURCE_RAI
from qosforge.plotting import legend_beside, plain_ticks
from qosforge.provenance import to_jsonable
from qosforge.units import format_bytes, parse_number, parse_percent, parse_size_bytes

#: Library parameter names (the ``place`` of a model error) -> the flag the user typed.
_FLAG_OF = {
    "bdp_bytes": "--bdp",
    "t_min_bytes": "--t-min",
    "t_max_bytes": "--t-max",
    "window_reduction_r": "--r",
    "beta": "--beta",
    "steps": "--steps",
    "step_offset": "--step-offset",
    "probability_granularity": "--probability-granularity",
    "per_step": "--per-step",
    "port_buffer_bytes": "--port-buffer",
    "lso_burst_bytes": "--lso-burst",
}
_SWEEP_EXAMPLE = "e.g. --sweep r=1:4:4 or --sweep t-max=300kB:1MB:8"
#: Sweep rows shown in the human table before eliding the middle.
_MAX_TABLE_ROWS = 40


@dataclass(frozen=True)
class _Axis:
    name: str
    argument: str
    values: np.ndarray


def _size(flag: str, text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return parse_size_bytes(text)
    except QosforgeError as error:
        raise error.with_place(flag) from None


def _number(flag: str, text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return parse_number(text)
    except QosforgeError as error:
        raise error.with_place(flag) from None


_SWEEPABLE: Mapping[str, tuple[str, Callable[[str, str], float | None]]] = {
    "bdp": ("bdp_bytes", _size),
    "t-min": ("t_min_bytes", _size),
    "t-max": ("t_max_bytes", _size),
    "r": ("window_reduction_r", _number),
    "beta": ("beta", _number),
}


def _parse_sweep(text: str) -> _Axis:
    name, separator, span = text.partition("=")
    name = name.strip().lstrip("-").replace("_", "-")
    parts = span.split(":")
    if not separator or len(parts) != 3:
        raise QosforgeError(
            f"{text!r} is not NAME=START:STOP:N", place="--sweep", hint=_SWEEP_EXAMPLE
        )
    if name not in _SWEEPABLE:
        raise QosforgeError(
            f"cannot sweep {name!r}", place="--sweep", hint=f"sweep one of: {', '.join(_SWEEPABLE)}"
        )
    argument, parse = _SWEEPABLE[name]
    start, stop = parse("--sweep", parts[0]), parse("--sweep", parts[1])
    try:
        points = int(parts[2])
    except ValueError:
        points = 0
    if points < 2 or start is None or stop is None:
        raise QosforgeError(
            f"{parts[2]!r} is not a point count of at least 2", place="--sweep", hint=_SWEEP_EXAMPLE
        )
    return _Axis(name=name, argument=argument, values=np.linspace(start, stop, points))


def _chip_model(
    asic: str | None,
    steps: int | None,
    step_offset: float | None,
    granularity: float | None,
    granularity_given: bool,
    per_step: bool,
) -> tuple[RedStepModel, Any]:
    if asic is not None:
        from qosforge.vendor_profiles import load_vendor_profile

        profile = load_vendor_profile(asic)
        model = red_model_from_profile(
            profile,
            steps=steps,
            step_offset=step_offset,
            probability_granularity=granularity if granularity_given else None,
        )
        if granularity_given and granularity is None:
            model = replace(model, probability_granularity=None)
        return model, profile
    defaults = RedStepModel()
    sources = dict(defaults.sources)
    if steps is not None:
        sources["steps"] = "given explicitly (--steps)"
    if step_offset is not None:
        sources["step_offset"] = "given explicitly (--step-offset)"
    if granularity_given:
        sources["probability_granularity"] = "given explicitly (--probability-granularity)"
    if per_step:
        # No profile to ask: the user states the chip can program each step (TBTCP §8).
        sources["per_step_programmable"] = f"assumed by --per-step; {SOURCE_PER_STEP}"
    model = RedStepModel(
        steps=defaults.steps if steps is None else steps,
        step_offset=defaults.step_offset if step_offset is None else step_offset,
        probability_granularity=granularity
        if granularity_given
        else defaults.probability_granularity,
        per_step_programmable=per_step,
        name="generic step RED" if per_step else defaults.name,
        sources=tuple(sources.items()),
    )
    return model, None


def _parse_granularity(text: str | None) -> tuple[float | None, bool]:
    if text is None:
        return None, False
    if text.strip().lower() in ("continuous", "none"):
        return None, True
    try:
        value = parse_percent(text) / 100.0
    except QosforgeError as error:
        raise error.with_place("--probability-granularity") from None
    return value, True


def _port_buffer(given: float | None, profile: Any) -> tuple[float | None, str]:
    if given is not None:
        return given, "--port-buffer"
    if profile is not None and profile.buffer_bytes.value is not None:
        # A port can never queue more than the whole shared buffer (vendor profile buffer_bytes).
        return float(
            profile.buffer_bytes.value
        ), f"vendor profile {profile.name}: buffer_bytes (whole shared buffer)"
    return None, "not given"


def _located(error: QosforgeError) -> QosforgeError:
    if error.place in _FLAG_OF:
        return error.with_place(_FLAG_OF[error.place])
    return error


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
    help="Also choose t_max, minimising the error up to the port buffer.",
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
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
)
def red_command(**options: Any) -> None:
    """Fit P_max (and optionally t_max) of a step RED profile to TBTCP's ideal curve.

    \b
    Example (TBTCP Table 1, r = 4):
      qosforge fit red --bdp 180kB --t-min 138kB --t-max 550kB --r 4
    """
    try:
        _run(options)
    except QosforgeError as error:
        raise _located(error) from None


def _run(options: Mapping[str, Any]) -> None:
    if options["plot"] is not None:
        check_output_file(Path(options["plot"]), flag="--plot", suffixes=PLOT_SUFFIXES)
    values: dict[str, Any] = {
        "bdp_bytes": _size("--bdp", options["bdp"]),
        "t_min_bytes": _size("--t-min", options["t_min"]),
        "t_max_bytes": _size("--t-max", options["t_max"]),
        # compile's r (the intent's tbtcp.r default); per-step fitting keeps r = 1 (TBTCP §8)
        "window_reduction_r": _number("--r", options["r"]) if options["r"] is not None else (1.0 if options["per_step"] else float(DEFAULT_TBTCP_R)),
        "beta": _number("--beta", options["beta"]),
    }
    lso_burst = _size("--lso-burst", options["lso_burst"])
    if values["t_min_bytes"] is None:
        if lso_burst is None:
            raise QosforgeError(
                "is required", place="--t-min", hint="give --t-min (l, e.g. 138kB) or --lso-burst"
            )
        values["t_min_bytes"] = lso_burst
    step_offset = _number("--step-offset", options["step_offset"])
    granularity, granularity_given = _parse_granularity(options["granularity"])
    model, profile = _chip_model(
        options["asic"],
        options["steps"],
        step_offset,
        granularity,
        granularity_given,
        options["per_step"],
    )
    port_buffer, port_buffer_source = _port_buffer(
        _size("--port-buffer", options["port_buffer"]), profile
    )
    axes = [_parse_sweep(text) for text in options["sweeps"]]
    if len({axis.name for axis in axes}) != len(axes):
        raise QosforgeError(
            "sweeps the same name twice", place="--sweep", hint="sweep each name once"
        )
    if options["optimize_t_max"]:
        if values["t_max_bytes"] is not None:
            raise QosforgeError(
                "conflicts with --optimize-t-max",
                place="--t-max",
                hint="give --t-max or --optimize-t-max, not both",
            )
        if port_buffer is None:
            raise QosforgeError(
                "--optimize-t-max needs the port's buffer",
                place="--port-buffer",
                hint="give --port-buffer (e.g. 1MB) or --asic",
            )
        if axes:
            raise QosforgeError(
                "cannot be combined with --optimize-t-max",
                place="--sweep",
                hint="optimise t_max for one parameter set at a time",
            )
    elif values["t_max_bytes"] is None and not any(axis.argument == "t_max_bytes" for axis in axes):
        raise QosforgeError(
            "is required",
            place="--t-max",
            hint="give --t-max (e.g. 550kB), or --optimize-t-max with --port-buffer",
        )
    if axes:
        grids = np.meshgrid(*(axis.values for axis in axes), indexing="ij")
        for axis, grid in zip(axes, grids, strict=True):
            values[axis.argument] = grid
    result = fit_tbtcp_red(
        values["bdp_bytes"],
        values["t_min_bytes"],
        values["t_max_bytes"],
        values["window_reduction_r"],
        values["beta"],
        model,
        per_step=options["per_step"],
        lso_burst_bytes=lso_burst,
        port_buffer_bytes=port_buffer,
    )
    context = {
        "model": model,
        "asic": options["asic"],
        "port_buffer_bytes": port_buffer,
        "port_buffer_source": port_buffer_source,
    }
    if options["plot"] is not None:
        _plot(options["plot"], result, axes)
    notes = _notes(result, model)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    if options["output_format"] == "json":
        from qosforge.presentation import tidy

        click.echo(json.dumps(tidy({**_json(result, axes, context), "notes": notes}), indent=2, allow_nan=False))
    elif axes:
        _render_sweep(result, axes)
    else:
        _render(result, context)


def _finite(value: Any) -> Any:
    """NaN (no port buffer given) becomes JSON null."""
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def _notes(result: TbtcpRedFit, model: RedStepModel) -> list[str]:
    """What an operator must know before programming the fit: a profile whose every step rounds
    to 0 % marks nothing below t_max and every packet above it — one step at t_max, not TBTCP's
    curve (compile refuses such a fit for a class, compiler/thresholds.py)."""
    silent = np.all(np.asarray(result.step_probabilities, dtype=float) == 0.0, axis=-1)
    if not np.any(silent):
        return []
    grid = "continuous" if model.probability_granularity is None else f"{float(_percent(model.probability_granularity)):g} %"
    where = "" if np.ndim(silent) == 0 else f" at {int(np.sum(silent))} of {silent.size} sweep points"
    least = float(np.max(np.where(silent, _percent(result.p_max_unquantized), -np.inf)))
    return [f"every programmed marking probability is 0: P_max rounds to 0 on the {grid} probability grid{where} (least-squares "
            f"P_max {least:.3g} % or less); such a profile marks only above t_max, every packet there — a single step at t_max, "
            "not TBTCP's curve (TBTCP §6.2); a smaller --bdp, a larger --r or a finer --probability-granularity gives a curve"]


def _percent(fraction: Any) -> Any:
    """A probability (scalar, array or list) in percent, rounded off float noise (0.18 -> 18)."""
    return np.round(100.0 * np.asarray(fraction, dtype=float), 9)


def _json(result: TbtcpRedFit, axes: list[_Axis], context: Mapping[str, Any]) -> dict[str, Any]:
    model: RedStepModel = context["model"]
    payload: dict[str, Any] = {
        "bdp_bytes": result.bdp_bytes,
        "t_min_bytes": result.t_min_bytes,
        "t_max_bytes": result.t_max_bytes,
        # P_max in percent, named with its unit, as compile's report, explain and SONiC show it.
        "pmax_percent": _percent(result.p_max),
        "pmax_unquantized_percent": _percent(result.p_max_unquantized),
        "step_probabilities_percent": _percent(result.step_probabilities),
        "error": result.error_kilobytes,
        "error_unquantized": result.error_unquantized_kilobytes,
        "error_to_limit": result.error_to_limit_kilobytes,
        "r": result.window_reduction_r,
        "beta": result.beta,
        "rtts_per_mss_increase": result.rtts_per_mss_increase,
        "steps": result.steps,
        "step_offset": result.step_offset,
        "per_step": result.per_step,
        "probability_granularity_percent": None if model.probability_granularity is None else _percent(model.probability_granularity),
        "threshold_granularity_bytes": model.threshold_granularity_bytes,
        "asic": context["asic"],
        "port_buffer_bytes": context["port_buffer_bytes"],
        "units": {
            "error": "kB (∫ (p/r − f)² dQ with Q in kB, as TBTCP §6.2 Table 1)",
            "pmax_percent": "%",
            "t_min_bytes": "B",
            "t_max_bytes": "B",
            "r": "MSS per mark",
            "beta": "MSS per RTT",
        },
        "provenance": result.provenance,
    }
    if axes:
        payload["sweep"] = [{"name": axis.name, "values": axis.values.tolist()} for axis in axes]
    return {key: _finite(to_jsonable(value)) for key, value in payload.items()}


def _render(result: TbtcpRedFit, context: Mapping[str, Any]) -> None:
    console = Console(markup=False)
    model: RedStepModel = context["model"]
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
    if not math.isnan(result.error_to_limit_kilobytes):
        table.add_row(
            f"error up to port buffer ({format_bytes(context['port_buffer_bytes'])})",
            f"{result.error_to_limit_kilobytes:.4g}",
            f"{formula('error_to_limit_kilobytes')} (port buffer: {context['port_buffer_source']})",
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


def _render_sweep(result: TbtcpRedFit, axes: list[_Axis]) -> None:
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


def _plot(path: Path, result: TbtcpRedFit, axes: list[_Axis]) -> None:
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
