"""Fabric metrics: flow completion time statistics and the depth of PFC pause spreading."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.softswitch.fabric_metrics import (
    FlowCompletionStats,
    PortRef,
    flow_completion_stats,
    pause_depth,
    pfc_victims,
)


def test_fct_statistics_of_finished_flows() -> None:
    start = np.zeros(100)
    finish = np.arange(1, 101) * 1e-3  # FCTs 1 ms .. 100 ms
    stats = flow_completion_stats(start, finish)
    assert stats.count == 100 and stats.unfinished == 0
    assert stats.mean_s == pytest.approx(50.5e-3)
    # Nearest rank: the 50th and the 99th smallest of 100.
    assert stats.p50_s == pytest.approx(50e-3)
    assert stats.p99_s == pytest.approx(99e-3)


def test_unfinished_flows_are_negative_or_nan_finishes() -> None:
    start = np.array([1.0, 1.0, 2.0, 3.0])
    finish = np.array([1.5, -1.0, np.nan, 3.25])
    stats = flow_completion_stats(start, finish)
    assert (stats.count, stats.unfinished) == (2, 2)
    assert stats.mean_s == pytest.approx(0.375)
    assert stats.p99_s == pytest.approx(0.5)


def test_no_finished_flow_gives_nan_stats_and_json_nulls() -> None:
    for start, finish in ((np.array([]), np.array([])), (np.array([0.0]), np.array([-1.0]))):
        stats = flow_completion_stats(start, finish)
        assert stats.count == 0 and stats.unfinished == finish.size
        assert math.isnan(stats.mean_s) and math.isnan(stats.p50_s) and math.isnan(stats.p99_s)
        document = stats.as_json()
        assert document == {"count": 0, "unfinished": finish.size, "mean_s": None, "p50_s": None, "p99_s": None}
        json.dumps(document, allow_nan=False)


def test_as_json_keeps_finite_values() -> None:
    stats = FlowCompletionStats(count=3, unfinished=1, mean_s=0.5, p50_s=0.4, p99_s=0.9)
    assert stats.as_json() == {"count": 3, "unfinished": 1, "mean_s": 0.5, "p50_s": 0.4, "p99_s": 0.9}


def test_mismatched_shapes_are_a_caller_bug() -> None:
    with pytest.raises(ValueError, match="shape"):
        flow_completion_stats(np.zeros(3), np.zeros(4))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10), st.floats(0, 5) | st.just(-1.0)), max_size=60))
def test_percentiles_are_ordered_observed_fcts(flows: list[tuple[float, float]]) -> None:
    start = np.array([s for s, _ in flows])
    finish = np.array([s + d if d >= 0 else -1.0 for s, d in flows])
    stats = flow_completion_stats(start, finish)
    fct = np.array([f - s for s, f in zip(start, finish, strict=True) if f >= 0])
    assert stats.count == fct.size and stats.count + stats.unfinished == len(flows)
    if fct.size:
        assert fct.min() <= stats.p50_s <= stats.p99_s <= fct.max()
        assert stats.p50_s in fct and stats.p99_s in fct
        assert fct.min() - 1e-12 <= stats.mean_s <= fct.max() + 1e-12
        # Nearest rank: at least 99 % of FCTs at or below p99, and fewer below it.
        assert np.mean(fct <= stats.p99_s) >= 0.99
        assert np.mean(fct < stats.p99_s) < 0.99


# --- pause depth -------------------------------------------------------------------------------


def chain_links(length: int) -> dict[PortRef, PortRef]:
    """s0 - s1 - ... - s{length-1}: s_i's port 'to{i-1}' is cabled to s_{i-1}'s port 'to{i}'.
    Traffic flows towards s0, so the egress port feeding s_{i-1} is s_i:to{i-1}."""
    return {PortRef(f"s{i}", f"to{i - 1}"): PortRef(f"s{i - 1}", f"to{i}") for i in range(1, length)}


ORIGIN = PortRef("s0", "host")


@settings(max_examples=50, deadline=None)
@given(data=st.data(), length=st.integers(1, 12))
def test_a_chain_paused_k_hops_upstream_has_depth_k(data: st.DataObject, length: int) -> None:
    spread = data.draw(st.integers(0, length - 1))
    paused = [PortRef(f"s{i}", f"to{i - 1}") for i in range(1, spread + 1)]
    links = chain_links(length)
    assert pause_depth(ORIGIN, paused, links) == spread
    # The reverse cable direction describes the same cables.
    reverse = {far: near for near, far in links.items()}
    assert pause_depth(ORIGIN, paused, reverse) == spread


def test_a_gap_stops_the_chain() -> None:
    links = chain_links(6)
    paused = [PortRef("s1", "to0"), PortRef("s2", "to1"), PortRef("s4", "to3"), PortRef("s5", "to4")]
    assert pause_depth(ORIGIN, paused, links) == 2


def test_downstream_and_unrelated_pauses_do_not_count() -> None:
    links = chain_links(4)
    # s0's port towards s1 (traffic away from the origin) and a port of another island.
    paused = [PortRef("s0", "to1"), PortRef("elsewhere", "Ethernet0"), ORIGIN]
    assert pause_depth(ORIGIN, paused, links) == 0
    assert pause_depth(ORIGIN, [], links) == 0


def leaf_spine_links(leaves: int, spines: int) -> dict[PortRef, PortRef]:
    """Leaf l's port 'spine{s}' is cabled to spine s's port 'leaf{l}'."""
    return {
        PortRef(f"leaf{leaf}", f"spine{spine}"): PortRef(f"spine{spine}", f"leaf{leaf}")
        for leaf in range(leaves)
        for spine in range(spines)
    }


def test_pause_spreading_through_a_leaf_spine_fabric() -> None:
    links = leaf_spine_links(leaves=4, spines=2)
    stalled = PortRef("leaf0", "Ethernet0")  # the edge port of the stalled host
    spines_to_leaf0 = [PortRef("spine0", "leaf0"), PortRef("spine1", "leaf0")]
    assert pause_depth(stalled, spines_to_leaf0, links) == 1
    other_uplinks = [PortRef(f"leaf{leaf}", f"spine{s}") for leaf in (1, 2) for s in (0, 1)]
    assert pause_depth(stalled, spines_to_leaf0 + other_uplinks, links) == 2
    # Leaf 1's uplink to spine 1 paused, but spine 1 itself never paused towards leaf 0.
    assert pause_depth(stalled, [PortRef("spine0", "leaf0"), PortRef("leaf1", "spine1")], links) == 1
    # Without the first hop nothing further counts: a pause cannot skip a switch.
    assert pause_depth(stalled, other_uplinks, links) == 0


def test_a_ring_terminates_and_counts_the_shortest_distance() -> None:
    # s0 - s1 - s2 - s3 - s0, every port paused: s1 and s3 are one hop away, s2 two either way,
    # and the ports of s1 and s3 feeding s2 (a cyclic buffer dependency) three.
    ring = {
        PortRef(f"s{i}", f"to{(i - 1) % 4}"): PortRef(f"s{(i - 1) % 4}", f"to{i}") for i in range(4)
    }
    everything = [*ring, *ring.values()]
    assert pause_depth(ORIGIN, everything, ring) == 3
    towards_origin = [PortRef("s1", "to0"), PortRef("s3", "to0"), PortRef("s2", "to1"), PortRef("s2", "to3")]
    assert pause_depth(ORIGIN, towards_origin, ring) == 2


def test_a_tree_reports_its_deepest_paused_branch() -> None:
    # root <- a <- a1 <- a2 and root <- b: branch a paused three deep, b one deep.
    links = {
        PortRef("a", "down"): PortRef("root", "a"),
        PortRef("b", "down"): PortRef("root", "b"),
        PortRef("a1", "down"): PortRef("a", "a1"),
        PortRef("a2", "down"): PortRef("a1", "a2"),
    }
    paused = [PortRef("a", "down"), PortRef("b", "down"), PortRef("a1", "down"), PortRef("a2", "down")]
    assert pause_depth(PortRef("root", "host"), paused, links) == 3
    assert pause_depth(PortRef("root", "host"), paused[:2], links) == 1


# Victim flows. Queues: 0 leaf1 uplink, 1 spine -> leaf4, 2 leaf4 -> host R (the incast's
# congested port), 3 leaf4 -> host V, 4 leaf2 uplink (not on any paused path).
_PAUSED = [True, True, False, False, False]
_CONGESTED = [False, False, True, False, False]


def test_a_flow_paused_upstream_of_a_congested_port_it_does_not_cross_is_a_victim() -> None:
    incast = [[0], [1], [2]]  # leaf1 -> spine -> leaf4 -> R: paused, and crosses the congestion
    victim = [[0], [1], [3]]  # leaf1 -> spine -> leaf4 -> V: paused with it, its own port is free
    bystander = [[4], [3]]  # never crosses a paused queue
    exposure = pfc_victims([incast, victim, bystander], _PAUSED, _CONGESTED)
    assert exposure.paused == (True, True, False)
    assert exposure.victim == (False, True, False)


def test_with_ecmp_a_flow_is_paused_only_if_every_member_of_a_stage_was() -> None:
    # Two uplinks at the first stage, one paused: the flow may have taken the free one.
    paused = [True, False, False, False]
    exposure = pfc_victims([[[0, 1], [3]], [[0], [3]]], paused, [False] * 4)
    assert exposure.paused == (False, True)
    assert exposure.victim == (False, True)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=6),
    st.lists(
        st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=3), min_size=1, max_size=4),
        max_size=8,
    ),
)
def test_victims_are_paused_flows_and_nothing_pauses_without_a_paused_queue(
    queues: list[tuple[bool, bool]], flows: list[list[list[int]]]
) -> None:
    paused = [p for p, _ in queues]
    congested = [c and not p for p, c in queues]
    flows = [[[q % len(queues) for q in hop] for hop in hops] for hops in flows]
    exposure = pfc_victims(flows, paused, congested)
    assert all(p for p, v in zip(exposure.paused, exposure.victim, strict=True) if v)
    if not any(paused):
        assert not any(exposure.paused) and not any(exposure.victim)
