"""Run one grid point on a worker: the same click command a user runs, in-process, as JSON.

Nothing is re-derived here: the point's argv goes to ``qosforge simulate`` / ``whatif MODEL`` /
``compile`` exactly as if typed, with ``--format json``, and the JSON the command prints is the
row's ``result``. Intents arrive as contents and are written to a private folder first; their
copies' paths are replaced by the names the user gave, so rows do not depend on the worker.
Every failure becomes the row's ``error`` (one line, as the CLI would print it).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from qosforge.campaigns.capture import captured_stdout
from qosforge.campaigns.point import PointSpec
from qosforge.cli.typed import CampaignPoint
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

    @property
    def failed(self) -> bool:
        return self.error is not None


def resolve_command(path: tuple[str, ...]) -> click.Command:
    """The click command at ``path`` under ``qosforge`` (works with lazily registered commands)."""
    from qosforge.cli import cli

    command: click.Command = cli
    for name in path:
        if not isinstance(command, click.Group):
            raise LookupError(f"qosforge {' '.join(path)} is not a command")
        context = click.Context(command, info_name=name)
        found = command.get_command(context, name)
        if found is None:
            raise LookupError(f"qosforge {' '.join(path)} is not a command")
        command = found
    return command


def _replace_text(value: Any, replacements: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        for old, new in replacements.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, dict):
        return {key: _replace_text(item, replacements) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace_text(item, replacements) for item in value]
    return value


def _materialise(spec: PointSpec, folder: Path) -> tuple[list[str], dict[str, str]]:
    """Write the shipped files under ``folder``; return the argv using them and the path map."""
    argv = list(spec.argv)
    replacements: dict[str, str] = {}
    for shipped in spec.files:
        local = folder / f"{shipped.argument}" / Path(shipped.name).name
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_text(shipped.contents, encoding="utf-8")
        argv[shipped.argument] = str(local)
        replacements[str(local)] = shipped.name
    if spec.command == ("compile",):
        # compile writes its configs; on a worker they go to the private folder and are dropped.
        argv += ["--output", str(folder / "out")]
    replacements[str(folder)] = "<point folder>"
    return argv, replacements


def _run_command(spec: PointSpec, argv: list[str]) -> dict[str, Any]:
    command = resolve_command(spec.command)
    with captured_stdout() as output:
        # CampaignPoint: the notes about flags the operator typed are the sweep's to give, once (campaigns/seeds.py).
        command.main(args=[*argv, "--format", "json"], prog_name=f"qosforge {' '.join(spec.command)}", standalone_mode=False, obj=CampaignPoint())
    text = output.getvalue()
    try:
        result = json.loads(text)
    except json.JSONDecodeError as error:
        raise RuntimeError(f"the command printed no JSON object ({error.msg} at {error.pos})") from None
    if not isinstance(result, dict):
        raise RuntimeError("the command printed JSON that is not an object")
    return result


def _error_line(error: BaseException, replacements: Mapping[str, str]) -> str:
    if isinstance(error, QosforgeError):
        text = error.one_line()
    elif isinstance(error, click.UsageError):
        text = error.format_message()
    elif isinstance(error, click.ClickException):
        text = error.format_message()
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
    with tempfile.TemporaryDirectory(prefix="qosforge-point-") as folder:
        argv, replacements = _materialise(spec, Path(folder))
        try:
            result = _replace_text(_run_command(spec, argv), replacements)
        except click.exceptions.Exit as exited:
            error = f"the command exited with code {exited.exit_code} without a result"
        except Exception as failure:  # every failure is this point's error; the campaign goes on
            error = _error_line(failure, replacements)
    if result is not None:
        for key in WALL_CLOCK_KEYS:
            if key in result:
                timing[key] = result.pop(key)
    timing.update({"seconds": time.perf_counter() - clock, "cpu_seconds": time.thread_time() - cpu, "started_unix_s": started,
                   "worker": _worker_name()})
    return PointOutcome(point_id=spec.point_id, result=result, error=error, timing=timing)


__all__ = ["WALL_CLOCK_KEYS", "PointOutcome", "resolve_command", "run_point"]
