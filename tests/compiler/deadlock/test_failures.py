"""Deadlock freedom under link failures: the incremental sweep agrees with rebuilding every
graph from scratch, and names the failures that close a cycle."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.deadlock.failures import Limits, SweepResult, _Baseline, sweep_failures
from qosforge.compiler.deadlock.graph import cycles, dependency_graph
from qosforge.compiler.deadlock.links import FabricLinks, fabric_links
from qosforge.compiler.deadlock.routes import route_block
from qosforge.compiler.routing import Routing

#: K4 without s3-s4: no cycle; without s1-s2 as well it is the ring s1-s3-s2-s4.
DIAMOND = [(0, 1), (1, 2), (0, 3), (0, 2), (1, 3)]


def _exact(links: FabricLinks, fail_links: int) -> list[tuple[str, ...]]:
    """The failure sets whose rebuilt graph has a cycle, by brute force."""
    found = []
    for failed in itertools.combinations(range(links.n_cables), fail_links):
        if cycles(dependency_graph(links, links.alive(failed))):
            found.append(tuple(links.cable_name(c) for c in failed))
    return found


def test_one_failure_turns_a_diamond_into_a_deadlocking_ring(fabrics: SimpleNamespace) -> None:
    links = fabric_links(fabrics.topology(DIAMOND, 4))
    assert cycles(dependency_graph(links)) == []
    result = sweep_failures(links, 1)
    assert (result.total, result.checked, result.complete) == (5, 5, True)
    assert [f.failed for f in result.deadlocks] == [("s1:Ethernet0 - s2:Ethernet0",)]
    ring = result.deadlocks[0].cycles
    assert sorted(set(c.switches) for c in ring) == [{"s1", "s2", "s3", "s4"}] * 2
    assert all(len(c.buffers) == 4 for c in ring)
    assert result.partitions == ()


def test_a_leaf_spine_is_free_under_any_single_failure_and_cut_off_by_two(fabrics: SimpleNamespace) -> None:
    links = fabric_links(fabrics.leaf_spine(3, 2))
    single = sweep_failures(links, 1)
    assert (single.checked, single.deadlocks, single.partitions) == (6, (), ())
    double = sweep_failures(links, 2)
    assert double.checked == 15 and double.deadlocks == ()
    # A leaf loses both uplinks: 3 pairs of cables; each cuts it off from the 2 other leaves both ways.
    assert len(double.partitions) == 3
    assert {f.unreachable_pairs for f in double.partitions} == {4}


def test_limits_stop_the_sweep_and_say_so(fabrics: SimpleNamespace) -> None:
    links = fabric_links(fabrics.leaf_spine(3, 2))
    result = sweep_failures(links, 2, Limits(max_sets=4))
    assert (result.checked, result.total, result.complete) == (4, 15, False)
    assert result.stopped == "count limit of 4 failure sets"
    timed = sweep_failures(links, 2, Limits(max_seconds=1e-9))
    assert timed.checked == 0 and timed.stopped == "time limit of 1e-09 s"


def test_a_healthy_cycle_is_reported_instead_of_a_sweep(fabrics: SimpleNamespace) -> None:
    result = sweep_failures(fabric_links(fabrics.ring(4)), 1)
    assert result.checked == 0 and len(result.healthy_cycles) == 2 and not result.complete


#: Random fabrics: edges, switch count, switches with hosts.
Graph = tuple[list[tuple[int, int]], int, tuple[int, ...]]


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int, tuple[int, ...]]:
    n = draw(st.integers(3, 7))
    edges = [(draw(st.integers(0, i - 1)), i) for i in range(1, n)]
    edges += [(a, b) for a, b in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6)) if a != b]
    hosts = tuple(sorted(draw(st.sets(st.integers(0, n - 1), min_size=2, max_size=n))))
    return edges, n, hosts


def _exact_cut_offs(links: FabricLinks, fail_links: int) -> list[tuple[tuple[str, ...], int]]:
    """The failure sets that leave host pairs without a route, and how many, by brute force."""
    found = []
    for failed in itertools.combinations(range(links.n_cables), fail_links):
        hops = route_block(links, links.hosts(), links.alive(failed)).hops[:, links.hosts()]
        if (count := int(np.count_nonzero(~np.isfinite(hops)))):
            found.append((tuple(links.cable_name(c) for c in failed), count))
    return found


@settings(max_examples=80, deadline=None)
@given(graph=graphs(), fail_links=st.sampled_from([1, 2]), data=st.data())
def test_the_incremental_sweep_equals_rebuilding_every_graph(
        fabrics: SimpleNamespace, graph: Graph, fail_links: int, data: st.DataObject) -> None:
    """Under either routing model (eBGP with few ASNs, so switches share them and loop detection
    cuts routes): the same deadlocks and the same cut-off host pairs as recomputing every set."""
    edges, n, hosts = graph
    routing = Routing()
    if data.draw(st.booleans()):
        asns = data.draw(st.lists(st.integers(65000, 65000 + n), min_size=n, max_size=n))
        routing = fabrics.ebgp(asns, data.draw(st.integers(0, 1)), data.draw(st.booleans()))
    links = fabric_links(fabrics.topology(edges, n, hosts, routing))
    if cycles(dependency_graph(links)):
        return  # the sweep needs a healthy graph without cycles (compile refuses the others)
    healthy = route_block(links, links.hosts(), links.alive())
    if not np.isfinite(healthy.hops[:, links.hosts()]).all():
        return  # compile refuses a fabric whose healthy routes cut hosts off
    result = sweep_failures(links, fail_links)
    assert result.complete
    assert [f.failed for f in result.deadlocks] == _exact(links, fail_links)
    cut_offs = [(f.failed, f.unreachable_pairs) for f in result.partitions]
    assert cut_offs == _exact_cut_offs(links, fail_links)


def test_roce_pods_double_failures_are_cut_offs_under_ebgp_and_cycles_under_shortest_paths(
        fabrics: SimpleNamespace) -> None:
    """roce-pod's fabric (4 leaves, 2 spines sharing ASN 65534, RFC 7938 §5.2.1): of the 28
    double failures none closes a cycle under eBGP, where a spine drops a path through another
    leaf and the affected pairs are cut off instead (16 sets); shortest paths bounce through a
    leaf and 12 deadlock (4 cut off: both links of one leaf); allowas-in 1 lets the bounce back."""
    asns = [64512, 64513, 64514, 64515, 65534, 65534]

    def sweep(routing: Routing) -> SweepResult:
        return sweep_failures(fabric_links(fabrics.topology(_LEAF_SPINE, 6, (0, 1, 2, 3), routing)), 2)

    ebgp = sweep(fabrics.ebgp(asns))
    assert (ebgp.checked, len(ebgp.deadlocks), len(ebgp.partitions)) == (28, 0, 16)
    shortest = sweep(Routing())
    assert (shortest.checked, len(shortest.deadlocks), len(shortest.partitions)) == (28, 12, 4)
    allowas = sweep(fabrics.ebgp(asns, allowas_in=1))
    assert [f.failed for f in allowas.deadlocks] == [f.failed for f in shortest.deadlocks]


#: 4 leaves (s1-s4) and 2 spines (s5, s6), every leaf to every spine.
_LEAF_SPINE = [(leaf, 4 + spine) for leaf in range(4) for spine in range(2)]


@settings(max_examples=300, deadline=None)
@given(graph=graphs(), data=st.data())
def test_a_destination_left_alone_keeps_its_routes_less_the_dead_links(
        fabrics: SimpleNamespace, graph: Graph, data: st.DataObject) -> None:
    """The sweep's premise: toward a destination it does not recompute, the routes after the
    failure are a subset of the healthy routes without the dead links (so its dependencies are a
    subgraph of the healthy graph's), and every host-facing switch keeps its distance (no host is
    cut off unseen), under either routing model; under shortest paths nothing else changes."""
    edges, n, hosts = graph
    asns = data.draw(st.lists(st.integers(65000, 65000 + n // 2), min_size=n, max_size=n))
    routing = Routing()
    if data.draw(st.booleans()):
        routing = fabrics.ebgp(asns, data.draw(st.integers(0, 1)), data.draw(st.booleans()))
    links = fabric_links(fabrics.topology(edges, n, hosts, routing))
    baseline = _Baseline(links)
    cables = st.sets(st.integers(0, links.n_cables - 1), min_size=1, max_size=2)
    failed = tuple(sorted(data.draw(cables)))
    alive = links.alive(failed)
    changed = baseline.changed_destinations(np.flatnonzero(~alive))
    healthy = route_block(links, baseline.destinations, links.alive())
    after = route_block(links, baseline.destinations, alive)
    kept = ~changed
    assert not np.any(after.on_route[kept] & ~(healthy.on_route[kept] & alive[None, :]))
    hosts = links.hosts()
    assert np.array_equal(after.hops[kept][:, hosts], healthy.hops[kept][:, hosts])
    if routing.model == "shortest-path":
        assert np.array_equal(after.on_route[kept], healthy.on_route[kept] & alive[None, :])
        assert np.array_equal(after.hops[kept], healthy.hops[kept])


def test_a_failure_that_changes_an_advertised_as_path_is_recomputed(
        fabrics: SimpleNamespace) -> None:
    """s4 reaches s1 over s2 and s3 (equal AS paths in length) and advertises the one through s2,
    its lowest neighbour; s5 shares s2's ASN, so it drops that path and has no route to s1. When
    s2 - s4 fails s4 advertises the path through s3 and s5 gains a route: the destination must be
    recomputed although s4 kept a next hop (a route the healthy graph never had)."""
    routing = fabrics.ebgp([65001, 65002, 65003, 65004, 65002])
    edges = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]
    links = fabric_links(fabrics.topology(edges, 5, (0, 4), routing))
    baseline = _Baseline(links)
    assert not np.isfinite(baseline.hops[0, 4])  # s5 has no route to s1 while everything is up
    cable = next(c for c in range(links.n_cables)
                 if links.cable_name(c).startswith("s2:") and "s4:" in links.cable_name(c))
    alive = links.alive((cable,))
    assert baseline.changed_destinations(np.flatnonzero(~alive)).tolist() == [True, False]
    assert route_block(links, np.array([0]), alive).hops[0, 4] == 3
