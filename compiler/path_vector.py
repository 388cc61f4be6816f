"""The converged routes toward a block of destination switches, under either routing model
(:mod:`qosforge.compiler.routing`): one implementation that the deadlock analysis
(compiler/deadlock/routes.py) and the software switch's forwarding tables
(softswitch/helper/topology.py) both call, so the two cannot disagree.

Inputs are arrays over directed links (``tail`` transmits, ``head`` receives) and the result is
per (destination, switch) and per (destination, link), vectorised over the block.

**shortest-path**: hop distances by scipy's compiled breadth-first search from the destination
over the reversed links; a link u->v is a next hop toward t when hops(u) = hops(v) + 1. Fabrics
of at most :data:`SMALL_FABRIC_SWITCHES` switches are searched level by level in numpy instead:
hop counts are unique, so the distances are scipy's, without its ~0.25 CPU s import (a third of
a small ``simulate``).

**ebgp-rfc7938**: a path-vector fixpoint, computed round by round in AS-path length. Each
switch prefers the shortest AS path it is offered (every eBGP hop adds one ASN, so the length is
the switch hops), which makes the converged state unique: ranking by length rules out the
dispute wheels that can keep BGP from converging (Griffin, Shepherd and Wilfong, "The Stable
Paths Problem and Interdomain Routing", IEEE/ACM ToN 10(2) 2002, §6), and a round settles every
switch whose best path has that length. In round k a switch still without a route takes the
offers of its neighbours settled in round k-1 over links that are up, drops those whose AS path
holds its own ASN more than ``allowas_in`` times (RFC 4271 §9.1.2 loop detection), and picks
its best path among the rest: the neighbour with the lowest switch index (its router ID, as
SONiC numbers loopbacks in switch order; FRR breaks a tie by router ID with ``bgp bestpath
compare-routerid``), then the lowest link. That path, with its own ASN prepended, is what it
advertises. Its ECMP group is every offer of length k (``multipath_relax``) or every offer whose
AS path equals the best's (without it: FRR's rule for eBGP multipath). Paths are compared
exactly: each advertised path gets an id from its ASN and the id of the path it extends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from qosforge.compiler.routing import BgpSettings

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

#: Hop count standing for "unreachable" in the int16 copy the comparisons use (half the range,
#: so adding a hop cannot overflow).
UNREACHABLE = np.int16(np.iinfo(np.int16).max // 2)
#: Up to this many switches the breadth-first search runs in numpy (one (destination x link)
#: comparison per hop level), above it in scipy's compiled BFS.
SMALL_FABRIC_SWITCHES = 64


@dataclass(frozen=True)
class Converged:
    """The routes toward ``destinations`` (rows)."""

    hops: FloatArray
    """(destination, switch): switch hops along the installed routes (inf: no route)."""
    on_route: BoolArray
    """(destination, link): the link is in its tail's ECMP group toward the destination."""
    accepted: BoolArray | None = None
    """(destination, link), eBGP: the tail accepted the head's offer, as short as its best."""
    best_link: IntArray | None = None
    """(destination, switch), eBGP: the link its best path leaves on (-1: none, or the
    destination)."""
    path_id: IntArray | None = None
    """(destination, switch), eBGP without multipath relax: an id of the AS path it advertises
    (equal ids, equal paths); with it, :func:`same_as_path` compares paths where needed."""


class LinkArrays(Protocol):
    """The directed links the routes run over (compiler/deadlock/links.py ``FabricLinks``, or the
    software switch's engine ports)."""

    @property
    def n_switches(self) -> int: ...

    @property
    def tail(self) -> IntArray: ...

    @property
    def head(self) -> IntArray: ...


