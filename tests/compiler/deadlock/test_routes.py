"""The analysis routes as the software switch forwards: same ECMP groups, same reach, under
either routing model and any failed links."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.deadlock.links import fabric_links
from qosforge.compiler.deadlock.routes import next_hops, route_block
from qosforge.compiler.routing import EBGP, Routing
from qosforge.compiler.topology import ResolvedPort, ResolvedTopology
from qosforge.softswitch.engine.build import HOST, UNCONNECTED
from qosforge.softswitch.helper.topology import routed_topology


def _softswitch_groups(topology: ResolvedTopology,
                       failed: frozenset[str] = frozenset()) -> dict[tuple[str, str], set[str]]:
    """(switch, destination switch) -> the egress ports the software switch routes on, with the
    ports named in ``failed`` (``switch:port``) unconnected, as a failed link leaves them."""
    ports = [(s.name, p) for s in topology.switches for p in s.ports]
    index = {f"{name}:{port.name}": i for i, (name, port) in enumerate(ports)}

    def peer(name: str, port: ResolvedPort) -> int:
        if f"{name}:{port.name}" in failed or port.peer is None:
            return UNCONNECTED
        return HOST if port.peer == "host" else index[port.peer]

    peers = tuple(peer(name, port) for name, port in ports)
    bgp = topology.routing.bgp(tuple(s.name for s in topology.switches))
    sim = routed_topology(tuple(len(s.ports) for s in topology.switches), peers, bgp)
    groups: dict[tuple[str, str], set[str]] = {}
    for s, switch in enumerate(topology.switches):
        for d, (owner, port) in enumerate(ports):
            if port.peer == "host" and owner != switch.name:
                groups[(switch.name, owner)] = {f"{ports[p][0]}:{ports[p][1].name}" for p in sim.routes[s][d]}
    return groups


@st.composite
def connected_graphs(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int]:
    n = draw(st.integers(2, 9))
    edges = [(draw(st.integers(0, i - 1)), i) for i in range(1, n)]  # a spanning tree
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=8))
    edges += [(a, b) for a, b in extra if a != b]
    return edges, n


@st.composite
def routings(draw: st.DrawFn, n: int) -> Routing:
    """Shortest paths, or eBGP with few ASNs (so switches share them) and any knobs."""
    if draw(st.booleans()):
        return Routing()
    asns = draw(st.lists(st.integers(65000, 65000 + n), min_size=n, max_size=n))
    named = tuple((f"s{i + 1}", asn) for i, asn in enumerate(asns))
    return Routing(EBGP, named, draw(st.integers(0, 1)), draw(st.booleans()))


@settings(max_examples=80, deadline=None)
@given(graph=connected_graphs(), data=st.data())
def test_ecmp_groups_equal_the_software_switch_routes(
        fabrics: SimpleNamespace, graph: tuple[list[tuple[int, int]], int], data: st.DataObject) -> None:
    edges, n = graph
    resolved = fabrics.topology(edges, n, routing=data.draw(routings(n)))
    links = fabric_links(resolved)
    failed = data.draw(st.sets(st.integers(0, links.n_cables - 1), max_size=2))
    alive = links.alive(tuple(sorted(failed)))
    dead = np.flatnonzero(~alive)
    dead_ports = frozenset(links.port_name(int(link), egress=True) for link in dead)
    block = route_block(links, links.hosts(), alive)
    expected = _softswitch_groups(resolved, dead_ports)
    for row, destination in enumerate(block.destinations):
        for switch in range(links.n_switches):
            if switch == destination:
                continue
            ours = {links.port_name(int(link), egress=True) for link in next_hops(links, switch, block, row)}
            assert ours == expected[(links.switch_names[switch], links.switch_names[int(destination)])]
            assert bool(ours) == bool(np.isfinite(block.hops[row, switch]))


def test_a_spine_nobody_sends_through_is_not_reached(fabrics: SimpleNamespace) -> None:
    """Leaf-spine with s1-s3 (leaf1-spine1) cut: spine1 still has a route to leaf1 (down to
    leaf2, up to spine2) but no leaf sends to leaf1 through spine1, so no packet bounces."""
    links = fabric_links(fabrics.leaf_spine(2, 2))
    alive = links.alive((0,))  # s1:Ethernet0 - s3:Ethernet0
    block = route_block(links, np.array([0]), alive)
    assert block.hops[0].tolist() == [0, 2, 3, 1]
    spine1_routes = {links.port_name(int(link), egress=True) for link in next_hops(links, 2, block, 0)}
    assert spine1_routes == {"s3:Ethernet4"}  # down to leaf2: a bounce, if anyone sent this way
    carrying = {links.port_name(int(link), egress=True) for link in np.flatnonzero(block.carries[0])}
    assert carrying == {"s2:Ethernet4", "s4:Ethernet0"}  # leaf2 > spine2 > leaf1 only
