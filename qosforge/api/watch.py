"""``watch``: running switches' counters held against the compiled predictions
(docs/telemetry.md; rules in docs/rules.md, category telemetry).

The composition the layering wants: ``deliver.watch`` reads the counters over gNMI (both
families of the catalogue), ``lint.watch`` judges them against the output folder's report.json,
and the lint formats print the findings (text, JSON, SARIF) with lint's exit codes.
:func:`prepare_watch` checks a :class:`WatchRequest` and resolves its devices (no connection);
:func:`run_watch` reads them (one snapshot, or streams until the duration ends or Ctrl-C) and
judges; :func:`render_watch` is the report in a format.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from qosforge.api.delivery import ConnectionRequest, gnmi_connection
from qosforge.backends.counters import (  # plain enums: the live view's keys
    Counter,
    CounterKey,
    paths_of,
)
from qosforge.errors import EXIT_BAD_INPUT, QosforgeError

if TYPE_CHECKING:
    from qosforge.backends.counters import Sample
    from qosforge.deliver.devices import Device
    from qosforge.lint.findings import Finding, Severity
    from qosforge.lint.watch.expectations import SwitchExpectation
    from qosforge.lint.watch.observation import Observation
    from qosforge.lint.watch.rules import Thresholds


@dataclass(frozen=True)
class WatchRequest:
    """``qosforge watch``'s inputs; times and shares as typed (``1s``, ``50%``)."""

    output_dir: Path
    connection: ConnectionRequest
    switches: tuple[str, ...] = ()
    once: bool = False
    interval: str = "1s"
    duration: str | None = None
    max_pause: str = "50%"
    families: tuple[str, ...] = ()
    """Counter families to read (``sonic``, ``openconfig``; empty: both)."""
    disable: tuple[str, ...] = ()
    """Rule ids to turn off (each may hold several, comma-separated)."""
    fail_on: Literal["error", "warning"] = "error"


@dataclass(frozen=True)
class WatchPlan:
    """A checked request: the predictions per switch, the devices, the parsed times."""

    request: WatchRequest
    expectations: dict[str, SwitchExpectation]
    devices: tuple[Device, ...]
    interval_s: float
    duration_s: float | None
    thresholds: Thresholds
    disabled: frozenset[str]

    @property
    def needs_password(self) -> bool:
        return any(device.connection.username for device in self.devices)

    def plaintext_password_warnings(self) -> tuple[str, ...]:
        return tuple(
            f"{device.name} ({device.address}): --insecure sends the password in plaintext"
            for device in self.devices
            if device.connection.insecure
        )


@dataclass(frozen=True)
class WatchResult:
    findings: tuple[Finding, ...]
    switches: tuple[dict[str, Any], ...]
    """Per switch: name, address, error (None when read), unavailable families, samples."""
    unusable: int
    """Switches that could not be read."""
    how: str
    """``once`` or ``streamed N s``."""
    fail_on: Severity
    exit_code: int


class LiveView(Protocol):
    """What :func:`run_watch` redraws while streaming (the CLI's rich table)."""

    def start(self) -> None: ...

    def refresh(self) -> None: ...

    def stop(self) -> None: ...


#: Builds the live view from the predictions, the observations and the lock the streams hold.
LiveViewFactory = Callable[[dict[str, Any], dict[str, Any], threading.Lock], LiveView]


def _devices(request: WatchRequest, known: list[str]) -> tuple[Device, ...]:
    from qosforge.deliver.devices import Device, load_inventory, parse_address

    switches = list(request.switches)
    connect = gnmi_connection(request.connection)
    inventory_path, address = request.connection.inventory, request.connection.address
    if inventory_path is not None:
        inventory = {d.name: d for d in load_inventory(inventory_path, connect)}
        missing = [s for s in switches if s not in inventory]
        if missing:
            raise QosforgeError(
                f"switch(es) {', '.join(missing)} not in the inventory {inventory_path}",
                place="--switch",
                hint=f"inventory switches: {', '.join(list(inventory)[:8])}",
            )
        devices = [inventory[s] for s in (switches or list(inventory))]
    else:
        if len(switches) != 1:
            raise QosforgeError(
                "name one switch (--switch NAME) for --address, or use --inventory",
                place="--switch",
                hint="e.g. --switch leaf1 --address 10.0.0.1:9339",
            )
        if not address:
            raise QosforgeError(
                "no device address",
                place="--address",
                hint="give --address HOST:PORT or --inventory FILE",
            )
        host, port = parse_address(address, "--address")
        devices = [Device(switches[0], host, port, connect)]
    unknown = [d.name for d in devices if d.name not in known]
    if unknown:
        raise QosforgeError(
            f"{', '.join(unknown)} not in the compiled report (its switches: "
            f"{', '.join(known[:8])}{' ...' if len(known) > 8 else ''})",
            place=str(request.output_dir),
            hint="watch a switch the output folder was compiled for, or compile it",
        )
    return tuple(devices)


