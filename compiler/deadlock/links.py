"""The fabric as the deadlock analysis sees it: switches, which of them face hosts, and every
inter-switch link direction with the egress port it leaves by and the ingress port it enters by.

A directed link is also a buffer: the ingress port at its head holds the packets that crossed it
(per priority group, the PFC-paused unit, IEEE 802.1Qbb), so a link direction stands for the
node (head switch, ingress port, PG) of the buffer dependency graph (:mod:`.graph`). Links are
numbered in switch order, then port order: the order the software switch numbers its engine
ports (softswitch/helper/fabric.py), so ECMP groups read the same in both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from qosforge.compiler.path_vector import LinkOrder
from qosforge.compiler.routing import SHORTEST_PATH_ROUTING, BgpSettings, Routing
from qosforge.compiler.topology import ResolvedTopology

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class FabricLinks:
    """Switches and directed inter-switch links of a resolved topology (one cable = two links)."""

    switch_names: tuple[str, ...]
    has_hosts: BoolArray
    """Per switch: whether any port faces a host (a source and sink of traffic)."""
    tail: IntArray
    """Per directed link: the switch that transmits on it."""
    head: IntArray
    """Per directed link: the switch that receives (and buffers) what crosses it."""
    egress_port: tuple[str, ...]
    """Per directed link: the tail switch's port."""
    ingress_port: tuple[str, ...]
    """Per directed link: the head switch's port (the buffer the link fills)."""
    cable: IntArray
    """Per directed link: the physical link (cable) it is a direction of; a failure takes both."""
    routing: Routing = SHORTEST_PATH_ROUTING
    """The routing model whose routes the analysis follows (compiler/routing.py)."""

    @cached_property
    def bgp(self) -> BgpSettings | None:
        """The eBGP settings over these switches (None: shortest paths)."""
        return self.routing.bgp(self.switch_names)

    @cached_property
    def order(self) -> LinkOrder:
        """The link orders the eBGP rounds use (computed once, reused for every failure)."""
        return LinkOrder.of(self)

    @property
    def n_switches(self) -> int:
        return len(self.switch_names)

    @property
    def n_links(self) -> int:
        return int(self.tail.size)

    @property
    def n_cables(self) -> int:
        return int(self.cable.max()) + 1 if self.cable.size else 0

    def cable_links(self, cable: int) -> IntArray:
        """The directed links of one cable (two, or one where only one end names the other)."""
        return np.flatnonzero(self.cable == cable)

    def cable_name(self, cable: int) -> str:
        """``a:Ethernet8 - b:Ethernet0``, ends in switch order."""
        link = int(self.cable_links(cable)[0])
        return f"{self.port_name(link, egress=True)} - {self.port_name(link, egress=False)}"

    def port_name(self, link: int, *, egress: bool) -> str:
        if egress:
            return f"{self.switch_names[int(self.tail[link])]}:{self.egress_port[link]}"
        return f"{self.switch_names[int(self.head[link])]}:{self.ingress_port[link]}"

    @cached_property
    def hostless_inbound(self) -> tuple[IntArray, IntArray, IntArray]:
        """The links into switches without hosts, grouped by that switch: (links, group starts,
        the switch of each group), for spreading "reached" from a switch to the ones it feeds."""
        inbound = np.flatnonzero(~self.has_hosts[self.head])
        inbound = inbound[np.argsort(self.head[inbound], kind="stable")]
        heads, starts = np.unique(self.head[inbound], return_index=True)
        return inbound, starts.astype(np.int64), heads.astype(np.int64)

    def hosts(self) -> IntArray:
        """The switches that face hosts: the destinations routes are computed to."""
        return np.flatnonzero(self.has_hosts)

    def switch_graph(self, alive: BoolArray | None = None, *, reverse: bool = False) -> csr_matrix:
        """The directed switch adjacency over the links that are up (parallel links count once);
        ``reverse``: head -> tail, for searches from a destination back to its sources."""
        keep = np.ones(self.n_links, dtype=bool) if alive is None else alive
        ones = np.ones(int(keep.sum()), dtype=np.float64)
        ends = (self.head[keep], self.tail[keep]) if reverse else (self.tail[keep], self.head[keep])
        from scipy.sparse import csr_matrix

        graph = csr_matrix((ones, ends), shape=(self.n_switches, self.n_switches))
        graph.data[:] = 1.0  # duplicates were summed: a parallel link is still one hop
        return graph

    def alive(self, failed_cables: tuple[int, ...] = ()) -> BoolArray:
        """Per directed link: whether it is up when ``failed_cables`` are down."""
        return ~np.isin(self.cable, np.asarray(failed_cables, dtype=np.int64))


def fabric_links(topology: ResolvedTopology) -> FabricLinks:
    """Every switch-to-switch port of ``topology`` as a directed link (its peer's port is the
    ingress); ports facing hosts or nothing make a switch a host switch or are ignored."""
    index = {switch.name: position for position, switch in enumerate(topology.switches)}
    has_hosts = np.array(
        [any(port.peer == "host" for port in switch.ports) for switch in topology.switches],
        dtype=bool,
    )
    tail: list[int] = []
    head: list[int] = []
    egress: list[str] = []
    ingress: list[str] = []
    cables: list[int] = []
    cable_of: dict[frozenset[tuple[str, str]], int] = {}
    for position, switch in enumerate(topology.switches):
        for port in switch.ports:
            if port.peer in (None, "host"):
                continue
            peer_switch, _, peer_port = port.peer.partition(":")
            if peer_switch not in index:
                continue  # the topology resolver refuses these; nothing to route over
            tail.append(position)
            head.append(index[peer_switch])
            egress.append(port.name)
            ingress.append(peer_port)
            ends = frozenset({(switch.name, port.name), (peer_switch, peer_port)})
            cables.append(cable_of.setdefault(ends, len(cable_of)))
    return FabricLinks(
        switch_names=tuple(s.name for s in topology.switches),
        has_hosts=has_hosts,
        tail=np.asarray(tail, dtype=np.int64),
        head=np.asarray(head, dtype=np.int64),
        egress_port=tuple(egress),
        ingress_port=tuple(ingress),
        cable=np.asarray(cables, dtype=np.int64),
        routing=topology.routing,
    )


__all__ = ["BoolArray", "FabricLinks", "IntArray", "fabric_links"]
