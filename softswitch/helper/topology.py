"""Forwarding for a fabric: the routing model's converged routes with ECMP over every next hop
it installs, computed by the compiler's one implementation (compiler/path_vector.py) so the
deadlock analysis and the simulated fabric forward alike.

SAI programs carry QoS, not routes; a fabric's forwarding comes from the intent's topology and
its ``topology.routing``: eBGP as RFC 7938 lays it out (AS-path loop detection, multipath; the
generators' default) or every shortest path in switch hops (an IGP with ECMP).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from qosforge.compiler.path_vector import converged_routes
from qosforge.compiler.routing import BgpSettings
from qosforge.softswitch.engine.build import HOST, Topology


@dataclass(frozen=True)
class _EnginePorts:
    """The inter-switch link directions of the engine ports (a link is its egress port)."""

    n_switches: int
    tail: npt.NDArray[np.int64]
    head: npt.NDArray[np.int64]
    port: npt.NDArray[np.int64]
    """Per link: its egress engine port."""


def _engine_links(ports_per_switch: tuple[int, ...], peers: tuple[int, ...]) -> _EnginePorts:
    owner = np.repeat(np.arange(len(ports_per_switch), dtype=np.int64), ports_per_switch)
    peer = np.asarray(peers, dtype=np.int64)
    port = np.flatnonzero(peer >= 0)
    return _EnginePorts(len(ports_per_switch), owner[port], owner[peer[port]], port)


def routed_topology(ports_per_switch: tuple[int, ...], peers: tuple[int, ...],
                    bgp: BgpSettings | None = None) -> Topology:
    """The routes of every switch to every host: eBGP's when ``bgp`` is given (the fabric's
    ASNs and knobs), else every shortest path in switch hops; the ECMP group of a switch holds
    every egress port the model installs, in port order.

    A group depends only on the switch the host sits on, as a routing protocol's route to that
    switch's prefix does (RFC 7938 §5.2.4): one row per switch with hosts and one group per
    (switch, destination switch), shared by every host behind it, so building a 4,096-host Clos
    costs switches x leaves groups, not switches x ports x links scans."""
    links = _engine_links(ports_per_switch, peers)
    owner = np.repeat(np.arange(len(ports_per_switch), dtype=np.int64), ports_per_switch)
    peer = np.asarray(peers, dtype=np.int64)
    targets = np.unique(owner[peer == HOST]) if peer.size else np.zeros(0, dtype=np.int64)
    routes = converged_routes(links, targets, np.ones(links.port.size, dtype=bool), bgp).on_route
    leaf_routes: list[list[tuple[int, ...]]] = [[()] * targets.size
                                                for _ in range(links.n_switches)]
    row, link = np.nonzero(routes)
    order = np.lexsort((links.port[link], links.tail[link], row))
    row, switch, port = row[order], links.tail[link][order], links.port[link][order]
    group_start = np.r_[True, (row[1:] != row[:-1]) | (switch[1:] != switch[:-1])]
    starts = np.flatnonzero(group_start) if row.size else row
    for first, last in zip(starts, (*starts[1:], row.size)[:starts.size], strict=True):
        leaf_routes[int(switch[first])][int(row[first])] = tuple(int(p) for p in port[first:last])
    last_hop = tuple((d,) if p == HOST else () for d, p in enumerate(peers))
    return Topology(ports_per_switch, peers, tuple(int(t) for t in targets),
                    tuple(tuple(r) for r in leaf_routes), last_hop)


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
    """Whether every switch reaches every other over the links: each switch takes the lowest
    label among itself and its neighbours until nothing changes (at most the diameter's rounds)."""
    links = _engine_links(ports_per_switch, peers)
    label = np.arange(links.n_switches)
    while True:
        lowest = label.copy()
        np.minimum.at(lowest, links.tail, label[links.head])
        if np.array_equal(lowest, label):
            return bool(np.all(label == 0))
        label = lowest


__all__ = ["connected", "first_path", "routed_topology"]