def _fraction(text: str) -> float:
    from qosforge.errors import UnitError
    from qosforge.units import parse_fraction

    try:
        value = parse_fraction(text)
    except UnitError as error:
        raise QosforgeError(
            error.message, place="--max-pause", hint=error.hint or "write e.g. 50%"
        ) from None
    if value <= 0:
        raise QosforgeError(
            f"{text!r} would flag any pause at all",
            place="--max-pause",
            hint="write a share above 0%, e.g. 50%",
        )
    return value


def _seconds(text: str | None, place: str) -> float | None:
    from qosforge.deliver.devices import parse_timeout

    return None if text is None else parse_timeout(text, place)


def _check_rules(disabled: frozenset[str]) -> None:
    from qosforge.lint.watch.rules import RULES

    known = {r.id for r in RULES}
    unknown = sorted(disabled - known)
    if unknown:
        raise QosforgeError(
            f"unknown rule(s) {', '.join(unknown)}",
            place="--disable",
            hint=f"watch's rules: {', '.join(sorted(known))}",
        )


def prepare_watch(request: WatchRequest) -> WatchPlan:
    """Read the predictions, resolve the devices and check every option; opens no connection."""
    from qosforge.lint.watch.expectations import load_expectations
    from qosforge.lint.watch.rules import Thresholds

    expectations = load_expectations(request.output_dir)
    devices = _devices(request, list(expectations))
    interval_s = _seconds(request.interval, "--interval")
    assert interval_s is not None
    duration_s = _seconds(request.duration, "--duration")
    thresholds = Thresholds(max_pause_fraction=_fraction(request.max_pause))
    disabled = frozenset(
        r.strip() for item in request.disable for r in item.split(",") if r.strip()
    )
    _check_rules(disabled)
    if request.once and request.duration:
        raise QosforgeError(
            "--once takes one snapshot; --duration is for streaming",
            place="--duration",
            hint="drop one of them",
        )
    return WatchPlan(request, expectations, devices, interval_s, duration_s, thresholds, disabled)


def run_watch(
    plan: WatchPlan, password: str | None, live_view: LiveViewFactory | None = None
) -> WatchResult:
    """Read every device (one snapshot with ``once``, else stream each in its own thread until
    the duration ends or Ctrl-C) and judge what was read against the predictions."""
    from qosforge.lint.findings import Severity, exit_code, sort_key
    from qosforge.lint.watch.observation import Observation
    from qosforge.lint.watch.rules import evaluate

    request, devices = plan.request, plan.devices
    wanted = tuple(request.families) or ("sonic", "openconfig")
    observations = {d.name: Observation(d.name, once=request.once) for d in devices}
    status: dict[str, dict[str, Any]] = {
        d.name: {
            "name": d.name,
            "address": d.address,
            "error": None,
            "unavailable": {},
            "samples": 0,
        }
        for d in devices
    }
    started = time.monotonic()
    if request.once:
        for device in devices:
            _read_once(device, password, wanted, observations[device.name], status[device.name])
    else:
        _read_stream(
            list(devices),
            password,
            wanted,
            plan.interval_s,
            plan.duration_s,
            observations,
            status,
            plan.expectations,
            live_view,
        )
    watched_s = time.monotonic() - started
    findings = []
    for device in devices:
        if status[device.name]["error"] is None:
            findings.extend(
                evaluate(
                    plan.expectations[device.name],
                    observations[device.name],
                    plan.thresholds,
                    plan.disabled,
                    _where,
                )
            )
    findings.sort(key=sort_key)
    fail_on = Severity(request.fail_on)
    unusable = sum(1 for item in status.values() if item["error"])
    code = EXIT_BAD_INPUT if unusable else exit_code(findings, fail_on, 0)
    return WatchResult(
        tuple(findings),
        tuple(status.values()),
        unusable,
        "once" if request.once else f"streamed {watched_s:.1f} s",
        fail_on,
        code,
    )


def _where(counter: Counter) -> str:
    from qosforge.backends.openconfig import telemetry as oc
    from qosforge.backends.sonic import telemetry as sonic

    sonic_paths, oc_paths = paths_of(sonic.PATHS, counter), paths_of(oc.PATHS, counter)
    places = [p.path_text() for p in sonic_paths] + [p.path_text() for p in oc_paths]
    groups = sorted({p.flex_counter_group for p in sonic_paths if p.flex_counter_group})
    text = " or ".join(places) if places else "no path in either family"
    return text + (f" (FLEX_COUNTER_TABLE group {', '.join(groups)})" if groups else "")


