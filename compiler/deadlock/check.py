"""The compile-time check: a fabric whose lossless classes' buffers can wait on each other in a
cycle is refused, naming the class, the buffers on the cycle, the routes that close it and the
ways out (docs/architecture.md §5 "Deadlock freedom").

A healthy leaf-spine or Clos passes by construction: its shortest paths go up and then down,
never down and up again, so every dependency points from a lower tier's uplink buffer to a higher
one or from a downlink buffer to a lower tier's, and the buffers are ordered (Hu et al., HotNets
2016 §4; the up-down argument of Autonet, Schroeder et al., IEEE JSAC 9(8) 1991). A ring, a
mesh, or a topology whose shortest paths bounce can close a loop, and PFC then stops it forever
(Guo et al., SIGCOMM 2016 §4.2); the PFC watchdog only breaks such a deadlock after it has
happened, by dropping the class's packets.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosforge.compiler.deadlock.explain import SHOWN_IN_ERROR, DependencyCycle, explain_cycles
from qosforge.compiler.deadlock.graph import cycles, dependency_graph
from qosforge.compiler.deadlock.links import BoolArray, FabricLinks, fabric_links
from qosforge.compiler.intent import Intent
from qosforge.compiler.loader import SourceMap
from qosforge.compiler.plan import ClassPlan, plan_classes
from qosforge.compiler.topology import ResolvedTopology


@dataclass(frozen=True)
class LosslessClass:
    """A class PFC protects: its buffers are the nodes of a dependency graph."""

    name: str
    index: int
    """Position in the intent's ``classes`` (for error places)."""
    priority_group: int
    """The PG (and PFC priority: lossless TC n uses PG n, compiler/plan.py) its packets are held in."""


def lossless_classes(intent: Intent, plan: ClassPlan) -> tuple[LosslessClass, ...]:
    """The intent's lossless classes with the PG the plan gives each."""
    planned = {c.name: c for c in plan.classes}
    return tuple(LosslessClass(spec.name, index, planned[spec.name].priority_group)
                 for index, spec in enumerate(intent.classes) if spec.lossless and spec.name in planned)


def class_plan(intent: Intent, topology: ResolvedTopology, source_map: SourceMap) -> ClassPlan:
    """The class plan of the fabric's first switch (every switch maps a lossless class alike)."""
    from qosforge.vendor_profiles import load_vendor_profile

    return plan_classes(intent, source_map, load_vendor_profile(topology.switches[0].profile))


def fabric_cycles(links: FabricLinks, alive: BoolArray | None = None, limit: int = 8) -> tuple[DependencyCycle, ...]:
    """The dependency cycles of the fabric's routes (over the links that are ``alive``), explained."""
    graph = dependency_graph(links, alive)
    return explain_cycles(links, cycles(graph, limit), alive)


def _classes_text(classes: tuple[LosslessClass, ...]) -> str:
    named = ", ".join(f"'{c.name}' (PG {c.priority_group})" for c in classes)
    return f"lossless class {named}" if len(classes) == 1 else f"lossless classes {named}"


def deadlock_message(classes: tuple[LosslessClass, ...], found: tuple[DependencyCycle, ...], failure: str = "") -> tuple[str, str]:
    """The error (what, where, which routes) and the hint (the three ways out) for ``found``."""
    first = found[0]
    routes = "; ".join(route.describe() for route in first.routes[:SHOWN_IN_ERROR])
    more_routes = f"; and {len(first.routes) - SHOWN_IN_ERROR} more" if len(first.routes) > SHOWN_IN_ERROR else ""
    others = f" ({len(found) - 1} more cycle(s): {'; '.join(c.describe() for c in found[1:SHOWN_IN_ERROR])})" if len(found) > 1 else ""
    when = f" when {failure} fails" if failure else ""
    message = (f"{_classes_text(classes)} can deadlock{when}: PFC buffers form a cycle on switches "
               f"{', '.join(dict.fromkeys(first.switches))}: {first.describe()} (ingress buffers, each waiting for the next); "
               f"closed by the routes {routes}{more_routes}{others}")
    hop = first.routes[0]
    hint = (f"break the cycle: give the class a separate priority on one hop of it (e.g. remap it to another lossless PG "
            f"for packets arriving on {hop.arrives_on}, as SONiC's dual-ToR remaps bounced lossless traffic); or change the "
            f"routing (routes are the topology's shortest paths: add or remove links so no route turns around the loop, "
            f"a leaf-spine or Clos has none); or make the class lossy (lossless: false). "
            f"'qosforge check deadlock INTENT' lists every cycle")
    return message, hint


def check_deadlock_free(intent: Intent, topology: ResolvedTopology, source_map: SourceMap, plan: ClassPlan | None = None) -> None:
    """Refuse an intent whose lossless classes can deadlock on the healthy fabric's routes; the
    error points at the first lossless class's ``lossless`` field."""
    if not any(spec.lossless for spec in intent.classes):
        return
    classes = lossless_classes(intent, plan or class_plan(intent, topology, source_map))
    if not classes:
        return
    found = fabric_cycles(fabric_links(topology), limit=SHOWN_IN_ERROR)
    if found:
        message, hint = deadlock_message(classes, found)
        raise source_map.error(("classes", classes[0].index, "lossless"), message, hint)


__all__ = ["LosslessClass", "check_deadlock_free", "class_plan", "deadlock_message", "fabric_cycles", "lossless_classes"]
