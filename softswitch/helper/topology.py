"""Forwarding for a fabric: shortest paths by hop count with ECMP over equal-cost next hops.

SAI programs carry QoS, not routes; a fabric's forwarding comes from the intent's topology, as a
routing protocol would build it in a leaf-spine or Clos fabric (BGP with multipath, RFC 7938
§5.2.4: equal-cost paths of the same length are all installed and flows hashed over them).
"""

from __future__ import annotations

from collections import deque

from qosforge.softswitch.engine.build import HOST, Topology


def _upstream(edges: list[tuple[int, int, int]]) -> dict[int, list[int]]:
    """For every switch, the switches with a link to it."""
    upstream: dict[int, list[int]] = {}
    for source, _, destination in edges:
        upstream.setdefault(destination, []).append(source)
    return upstream


def _hops_to(target: int, n_switches: int, edges: list[tuple[int, int, int]], upstream: dict[int, list[int]] | None = None) -> list[int]:
    """Switch hops from every switch to ``target`` (-1 where unreachable), BFS over links."""
    distance = [-1] * n_switches
    distance[target] = 0
    upstream = _upstream(edges) if upstream is None else upstream
    frontier = deque([target])
    while frontier:
        here = frontier.popleft()
        for neighbour in upstream.get(here, []):
            if distance[neighbour] < 0:
                distance[neighbour] = distance[here] + 1
                frontier.append(neighbour)
    return distance


def shortest_path_topology(ports_per_switch: tuple[int, ...], peers: tuple[int, ...]) -> Topology:
    """The routes of every switch to every host: the egress ports on a shortest path (in switch
    hops), all of them when several are equally short (the ECMP group, in port order).

    A group depends only on the switch the host sits on, as a routing protocol's route to that
    switch's prefix does (RFC 7938 §5.2.4): one BFS per switch with hosts and one group per
    (switch, destination switch), shared by every host behind it, so building a 4,096-host Clos
    costs switches x leaves groups, not switches x ports x links scans."""
    owner = [s for s, count in enumerate(ports_per_switch) for _ in range(count)]
    n_switches = len(ports_per_switch)
    # (switch, egress port, switch at the other end) for every inter-switch link direction.
    edges = [(owner[p], p, owner[q]) for p, q in enumerate(peers) if q >= 0]
    out: list[list[tuple[int, int]]] = [[] for _ in range(n_switches)]
    for source, port, other in edges:  # port order within each switch
        out[source].append((port, other))
    upstream = _upstream(edges)
    host_ports = [d for d, peer in enumerate(peers) if peer == HOST]
    targets = sorted({owner[d] for d in host_ports})
    leaf_routes: list[list[tuple[int, ...]]] = [[()] * len(targets) for _ in range(n_switches)]
    for i, target in enumerate(targets):
        distance = _hops_to(target, n_switches, edges, upstream)
        for s in range(n_switches):
            if s != target and distance[s] >= 0:
                leaf_routes[s][i] = tuple(p for p, other in out[s] if distance[other] == distance[s] - 1)
    last_hop = tuple((d,) if peer == HOST else () for d, peer in enumerate(peers))
    return Topology(ports_per_switch, peers, tuple(targets), tuple(tuple(row) for row in leaf_routes), last_hop)


def first_path(topology: Topology, src_port: int, dst_port: int) -> tuple[int, ...]:
    """The switch egress ports a packet from the host on ``src_port`` crosses to ``dst_port``,
    taking the first member of every ECMP group (for path lengths and delays, not forwarding)."""
    owner = topology.switch_of()
    path: list[int] = []
    switch = owner[src_port]
    for _ in range(len(topology.ports_per_switch) + 1):
        group = topology.group(switch, dst_port)
        if not group:
            return ()
        path.append(group[0])
        if group[0] == dst_port:
            return tuple(path)
        switch = owner[topology.peers[group[0]]]
    return ()


def connected(ports_per_switch: tuple[int, ...], peers: tuple[int, ...]) -> bool:
    """Whether every switch reaches every other over the links."""
    n_switches = len(ports_per_switch)
    owner = [s for s, count in enumerate(ports_per_switch) for _ in range(count)]
    edges = [(owner[p], p, owner[q]) for p, q in enumerate(peers) if q >= 0]
    return all(d >= 0 for d in _hops_to(0, n_switches, edges))


__all__ = ["connected", "first_path", "shortest_path_topology"]
