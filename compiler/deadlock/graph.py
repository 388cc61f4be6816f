"""The buffer dependency graph of a lossless class and its cycles.

A node is an ingress buffer, (switch, ingress port, PG), which a directed link fills (its head
port, :mod:`.links`). A packet held in the buffer of link a (at switch s = head(a)) that s
forwards on link b waits for buffer at the far end of b: when that buffer is full its PFC pauses
b's egress queue at s, which stops draining a's buffer. So there is an edge a -> b, a *turn* at
s, wherever some route carries packets in on a and out on b. A cycle of such edges can fill
and pause every buffer on it at once and then no packet on it ever moves again: the cyclic
buffer dependency behind PFC deadlock (Hu et al., "Deadlocks in Datacenter Networks: Why Do
They Form, and How to Avoid Them", HotNets 2016 §2; Guo et al., "RDMA over Commodity Ethernet
at Scale", SIGCOMM 2016 §4.2). No cycle, no deadlock: the edges then order the buffers and the
last buffer on any chain always drains to a host.

Host-facing ingress ports are nodes too, but nothing waits on them (hosts send, never
forward), so they have no incoming edge and can never be on a cycle; the graph keeps only the
inter-switch link buffers. The graph is the same for every lossless class: routes do not depend
on the DSCP, and every switch maps a class to one PG on all its ports (compiler/plan.py).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from qosforge.compiler.deadlock.links import BoolArray, FabricLinks, IntArray
from qosforge.compiler.deadlock.routes import RouteBlock, route_block

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

#: Destinations per block: a multiple of 64 (one machine word of the packed bit sets) that keeps a
#: block's (destination x link) arrays a few tens of MB at 5,000 switches.
DESTINATIONS_PER_BLOCK = 256
#: Candidate turns tested per step (bounds the packed-bit temporaries to tens of MB).
TURNS_PER_STEP = 1 << 18


@dataclass(frozen=True)
class TurnGraph:
    """The buffer dependency graph: an edge ``first[i] -> second[i]`` between directed links."""

    n_links: int
    first: IntArray
    second: IntArray

    def matrix(self) -> csr_matrix:
        ones = np.ones(self.first.size, dtype=np.int8)
        from scipy.sparse import csr_matrix

        return csr_matrix((ones, (self.first, self.second)), shape=(self.n_links, self.n_links))


def candidate_turns(links: FabricLinks) -> tuple[IntArray, IntArray]:
    """Every (link into s, link out of s) pair over all switches s, except straight back over the
    same cable (a shortest route never returns to the switch it came from)."""
    inbound = _grouped(links.head, links.n_switches)
    outbound = _grouped(links.tail, links.n_switches)
    firsts: list[IntArray] = []
    seconds: list[IntArray] = []
    for into, out in zip(inbound, outbound, strict=True):
        if out.size == 0 or into.size == 0:
            continue
        a = np.repeat(into, out.size)
        b = np.tile(out, into.size)
        keep = links.cable[a] != links.cable[b]
        firsts.append(a[keep])
        seconds.append(b[keep])
    if not firsts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(firsts), np.concatenate(seconds)


def _grouped(switch_of_link: IntArray, n_switches: int) -> list[IntArray]:
    """The links of each switch (by head or by tail), in link order."""
    order = np.argsort(switch_of_link, kind="stable")
    starts = np.searchsorted(switch_of_link[order], np.arange(n_switches + 1))
    return [order[starts[s]:starts[s + 1]] for s in range(n_switches)]


def _packed(rows: BoolArray) -> np.ndarray:
    """(destination, link) booleans -> one row of bit sets over the destinations per link (uint64
    words when the destinations fill whole words, else bytes)."""
    packed = np.ascontiguousarray(np.packbits(rows, axis=0).T)  # (links, destinations/8)
    return packed.view(np.uint64) if packed.shape[1] % 8 == 0 else packed


def turns_in_block(block: RouteBlock, first: IntArray, second: IntArray) -> BoolArray:
    """Which candidate turns (first[i] -> second[i]) some destination of the block uses: its
    packets arrive on ``first`` and its routes leave on ``second`` (a dead link is on no route)."""
    used = np.zeros(first.size, dtype=bool)
    if block.destinations.size == 0 or first.size == 0:
        return used
    # Only turns whose first link carries and whose second is on a route for some destination.
    carrying: BoolArray = np.any(block.carries, axis=0)
    routed: BoolArray = np.any(block.on_route, axis=0)
    pick = np.flatnonzero(carrying[first] & routed[second])
    carries, on_route = _packed(block.carries), _packed(block.on_route)
    for start in range(0, pick.size, TURNS_PER_STEP):
        chosen = pick[start:start + TURNS_PER_STEP]
        used[chosen] = (carries[first[chosen]] & on_route[second[chosen]]).any(axis=1)
    return used


def route_blocks(links: FabricLinks, alive: BoolArray, destinations: IntArray | None = None) -> list[RouteBlock]:
    """The routes toward every host-facing switch (or ``destinations``), a block at a time."""
    targets = links.hosts() if destinations is None else destinations
    graph = None if links.bgp is not None else links.switch_graph(alive, reverse=True)
    return [route_block(links, targets[start:start + DESTINATIONS_PER_BLOCK], alive, graph)
            for start in range(0, targets.size, DESTINATIONS_PER_BLOCK)]


def used_turns(links: FabricLinks, alive: BoolArray, candidates: tuple[IntArray, IntArray],
               blocks: list[RouteBlock] | None = None) -> BoolArray:
    """Which ``candidates`` the fabric's routes over the links that are ``alive`` use
    (``blocks``: those routes, if already computed)."""
    first, second = candidates
    used = np.zeros(first.size, dtype=bool)
    for block in route_blocks(links, alive) if blocks is None else blocks:
        used |= turns_in_block(block, first, second)
    return used


def dependency_graph(links: FabricLinks, alive: BoolArray | None = None,
                     candidates: tuple[IntArray, IntArray] | None = None,
                     blocks: list[RouteBlock] | None = None) -> TurnGraph:
    """The buffer dependency graph of the fabric's routes over the links that are ``alive``
    (``blocks``: those routes, if already computed)."""
    up = np.ones(links.n_links, dtype=bool) if alive is None else alive
    first, second = candidate_turns(links) if candidates is None else candidates
    used = used_turns(links, up, (first, second), blocks)
    return TurnGraph(links.n_links, first[used], second[used])


def cycles(graph: TurnGraph, limit: int = 8) -> list[tuple[int, ...]]:
    """Up to ``limit`` dependency cycles, one per strongly connected component with more than one
    buffer: the shortest cycle through the component's lowest-numbered link (deterministic)."""
    if graph.first.size == 0:
        return []
    from scipy.sparse.csgraph import connected_components

    count, labels = connected_components(graph.matrix(), directed=True, connection="strong")
    sizes = np.bincount(labels, minlength=count)
    matrix = graph.matrix()
    found: list[tuple[int, ...]] = []
    for component in sorted({int(labels[i]) for i in range(graph.n_links) if sizes[labels[i]] > 1},
                            key=lambda c: int(np.flatnonzero(labels == c)[0])):
        members = labels == component
        start = int(np.flatnonzero(members)[0])
        found.append(_shortest_cycle(matrix, members, start))
        if len(found) >= limit:
            break
    return found


