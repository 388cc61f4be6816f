"""The buffer dependency graph and its cycles (Hu et al., HotNets 2016 §2)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.deadlock.graph import (
    candidate_turns,
    cycles,
    dependency_graph,
    topological_rank,
)
from qosforge.compiler.deadlock.links import fabric_links


def _buffers(links, cycle: tuple[int, ...]) -> list[str]:  # type: ignore[no-untyped-def]
    return [links.port_name(link, egress=False) for link in cycle]


def test_a_four_switch_ring_has_the_two_direction_cycles(fabrics: SimpleNamespace) -> None:
    links = fabric_links(fabrics.ring(4))
    graph = dependency_graph(links)
    # Every switch forwards transit traffic both ways round: 4 turns per direction.
    assert graph.first.size == 8
    found = cycles(graph)
    # s1 -> s2 enters s2 on its first port (Ethernet0); s4 -> s1 enters s1 on Ethernet0 too.
    assert [_buffers(links, c) for c in found] == [
        ["s2:Ethernet0", "s3:Ethernet0", "s4:Ethernet0", "s1:Ethernet4"],
        ["s4:Ethernet4", "s3:Ethernet4", "s2:Ethernet4", "s1:Ethernet0"],
    ]
    assert topological_rank(graph) is None


def test_a_three_switch_ring_is_free_every_route_is_one_hop(fabrics: SimpleNamespace) -> None:
    graph = dependency_graph(fabric_links(fabrics.ring(3)))
    assert graph.first.size == 0 and cycles(graph) == []


def test_a_leaf_spine_only_turns_up_down_and_has_no_cycle(fabrics: SimpleNamespace) -> None:
    links = fabric_links(fabrics.leaf_spine(3, 2))
    graph = dependency_graph(links)
    # Each spine turns leaf -> leaf for 3 x 2 ordered pairs; leaves forward nothing between switches.
    assert graph.first.size == 2 * 6
    assert set(links.head[graph.first].tolist()) == {3, 4}
    assert cycles(graph) == []
    rank = topological_rank(graph)
    assert rank is not None and bool(np.all(rank[graph.first] < rank[graph.second]))


def test_candidate_turns_never_go_straight_back(fabrics: SimpleNamespace) -> None:
    links = fabric_links(fabrics.ring(5))
    first, second = candidate_turns(links)
    assert first.size == 5 * 2  # per switch: 2 in x 2 out, minus the 2 U-turns
    assert not np.any(links.cable[first] == links.cable[second])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 12))
def test_every_ring_of_four_or_more_has_exactly_two_cycles_around_it(fabrics: SimpleNamespace, n: int) -> None:
    found = cycles(dependency_graph(fabric_links(fabrics.ring(n))))
    assert [len(c) for c in found] == [n, n]


@st.composite
def trees(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int]:
    n = draw(st.integers(2, 14))
    return [(draw(st.integers(0, i - 1)), i) for i in range(1, n)], n


@settings(max_examples=60, deadline=None)
@given(tree=trees())
def test_a_tree_never_has_a_cycle(fabrics: SimpleNamespace, tree: tuple[list[tuple[int, int]], int]) -> None:
    """One path between any two switches: a dependency chain can never come back to its start."""
    edges, n = tree
    assert cycles(dependency_graph(fabric_links(fabrics.topology(edges, n)))) == []


@pytest.mark.parametrize("leaves,spines", [(2, 1), (4, 2), (6, 4)])
def test_leaf_spines_are_free(fabrics: SimpleNamespace, leaves: int, spines: int) -> None:
    assert cycles(dependency_graph(fabric_links(fabrics.leaf_spine(leaves, spines)))) == []