@dataclass(frozen=True)
class LinkOrder:
    """Orders of a fabric's links the eBGP rounds use, computed once per fabric."""

    rank: IntArray
    """Each link's place in (receiving switch, neighbour, link) order: a switch's best offer is
    its first in this order (lowest router ID, then lowest link)."""
    by_head: IntArray
    """The links grouped by the switch they lead to (whose offers they carry), stable."""

    @classmethod
    def of(cls, links: LinkArrays) -> LinkOrder:
        n_links = links.tail.size
        rank = np.empty(n_links, dtype=np.int64)
        rank[np.lexsort((np.arange(n_links), links.head, links.tail))] = np.arange(n_links)
        return cls(rank, np.argsort(links.head, kind="stable").astype(np.int64))


def converged_routes(
    links: LinkArrays,
    destinations: IntArray,
    alive: BoolArray,
    bgp: BgpSettings | None,
    reversed_graph: csr_matrix | None = None,
    order: LinkOrder | None = None,
) -> Converged:
    """The converged routes toward ``destinations`` over the links that are ``alive``: eBGP's
    when ``bgp`` is given, else every shortest path (``reversed_graph``: the alive links as
    a head -> tail adjacency, if already built; ``order``: :meth:`LinkOrder.of` the links, if
    kept)."""
    if bgp is not None:
        return _ebgp(
            links, destinations, alive, bgp, LinkOrder.of(links) if order is None else order
        )
    return _shortest(links, destinations, alive, reversed_graph)


def reversed_switch_graph(links: LinkArrays, alive: BoolArray) -> csr_matrix:
    """head -> tail adjacency over the links that are up (parallel links count once)."""
    from scipy.sparse import csr_matrix

    ones = np.ones(int(alive.sum()), dtype=np.float64)
    graph = csr_matrix(
        (ones, (links.head[alive], links.tail[alive])), shape=(links.n_switches, links.n_switches)
    )
    graph.data[:] = 1.0  # duplicates were summed: a parallel link is still one hop
    return graph


def _shortest(
    links: LinkArrays, destinations: IntArray, alive: BoolArray, reversed_graph: csr_matrix | None
) -> Converged:
    if destinations.size == 0:
        return Converged(
            np.zeros((0, links.n_switches)), np.zeros((0, links.tail.size), dtype=bool)
        )
    if reversed_graph is None and links.n_switches <= SMALL_FABRIC_SWITCHES:
        hops = level_hops(links, destinations, alive)
    else:
        from scipy.sparse.csgraph import shortest_path

        graph = reversed_switch_graph(links, alive) if reversed_graph is None else reversed_graph
        hops = np.asarray(
            shortest_path(graph, directed=True, unweighted=True, indices=destinations),
            dtype=np.float64,
        )
    # int16 comparisons: a quarter of the memory traffic of float64 on (destination x link) arrays.
    small = np.where(np.isfinite(hops), hops, UNREACHABLE).astype(np.int16)
    head_hops = small[:, links.head]
    on_route = (head_hops < UNREACHABLE) & (small[:, links.tail] == head_hops + np.int16(1))
    on_route &= alive[None, :]
    return Converged(hops, on_route)


def level_hops(links: LinkArrays, destinations: IntArray, alive: BoolArray) -> FloatArray:
    """(destination, switch) hops from each destination over the links that are up, head to
    tail (what scipy's ``shortest_path(reversed_switch_graph(...), unweighted=True)`` gives):
    breadth-first, every switch reached at level k is one hop beyond a switch of level k - 1."""
    head, tail = links.head[alive], links.tail[alive]
    hops = np.full((destinations.size, links.n_switches), np.inf)
    hops[np.arange(destinations.size), destinations] = 0.0
    for level in range(1, links.n_switches):
        row, link = np.nonzero(hops[:, head] == level - 1)
        if row.size == 0:
            break
        reached = tail[link]
        fresh = np.isinf(hops[row, reached])
        hops[row[fresh], reached[fresh]] = level
    return hops


