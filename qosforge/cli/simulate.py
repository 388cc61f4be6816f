"""``qosforge simulate``: run a scenario on the bundled software switch.

The scenarios are the registry's (qosforge/api/scenarios/): ``dumbbell``, configured by flags only
so its numbers can be compared with other simulators, ``incast`` on a compiled intent (intent ->
SAI program -> switch), the fabric scenarios and the ``--traffic`` run. This module makes the
command's options from the registry, turns them into a :class:`~qosforge.api.simulate.SimulateRequest`,
calls :func:`qosforge.api.simulate.simulate` and renders its outcome: a table or stable JSON
(docs/softswitch-reports.md); ``--plot`` draws the queue over time. Nothing is written unless the run
succeeded.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Mapping, Set
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from qosforge.api.serve import ServeInterrupted
from qosforge.api.simulate import (
    MAX_LINE_RATE_PACKETS,
    MAX_PACKET_BYTES,
    MAX_SEED,
    SimulateRequest,
    engine_needs_compiling,
)
from qosforge.cli.options import OutputPath, Rename, format_option, renamed_options
from qosforge.cli.reporter import CliReporter
from qosforge.cli.serve_gnmi import SERVE_PARAMS, serve_options, serve_request, serve_settings_for
from qosforge.errors import EXIT_INTERRUPTED
from qosforge.units import format_value

if TYPE_CHECKING:
    from qosforge.api.scenarios._framework import FlagSpec


class SeedType(click.IntRange):
    """``--seed``: a whole number 0..2**32-1, refused (naming the flag and the range) otherwise.
    An ``IntRange`` so a sweep (campaigns/flags.py) checks every ``--seed a,b,c`` value with it."""

    name = "seed"

    def __init__(self) -> None:
        super().__init__(0, MAX_SEED)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.INT.convert(value, param, ctx)
        if not 0 <= number <= MAX_SEED:
            self.fail(f"{number} is not a seed of 0 to {MAX_SEED} (the engine's generator takes 32 bits), e.g. --seed 1", param, ctx)
        return number



_RENAMES = (Rename("--bandwidth", "--speed", "bandwidth"), Rename("--buffer", "--queue-limit", "buffer_text"))
_REQUEST_FIELDS = frozenset(field.name for field in dataclasses.fields(SimulateRequest))
_DOC = """Run a scenario on the bundled software switch and report queue, goodput, marks and drops.

    \b
    Examples:
      qosforge simulate --scenario dumbbell --flows 10 --transport dctcp --speed 10G \\
          --rtt 100us --ecn-threshold 65pkt --queue-limit 1000pkt --duration 0.3s --warmup 0.1s --format json
      qosforge simulate examples/tlt-softswitch.yaml --scenario incast --flows 500 --duration 20ms --warmup 0s
      qosforge simulate examples/roce-pod.yaml --scenario pause-storm
      qosforge simulate tests/validation/fabrics/deadlock-pod.yaml --scenario deadlock \\
          --fail-link leaf1-spine1 --fail-link leaf2-spine2 --no-watchdog
    """


class _CliReporter(CliReporter):
    """Notes on stderr through click; progress and the one-off "compiling the kernel" only on a terminal."""

    def engine_starting(self) -> None:
        if engine_needs_compiling():
            from qosforge.cli.progress import announce

            announce("compiling the software switch's kernel once (numba; about 1-2 minutes on 2 cores, cached for later runs)")




def _plot(path: Path, result: Any, title: str, labels: tuple[str, ...], throughput: Mapping[str, Any] | None = None) -> None:
    """``labels``: one per monitored queue, the port's name as the text output gives it
    (``Ethernet0``; ``switch:port`` in a fabric), never the engine's port index. ``throughput``:
    the deadlock scenario's ``throughput_timeline``, drawn in a second panel under the queue."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from qosforge.files import write_atomically
    from qosforge.plotting import legend_beside, plain_ticks

    if throughput is None:
        figure, axis = plt.subplots(figsize=(8, 3.5))
    else:
        figure, (axis, lower) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        gbps = throughput["gbps"]
        ends_ms = [(i + 1) * throughput["interval_s"] * 1e3 for i in range(len(gbps))]
        lower.step(ends_ms, gbps, where="pre", linewidth=0.8)
        lower.set_ylabel("delivered (Gb/s)")
        lower.set_xlabel("time (ms)")
        plain_ticks(lower)
    for index, depth in enumerate(result.monitors):
        axis.plot(depth.trace_time_s * 1e3, depth.trace_packets, linewidth=0.8, label=f"{labels[index]} queue {depth.queue}")
    if throughput is None:
        axis.set_xlabel("time (ms)")
    axis.set_ylabel("queue (packets)")
    axis.set_title(title)
    plain_ticks(axis)
    # Beside the axes, not on them: a pause storm's queues fill the upper right for the whole run.
    legend_beside(axis)
    figure.tight_layout()
    write_atomically(path, lambda temporary: figure.savefig(temporary, dpi=120))
    plt.close(figure)


def _option(spec: FlagSpec) -> Callable[[Any], Any]:
    """The click option for one registry flag (qosforge/api/scenarios/_framework.py FlagSpec)."""
    kwargs: dict[str, Any] = {"help": spec.help}
    if spec.metavar is not None:
        kwargs["metavar"] = spec.metavar
    if spec.default is not None:
        kwargs["default"] = spec.default
    if spec.show_default:
        kwargs["show_default"] = True
    if spec.multiple:
        kwargs["multiple"] = True
    types: dict[str, Callable[[], Any]] = {
        "int": lambda: int, "float": lambda: float, "path": lambda: click.Path(dir_okay=False), "seed": SeedType,
        "choice": lambda: click.Choice(list(spec.choices)), "output": lambda: OutputPath(spec.output_default_name, dir_okay=False),
    }
    if spec.kind == "switch":
        kwargs["is_flag"] = True
    elif spec.kind in types:
        kwargs["type"] = types[spec.kind]()
    return click.option(spec.flag, spec.name, **kwargs)


