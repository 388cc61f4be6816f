"""Deadlock freedom under link failures: the incremental sweep agrees with rebuilding every
graph from scratch, and names the failures that close a cycle."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.deadlock.failures import Limits, sweep_failures
from qosforge.compiler.deadlock.graph import cycles, dependency_graph
from qosforge.compiler.deadlock.links import FabricLinks, fabric_links

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


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int, tuple[int, ...]]:
    n = draw(st.integers(3, 7))
    edges = [(draw(st.integers(0, i - 1)), i) for i in range(1, n)]
    edges += [(a, b) for a, b in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6)) if a != b]
    hosts = tuple(sorted(draw(st.sets(st.integers(0, n - 1), min_size=2, max_size=n))))
    return edges, n, hosts


@settings(max_examples=80, deadline=None)
@given(graph=graphs(), fail_links=st.sampled_from([1, 2]))
def test_the_incremental_sweep_equals_rebuilding_every_graph(fabrics: SimpleNamespace, graph: tuple[list[tuple[int, int]], int, tuple[int, ...]],
                                                             fail_links: int) -> None:
    edges, n, hosts = graph
    links = fabric_links(fabrics.topology(edges, n, hosts))
    if cycles(dependency_graph(links)):
        return  # the sweep needs a healthy graph without cycles (compile refuses the others)
    result = sweep_failures(links, fail_links)
    assert result.complete
    assert [f.failed for f in result.deadlocks] == _exact(links, fail_links)