def _ebgp(
    links: LinkArrays,
    destinations: IntArray,
    alive: BoolArray,
    bgp: BgpSettings,
    link_order: LinkOrder,
) -> Converged:
    n_rows, n_switches, tail, head = destinations.size, links.n_switches, links.tail, links.head
    n_links = tail.size
    # (row, switch) and (row, link) arrays are used flat: one index per entry, cheaper to gather.
    cells = n_rows * n_switches
    start = np.arange(n_rows) * n_switches + destinations
    hops = np.full(cells, UNREACHABLE, dtype=np.int16)
    hops[start] = 0
    # The next switch of each best path (the destination points at itself, so chains stay in range).
    best_next = np.full(cells, -1, dtype=np.int64)
    best_next[start] = destinations
    best_link = np.full(cells, -1, dtype=np.int64)
    path_id = None
    if not bgp.multipath_relax:
        path_id = np.full(cells, -1, dtype=np.int64)
        path_id[start] = bgp.asn_index[destinations]
    next_id = bgp.n_asns
    # The shared ASNs each advertised path holds, as bits (when they fit a word and a single copy
    # already refuses: allowas_in 0); otherwise the chain is walked.
    group_bit = bgp.group_bit if bgp.allowas_in == 0 else None
    masks = None if group_bit is None else np.zeros(cells, dtype=np.uint64)
    if masks is not None and group_bit is not None:
        masks[start] = group_bit[destinations]
    accepted = np.zeros(n_rows * n_links, dtype=bool)
    best_rank = np.full(cells, n_links, dtype=np.int64)
    by_rank = np.argsort(link_order.rank)
    inbound = link_order.by_head[alive[link_order.by_head]]
    starts = np.searchsorted(head[inbound], np.arange(n_switches + 1))
    frontier = start
    for length in range(1, n_switches):
        # Every offer of the switches settled last round, over their links that are up.
        row, switch = np.divmod(frontier, n_switches)
        counts = starts[switch + 1] - starts[switch]
        total = int(counts.sum())
        if total == 0:
            break
        first = np.repeat(starts[switch] - (np.cumsum(counts) - counts), counts)
        link = inbound[first + np.arange(total)]
        row = np.repeat(row, counts)
        receiver = row * n_switches + tail[link]
        sender = row * n_switches + head[link]
        open_ = hops[receiver] == UNREACHABLE
        if masks is not None and group_bit is not None:
            open_ &= (masks[sender] & group_bit[tail[link]]) == 0
        receiver, sender, link, row = receiver[open_], sender[open_], link[open_], row[open_]
        if masks is None and receiver.size:
            keep = _loop_free(
                row, link, length, tail, head, best_next.reshape(n_rows, n_switches), bgp
            )
            receiver, sender, link, row = receiver[keep], sender[keep], link[keep], row[keep]
        if receiver.size == 0:
            break
        accepted[row * n_links + link] = True
        # The best offer: the lowest (neighbour, link) in rank order, per receiving switch.
        np.minimum.at(best_rank, receiver, link_order.rank[link])
        settled = np.unique(receiver)
        chosen = by_rank[best_rank[settled]]
        neighbour = settled - tail[chosen] + head[chosen]
        hops[settled] = length
        best_next[settled] = head[chosen]
        best_link[settled] = chosen
        if masks is not None and group_bit is not None:
            masks[settled] = masks[neighbour] | group_bit[tail[chosen]]
        if path_id is not None:
            path_id[settled] = _intern(
                bgp.asn_index[tail[chosen]], path_id[neighbour], bgp.n_asns, next_id
            )
            next_id = int(path_id[settled].max()) + 1
        frontier = settled
    accepted_rows = accepted.reshape(n_rows, n_links)
    on_route = accepted_rows
    if path_id is not None:
        on_route = accepted_rows.copy()
        row, link = np.nonzero(accepted_rows)
        best = best_link[row * n_switches + tail[link]]
        differs = path_id[row * n_switches + head[link]] != path_id[row * n_switches + head[best]]
        on_route[row[differs], link[differs]] = False
    grid = hops.reshape(n_rows, n_switches)
    distances = np.where(grid == UNREACHABLE, np.inf, grid.astype(np.float64))
    ids = None if path_id is None else path_id.reshape(n_rows, n_switches)
    return Converged(distances, on_route, accepted_rows, best_link.reshape(n_rows, n_switches), ids)


