"""The routes packets take: shortest paths in switch hops, every equally short next hop used
(ECMP), as the software switch forwards (softswitch/helper/topology.py) and as a BGP fabric
with multipath installs them (RFC 7938 §5.2.4).

For a destination switch t the routes form a DAG: a link u->v carries traffic to t when
hops(u, t) = hops(v, t) + 1. Only the part of that DAG that traffic actually enters matters for
buffer dependencies: a switch is *reached* for t when it faces hosts (they send to t) or a reached
switch forwards to it. A spine whose only route to t bounces through another leaf after a failure
holds no packet for t unless someone sends through it, so its bounce creates no dependency.

Everything here is vectorised over a block of destinations (rows) and all links (columns), so a
1,000-switch fabric is a handful of array operations per block, not a Python loop per route.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from qosforge.compiler.deadlock.links import BoolArray, FabricLinks, IntArray

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RouteBlock:
    """The routes toward a block of destination switches."""

    destinations: IntArray
    hops: FloatArray
    """(destination, switch): switch hops from the switch to the destination (inf: unreachable)."""
    on_route: BoolArray
    """(destination, link): the link is a shortest-path next hop toward the destination."""
    carries: BoolArray
    """(destination, link): on_route and its tail is reached, so packets for it cross the link."""


def hops_to(links: FabricLinks, destinations: IntArray, reversed_graph: csr_matrix) -> FloatArray:
    """Switch hops from every switch to each destination: scipy's compiled breadth-first search
    from the destination over the reversed links (:meth:`FabricLinks.switch_graph`)."""
    if destinations.size == 0:
        return np.zeros((0, links.n_switches))
    from scipy.sparse.csgraph import shortest_path

    return np.asarray(shortest_path(reversed_graph, directed=True, unweighted=True, indices=destinations), dtype=np.float64)


#: Hop count standing for "unreachable" in the int16 copy the comparisons use (half the range,
#: so adding a hop cannot overflow).
_UNREACHABLE = np.int16(np.iinfo(np.int16).max // 2)


def route_block(links: FabricLinks, destinations: IntArray, alive: BoolArray, reversed_graph: csr_matrix | None = None) -> RouteBlock:
    """The ECMP routes toward ``destinations`` over the links that are ``alive``
    (``reversed_graph``: their :meth:`FabricLinks.switch_graph` with ``reverse``, if built)."""
    graph = links.switch_graph(alive, reverse=True) if reversed_graph is None else reversed_graph
    hops = hops_to(links, destinations, graph)
    # int16 comparisons: a quarter of the memory traffic of float64 on (destination x link) arrays.
    small = np.where(np.isfinite(hops), hops, _UNREACHABLE).astype(np.int16)
    head_hops = small[:, links.head]
    on_route = (head_hops < _UNREACHABLE) & (small[:, links.tail] == head_hops + np.int16(1))
    del head_hops
    on_route &= alive[None, :]
    reached = links.has_hosts[None, :] & (small < _UNREACHABLE)
    reached[np.arange(destinations.size), destinations] = False  # a switch's own hosts send locally
    _reach_hostless(links, on_route, reached)
    return RouteBlock(destinations, hops, on_route, on_route & reached[:, links.tail])


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


__all__ = ["FloatArray", "RouteBlock", "hops_to", "next_hops", "route_block"]