def build_command() -> click.Command:
    """``qosforge simulate`` from the scenario registry as it is now (a test that registers a
    scenario builds a fresh one)."""
    from qosforge.api.scenarios import SCENARIOS, all_flags

    def simulate_command(**params: Any) -> None:
        _run(params)

    command: Any = serve_options(simulate_command)
    command = click.option("--plot", "plot_path", type=OutputPath("queue.png", dir_okay=False), help="Draw the queue over time to this PNG.")(command)
    command = format_option("table", "json")(command)
    for spec in reversed(all_flags()):
        command = _option(spec)(command)
    choices = [name for name, scenario in SCENARIOS.items() if scenario.selectable]
    command = click.option("--scenario", type=click.Choice(choices),
                           help="dumbbell (flags only), incast (one switch of INTENT), or a fabric scenario on INTENT's switches (or --traffic).")(command)
    command = click.argument("intent", required=False, type=click.Path(dir_okay=False))(command)
    command = renamed_options(*_RENAMES)(command)
    return click.command("simulate", help=_DOC)(command)


def _typed(context: click.Context, parameter: str) -> bool:
    """Typed on the command line (or its old name was)."""
    names = [parameter, *(rename.alias_dest for rename in _RENAMES if rename.dest == parameter)]
    return any(context.get_parameter_source(name) == ParameterSource.COMMANDLINE for name in names)


def request_from_params(params: dict[str, Any], typed: Set[str], serve: Callable[[str], Any] | None = None) -> SimulateRequest:
    """A request from the command's parameter values (click's names are the request's fields;
    a flag a registered scenario adds goes to ``extra``)."""
    from qosforge.api.scenarios import all_flags

    own = {spec.name for spec in all_flags()} - _REQUEST_FIELDS
    fields = {name: value for name, value in params.items() if name in _REQUEST_FIELDS and name not in ("typed", "operator_typed", "serve", "extra")}
    extra = {name: value for name, value in params.items() if name in own}
    return SimulateRequest(**fields, typed=frozenset(typed), operator_typed=frozenset(typed), serve=serve, extra=extra)


def _run(params: dict[str, Any]) -> None:
    from qosforge.api.simulate import simulate

    context = click.get_current_context()
    output_format = params.pop("output_format")
    serving = serve_request({name: params.pop(name) for name in SERVE_PARAMS})
    typed = {name for name in params if _typed(context, name)}
    request = request_from_params(params, typed, serve=lambda scenario: serve_settings_for(serving, scenario))
    try:
        outcome = simulate(request, _CliReporter())
    except ServeInterrupted as interrupted:
        click.echo(str(interrupted), err=True)
        sys.exit(EXIT_INTERRUPTED)
    if outcome.kind == "traffic":
        if request.plot_path is not None and outcome.plot is not None:
            from qosforge.cli.simulate_plots import plot_traffic

            plot_traffic(Path(request.plot_path), outcome.report, outcome.result, outcome.plot.title)
        from qosforge.cli.simulate_traffic import emit_traffic

        emit_traffic(outcome.report, output_format)
        return
    if request.plot_path is not None and outcome.plot is not None:
        _plot(Path(request.plot_path), outcome.result, outcome.plot.title, labels=outcome.plot.labels, throughput=outcome.plot.throughput)
    _emit(outcome.report, output_format)


def _emit(report: dict[str, Any], output_format: str) -> None:
    if output_format == "json":
        from qosforge.presentation import tidy

        click.echo(json.dumps(tidy(report), indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"qosforge simulate {report['scenario']}", show_header=True)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in report.items():
        if key == "flow_ect":
            # Which flows are ECN-capable, one group a line part; the reasons are in --format json.
            text = "; ".join(f"flows {g['flows']} {g['transport']} "
                             f"{'ECT' if g['ect'] else 'not ECT'}" for g in value)
        elif key == "host_tcp":
            from qosforge.cli.host_tcp_text import host_tcp_lines

            text = "\n".join(host_tcp_lines(value))
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            text = f"{len(value)} entries (per switch and port: --format json)"
        elif key == "waiting_buffers" and len(value) > 3:
            text = f"{len(value)}: {', '.join(value[:3])}, ... (--format json)"
        elif key == "throughput_timeline":
            text = f"{len(value['gbps'])} points, one every {format_value(value['interval_s'], 's')} (--format json)"
        elif key == "throughput_basis":
            # One line; the JSON report spells each basis out in full.
            text = "goodput: payload; ip: IP datagrams; wire: L1 (frame + preamble/SFD + IFG)"
        elif key == "notes":
            continue  # printed in full under the table
        else:
            text = _cell(key, value)
        table.add_row(key, text)
    Console(highlight=False, markup=False).print(table)
    for note in report.get("notes", ()):
        click.echo(f"note: {note}")


def _cell(key: str, value: Any) -> str:
    """One scalar of the report as a person reads it: sizes as sizes (177.44 MB, not
    1.77438e+08), large counts and rates whole with separators, nothing measured as "-"."""
    if value is None:
        return "-"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    if not isinstance(value, float):
        return str(value)
    if key.endswith("_bytes"):
        return format_value(value, "B", exact=False)
    text = f"{value:.6g}"
    return f"{value:,.0f}" if "e+" in text else text


simulate_command = build_command()

__all__ = ["MAX_LINE_RATE_PACKETS", "MAX_PACKET_BYTES", "build_command", "request_from_params", "simulate_command"]
