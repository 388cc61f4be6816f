"""The routes packets take: the routing model's converged routes (compiler/path_vector.py, the
one implementation the software switch's forwarding tables use too): every shortest path
(``shortest-path``), or eBGP's best AS paths with multipath (``ebgp-rfc7938``, RFC 7938
§5.2.4 installs every equal path), the ECMP group of each switch toward each destination.

For a destination switch t the routes form a DAG (every next hop is one hop nearer t along the
installed routes). Only the part of that DAG that traffic actually enters matters for buffer
dependencies: a switch is *reached* for t when it faces hosts (they send to t) or a reached
switch forwards to it. A spine whose only route to t bounces through another leaf after a failure
holds no packet for t unless someone sends through it, so its bounce creates no dependency.

Everything here is vectorised over a block of destinations (rows) and all links (columns), so a
1,000-switch fabric is a handful of array operations per block, not a Python loop per route.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from qosforge.compiler.deadlock.links import BoolArray, FabricLinks, IntArray
from qosforge.compiler.path_vector import Converged, FloatArray, converged_routes

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix


@dataclass(frozen=True)
class RouteBlock:
    """The routes toward a block of destination switches."""

    destinations: IntArray
    hops: FloatArray
    """(destination, switch): switch hops along the routes to the destination (inf: no route)."""
    on_route: BoolArray
    """(destination, link): the link is in its tail's ECMP group toward the destination."""
    carries: BoolArray
    """(destination, link): on_route and its tail is reached, so packets for it cross the link."""
    converged: Converged
    """The routing model's full answer (eBGP: the accepted offers, best paths and path ids)."""


def route_block(
    links: FabricLinks,
    destinations: IntArray,
    alive: BoolArray,
    reversed_graph: csr_matrix | None = None,
) -> RouteBlock:
    """The ECMP routes toward ``destinations`` over the links that are ``alive``, under the
    fabric's routing model (``reversed_graph``: the alive links' :meth:`FabricLinks.switch_graph`
    with ``reverse``, if built; shortest-path only)."""
    order = links.order if links.bgp is not None else None
    converged = converged_routes(links, destinations, alive, links.bgp, reversed_graph, order)
    on_route = converged.on_route
    reached = links.has_hosts[None, :] & np.isfinite(converged.hops)
    reached[np.arange(destinations.size), destinations] = False  # a switch's own hosts send locally
    _reach_hostless(links, on_route, reached)
    carries = on_route & reached[:, links.tail]
    return RouteBlock(destinations, converged.hops, on_route, carries, converged)


def _reach_hostless(links: FabricLinks, on_route: BoolArray, reached: BoolArray) -> None:
    """Mark the switches without hosts that a reached switch forwards to, until nothing changes
    (at most the longest chain of host-less switches: 3 in a three-tier Clos)."""
    inbound, starts, heads = links.hostless_inbound
    if inbound.size == 0:
        return
    route_in, tails = on_route[:, inbound], links.tail[inbound]
    while True:
        fed = np.logical_or.reduceat(route_in & reached[:, tails], starts, axis=1)
        grown = reached[:, heads] | fed
        if np.array_equal(grown, reached[:, heads]):
            return
        reached[:, heads] = grown


def next_hops(links: FabricLinks, switch: int, block: RouteBlock, row: int) -> IntArray:
    """The links ``switch`` forwards on toward destination row ``row`` (its ECMP group)."""
    return np.flatnonzero(block.on_route[row] & (links.tail == switch))


__all__ = ["FloatArray", "RouteBlock", "next_hops", "route_block"]
