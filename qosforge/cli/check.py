"""``qosforge check deadlock``: prove a fabric's lossless classes deadlock-free, on the healthy
routes and under every single (or double) link failure, or show the cycles (compiler/deadlock).

Exit codes: 0 no cycle found, 1 a cycle (on the healthy fabric or under a failure), 2 bad input.
A sweep stopped by ``--max-failures`` or ``--time-limit`` says how far it got; what it did not
check is not proven (the summary says so), and the exit code reflects what it found.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from qosforge.cli._lazy import HelpWhenBareGroup

if TYPE_CHECKING:
    from qosforge.compiler.deadlock.check import LosslessClass
    from qosforge.compiler.deadlock.explain import DependencyCycle
    from qosforge.compiler.deadlock.failures import SweepResult
    from qosforge.compiler.routing import Routing

EXIT_CYCLE = 1
#: What one failure set is called (the plural adds an s).
_FAILURE_WORDS = {0: "", 1: "single link failure", 2: "double link failure"}


@click.group("check", cls=HelpWhenBareGroup)
def check_group() -> None:
    """Check properties of a fabric the configuration alone cannot show."""


def _free_text(fail_links: int) -> str:
    return "on the healthy fabric" if fail_links == 0 else f"under any {_FAILURE_WORDS[fail_links]}"


def class_summary(lossless: LosslessClass, result: SweepResult | None, healthy: tuple[DependencyCycle, ...], fail_links: int) -> dict[str, Any]:
    """One line per class: deadlock-free (proven), can deadlock, or not proven (sweep stopped)."""
    name = f"class '{lossless.name}' (PG {lossless.priority_group})"
    if healthy:
        return {"class": lossless.name, "deadlock_free": False, "text": f"{name}: can deadlock on the healthy fabric ({len(healthy)} cycle(s); compile refuses it)"}
    if result is None or (result.complete and not result.deadlocks):
        return {"class": lossless.name, "deadlock_free": True, "text": f"{name}: deadlock-free {_free_text(fail_links)}"}
    if result.deadlocks:
        return {"class": lossless.name, "deadlock_free": False,
                "text": f"{name}: can deadlock under {len(result.deadlocks):,} of the {result.checked:,} {_FAILURE_WORDS[fail_links]}s checked"}
    return {"class": lossless.name, "deadlock_free": None,
            "text": f"{name}: no cycle under the {result.checked:,} of {result.total:,} failure sets checked "
                    f"(stopped at the {result.stopped}): not proven {_free_text(fail_links)}"}


def _cycle_lines(cycle: DependencyCycle, indent: str) -> list[str]:
    lines = [f"{indent}cycle: {cycle.describe()}"]
    lines += [f"{indent}  closed by {route.describe()}" for route in cycle.routes]
    return lines


def _report_json(intent: str, classes: tuple[LosslessClass, ...], switches: int, cables: int, healthy: tuple[DependencyCycle, ...],
                 result: SweepResult | None, summary: list[dict[str, Any]]) -> dict[str, Any]:
    failures: dict[str, Any] | None = None
    if result is not None:
        failures = {
            "fail_links": result.fail_links, "total": result.total, "checked": result.checked,
            "seconds": round(result.seconds, 3), "stopped": result.stopped, "complete": result.complete,
            "exact_rebuilds": result.exact_rebuilds,
            "deadlocks": [{"failed": list(f.failed), "cycles": [c.to_json() for c in f.cycles]} for f in result.deadlocks],
            "partitions": [{"failed": list(f.failed), "unreachable": [list(p) for p in f.unreachable], "unreachable_pairs": f.unreachable_pairs}
                           for f in result.partitions],
        }
    return {
        "intent": intent, "switches": switches, "cables": cables,
        "classes": [{"name": c.name, "priority_group": c.priority_group} for c in classes],
        "healthy": {"cycles": [c.to_json() for c in healthy]},
        "failures": failures,
        "summary": summary,
    }


def _report_text(intent: str, classes: tuple[LosslessClass, ...], switches: int, cables: int, healthy: tuple[DependencyCycle, ...],
                 result: SweepResult | None, summary: list[dict[str, Any]]) -> str:
    names = ", ".join(f"{c.name} (PG {c.priority_group})" for c in classes)
    lines = [f"deadlock check of {intent}: {switches:,} switches, {cables:,} links; lossless: {names}"]
    if healthy:
        lines.append(f"healthy fabric: {len(healthy)} cyclic buffer dependency(ies)")
        for cycle in healthy:
            lines += _cycle_lines(cycle, "  ")
    else:
        lines.append("healthy fabric: no cyclic buffer dependency")
    if result is not None and not healthy:
        words = _FAILURE_WORDS[result.fail_links]
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
    lines += [item["text"] for item in summary]
    return "\n".join(lines) + "\n"


@check_group.command("deadlock")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--fail-links", "fail_links", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Also check every set of this many failed links (0: the healthy routes only).")
@click.option("--max-failures", "max_failures", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop after N failure sets (the rest are not proven).")
@click.option("--time-limit", "time_limit_s", type=click.FloatRange(min=0, min_open=True), default=600.0, show_default=True,
              metavar="SECONDS", help="Stop the failure sweep after this many seconds (the rest are not proven).")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--routing", "routing_model", type=click.Choice(["ebgp-rfc7938", "shortest-path"]),
              default=None, help="Check the routes of this routing model instead of the intent's "
                                 "topology.routing.model.")
def deadlock_command(intent: str, fail_links: int, max_failures: int | None, time_limit_s: float,
                     output_format: str, routing_model: str | None = None) -> int:
    """Find cyclic buffer dependencies of the lossless classes (PFC deadlock) on the fabric's ECMP
    routes (the intent's routing model, or --routing), healthy and under every set of
    --fail-links failed links.

    \b
    Exit codes: 0 no cycle found, 1 a cycle, 2 unusable input.
    \b
    Examples:
      qosforge check deadlock examples/roce-pod.yaml --fail-links 1
      qosforge check deadlock examples/roce-pod.yaml --fail-links 2 --routing shortest-path
      qosforge check deadlock fabric.yaml --fail-links 2 --time-limit 300 --format json
    """
    from qosforge.cli.progress import progress
    from qosforge.compiler.deadlock.check import class_plan, fabric_cycles, lossless_classes
    from qosforge.compiler.deadlock.failures import Limits, sweep_failures
    from qosforge.compiler.deadlock.links import fabric_links
    from qosforge.compiler.loader import load_intent
    from qosforge.compiler.topology import resolve_topology
    from qosforge.errors import QosforgeError

    if not Path(intent).is_file():
        raise QosforgeError(f"no such file: {intent}", place="INTENT", hint="give an intent YAML, e.g. examples/roce-pod.yaml")
    loaded, source_map = load_intent(Path(intent))
    if routing_model is not None:
        from qosforge.compiler.routing import with_model

        loaded = with_model(loaded, routing_model)
    topology = resolve_topology(loaded, source_map)
    if routing_model is not None:
        from dataclasses import replace

        topology = replace(topology, routing=replace(topology.routing, chosen_by="--routing"))
    classes = lossless_classes(loaded, class_plan(loaded, topology, source_map))
    if not classes:
        click.echo(json.dumps({"intent": intent, "classes": [], "summary": []}, indent=2) if output_format == "json"
                   else f"{intent}: no lossless class: PFC never pauses, so nothing can deadlock\n", nl=output_format == "json")
        return 0
    links = fabric_links(topology)
    with progress("checking the healthy routes", total=None):
        healthy = fabric_cycles(links)
    result = None
    if fail_links and not healthy:
        from math import comb

        planned = min(comb(links.n_cables, fail_links), max_failures or comb(links.n_cables, fail_links))
        with progress(f"checking {_FAILURE_WORDS[fail_links]}s", total=planned, units="failure sets") as advance:
            result = sweep_failures(links, fail_links, Limits(max_failures, time_limit_s), advance)
    summary = [class_summary(c, result, healthy, fail_links) for c in classes]
    render = _report_json if output_format == "json" else _report_text
    report = render(intent, classes, links.n_switches, links.n_cables, healthy, result, summary)
    report = _with_routing(report, links.routing, result)
    click.echo(json.dumps(report, indent=2) if isinstance(report, dict) else report, nl=isinstance(report, dict))
    found = bool(healthy) or bool(result is not None and result.deadlocks)
    return EXIT_CYCLE if found else 0


def _with_routing(report: dict[str, Any] | str, routing: Routing,
                  result: SweepResult | None) -> dict[str, Any] | str:
    """The report with the routing model its verdicts assume: a JSON key, or a text line after
    the heading (and, where eBGP cut hosts off, why a failure there cannot close a cycle)."""
    if isinstance(report, dict):
        return {**report, "routing": routing.to_json()}
    heading, _, rest = report.partition("\n")
    lines = [heading, f"routing: {routing.describe()}"]
    if routing.is_bgp and result is not None and result.partitions:
        lines.append("  (a switch drops a path that already crossed its ASN, RFC 4271 §9.1.2: "
                     "where shortest paths would bounce through a leaf, eBGP cuts hosts off; "
                     "topology.routing.model: shortest-path, or allowas_in, checks those routes)")
    return "\n".join(lines) + "\n" + rest


__all__ = ["check_group", "class_summary", "deadlock_command"]
