"""Shortest-path routes with ECMP groups (softswitch/helper/topology.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qosforge.softswitch.engine.build import HOST, UNCONNECTED
from qosforge.softswitch.helper.topology import connected, first_path, shortest_path_topology


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
    topology = shortest_path_topology(counts, peers)
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
    topology = shortest_path_topology(counts, peers)
    assert topology.routes[0][2] == (1,)
    cut = list(peers)
    cut[1], cut[peers[1]] = UNCONNECTED, UNCONNECTED
    assert not connected(counts, tuple(cut))
    assert shortest_path_topology(counts, tuple(cut)).routes[0][2] == ()


@given(st.integers(2, 5), st.integers(1, 4), st.integers(1, 3))
def test_every_host_reaches_every_host_in_at_most_three_switches(leaves: int, spines: int, hosts: int) -> None:
    counts, peers = leaf_spine(leaves, spines, hosts)
    topology = shortest_path_topology(counts, peers)
    host_ports = [p for p, q in enumerate(peers) if q == HOST]
    for src in host_ports:
        for dst in host_ports:
            if src != dst:
                path = first_path(topology, src, dst)
                assert path and path[-1] == dst and len(path) in (1, 3)
    # Every leaf spreads remote traffic over all its spines.
    assert all(len(topology.routes[leaf][host_ports[-1]]) == spines for leaf in range(leaves - 1))
