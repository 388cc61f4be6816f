"""Topology resolution: every switch's ports with speed, cable length and peer, and the
fabric's worst-case host-to-host round-trip time (docs/architecture.md §2, issue "Compilation").

The base RTT of a class is derived from the longest host-to-host path: the sum of one-way link
latencies there and back, plus the store-and-forward serialisation of one MTU-sized packet at
every hop on the way out and one ACK-sized packet on the way back.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from qosforge.compiler.intent import Intent, LeafSpine, SwitchSpec, expand_port_names
from qosforge.compiler.loader import SourceMap

#: Signal propagation in fibre and twinax, ~2/3 c; SONiC's Mellanox headroom script uses
#: 198,000,000 m/s (sonic-swss cfgmgr/buffer_headroom_mellanox.lua).
PROPAGATION_M_PER_S = 198_000_000.0
#: A TCP ACK on the wire: 64 B minimum Ethernet frame + 20 B preamble and inter-frame gap.
ACK_WIRE_BYTES = 84.0


@dataclass(frozen=True)
class ResolvedPort:
    name: str
    speed_bps: float
    cable_m: float
    peer: str | None
    """'host', 'switch:port', or None when unconnected."""
    latency_s: float


@dataclass(frozen=True)
class ResolvedSwitch:
    name: str
    profile: str
    ports: tuple[ResolvedPort, ...]
    role: str
    """'leaf', 'spine' or 'switch' (explicit topologies)."""

    @property
    def signature(self) -> tuple[str, tuple[tuple[float, float], ...]]:
        """Switches with equal signatures get identical plans (shared across the fabric)."""
        return self.profile, tuple((p.speed_bps, p.cable_m) for p in self.ports)


@dataclass(frozen=True)
class ResolvedTopology:
    switches: tuple[ResolvedSwitch, ...]
    path_link_latencies_s: tuple[float, ...]
    path_link_speeds_bps: tuple[float, ...]
    """The links of the longest host-to-host path, one way, host to host."""

    def rtt_s(self, mtu_bytes: float) -> float:
        propagation = 2.0 * sum(self.path_link_latencies_s)
        data_serialisation = sum(mtu_bytes * 8.0 / speed for speed in self.path_link_speeds_bps)
        ack_serialisation = sum(ACK_WIRE_BYTES * 8.0 / speed for speed in self.path_link_speeds_bps)
        return propagation + data_serialisation + ack_serialisation

    @property
    def hops(self) -> int:
        return len(self.path_link_latencies_s)


def resolve_topology(intent: Intent, source_map: SourceMap) -> ResolvedTopology:
    if intent.topology.leaf_spine is not None:
        return _leaf_spine(intent.topology.leaf_spine)
    if intent.topology.clos is not None:
        # compiler/clos.py builds on this module's types, so it is imported here, not at the top.
        from qosforge.compiler.clos import resolve_clos

        return resolve_clos(intent.topology.clos)
    assert intent.topology.switches is not None
    return _explicit(intent, source_map)


def _leaf_spine(spec: LeafSpine) -> ResolvedTopology:
    spine_profile = spec.spine_profile or spec.leaf_profile

    def port_name(index: int) -> str:
        return f"{spec.port_prefix}{index * spec.port_stride}"

    switches: list[ResolvedSwitch] = []
    fabric_latency = spec.link_latency
    for leaf in range(spec.leaves):
        ports = [
            ResolvedPort(port_name(h), spec.host_link.speed, spec.host_link.cable, "host", spec.link_latency)
            for h in range(spec.hosts_per_leaf)
        ]
        ports += [
            ResolvedPort(
                port_name(spec.hosts_per_leaf + s),
                spec.fabric_link.speed,
                spec.fabric_link.cable,
                f"spine{s + 1}:{port_name(leaf)}",
                fabric_latency,
            )
            for s in range(spec.spines)
        ]
        switches.append(ResolvedSwitch(f"leaf{leaf + 1}", spec.leaf_profile, tuple(ports), "leaf"))
    for spine in range(spec.spines):
        ports = [
            ResolvedPort(
                port_name(leaf),
                spec.fabric_link.speed,
                spec.fabric_link.cable,
                f"leaf{leaf + 1}:{port_name(spec.hosts_per_leaf + spine)}",
                fabric_latency,
            )
            for leaf in range(spec.leaves)
        ]
        switches.append(ResolvedSwitch(f"spine{spine + 1}", spine_profile, tuple(ports), "spine"))
    latencies: tuple[float, ...]
    speeds: tuple[float, ...]
    if spec.leaves == 1:
        latencies = (spec.link_latency, spec.link_latency)
        speeds = (spec.host_link.speed, spec.host_link.speed)
    else:
        latencies = (spec.link_latency, fabric_latency, fabric_latency, spec.link_latency)
        speeds = (spec.host_link.speed, spec.fabric_link.speed, spec.fabric_link.speed, spec.host_link.speed)
    return ResolvedTopology(tuple(switches), latencies, speeds)


def _explicit_ports(switch: SwitchSpec) -> Iterator[tuple[int, str, float, float, str | None]]:
    for index, port in enumerate(switch.ports):
        for name in expand_port_names(port.name):
            yield index, name, port.speed, port.cable, port.peer


@dataclass
class _PortDraft:
    """A port while links are being applied (peers and latencies may still change)."""

    speed_bps: float
    cable_m: float
    peer: str | None
    latency_s: float


def _explicit(intent: Intent, source_map: SourceMap) -> ResolvedTopology:
    specs = intent.topology.switches or []
    names: dict[str, int] = {}
    for index, switch in enumerate(specs):
        if switch.name in names:
            raise source_map.error(("topology", "switches", index, "name"), f"switch '{switch.name}' is defined twice", "give every switch a unique name")
        names[switch.name] = index
    ports_of: dict[str, dict[str, _PortDraft]] = {}
    for s_index, switch in enumerate(specs):
        table: dict[str, _PortDraft] = {}
        for p_index, name, speed, cable, peer in _explicit_ports(switch):
            if name in table:
                raise source_map.error(("topology", "switches", s_index, "ports", p_index, "name"), f"port {name} of '{switch.name}' is listed twice", "list each port once (ranges must not overlap)")
            if peer not in (None, "host"):
                peer_switch, _, peer_port = peer.partition(":")
                if peer_switch not in names or not peer_port:
                    raise source_map.error(("topology", "switches", s_index, "ports", p_index, "peer"), f"peer '{peer}' is not 'host' or 'switch:port' of a defined switch", f"known switches: {', '.join(sorted(names))}")
            latency = cable / PROPAGATION_M_PER_S
            if peer == "host" and intent.topology.host_latency is not None:
                latency = intent.topology.host_latency
            table[name] = _PortDraft(speed, cable, peer, latency)
        ports_of[switch.name] = table
    for l_index, link in enumerate(intent.topology.links):
        for end_name, end in (("a", link.a), ("b", link.b)):
            switch_name, _, port_name = end.partition(":")
            if switch_name not in ports_of or port_name not in ports_of[switch_name]:
                raise source_map.error(("topology", "links", l_index, end_name), f"'{end}' is not a port of a defined switch", "write switch:port with a port listed under that switch")
        a_switch, _, a_port = link.a.partition(":")
        b_switch, _, b_port = link.b.partition(":")
        a_entry, b_entry = ports_of[a_switch][a_port], ports_of[b_switch][b_port]
        if a_entry.speed_bps != b_entry.speed_bps:
            raise source_map.error(("topology", "links", l_index), f"{link.a} runs at {a_entry.speed_bps / 1e9:g}G but {link.b} at {b_entry.speed_bps / 1e9:g}G", "both ends of a link must have the same speed")
        a_entry.peer, b_entry.peer = link.b, link.a
        if link.latency is not None:
            a_entry.latency_s = b_entry.latency_s = link.latency
    switches = tuple(
        ResolvedSwitch(
            spec.name,
            spec.profile,
            tuple(ResolvedPort(name, e.speed_bps, e.cable_m, e.peer, e.latency_s) for name, e in ports_of[spec.name].items()),
            "switch",
        )
        for spec in specs
    )
    return _longest_host_path(switches, source_map)


def _longest_host_path(switches: tuple[ResolvedSwitch, ...], source_map: SourceMap) -> ResolvedTopology:
    """The worst case over host-facing switch pairs of the fewest-hop switch path between them
    (how ECMP/BGP fabrics route), found with SciPy's compiled BFS in bounded-memory chunks so
    explicit fabrics of thousands of switches stay fast."""
    index = {switch.name: position for position, switch in enumerate(switches)}
    link_port: dict[tuple[int, int], ResolvedPort] = {}
    for position, switch in enumerate(switches):
        for port in switch.ports:
            if port.peer in (None, "host"):
                continue
            link_port.setdefault((position, index[port.peer.partition(":")[0]]), port)
    host_ports = [[p for p in s.ports if p.peer == "host"] for s in switches]
    edge = np.array([i for i, ports in enumerate(host_ports) if ports], dtype=np.int64)
    if edge.size == 0:
        raise source_map.error(("topology", "switches"), "no port is connected to a host ('peer: host')", "mark host-facing ports with peer: host so RTTs can be derived")
    rows = np.array([u for u, _ in link_port], dtype=np.int64)
    columns = np.array([v for _, v in link_port], dtype=np.int64)
    graph = csr_matrix((np.ones(rows.size), (rows, columns)), shape=(len(switches), len(switches)))
    best_hops, best_pair = -1.0, (int(edge[0]), int(edge[0]))
    for chunk in np.array_split(edge, max(1, edge.size // 256)):
        hops = shortest_path(graph, directed=False, unweighted=True, indices=chunk)[:, edge]
        if np.isinf(hops).any():
            row, column = np.argwhere(np.isinf(hops))[0]
            first, second = switches[int(chunk[row])].name, switches[int(edge[column])].name
            raise source_map.error(("topology", "switches"), f"switches '{first}' and '{second}' both face hosts but are not connected", "add the links between them (peer: switch:port)")
        row, column = np.unravel_index(int(np.argmax(hops)), hops.shape)
        if hops[row, column] > best_hops:
            best_hops, best_pair = float(hops[row, column]), (int(chunk[row]), int(edge[column]))
    start, end = best_pair
    _, predecessors = shortest_path(graph, directed=False, unweighted=True, indices=[start], return_predecessors=True)
    links: list[ResolvedPort] = []
    node = end
    while node != start:
        parent = int(predecessors[0, node])
        links.append(link_port.get((parent, node)) or link_port[(node, parent)])
        node = parent
    first_host = max(host_ports[start], key=lambda p: p.latency_s)
    last_host = max(host_ports[end], key=lambda p: p.latency_s)
    path = [first_host, *reversed(links), last_host]
    return ResolvedTopology(switches, tuple(p.latency_s for p in path), tuple(p.speed_bps for p in path))
