"""``check deadlock``: a fabric's lossless classes proven deadlock-free, shown to deadlock, or not
proven, as a typed request and its outcome (the search is compiler/deadlock).

The verdict is one of three, each with its exit code, so a CI gate can tell a proof from a check
that stopped early (``--max-failures``, ``--time-limit``): a sweep that did not check every failure
set proves nothing about the rest, whatever it found in those it checked.

- ``deadlock_free`` (0): no cycle on the healthy routes nor under any failure set asked for, every
  one checked (or no lossless class: PFC never pauses, so nothing can deadlock);
- ``deadlock`` (1): a cycle on the healthy routes or under a failure set checked;
- ``not_proven`` (3): no cycle found, but the failure sweep stopped before the last set.

Bad input is 2 (qosforge.errors). Rendering the report as text is the CLI's (qosforge/cli/check.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from qosforge.compiler.deadlock.check import LosslessClass
from qosforge.compiler.deadlock.explain import DependencyCycle
from qosforge.compiler.deadlock.failures import SweepResult
from qosforge.compiler.routing import SHORTEST_PATH_ROUTING, Routing
from qosforge.errors import EXIT_INCOMPLETE, EXIT_OK, QosforgeError

EXIT_CYCLE = 1
#: Not 2 (bad input) nor 70 (a bug): the check ran and found no cycle, but did not finish.
EXIT_NOT_PROVEN = EXIT_INCOMPLETE
Verdict = Literal["deadlock_free", "deadlock", "not_proven"]
EXIT_CODES: dict[Verdict, int] = {
    "deadlock_free": EXIT_OK,
    "deadlock": EXIT_CYCLE,
    "not_proven": EXIT_NOT_PROVEN,
}
#: What one failure set is called (the plural adds an s).
FAILURE_WORDS = {0: "", 1: "single link failure", 2: "double link failure"}

#: ``counter(description, total=..., units=...)``: a context around counted work yielding
#: ``advance()``; the CLI's draws a bar on a terminal (qosforge/cli/progress.py).
Counter = Callable[..., AbstractContextManager[Callable[..., None]]]


@dataclass(frozen=True)
class DeadlockRequest:
    """Every input of ``qosforge check deadlock``."""

    intent: str
    fail_links: int = 0
    max_failures: int | None = None
    time_limit_s: float = 600.0
    routing_model: str | None = None
    """Check this routing model's routes instead of the intent's (``--routing``)."""


@dataclass(frozen=True)
class DeadlockOutcome:
    intent: str
    classes: tuple[LosslessClass, ...]
    switches: int
    cables: int
    healthy: tuple[DependencyCycle, ...]
    fail_links: int
    result: SweepResult | None
    """The failure sweep, None when it did not run (see :attr:`skipped`)."""
    skipped: str | None
    """Why no failure set was checked, or None when the sweep ran."""
    verdict: Verdict
    routing: Routing = SHORTEST_PATH_ROUTING
    """The routing model whose routes the verdict assumes (compiler/routing.py)."""

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def summary(self) -> list[dict[str, Any]]:
        return [class_summary(c, self.result, self.healthy, self.fail_links) for c in self.classes]

    def report(self) -> dict[str, Any]:
        """What ``--format json`` prints (docs/deadlock.md lists the fields)."""
        return {
            "intent": self.intent,
            "routing": self.routing.to_json(),
            "switches": self.switches,
            "cables": self.cables,
            "classes": [{"name": c.name, "priority_group": c.priority_group} for c in self.classes],
            "healthy": {"cycles": [c.to_json() for c in self.healthy]},
            "failures": _failures_json(self),
            "summary": self.summary(),
            "verdict": self.verdict,
            "exit_code": self.exit_code,
        }


def _failures_json(outcome: DeadlockOutcome) -> dict[str, Any]:
    result = outcome.result
    if result is None:
        return {
            "fail_links": outcome.fail_links,
            "checked": 0,
            "complete": False,
            "skipped": outcome.skipped,
        }
    return {
        "fail_links": result.fail_links,
        "total": result.total,
        "checked": result.checked,
        "seconds": round(result.seconds, 3),
        "stopped": result.stopped,
        "complete": result.complete,
        "skipped": None,
        "exact_rebuilds": result.exact_rebuilds,
        "deadlocks": [
            {"failed": list(f.failed), "cycles": [c.to_json() for c in f.cycles]}
            for f in result.deadlocks
        ],
        "partitions": [
            {
                "failed": list(f.failed),
                "unreachable": [list(p) for p in f.unreachable],
                "unreachable_pairs": f.unreachable_pairs,
            }
            for f in result.partitions
        ],
    }


def free_text(fail_links: int) -> str:
    return "on the healthy fabric" if fail_links == 0 else f"under any {FAILURE_WORDS[fail_links]}"


def class_summary(
    lossless: LosslessClass,
    result: SweepResult | None,
    healthy: tuple[DependencyCycle, ...],
    fail_links: int,
) -> dict[str, Any]:
    """One line per class: deadlock-free (proven), can deadlock, or not proven (sweep stopped)."""
    name = f"class '{lossless.name}' (PG {lossless.priority_group})"
    if healthy:
        return {
            "class": lossless.name,
            "deadlock_free": False,
            "text": f"{name}: can deadlock on the healthy fabric ({len(healthy)} cycle(s); "
            "compile refuses it)",
        }
    if result is None or (result.complete and not result.deadlocks):
        return {
            "class": lossless.name,
            "deadlock_free": True,
            "text": f"{name}: deadlock-free {free_text(fail_links)}",
        }
    if result.deadlocks:
        return {
            "class": lossless.name,
            "deadlock_free": False,
            "text": f"{name}: can deadlock under {len(result.deadlocks):,} of the "
            f"{result.checked:,} {FAILURE_WORDS[fail_links]}s checked",
        }
    return {
        "class": lossless.name,
        "deadlock_free": None,
        "text": f"{name}: no cycle under the {result.checked:,} of {result.total:,} failure sets "
        f"checked (stopped at the {result.stopped}): not proven {free_text(fail_links)}",
    }


def verdict_of(
    healthy: tuple[DependencyCycle, ...], fail_links: int, result: SweepResult | None
) -> Verdict:
    """A cycle anywhere is a deadlock (a cycle found is one, however far the sweep got); no cycle
    is a proof only when every failure set asked for was checked."""
    if healthy or (result is not None and result.deadlocks):
        return "deadlock"
    if fail_links and (result is None or not result.complete):
        return "not_proven"
    return "deadlock_free"


def check_deadlock(request: DeadlockRequest, counter: Counter | None = None) -> DeadlockOutcome:
    """Load the intent, search the healthy routes and sweep the failure sets asked for."""
    from qosforge.compiler.deadlock.check import class_plan, fabric_cycles, lossless_classes
    from qosforge.compiler.deadlock.failures import Limits, sweep_failures
    from qosforge.compiler.deadlock.links import fabric_links
    from qosforge.compiler.loader import load_intent
    from qosforge.compiler.routing import with_model
    from qosforge.compiler.topology import resolve_topology

    if not Path(request.intent).is_file():
        raise QosforgeError(
            f"no such file: {request.intent}",
            place="INTENT",
            hint="give an intent YAML, e.g. examples/roce-pod.yaml",
        )
    loaded, source_map = load_intent(Path(request.intent))
    if request.routing_model is not None:
        loaded = with_model(loaded, request.routing_model)
    topology = resolve_topology(loaded, source_map)
    if request.routing_model is not None:
        topology = replace(topology, routing=replace(topology.routing, chosen_by="--routing"))
    classes = lossless_classes(loaded, class_plan(loaded, topology, source_map))
    count = counter or (lambda *args, **kwargs: nullcontext(lambda *a, **k: None))
    if not classes:
        return DeadlockOutcome(
            request.intent,
            (),
            0,
            0,
            (),
            request.fail_links,
            None,
            "no lossless class: PFC never pauses, so nothing can deadlock",
            "deadlock_free",
            topology.routing,
        )
    links = fabric_links(topology)
    with count("checking the healthy routes", total=None):
        healthy = fabric_cycles(links)
    result = None
    skipped = None
    if not request.fail_links:
        skipped = "--fail-links 0: only the healthy routes were asked for"
    elif healthy:
        # The sweep checks each failure set against the healthy graph, which must be acyclic
        # (compiler/deadlock/failures.py); the fabric already deadlocks without a failure.
        skipped = (f"the healthy fabric already has {len(healthy)} cyclic buffer dependency(ies): "
                   "no failure set was checked")
    else:
        sets = math.comb(links.n_cables, request.fail_links)
        planned = min(sets, request.max_failures or sets)
        with count(
            f"checking {FAILURE_WORDS[request.fail_links]}s", total=planned, units="failure sets"
        ) as advance:
            result = sweep_failures(
                links,
                request.fail_links,
                Limits(request.max_failures, request.time_limit_s),
                advance,
            )
    return DeadlockOutcome(
        request.intent,
        classes,
        links.n_switches,
        links.n_cables,
        healthy,
        request.fail_links,
        result,
        skipped,
        verdict_of(healthy, request.fail_links, result),
        topology.routing,
    )


__all__ = [
    "EXIT_CODES",
    "EXIT_CYCLE",
    "EXIT_NOT_PROVEN",
    "DeadlockOutcome",
    "DeadlockRequest",
    "DependencyCycle",
    "check_deadlock",
    "class_summary",
    "verdict_of",
]