def same_as_path(
    best_link: IntArray,
    head: IntArray,
    asn: IntArray,
    rows: IntArray,
    first: IntArray,
    second: IntArray,
) -> BoolArray:
    """Whether switches ``first`` and ``second`` advertise the same AS path toward row ``rows``'s
    destination, by walking both best-path chains (``best_link``: (row, switch), -1 at the end)."""
    same = asn[first] == asn[second]
    a, b = first.copy(), second.copy()
    while True:
        next_a, next_b = best_link[rows, a], best_link[rows, b]
        going = (next_a >= 0) & (next_b >= 0)
        same &= (next_a >= 0) == (next_b >= 0)
        if not going.any():
            return np.asarray(same, dtype=bool)
        a = np.where(going, head[np.maximum(next_a, 0)], a)
        b = np.where(going, head[np.maximum(next_b, 0)], b)
        same &= ~going | (asn[a] == asn[b])


def holds_asn(
    best_link: IntArray,
    head: IntArray,
    asn: IntArray,
    rows: IntArray,
    start: IntArray,
    own: np.int64,
) -> BoolArray:
    """Whether the AS path switch ``start`` advertises toward row ``rows``'s destination (its
    own ASN, then its best-path chain's) holds ASN ``own``."""
    held = asn[start] == own
    at = start.copy()
    while True:
        step = best_link[rows, at]
        going = step >= 0
        if not going.any():
            return np.asarray(held, dtype=bool)
        at = np.where(going, head[np.maximum(step, 0)], at)
        held |= going & (asn[at] == own)


def _loop_free(
    row: IntArray,
    link: IntArray,
    length: int,
    tail: IntArray,
    head: IntArray,
    best_next: IntArray,
    bgp: BgpSettings,
) -> BoolArray:
    """Which offers (row, link) the receiving switch (the link's tail) accepts: its ASN appears
    at most ``allowas_in`` times in the offered AS path, the ``length`` switches from the head
    along the best-path chain to the destination. Only switches whose ASN another switch shares
    need the walk: a switch not yet routed is on no settled chain."""
    keep = np.ones(row.size, dtype=bool)
    check = np.flatnonzero(bgp.shared[tail[link]])
    if check.size == 0:
        return keep
    own = bgp.asn[tail[link[check]]]
    at = head[link[check]]
    chain_rows = row[check]
    count = np.zeros(check.size, dtype=np.int64)
    for _ in range(length):
        count += bgp.asn[at] == own
        at = best_next[chain_rows, at]
    keep[check] = count <= bgp.allowas_in
    return keep


def _intern(asn_index: IntArray, rest: IntArray, n_asns: int, first_id: int) -> IntArray:
    """Ids of the AS paths ``[asn] + rest`` (``asn_index``: the ASN's place among the fabric's
    ASNs; ``rest``: the id of the path it extends): equal pairs get equal ids, numbered from
    ``first_id``. One int64 key per pair (ids stay below 2**40, ASNs below 2**22 switches)."""
    if asn_index.size == 0:
        return np.zeros(0, dtype=np.int64)
    _, inverse = np.unique(rest * n_asns + asn_index, return_inverse=True)
    return np.asarray(first_id + inverse.reshape(-1), dtype=np.int64)


__all__ = [
    "UNREACHABLE",
    "BoolArray",
    "Converged",
    "FloatArray",
    "IntArray",
    "LinkArrays",
    "LinkOrder",
    "converged_routes",
    "holds_asn",
    "level_hops",
    "reversed_switch_graph",
    "same_as_path",
]
