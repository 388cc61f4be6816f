"""Deadlock freedom under link failures: every set of one (or two) failed cables, the routes
recomputed around them, the dependency graph checked again (``qosforge check deadlock``).

A failure is where healthy fabrics grow cycles: the shortest way around a dead link can go down
to a lower tier and up again (a bounce), and bounces are the dependencies that close loops in an
otherwise up-down fabric (Guo et al., SIGCOMM 2016 §4.2, where a Clos deadlocked after such a
reroute; Hu et al., HotNets 2016 §3). Rebuilding every destination's routes for each of the
7,680 cables of a 1,000-switch Clos is too slow, so each failure set is checked incrementally
against the healthy graph G, which must be acyclic:

* A destination whose hop distances do not change keeps a subset of its old routes (its DAG
  only loses the dead links, and fewer switches can be reached), so its dependencies are a
  subset of G's. Distances toward t change exactly when some end of a dead link loses *all* its
  next hops toward t; only those destinations' routes are recomputed.
* The new graph is then a subgraph of G plus the recomputed destinations' dependencies. If every
  dependency not in G goes forward in a topological order of G, it has no cycle (all its edges
  go forward). Only when one goes backward is the whole graph rebuilt exactly and searched.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from qosforge.compiler.deadlock.explain import DependencyCycle, explain_cycles
from qosforge.compiler.deadlock.graph import (
    TurnGraph,
    candidate_turns,
    cycles,
    dependency_graph,
    route_blocks,
    topological_rank,
    turns_in_block,
    used_turns,
)
from qosforge.compiler.deadlock.links import BoolArray, FabricLinks, IntArray
from qosforge.compiler.deadlock.routes import route_block
from qosforge.compiler.path_vector import holds_asn, same_as_path

#: Pairs of switches named for a failure that cuts hosts off (the count is always given).
SHOWN_PARTITIONS = 3


@dataclass(frozen=True)
class FailureFinding:
    """A failure set that creates dependency cycles, or cuts some hosts off from others."""

    failed: tuple[str, ...]
    """The dead cables, ``a:port - b:port``."""
    cycles: tuple[DependencyCycle, ...] = ()
    unreachable: tuple[tuple[str, str], ...] = ()
    """Some (source switch, destination switch) pairs with hosts that no route joins any more."""
    unreachable_pairs: int = 0


@dataclass(frozen=True)
class SweepResult:
    """The failure sets checked, and those that break deadlock freedom (or connectivity)."""

    fail_links: int
    total: int
    """Failure sets there are (cables choose ``fail_links``)."""
    checked: int
    deadlocks: tuple[FailureFinding, ...]
    partitions: tuple[FailureFinding, ...]
    seconds: float
    stopped: str | None = None
    """Why the sweep ended before checking every set (the time or count limit), or None."""
    exact_rebuilds: int = 0
    """Failure sets whose graph had to be rebuilt in full (a new dependency went backward)."""
    healthy_cycles: tuple[DependencyCycle, ...] = field(default=())
    """Cycles of the healthy fabric (the sweep needs none: it checks failures against it)."""

    @property
    def complete(self) -> bool:
        return self.stopped is None and self.checked == self.total and not self.healthy_cycles


@dataclass(frozen=True)
class Limits:
    max_sets: int | None = None
    """Stop after this many failure sets."""
    max_seconds: float | None = None
    """Stop after this much wall time."""


class _Baseline:
    """The healthy fabric: hop distances to every destination, its dependencies in a topological
    order, and the candidate turns (every in-link x out-link pair of each switch)."""

    def __init__(self, links: FabricLinks) -> None:
        self.links = links
        self.destinations = links.hosts()
        self.alive = np.ones(links.n_links, dtype=bool)
        blocks = route_blocks(links, self.alive)
        self.hops = np.vstack([b.hops for b in blocks]).astype(np.float32) if blocks else np.zeros((0, links.n_switches), np.float32)
        if links.bgp is not None:
            converged = [b.converged for b in blocks]
            self.accepted = _stacked([c.accepted for c in converged], (0, links.n_links), np.bool_)
            self.best_link = _stacked([c.best_link for c in converged], (0, links.n_switches),
                                      np.int64)
        self.candidates = candidate_turns(links)
        self.used = used_turns(links, self.alive, self.candidates, blocks)
        first, second = self.candidates
        self.graph = TurnGraph(links.n_links, first[self.used], second[self.used])
        # A failure can only close a cycle with a dependency G lacks: test only those candidates.
        self.unused = (first[~self.used], second[~self.used])
        self.rank = topological_rank(self.graph)
        self.outbound = [np.flatnonzero(links.tail == s) for s in range(links.n_switches)]
        self.inbound = [np.flatnonzero(links.head == s) for s in range(links.n_switches)]

    def changed_destinations(self, dead: IntArray) -> BoolArray:
        """Destinations (rows) toward which some end of a dead link loses every next hop."""
        if self.links.bgp is not None:
            return self._changed_bgp(dead)
        links, hops = self.links, self.hops
        lost: dict[int, np.ndarray] = {}
        for link in dead:
            tail, head = int(links.tail[link]), int(links.head[link])
            was_next = np.isfinite(hops[:, head]) & (hops[:, tail] == hops[:, head] + 1)
            lost[tail] = lost.get(tail, 0) + was_next.astype(np.int32)
        changed = np.zeros(self.destinations.size, dtype=bool)
        for switch, count in lost.items():
            out = self.outbound[switch]
            next_hops = (hops[:, links.head[out]] == hops[:, switch:switch + 1] - 1).sum(axis=1)
            changed |= (count > 0) & (count == next_hops)
        return changed

    def _changed_bgp(self, dead: IntArray) -> BoolArray:
        """Destinations (rows) toward which the AS path some switch advertises may change. The
        tail of a dead link that loses its best path keeps its advertisement when a surviving
        offer has the same AS path. When none is left and no neighbour offers a path without its
        own ASN, it withdraws (a super-spine cut from a pod): that changes nothing as long as it
        faces no hosts and every switch whose best path went through it has another offer with
        the same AS path. Every other case is recomputed. Where every advertisement stays (or
        is withdrawn that way), each switch's offers are its old ones less some, so its routes
        are a subset of its old routes and the graph a subgraph of G."""
        links, bgp = self.links, self.links.bgp
        assert bgp is not None
        changed = np.zeros(self.destinations.size, dtype=bool)
        down = np.zeros(links.n_links, dtype=bool)
        down[dead] = True
        withdrawn: list[tuple[IntArray, int]] = []
        recheck: list[tuple[IntArray, int]] = []
        for link in dead:
            switch = int(links.tail[link])
            rows = np.flatnonzero(self.best_link[:, switch] == link)
            if rows.size == 0:
                continue
            kept, lost = self._keeps_its_path(rows, switch, down)
            changed[rows[~kept & ~lost]] = True
            recheck.append((rows[kept], switch))
            gone = rows[lost]
            if gone.size == 0:
                continue
            if bgp.allowas_in or links.has_hosts[switch]:
                changed[gone] = True
                continue
            longer = self._offered_a_longer_path(gone, switch, down)
            changed[gone[longer]] = True
            withdrawn.append((gone[~longer], switch))
        if not withdrawn:
            return changed
        # A withdrawn switch offers nothing: whoever kept a path, or had its best, through it
        # must find the same AS path elsewhere.
        cut = np.zeros((self.destinations.size, links.n_switches), dtype=bool)
        for rows, switch in withdrawn:
            cut[rows, switch] = True
        for rows, switch in withdrawn:
            for neighbour in np.unique(links.tail[self.inbound[switch]]):
                best = self.best_link[rows, neighbour]
                through = (best >= 0) & (links.head[np.maximum(best, 0)] == switch)
                recheck.append((rows[through], int(neighbour)))
        for rows, switch in recheck:
            if rows.size:
                kept, _ = self._keeps_its_path(rows, switch, down, cut)
                changed[rows[~kept & ~cut[rows, switch]]] = True
        return changed

    def _keeps_its_path(self, rows: IntArray, switch: int, down: BoolArray,
                        cut: BoolArray | None = None) -> tuple[BoolArray, BoolArray]:
        """Per row whose best link of ``switch`` is lost: whether a surviving offer (not over a
        ``down`` link, not from a switch ``cut`` from that row) has the same AS path, and whether
        no offer of that length survives at all."""
        links, bgp = self.links, self.links.bgp
        assert bgp is not None
        out = self.outbound[switch]
        out = out[~down[out]]
        if out.size == 0:
            return np.zeros(rows.size, dtype=bool), np.ones(rows.size, dtype=bool)
        # The new best path: the lowest neighbour, then the lowest link, still offering.
        out = out[np.lexsort((out, links.head[out]))]
        offers = self.accepted[np.ix_(rows, out)]
        if cut is not None:
            offers &= ~cut[np.ix_(rows, links.head[out])]
        has_offer = offers.any(axis=1)
        new_best = out[np.argmax(offers, axis=1)]
        old_best = links.head[self.best_link[rows, switch]]
        same = has_offer & same_as_path(self.best_link, links.head, bgp.asn, rows,
                                        links.head[new_best], old_best)
        return same, np.asarray(~has_offer, dtype=bool)

    def _offered_a_longer_path(self, rows: IntArray, switch: int, down: BoolArray) -> BoolArray:
        """Per row: whether a neighbour of ``switch`` (over a link that is up) has a route whose
        AS path lacks ``switch``'s ASN, which it would take once its shorter ones are gone."""
        links, bgp = self.links, self.links.bgp
        assert bgp is not None
        out = self.outbound[switch]
        neighbours = links.head[out[~down[out]]]
        if neighbours.size == 0:
            return np.zeros(rows.size, dtype=bool)
        row = np.repeat(rows, neighbours.size)
        neighbour = np.tile(neighbours, rows.size)
        routed = np.isfinite(self.hops[row, neighbour])
        clean = ~holds_asn(self.best_link, links.head, bgp.asn, row, neighbour, bgp.asn[switch])
        offered = (routed & clean).reshape(rows.size, neighbours.size)
        return np.asarray(np.any(offered, axis=1), dtype=bool)

    def new_turns_go_forward(self, rows: BoolArray, alive: BoolArray) -> tuple[bool, list[tuple[str, str]], int]:
        """Whether every dependency the recomputed destinations add goes forward in G's order;
        with the host pairs those destinations can no longer be reached from."""
        links = self.links
        block = route_block(links, self.destinations[rows], alive)
        sources = self.destinations
        cut = ~np.isfinite(block.hops[:, sources])
        pairs = [(links.switch_names[int(sources[s])], links.switch_names[int(block.destinations[r])])
                 for r, s in zip(*np.nonzero(cut), strict=True)]
        first, second = self.unused
        fresh = turns_in_block(block, first, second)
        assert self.rank is not None
        forward = bool(np.all(self.rank[first[fresh]] < self.rank[second[fresh]]))
        return forward, pairs[:SHOWN_PARTITIONS], len(pairs)


