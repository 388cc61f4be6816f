"""``qosforge watch OUTPUT_DIR``: hold running switches' counters against the compiled predictions
(:mod:`qosforge.api.watch`; docs/telemetry.md; rules in docs/rules.md, category telemetry)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, cast

import click

from qosforge.api.watch import WatchRequest, prepare_watch, render_watch, run_watch
from qosforge.cli._gnmi import ask_password, connection_options, connection_request
from qosforge.cli.options import format_option

_EPILOG = """\b
Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 unusable input or a
device that could not be read.
\b
Examples:
  qosforge watch out --switch leaf1 --address 10.0.0.1:9339 --tls-ca ca.pem --username netops --once
  qosforge watch out --inventory fabric-inventory.yaml --interval 1s --duration 5m --format sarif > watch.sarif
  qosforge watch out --switch tor1 --address 127.0.0.1:50051 --insecure      # live view until Ctrl-C
"""


def _options(function: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.argument("output_dir", type=click.Path(file_okay=False)),
        click.option("--switch", "switches", multiple=True, metavar="NAME", help="Switch(es) to watch (repeatable; default: every inventory switch)."),
        *connection_options(),
        click.option("--once", is_flag=True, help="Take one snapshot (Subscribe ONCE) and exit."),
        click.option("--interval", default="1s", show_default=True, help="Sample interval of the stream (gNMI SAMPLE)."),
        click.option("--duration", default=None, help="Stop streaming after this long (default: until Ctrl-C)."),
        click.option("--max-pause", "max_pause", default="50%", show_default=True,
                     help="Share of the watched time a priority may spend paused (watch-pfc-pause)."),
        click.option("--family", "family_names", multiple=True, type=click.Choice(["sonic", "openconfig"]),
                     help="Counter families to read (repeatable; default: both)."),
        click.option("--disable", "disable", metavar="RULE[,RULE]", multiple=True, help="Turn rules off (repeatable, comma-separated)."),
        format_option("text", "json", "sarif"),
        click.option("--fail-on", "fail_on", type=click.Choice(["error", "warning"]), default="error", show_default=True,
                     help="Lowest severity that makes the exit code 1."),
        click.option("--live/--no-live", "live", default=None, help="Live table while streaming (default: on a terminal)."),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), function)


@click.command("watch", epilog=_EPILOG)
@_options
def watch_command(**params: Any) -> int:
    """Watch switches' QoS counters over gNMI and report where they contradict the compiled design.

    Reads queue watermarks, drops and ECN marks, priority-group headroom and drops, PFC pauses and
    the PFC watchdog (OpenConfig qos state and SONiC COUNTERS_DB paths), and compares them per
    switch, port and class with OUTPUT_DIR/report.json.
    """
    request = WatchRequest(
        output_dir=Path(params["output_dir"]), connection=connection_request(params), switches=tuple(params["switches"]),
        once=params["once"], interval=params["interval"], duration=params["duration"], max_pause=params["max_pause"],
        families=tuple(params["family_names"]), disable=tuple(params["disable"]),
        fail_on="warning" if params["fail_on"] == "warning" else "error",
    )
    plan = prepare_watch(request)
    password = ask_password() if plan.needs_password else None
    if password is not None:
        for warning in plan.plaintext_password_warnings():
            click.echo(f"warning: {warning}", err=True)
    live = params["live"] if params["live"] is not None else sys.stdout.isatty()
    result = run_watch(plan, password, _live_view if live and not params["once"] else None)
    for item in result.switches:
        if item["error"]:
            click.echo(f"error: {item['error']}", err=True)
        for family, reason in item["unavailable"].items():
            click.echo(f"note: {item['name']}: {family} counters unavailable ({reason})", err=True)
    output_format = cast(Literal["text", "json", "sarif"], params["output_format"])  # one of click.Choice's
    click.echo(render_watch(result, output_format, params["output_dir"]), nl=False)
    return result.exit_code


def _live_view(expectations: dict[str, Any], observations: dict[str, Any], lock: Any) -> Any:
    from qosforge.cli.watch_view import LiveView

    return LiveView(expectations, observations, lock)


__all__ = ["watch_command"]
