"""Shortest-path routes with ECMP groups (softswitch/helper/topology.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import HOST, UNCONNECTED, Topology, lane_capacity
from qosforge.softswitch.helper.topology import connected, first_path, routed_topology


def leaf_spine(leaves: int, spines: int, hosts: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Ports numbered leaf by leaf (hosts, then one uplink per spine), then spine by spine."""
    leaf_ports = hosts + spines
    counts = (leaf_ports,) * leaves + (leaves,) * spines
    peers = [HOST] * sum(counts)
    spine_base = leaves * leaf_ports
    for leaf in range(leaves):
        for spine in range(spines):
            up, down = leaf * leaf_ports + hosts + spine, spine_base + spine * leaves + leaf
            peers[up], peers[down] = down, up
    return counts, tuple(peers)


def test_leaf_spine_routes_use_every_spine() -> None:
    counts, peers = leaf_spine(leaves=3, spines=2, hosts=2)
    topology = routed_topology(counts, peers)
    # Leaf 0 reaches a host of leaf 2 over both uplinks (ports 2 and 3): the ECMP group.
    assert topology.routes[0][8] == (2, 3)
    # Its own hosts directly; a spine goes straight down to the host's leaf.
    assert topology.routes[0][1] == (1,)
    spine0 = 3
    assert topology.routes[spine0][8] == (peers[10],)
    # No route to a port without a host.
    assert topology.routes[0][2] == ()
    assert first_path(topology, 0, 8) == (2, peers[10], 8)


def test_a_chain_has_one_path_and_a_cut_link_disconnects() -> None:
    counts, peers = leaf_spine(leaves=2, spines=1, hosts=1)
    assert connected(counts, peers)
    topology = routed_topology(counts, peers)
    assert topology.routes[0][2] == (1,)
    cut = list(peers)
    cut[1], cut[peers[1]] = UNCONNECTED, UNCONNECTED
    assert not connected(counts, tuple(cut))
    assert routed_topology(counts, tuple(cut)).routes[0][2] == ()


@given(st.integers(2, 5), st.integers(1, 4), st.integers(1, 3))
def test_every_host_reaches_every_host_in_at_most_three_switches(leaves: int, spines: int, hosts: int) -> None:
    counts, peers = leaf_spine(leaves, spines, hosts)
    topology = routed_topology(counts, peers)
    host_ports = [p for p, q in enumerate(peers) if q == HOST]
    for src in host_ports:
        for dst in host_ports:
            if src != dst:
                path = first_path(topology, src, dst)
                assert path and path[-1] == dst and len(path) in (1, 3)
    # Every leaf spreads remote traffic over all its spines.
    assert all(len(topology.routes[leaf][host_ports[-1]]) == spines for leaf in range(leaves - 1))


def test_routes_are_stored_per_destination_switch_not_per_host() -> None:
    """A switch's table has one ECMP group per switch with hosts (its prefix, RFC 7938 §5.2.4)
    plus each host's last hop: 8 leaves x 16 hosts and 16 leaves x 16 hosts hold tables of
    switches x leaves, and ``routes[s][d]`` still answers per host port."""
    for leaves in (8, 16):
        counts, peers = leaf_spine(leaves=leaves, spines=4, hosts=16)
        topology = routed_topology(counts, peers)
        assert topology.leaves == tuple(range(leaves))
        assert len(topology.leaf_routes) == leaves + 4 and all(len(row) == leaves for row in topology.leaf_routes)
        assert len(topology.last_hop) == len(peers)
        # Leaf 1 (ports 20-39: hosts 20-35, uplinks 36-39) to a host of leaf 0: all its uplinks.
        assert topology.routes[1][0] == (36, 37, 38, 39)
        assert topology.routes[1][21] == (21,)


def test_a_full_per_host_table_is_taken_only_when_it_routes_by_switch() -> None:
    counts, peers = leaf_spine(leaves=3, spines=2, hosts=2)
    routed = routed_topology(counts, peers)
    table = [[routed.routes[s][d] for d in range(len(peers))] for s in range(len(counts))]
    again = Topology.from_host_routes(counts, peers, table)
    assert all(again.routes[s][d] == routed.routes[s][d] for s in range(len(counts)) for d in range(len(peers)))
    # Two hosts of leaf 2 sent over different uplinks from leaf 0: not a per-switch table.
    table[0][8], table[0][9] = (2,), (3,)
    with pytest.raises(ValueError, match="routes hosts of switch 2 differently"):
        Topology.from_host_routes(counts, peers, table)


def test_the_engine_route_table_grows_with_switches_and_leaves() -> None:
    """W_ROUTE is [switches, leaves, 2]; each host port carries its leaf and last hop in the
    link table, so a 4,096-host fabric's table is 2 MB where one entry per host port was 100 MB."""
    from qosforge.softswitch.engine.build import _links

    counts, peers = leaf_spine(leaves=6, spines=3, hosts=4)
    topology = routed_topology(counts, peers)
    port = SimpleNamespace(dscp_to_tc=(0,) * 64, dscp_to_color=(0,) * 64, tc_to_pg=(0,) * 8, tc_to_queue=(0,) * 8)
    arrays = _links(topology, topology.switch_of(), [port] * len(peers), 1, SimpleNamespace(pfc_watchdog=False))  # type: ignore[list-item, arg-type]
    route, link, members = arrays[L.W_ROUTE], arrays[L.W_LINK], arrays[L.W_ECMP]
    assert route.shape == (9, 6, 2)
    for s in range(len(counts)):
        for d, peer in enumerate(peers):
            if peer != HOST:
                continue
            if topology.switch_of()[d] == s:
                start, count = link[d, L.LK_HOP_START], link[d, L.LK_HOP_COUNT]
            else:
                start, count = route[s, link[d, L.LK_LEAF]]
            assert tuple(members[start:start + count]) == topology.routes[s][d]


def test_event_lanes_hold_two_entries_per_transmit_port() -> None:
    assert lane_capacity(16) == L.LANE_CAPACITY
    assert lane_capacity(24_576) == 65_536
    for ports in (1, 2047, 2048, 2049, 30_000):
        capacity = lane_capacity(ports)
        assert capacity >= 2 * ports and capacity & (capacity - 1) == 0 and capacity >= L.LANE_CAPACITY
    assert np.log2(lane_capacity(2049)) == 13