def _stacked(parts: list[np.ndarray | None], empty: tuple[int, int], dtype: type) -> np.ndarray:
    """Rows of the blocks' eBGP arrays, one array (every block of an eBGP fabric has them)."""
    present = [part for part in parts if part is not None]
    return np.vstack(present) if present else np.zeros(empty, dtype=dtype)


def failure_sets(n_cables: int, fail_links: int) -> Iterator[tuple[int, ...]]:
    """Every set of ``fail_links`` cables, in cable order."""
    return itertools.combinations(range(n_cables), fail_links)


def sweep_failures(links: FabricLinks, fail_links: int, limits: Limits = Limits(),
                   advance: Callable[[int], None] = lambda steps: None, max_cycles: int = 4) -> SweepResult:
    """Check the fabric's dependency graph under every set of ``fail_links`` failed cables."""
    started = time.monotonic()
    total = math.comb(links.n_cables, fail_links)
    baseline = _Baseline(links)
    if baseline.rank is None:
        healthy = explain_cycles(links, cycles(baseline.graph, max_cycles))
        return SweepResult(fail_links, total, 0, (), (), time.monotonic() - started, "the healthy fabric has a cycle", 0, healthy)
    deadlocks: list[FailureFinding] = []
    partitions: list[FailureFinding] = []
    checked = rebuilds = 0
    stopped: str | None = None
    for failed in failure_sets(links.n_cables, fail_links):
        if limits.max_sets is not None and checked >= limits.max_sets:
            stopped = f"count limit of {limits.max_sets:,} failure sets"
            break
        if limits.max_seconds is not None and time.monotonic() - started > limits.max_seconds:
            stopped = f"time limit of {limits.max_seconds:g} s"
            break
        checked += 1
        advance(1)
        alive = links.alive(failed)
        rows = baseline.changed_destinations(np.flatnonzero(~alive))
        if not rows.any():
            continue  # every destination keeps a subset of its routes: a subgraph of G
        forward, pairs, pair_count = baseline.new_turns_go_forward(rows, alive)
        names = tuple(links.cable_name(c) for c in failed)
        if pair_count:
            partitions.append(FailureFinding(names, unreachable=tuple(pairs), unreachable_pairs=pair_count))
        if forward:
            continue
        rebuilds += 1
        graph = dependency_graph(links, alive, baseline.candidates)
        found = cycles(graph, max_cycles)
        if found:
            deadlocks.append(FailureFinding(names, explain_cycles(links, found, alive)))
    return SweepResult(fail_links, total, checked, tuple(deadlocks), tuple(partitions), time.monotonic() - started, stopped, rebuilds)


__all__ = ["FailureFinding", "Limits", "SweepResult", "failure_sets", "sweep_failures"]
