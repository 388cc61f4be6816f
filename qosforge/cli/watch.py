"""``qosforge watch OUTPUT_DIR``: hold running switches' counters against the compiled predictions
(docs/telemetry.md; rules in docs/rules.md, category telemetry).

The composition the layering wants: ``deliver.watch`` reads the counters over gNMI (both
families of the catalogue), ``lint.watch`` judges them against OUTPUT_DIR's report.json, and the
lint formats print the findings (text, JSON, SARIF) with lint's exit codes.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from qosforge.cli._gnmi import ask_password, connection, connection_options
from qosforge.errors import EXIT_BAD_INPUT, QosforgeError

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
        click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True),
        click.option("--fail-on", "fail_on", type=click.Choice(["error", "warning"]), default="error", show_default=True,
                     help="Lowest severity that makes the exit code 1."),
        click.option("--live/--no-live", "live", default=None, help="Live table while streaming (default: on a terminal)."),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), function)


def _devices(params: dict[str, Any], known: list[str]) -> list[Any]:
    from qosforge.deliver.devices import Device, load_inventory, parse_address

    switches = list(params["switches"])
    connect = connection(params)
    if params["inventory"]:
        inventory = {d.name: d for d in load_inventory(Path(params["inventory"]), connect)}
        missing = [s for s in switches if s not in inventory]
        if missing:
            raise QosforgeError(f"switch(es) {', '.join(missing)} not in the inventory {params['inventory']}", place="--switch",
                                hint=f"inventory switches: {', '.join(list(inventory)[:8])}")
        devices = [inventory[s] for s in (switches or list(inventory))]
    else:
        if len(switches) != 1:
            raise QosforgeError("name one switch (--switch NAME) for --address, or use --inventory", place="--switch",
                                hint="e.g. --switch leaf1 --address 10.0.0.1:9339")
        if not params["address"]:
            raise QosforgeError("no device address", place="--address", hint="give --address HOST:PORT or --inventory FILE")
        host, port = parse_address(params["address"], "--address")
        devices = [Device(switches[0], host, port, connect)]
    unknown = [d.name for d in devices if d.name not in known]
    if unknown:
        raise QosforgeError(f"{', '.join(unknown)} not in the compiled report (its switches: {', '.join(known[:8])}{' ...' if len(known) > 8 else ''})",
                            place=params["output_dir"], hint="watch a switch the output folder was compiled for, or compile it")
    return devices


def _fraction(text: str) -> float:
    from qosforge.errors import UnitError
    from qosforge.units import parse_fraction

    try:
        value = parse_fraction(text)
    except UnitError as error:
        raise QosforgeError(error.message, place="--max-pause", hint=error.hint or "write e.g. 50%") from None
    if value <= 0:
        raise QosforgeError(f"{text!r} would flag any pause at all", place="--max-pause", hint="write a share above 0%, e.g. 50%")
    return value


def _seconds(text: str | None, place: str) -> float | None:
    from qosforge.deliver.devices import parse_timeout

    return None if text is None else parse_timeout(text, place)


@click.command("watch", epilog=_EPILOG)
@_options
def watch_command(**params: Any) -> int:
    """Watch switches' QoS counters over gNMI and report where they contradict the compiled design.

    Reads queue watermarks, drops and ECN marks, priority-group headroom and drops, PFC pauses and
    the PFC watchdog (OpenConfig qos state and SONiC COUNTERS_DB paths), and compares them per
    switch, port and class with OUTPUT_DIR/report.json.
    """
    from qosforge.lint.findings import Severity, exit_code, sort_key
    from qosforge.lint.watch.expectations import load_expectations
    from qosforge.lint.watch.observation import Observation
    from qosforge.lint.watch.rules import Thresholds, evaluate

    expectations = load_expectations(Path(params["output_dir"]))
    devices = _devices(params, list(expectations))
    interval_s = _seconds(params["interval"], "--interval")
    duration_s = _seconds(params["duration"], "--duration")
    thresholds = Thresholds(max_pause_fraction=_fraction(params["max_pause"]))
    disabled = frozenset(r.strip() for item in params["disable"] for r in item.split(",") if r.strip())
    _check_rules(disabled)
    if params["once"] and params["duration"]:
        raise QosforgeError("--once takes one snapshot; --duration is for streaming", place="--duration", hint="drop one of them")
    password = ask_password() if any(d.connection.username for d in devices) else None
    for device in devices:
        if password is not None and device.connection.insecure:
            click.echo(f"warning: {device.name} ({device.address}): --insecure sends the password in plaintext", err=True)
    wanted = tuple(params["family_names"]) or ("sonic", "openconfig")
    observations = {d.name: Observation(d.name, once=params["once"]) for d in devices}
    status: dict[str, dict[str, Any]] = {d.name: {"name": d.name, "address": d.address, "error": None, "unavailable": {}, "samples": 0} for d in devices}
    started = time.monotonic()
    if params["once"]:
        for device in devices:
            _read_once(device, password, wanted, observations[device.name], status[device.name])
    else:
        live = params["live"] if params["live"] is not None else _is_terminal()
        assert interval_s is not None
        _read_stream(devices, password, wanted, interval_s, duration_s, observations, status, expectations, live)
    watched_s = time.monotonic() - started
    findings = []
    for device in devices:
        if status[device.name]["error"] is None:
            findings.extend(evaluate(expectations[device.name], observations[device.name], thresholds, disabled, _where))
    findings.sort(key=sort_key)
    for item in status.values():
        if item["error"]:
            click.echo(f"error: {item['error']}", err=True)
        for family, reason in item["unavailable"].items():
            click.echo(f"note: {item['name']}: {family} counters unavailable ({reason})", err=True)
    fail_on = Severity(params["fail_on"])
    unusable = sum(1 for item in status.values() if item["error"])
    click.echo(_render(params["output_format"], findings, list(status.values()), fail_on, unusable,
                       "once" if params["once"] else f"streamed {watched_s:.1f} s", params["output_dir"]), nl=False)
    return EXIT_BAD_INPUT if unusable else exit_code(findings, fail_on, 0)


def _check_rules(disabled: frozenset[str]) -> None:
    from qosforge.lint.watch.rules import RULES

    known = {r.id for r in RULES}
    unknown = sorted(disabled - known)
    if unknown:
        raise QosforgeError(f"unknown rule(s) {', '.join(unknown)}", place="--disable", hint=f"watch's rules: {', '.join(sorted(known))}")


def _is_terminal() -> bool:
    import sys

    return sys.stdout.isatty()


def _where(counter: Any) -> str:
    from qosforge.backends.openconfig import telemetry as oc
    from qosforge.backends.sonic import telemetry as sonic

    places = [p.path_text() for p in sonic.path_of(counter)] + [p.path_text() for p in oc.path_of(counter)]
    groups = sorted({p.flex_counter_group for p in sonic.path_of(counter) if p.flex_counter_group})
    text = " or ".join(places) if places else "no path in either family"
    return text + (f" (FLEX_COUNTER_TABLE group {', '.join(groups)})" if groups else "")


def _read_once(device: Any, password: str | None, wanted: tuple[str, ...], observation: Any, status: dict[str, Any]) -> None:
    from qosforge.deliver.gnmi import GnmiSession
    from qosforge.deliver.watch import families, snapshot

    try:
        with GnmiSession(device, password) as session:
            states = families(session, wanted)
            samples = snapshot(session, states)
    except QosforgeError as error:
        status["error"] = error.one_line()
        return
    observation.add(samples)
    status["samples"] += len(samples)
    status["unavailable"] = {s.name: s.unavailable for s in states if s.unavailable}


def _read_stream(devices: list[Any], password: str | None, wanted: tuple[str, ...], interval_s: float, duration_s: float | None,
                 observations: dict[str, Any], status: dict[str, dict[str, Any]], expectations: dict[str, Any], live: bool) -> None:
    """Stream every device in its own thread until --duration or Ctrl-C; the live view (if any)
    redraws on this thread."""
    from qosforge.deliver.gnmi import GnmiSession
    from qosforge.deliver.watch import families, stream

    stop = threading.Event()
    lock = threading.Lock()

    def run(device: Any) -> None:
        name = device.name
        try:
            with GnmiSession(device, password) as session:
                states = families(session, wanted)

                def deliver(samples: list[Any]) -> None:
                    with lock:
                        observations[name].add(samples)
                        status[name]["samples"] += len(samples)

                stream(session, states, interval_s, deliver, stop)
                status[name]["unavailable"] = {s.name: s.unavailable for s in states if s.unavailable}
        except QosforgeError as error:
            status[name]["error"] = error.one_line()

    threads = [threading.Thread(target=run, args=(d,), daemon=True) for d in devices]
    for thread in threads:
        thread.start()
    deadline = None if duration_s is None else time.monotonic() + duration_s
    view = None
    if live:
        from qosforge.cli.watch_view import LiveView

        view = LiveView(expectations, observations, lock)
        view.start()
    try:
        while any(t.is_alive() for t in threads) and (deadline is None or time.monotonic() < deadline):
            time.sleep(0.05)
            if view is not None:
                view.refresh()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
        if view is not None:
            view.stop()


def _render(output_format: str, findings: list[Any], switches: list[dict[str, Any]], fail_on: Any, unusable: int, how: str, output_dir: str) -> str:
    from qosforge.lint.findings import exit_code, summary_json
    from qosforge.lint.formats import Report
    from qosforge.lint.formats.text import _line
    from qosforge.lint.watch.rules import RULES

    if output_format == "sarif":
        from qosforge.lint.formats.sarif import report_sarif

        report = Report(findings=findings, files=[output_dir], unusable=[], skipped=[], fail_on=fail_on)
        return json.dumps(report_sarif(report, rules=list(RULES), tool="qosforge watch"), indent=2) + "\n"
    if output_format == "json":
        summary = summary_json(findings, files=len(switches), unusable=[], skipped=[], profile=None, intent=None, fail_on=fail_on, fixed={})
        summary = {k: v for k, v in summary.items() if k not in ("files", "profile", "intent", "skipped", "unusable", "fixed")}
        summary.update({"switches": len(switches), "how": how, "exit_code": EXIT_BAD_INPUT if unusable else exit_code(findings, fail_on, 0)})
        return json.dumps({"findings": [f.to_json() for f in findings], "summary": summary,
                           "switches": switches}, indent=2) + "\n"
    lines = [_line(f) for f in findings]
    counts = {level: sum(1 for f in findings if f.severity.value == level) for level in ("error", "warning", "info")}
    read = len(switches) - unusable
    if read == 0:
        # Findings of zero switches are no result: never a "0 error(s)" a reader could take for a pass.
        lines.append(f"nothing checked: none of the {len(switches)} switch(es) could be read (the errors above)")
    else:
        lines.append(f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s) on "
                     f"{read} switch(es) ({how}; predictions from {output_dir})"
                     + (f"; {unusable} switch(es) could not be read (the errors above)" if unusable else ""))
    return "\n".join(lines) + "\n"


__all__ = ["watch_command"]
