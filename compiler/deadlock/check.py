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

import numpy as np

from qosforge.compiler.deadlock.explain import SHOWN_IN_ERROR, DependencyCycle, explain_cycles
from qosforge.compiler.deadlock.graph import cycles, dependency_graph, route_blocks
from qosforge.compiler.deadlock.links import BoolArray, FabricLinks, fabric_links
from qosforge.compiler.deadlock.routes import RouteBlock
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


def fabric_cycles(links: FabricLinks, alive: BoolArray | None = None, limit: int = 8,
                  blocks: list[RouteBlock] | None = None) -> tuple[DependencyCycle, ...]:
    """The dependency cycles of the fabric's routes (over the links that are ``alive``; ``blocks``:
    those routes, if already computed), explained."""
    graph = dependency_graph(links, alive, blocks=blocks)
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


def check_deadlock_free(intent: Intent, topology: ResolvedTopology, source_map: SourceMap, plan: ClassPlan | None = None,
                        blocks: list[RouteBlock] | None = None) -> None:
    """Refuse an intent whose lossless classes can deadlock on the healthy fabric's routes
    (``blocks``: those routes, from :func:`check_routes_reach_every_host`); the error points at
    the first lossless class's ``lossless`` field."""
    if not any(spec.lossless for spec in intent.classes):
        return
    classes = lossless_classes(intent, plan or class_plan(intent, topology, source_map))
    if not classes:
        return
    found = fabric_cycles(fabric_links(topology), limit=SHOWN_IN_ERROR, blocks=blocks)
    if found:
        message, hint = deadlock_message(classes, found)
        raise source_map.error(("classes", classes[0].index, "lossless"), message, hint)


def check_routes_reach_every_host(topology: ResolvedTopology, source_map: SourceMap) -> list[RouteBlock] | None:
    """Refuse an eBGP fabric whose healthy routes leave some host-facing switch without a route
    to another: an ASN plan that puts two leaves (or a leaf and a spine) in one AS makes each drop
    the other's prefix (RFC 4271 §9.1.2) unless allowas_in lets it through (RFC 7938 §5.2.2 reuses
    leaf ASNs that way). Shortest paths reach every connected switch (the topology checks that).
    Returns the healthy routes it computed (eBGP), for the deadlock check to reuse."""
    if not topology.routing.is_bgp:
        return None
    links = fabric_links(topology)
    hosts = links.hosts()
    blocks = route_blocks(links, links.alive())
    for block in blocks:
        cut = ~np.isfinite(block.hops[:, hosts])
        if cut.any():
            row, column = (int(i) for i in np.argwhere(cut)[0])
            source = links.switch_names[int(hosts[column])]
            destination = links.switch_names[int(block.destinations[row])]
            asns = dict(topology.routing.asns)
            raise source_map.error(
                ("topology", "routing", "asn"),
                f"under eBGP {source} has no route to the hosts of {destination} on the healthy "
                f"fabric: every path to it crosses a switch of an ASN already on the path ({source} "
                f"is AS {asns[source]}, {destination} AS {asns[destination]}; "
                f"{int(cut.sum()):,} switch pairs cut off)",
                "give each leaf its own ASN and each tier of spines one (RFC 7938 §5.2.1), or set "
                "allowas_in where leaves share an ASN on purpose (RFC 7938 §5.2.2)")
    return blocks


__all__ = ["LosslessClass", "check_deadlock_free", "check_routes_reach_every_host", "class_plan",
           "deadlock_message", "fabric_cycles", "lossless_classes"]