def _shortest_cycle(matrix: csr_matrix, members: BoolArray, start: int) -> tuple[int, ...]:
    """The shortest cycle through ``start`` inside one strongly connected component (BFS)."""
    parent = {start: -1}
    frontier = deque([start])
    while frontier:
        node = frontier.popleft()
        for succ in matrix.indices[matrix.indptr[node]:matrix.indptr[node + 1]]:
            succ = int(succ)
            if succ == start:
                path = [node]
                while parent[path[-1]] != -1:
                    path.append(parent[path[-1]])
                return tuple(reversed(path))
            if members[succ] and succ not in parent:
                parent[succ] = node
                frontier.append(succ)
    raise AssertionError("a strongly connected component always has a cycle through each member")


def topological_rank(graph: TurnGraph) -> IntArray | None:
    """Each link's position in a topological order of an acyclic graph (Kahn's algorithm), or None
    when the graph has a cycle. Edges that go forward in this order can never close a cycle."""
    matrix = graph.matrix()
    indegree = np.bincount(graph.second, minlength=graph.n_links)
    ready = deque(int(i) for i in np.flatnonzero(indegree == 0))
    rank = np.full(graph.n_links, -1, dtype=np.int64)
    position = 0
    while ready:
        node = ready.popleft()
        rank[node] = position
        position += 1
        for succ in matrix.indices[matrix.indptr[node]:matrix.indptr[node + 1]]:
            indegree[succ] -= 1
            if indegree[succ] == 0:
                ready.append(int(succ))
    return rank if position == graph.n_links else None


__all__ = ["DESTINATIONS_PER_BLOCK", "TurnGraph", "candidate_turns", "cycles", "dependency_graph",
           "route_blocks", "topological_rank", "turns_in_block", "used_turns"]
