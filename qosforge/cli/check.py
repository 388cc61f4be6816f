"""``qosforge check deadlock``: prove a fabric's lossless classes deadlock-free, on the healthy
routes and under every single (or double) link failure, or show the cycles (compiler/deadlock;
the check and its verdict: qosforge/api/check.py).

Exit codes: 0 deadlock-free (proven), 1 a cycle (on the healthy fabric or under a failure),
2 bad input, 3 not proven: the sweep stopped at ``--max-failures`` or ``--time-limit`` before the
last failure set, with no cycle in those it checked.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from qosforge.cli._lazy import HelpWhenBareGroup
from qosforge.cli.options import format_option

if TYPE_CHECKING:
    from qosforge.api.check import DeadlockOutcome, DependencyCycle


class TimeLimit(click.ParamType):  # type: ignore[type-arg]
    """``--time-limit``: a duration with its unit, as every other duration flag takes one
    (``300s``, ``5ms``); a bare number is seconds, as the flag first took it."""

    name = "time"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        from qosforge.errors import QosforgeError
        from qosforge.units import parse_flag, parse_time_s

        if isinstance(value, float):
            return value
        text = str(value).strip()
        try:
            seconds = float(text)
        except ValueError:
            seconds_with_unit: float = parse_flag("--time-limit", parse_time_s, text)
            return seconds_with_unit
        if not seconds > 0:
            raise QosforgeError(f"must be positive (got {text})", place="--time-limit",
                                hint="e.g. --time-limit 300s")
        return seconds


@click.group("check", cls=HelpWhenBareGroup)
def check_group() -> None:
    """Check properties of a fabric the configuration alone cannot show."""


def _cycle_lines(cycle: DependencyCycle, indent: str) -> list[str]:
    lines = [f"{indent}cycle: {cycle.describe()}"]
    lines += [f"{indent}  closed by {route.describe()}" for route in cycle.routes]
    return lines


def _report_text(outcome: DeadlockOutcome) -> str:
    from qosforge.api.check import FAILURE_WORDS

    names = ", ".join(f"{c.name} (PG {c.priority_group})" for c in outcome.classes)
    lines = [f"deadlock check of {outcome.intent}: {outcome.switches:,} switches, "
             f"{outcome.cables:,} links; lossless: {names}",
             f"routing: {outcome.routing.describe()}"]
    healthy, result = outcome.healthy, outcome.result
    if healthy:
        lines.append(f"healthy fabric: {len(healthy)} cyclic buffer dependency(ies)")
        for cycle in healthy:
            lines += _cycle_lines(cycle, "  ")
    else:
        lines.append("healthy fabric: no cyclic buffer dependency")
    if result is None and outcome.fail_links:
        lines.append(f"{FAILURE_WORDS[outcome.fail_links]}s: not checked: {outcome.skipped}")
    if result is not None:
        words = FAILURE_WORDS[result.fail_links]
        lines.append(f"{words}s: {result.checked:,} of {result.total:,} checked in {result.seconds:.1f} s; "
                     f"{len(result.deadlocks):,} create a cycle; {len(result.partitions):,} cut hosts off"
                     + (f"; stopped at the {result.stopped}" if result.stopped else ""))
        for finding in result.deadlocks:
            lines.append(f"  failed {' and '.join(finding.failed)}:")
            for cycle in finding.cycles:
                lines += _cycle_lines(cycle, "    ")
        for finding in result.partitions:
            shown = ", ".join(f"{a} -> {b}" for a, b in finding.unreachable)
            more = f" (+{finding.unreachable_pairs - len(finding.unreachable)} more)" if finding.unreachable_pairs > len(finding.unreachable) else ""
            lines.append(f"  failed {' and '.join(finding.failed)}: no route for {shown}{more} (not a deadlock: those hosts are cut off)")
        if outcome.routing.is_bgp and result.partitions:
            lines.append("  (a switch drops a path that already crossed its ASN, RFC 4271 §9.1.2: "
                         "where shortest paths would bounce through a leaf, eBGP cuts hosts off; "
                         "topology.routing.model: shortest-path, or allowas_in, checks those routes)")
    lines += [item["text"] for item in outcome.summary()]
    return "\n".join(lines) + "\n"


@check_group.command("deadlock")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--fail-links", "fail_links", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Also check every set of this many failed links (0: the healthy routes only).")
@click.option("--max-failures", "max_failures", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop after N failure sets (the rest are not proven: exit 3).")
@click.option("--time-limit", "time_limit_s", type=TimeLimit(), default="600s", show_default=True,
              metavar="TIME",
              help="Stop the failure sweep after this long, e.g. 300s (a bare number is "
                   "seconds; the rest are not proven: exit 3).")
@format_option("table", "json")
@click.option("--routing", "routing_model", type=click.Choice(["ebgp-rfc7938", "shortest-path"]),
              default=None, help="Check the routes of this routing model instead of the intent's "
                                 "topology.routing.model.")
def deadlock_command(intent: str, fail_links: int, max_failures: int | None, time_limit_s: float,
                     output_format: str, routing_model: str | None = None) -> int:
    """Find cyclic buffer dependencies of the lossless classes (PFC deadlock) on the fabric's ECMP
    routes (the intent's routing model, or --routing), healthy and under every set of
    --fail-links failed links.

    \b
    Exit codes: 0 deadlock-free, 1 a cycle, 2 unusable input, 3 not proven (the sweep
    stopped at --max-failures or --time-limit with no cycle in the sets it checked).
    \b
    Examples:
      qosforge check deadlock examples/roce-pod.yaml --fail-links 1
      qosforge check deadlock examples/roce-pod.yaml --fail-links 2 --routing shortest-path
      qosforge check deadlock fabric.yaml --fail-links 2 --time-limit 300s --format json
    """
    from qosforge.api.check import DeadlockRequest, check_deadlock
    from qosforge.cli.progress import progress

    request = DeadlockRequest(intent, fail_links, max_failures, time_limit_s, routing_model)
    outcome = check_deadlock(request, progress)
    if output_format == "json":
        click.echo(json.dumps(outcome.report(), indent=2))
    elif not outcome.classes:
        click.echo(f"{intent}: {outcome.skipped}")
    else:
        click.echo(_report_text(outcome), nl=False)
    return outcome.exit_code


__all__ = ["check_group", "deadlock_command"]
