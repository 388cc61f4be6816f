"""Run one grid point on a worker, through the application layer.

Each point is the application layer's request made from the point's fields (every flag's value
by its parameter name) and run by the function the command itself calls: ``simulate``
(:func:`qosforge.api.simulate.simulate`), ``whatif NAME`` (:func:`qosforge.api.whatif.whatif`)
and ``compile`` (:func:`qosforge.api.compile.compile_to_folder`). The row's ``result`` is the
document the command's ``--format json`` prints; no click command runs and no printed text is
parsed. Intents arrive as contents and are written to a private folder first; their copies' paths
are replaced by the names the user gave, so rows do not depend on the worker. Every failure
becomes the row's ``error`` (one line, as the CLI would print it).
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qosforge.api.reporting import StderrReporter
from qosforge.campaigns.point import PointSpec
from qosforge.errors import QosforgeError

#: Result keys that measure the worker's wall clock, not the network: they move to ``timing`` so
#: rows are identical whatever machine ran them (qosforge simulate's wall_seconds and its rate).
WALL_CLOCK_KEYS = ("wall_seconds", "loop_cpu_seconds", "packet_events_per_second")


@dataclass(frozen=True)
class PointOutcome:
    point_id: str
    result: dict[str, Any] | None
    error: str | None
    timing: dict[str, Any]
    notes: tuple[str, ...] = ()
    """What the command would have printed as notes on stderr; the sweep prints each text once
    for the campaign (every point of one intent repeats its approximation notes), and the row's
    result already carries what they say (``approximations``)."""

    @property
    def failed(self) -> bool:
        return self.error is not None


def _replace_text(value: Any, replacements: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        for old, new in replacements.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, dict):
        return {key: _replace_text(item, replacements) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replace_text(item, replacements) for item in value]
    return value


def _materialise(spec: PointSpec, folder: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """Write the shipped files under ``folder``; return the request fields using them, and the path map."""
    fields = dict(spec.fields)
    replacements: dict[str, str] = {}
    for shipped in spec.files:
        local = folder / f"{shipped.argument}" / Path(shipped.name).name
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_text(shipped.contents, encoding="utf-8")
        fields[shipped.field] = str(local)
        replacements[str(local)] = shipped.name
    if spec.command == ("compile",):
        # compile writes its configs; on a worker they go to the private folder and are dropped.
        fields["output_dir"] = str(folder / "out")
    replacements[str(folder)] = "<point folder>"
    return fields, replacements


class _Notes(StderrReporter):
    """A point's notes, kept for the sweep to print once each (no progress: it runs on a worker)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def note(self, text: str) -> None:
        self.texts.append(text)


def _simulate(fields: dict[str, Any], typed: frozenset[str], notes: _Notes) -> dict[str, Any]:
    """The point's report, as ``qosforge simulate --format json`` prints it (presentation.tidy)."""
    from qosforge.api.simulate import SimulateRequest, simulate
    from qosforge.presentation import tidy

    # operator_typed stays empty: a note about a flag is the sweep's to give, once (campaigns/seeds.py).
    outcome = simulate(SimulateRequest(**fields, typed=typed), notes)
    report: dict[str, Any] = tidy(outcome.report)
    return report


def _whatif(name: str, fields: Mapping[str, Any], notes: _Notes) -> dict[str, Any]:
    """The point's document, as ``qosforge whatif NAME --format json`` prints it (no --sweep: the
    grid is the campaign's)."""
    from qosforge.api.calculators import calculator
    from qosforge.api.whatif import WhatIfRequest, whatif

    spec = calculator(name)
    # A field the point does not hold takes the flag's default, as on the command line.
    request = WhatIfRequest(calculator=name, values={param.argument: fields[param.argument] for param in spec.params if param.argument in fields})
    return whatif(request, notes).document()


def _compile(fields: Mapping[str, Any], notes: _Notes) -> dict[str, Any]:
    """The point's report, as ``qosforge compile --format json`` prints it (report.json); the
    configs go to the point's private folder, dropped after the point."""
    from qosforge.api.compile import CompileRequest, check_report_choice, compile_to_folder

    check_report_choice(bool(fields.get("verbose")), bool(fields.get("quiet")))
    request = CompileRequest(intent_path=str(fields["intent"]), output_dir=str(fields["output_dir"]), targets=tuple(fields.get("targets", ())),
                             switches=tuple(fields.get("switches", ())), approximations=tuple(fields.get("approximations", ())),
                             base_path=fields.get("base_path"), force=bool(fields.get("force")))
    return compile_to_folder(request, notes).report


def _run(spec: PointSpec, fields: dict[str, Any], notes: _Notes) -> dict[str, Any]:
    if spec.command == ("simulate",):
        return _simulate(fields, spec.typed, notes)
    if spec.command == ("compile",):
        return _compile(fields, notes)
    if spec.command[0] == "whatif" and len(spec.command) == 2:
        return _whatif(spec.command[1], fields, notes)
    raise LookupError(f"qosforge {' '.join(spec.command)} has no application-layer function for a campaign point")


def _error_line(error: BaseException, replacements: Mapping[str, str]) -> str:
    if isinstance(error, QosforgeError):
        text = error.one_line()
    else:
        text = f"internal error ({type(error).__name__}: {error})"
    return " ".join(str(_replace_text(text, replacements)).split())


def _worker_name() -> str:
    """The Dask worker's address on a Dask cluster, else ``HOST:PID`` (a local forked worker).
    Dask is only asked when it is loaded: importing it would cost a local worker half a second."""
    if "distributed" in sys.modules:
        from distributed import get_worker

        try:
            return str(get_worker().address)
        except ValueError:
            pass
    return f"{socket.gethostname()}:{os.getpid()}"


def run_point(spec: PointSpec) -> PointOutcome:
    """Run ``spec`` and never raise: a failed point is a row with an error, not a lost campaign."""
    started = time.time()
    clock = time.perf_counter()
    # CPU time of this thread (the point runs in it, numba kernels included): against ``seconds``
    # it shows how much of the wall time the point actually had a core.
    cpu = time.thread_time()
    result: dict[str, Any] | None = None
    error: str | None = None
    timing: dict[str, Any] = {}
    notes = _Notes()
    with tempfile.TemporaryDirectory(prefix="qosforge-point-") as folder:
        fields, replacements = _materialise(spec, Path(folder))
        try:
            result = _replace_text(_run(spec, fields, notes), replacements)
        except Exception as failure:  # every failure is this point's error; the campaign goes on
            error = _error_line(failure, replacements)
    if result is not None:
        for key in WALL_CLOCK_KEYS:
            if key in result:
                timing[key] = result.pop(key)
    timing.update({"seconds": time.perf_counter() - clock, "cpu_seconds": time.thread_time() - cpu, "started_unix_s": started,
                   "worker": _worker_name()})
    return PointOutcome(point_id=spec.point_id, result=result, error=error, timing=timing,
                        notes=tuple(_replace_text(notes.texts, replacements)))


__all__ = ["WALL_CLOCK_KEYS", "PointOutcome", "run_point"]
