"""``tune --push``: a staged rollout of the tuned configs that undoes itself on a regression.

Steps, each logged: push the canary (the first switch) with ``push``'s own machinery
(:mod:`qosforge.api.delivery`, which saves the switch's previous /qos as a backup), let it run
for the window, then ``watch`` it once (:mod:`qosforge.api.watch`, which holds the counters
against the tuned configs' predictions in their report.json); an error finding is a
regression: the canary gets its backup pushed back (rolled back) and the rollout stops;
otherwise the other switches are pushed one at a time, each watched the same way. A dry run
(the default) plans each Set (checking the configs and the devices) and opens no connection.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from qosforge.api.delivery import (
    ConnectionRequest,
    DeliveryRequest,
    check_devices,
    deliver,
    plan_delivery,
)
from qosforge.errors import EXIT_BAD_INPUT, QosforgeError
from qosforge.units import parse_flag, parse_time_s


@dataclass(frozen=True)
class RolloutRequest:
    configs_dir: Path
    """A compile output folder (the tuned configs: <switch>/<config file> and report.json)."""
    connection: ConnectionRequest
    switches: tuple[str, ...]
    """In rollout order; the first is the canary."""
    window: str = "10s"
    """How long each switch runs on its new config before its counters are judged."""
    dry_run: bool = True
    backup_dir: Path | None = None
    """Where each switch's previous /qos is saved (default: the configs folder's parent)."""


@dataclass
class RolloutResult:
    status: Literal["dry-run", "completed", "rolled-back", "failed"]
    log: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    """The regression's findings (rule, where, message), when the rollout stopped on one."""


def _watched_push(
    request: RolloutRequest, switch: str, password: str | None
) -> tuple[str | None, Path | None, int, list[str]]:
    """Push one switch, let it run for the window, then read its counters once and judge them
    (push error, backup, watch exit code, error findings). A snapshot, not a stream: a queue
    the new config pins at its peak gives a stream no evidence (a watermark must rise after the
    first sample: lint/watch/observation.py peak_during), while the snapshot holds everything
    since the device last cleared its counters, which a config reload does (SONiC's
    ``config reload``, and the software switch on a Set: softswitch/device/live.py)."""
    from qosforge.api.watch import WatchRequest, prepare_watch, run_watch

    plan = prepare_watch(
        WatchRequest(
            output_dir=request.configs_dir,
            connection=request.connection,
            switches=(switch,),
            once=True,
        )
    )
    window_s = parse_flag("--watch-window", parse_time_s, request.window)
    error, backup = _push(request, switch, password)
    if error is not None:
        return error, backup, EXIT_BAD_INPUT, []
    time.sleep(window_s)
    result = run_watch(plan, password)
    lines = [
        f"{f.rule} {f.file} {f.where}: {f.message}"
        for f in result.findings
        if f.severity.value == "error"
    ]
    lines += [f"unreadable: {item['error']}" for item in result.switches if item["error"]]
    return None, backup, result.exit_code, lines


def _push(
    request: RolloutRequest, switch: str, password: str | None, config: Path | None = None
) -> tuple[str | None, Path | None]:
    """Push the tuned config (or ``config``, a backup) to one switch: (error, backup saved)."""
    backup_dir = request.backup_dir or request.configs_dir.parent
    delivery = DeliveryRequest(
        action="push",
        connection=request.connection,
        config=config or request.configs_dir,
        switches=(switch,),
        dry_run=request.dry_run,
        backup=None if config is not None else backup_dir / f"{switch}.previous.json",
    )
    plan = plan_delivery(delivery)
    if request.dry_run:
        return None, None
    result = deliver(plan, "push", password)
    outcome = result.outcomes[0]
    return outcome.error, outcome.backup


def rollout(
    request: RolloutRequest, password: str | None, note: Callable[[str], None]
) -> RolloutResult:
    """Canary, watch, then the rest or a rollback (module docstring); every step is logged
    through ``note`` and kept in the result."""
    if not request.switches:
        raise QosforgeError(
            "no switch to roll out to",
            place="--switch",
            hint="name the canary first, e.g. --switch leaf1",
        )
    # The rollout's switches and TLS files, dry run or not: a dry run that says "would push"
    # has checked what the push will need.
    check_devices(request.connection, request.switches)
    result = RolloutResult("dry-run" if request.dry_run else "completed")

    def step(text: str) -> None:
        result.log.append(text)
        note(f"rollout: {text}")

    if request.dry_run:
        for index, switch in enumerate(request.switches):
            _push(request, switch, password)  # plans the Set without connecting
            role = "canary" if index == 0 else f"step {index + 1}"
            step(
                f"dry run: would push {switch} ({role}), run it for {request.window}, "
                f"then watch it against {request.configs_dir / 'report.json'}; "
                "on an error finding push its backup back and stop"
            )
        return result
    for index, switch in enumerate(request.switches):
        role = "canary" if index == 0 else f"step {index + 1}"
        error, backup, code, findings = _watched_push(request, switch, password)
        if error is not None:
            step(f"push {switch} ({role}) failed: {error}; stopping")
            result.status = "failed"
            return result
        step(f"pushed {switch} ({role}); previous /qos saved to {backup}")
        if code == 0:
            step(f"watched {switch} for {request.window}: counters agree with the prediction")
            continue
        result.findings = findings
        step(
            f"watched {switch} for {request.window}: {len(findings)} error finding(s), first: "
            + (findings[0] if findings else f"watch exit {code}")
        )
        if backup is None:
            step(f"no backup of {switch} to roll back to; stopping")
            result.status = "failed"
            return result
        undo, _ = _push(replace(request, dry_run=False), switch, password, config=backup)
        if undo is not None:
            step(f"rollback of {switch} failed: {undo}")
            result.status = "failed"
            return result
        step(f"rolled {switch} back to {backup}; the rollout stops here")
        result.status = "rolled-back"
        return result
    return result


__all__ = ["RolloutRequest", "RolloutResult", "rollout"]