def _read_once(
    device: Device,
    password: str | None,
    wanted: tuple[str, ...],
    observation: Observation,
    status: dict[str, Any],
) -> None:
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


def _read_stream(
    devices: list[Device],
    password: str | None,
    wanted: tuple[str, ...],
    interval_s: float,
    duration_s: float | None,
    observations: dict[str, Observation],
    status: dict[str, dict[str, Any]],
    expectations: dict[str, SwitchExpectation],
    live_view: LiveViewFactory | None,
) -> None:
    """Stream every device in its own thread until --duration or Ctrl-C; the live view (if any)
    redraws on this thread."""
    from qosforge.deliver.gnmi import GnmiSession
    from qosforge.deliver.watch import families, stream

    stop = threading.Event()
    lock = threading.Lock()

    def run(device: Device) -> None:
        name = device.name
        try:
            with GnmiSession(device, password) as session:
                states = families(session, wanted)

                def deliver(samples: list[Sample]) -> None:
                    with lock:
                        observations[name].add(samples)
                        status[name]["samples"] += len(samples)

                stream(session, states, interval_s, deliver, stop)
                status[name]["unavailable"] = {
                    s.name: s.unavailable for s in states if s.unavailable
                }
        except QosforgeError as error:
            status[name]["error"] = error.one_line()

    threads = [threading.Thread(target=run, args=(d,), daemon=True) for d in devices]
    for thread in threads:
        thread.start()
    deadline = None if duration_s is None else time.monotonic() + duration_s
    view = None
    if live_view is not None:
        view = live_view(expectations, observations, lock)
        view.start()
    try:
        while any(t.is_alive() for t in threads) and (
            deadline is None or time.monotonic() < deadline
        ):
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


def render_watch(
    result: WatchResult, output_format: Literal["text", "json", "sarif"], output_dir: str
) -> str:
    """The findings in one of watch's formats (lint's text lines, JSON summary, SARIF 2.1.0)."""
    findings, switches, fail_on, unusable, how = (
        list(result.findings),
        list(result.switches),
        result.fail_on,
        result.unusable,
        result.how,
    )
    from qosforge.lint.findings import exit_code, summary_json
    from qosforge.lint.formats import Report
    from qosforge.lint.formats.text import _line
    from qosforge.lint.watch.rules import RULES

    if output_format == "sarif":
        from qosforge.lint.formats.sarif import report_sarif

        report = Report(
            findings=findings, files=[output_dir], unusable=[], skipped=[], fail_on=fail_on
        )
        return (
            json.dumps(report_sarif(report, rules=list(RULES), tool="qosforge watch"), indent=2)
            + "\n"
        )
    if output_format == "json":
        summary = summary_json(
            findings,
            files=len(switches),
            unusable=[],
            skipped=[],
            profile=None,
            intent=None,
            fail_on=fail_on,
            fixed={},
        )
        summary = {
            k: v
            for k, v in summary.items()
            if k not in ("files", "profile", "intent", "skipped", "unusable", "fixed")
        }
        summary.update(
            {
                "switches": len(switches),
                "how": how,
                "exit_code": EXIT_BAD_INPUT if unusable else exit_code(findings, fail_on, 0),
            }
        )
        return (
            json.dumps(
                {
                    "findings": [f.to_json() for f in findings],
                    "summary": summary,
                    "switches": switches,
                },
                indent=2,
            )
            + "\n"
        )
    lines = [_line(f) for f in findings]
    counts = {
        level: sum(1 for f in findings if f.severity.value == level)
        for level in ("error", "warning", "info")
    }
    read = len(switches) - unusable
    if read == 0:
        # Findings of zero switches are no result: never a "0 error(s)" a reader could take for
        # a pass.
        lines.append(
            f"nothing checked: none of the {len(switches)} switch(es) could be read "
            "(the errors above)"
        )
    else:
        lines.append(
            f"{counts['error']} error(s), {counts['warning']} warning(s), "
            f"{counts['info']} note(s) on "
            f"{read} switch(es) ({how}; predictions from {output_dir})"
            + (f"; {unusable} switch(es) could not be read (the errors above)" if unusable else "")
        )
    return "\n".join(lines) + "\n"


__all__ = [
    "Counter",
    "CounterKey",
    "LiveView",
    "LiveViewFactory",
    "WatchPlan",
    "WatchRequest",
    "WatchResult",
    "prepare_watch",
    "render_watch",
    "run_watch",
]
