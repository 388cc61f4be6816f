"""Topology resolution: every switch's ports with speed, cable length and peer, and the
fabric's worst-case host-to-host round-trip time (docs/architecture.md §2, issue "Compilation").

The base RTT of a class is derived from the longest host-to-host path (the longest route eBGP
installs in an explicit topology that runs it): the sum of one-way link latencies there and back, plus the store-and-forward serialisation of one MTU-sized packet at
every hop on the way out and one ACK-sized packet on the way back.

Two delays per link, one model for the compiler and the software switch: the **wire** (the
cable at the propagation speed plus any declared PHY delay: gearbox, retimer, FEC) is what a
PFC frame and the data it stops cross, so PFC headroom is sized from it alone (IEEE 802.1Qbb's
delay model; sonic-swss cfgmgr/buffer_headroom_mellanox.lua counts the cable and the gearbox
both ways). The **link latency** is the one-way per-hop latency including the receiving switch's
forwarding; the RTTs behind ECN K and the BDP use it. Forwarding never adds to headroom: packets
still inside the upstream switch wait behind its paused egress. A latency below the wire is
physically impossible and refused at its field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from qosforge.compiler.clos import resolve_clos
from qosforge.compiler.intent import Intent, LeafSpine, LinkSpec, SwitchSpec
from qosforge.compiler.loader import SourceMap
from qosforge.compiler.port_names import expand_port_names
from qosforge.compiler.resolved import ACK_WIRE_BYTES as ACK_WIRE_BYTES
from qosforge.compiler.resolved import PROPAGATION_M_PER_S as PROPAGATION_M_PER_S
from qosforge.compiler.resolved import ResolvedPort as ResolvedPort
from qosforge.compiler.resolved import ResolvedSwitch as ResolvedSwitch
from qosforge.compiler.resolved import ResolvedTopology as ResolvedTopology
from qosforge.compiler.resolved import wire_delay_s as wire_delay_s
from qosforge.compiler.routing import Routing, SwitchTier, resolve_routing
from qosforge.units import format_time

#: No vendor profile states a port-to-port forwarding latency with a public source, so a latency
#: derived from the topology is the wire alone; the RTT derivation names this.
FORWARDING_LATENCY_UNKNOWN = ("the switch's forwarding latency is unknown (no vendor profile states a sourced port-to-port "
                              "latency): the link latency is taken as the wire alone; give link_latency to include it")


def resolve_topology(intent: Intent, source_map: SourceMap) -> ResolvedTopology:
    """Every switch with its ports, the longest host path and the routing model over them."""
    resolved = _resolve_switches(intent, source_map)
    generated = intent.topology.switches is None
    tiers = [SwitchTier(s.name, s.role, s.pod) for s in resolved.switches]
    routing = resolve_routing(intent.topology.routing, generated, tiers, source_map)
    if not generated and routing.is_bgp and len(resolved.switches) > 2:
        # The fewest-hop path of the graph may be one eBGP never installs (its AS-path loop check
        # rejects a path through two switches of one ASN, RFC 4271 §9.1.2): the RTT is that of
        # the longest route the protocol installs. A generated fabric's routes are valley-free
        # shortest paths already (RFC 7938 §5.2.1), so they keep the search above.
        resolved = _longest_installed_path(resolved, routing)
    return replace(resolved, routing=routing)


@dataclass(frozen=True)
class _SwitchLinks:
    """The directed inter-switch links of a resolved topology (path_vector.py LinkArrays)."""

    n_switches: int
    tail: npt.NDArray[np.int64]
    head: npt.NDArray[np.int64]
    ports: tuple[ResolvedPort, ...]
    """Per link: its egress port at the tail."""


def _longest_installed_path(resolved: ResolvedTopology, routing: Routing) -> ResolvedTopology:
    """``resolved`` with its RTT path replaced by the longest route (in switch hops) eBGP installs
    between two host-facing switches, following each switch's best path (compiler/path_vector.py);
    pairs it leaves unreachable are cut off (``check deadlock`` reports them) and set no RTT."""
    from qosforge.compiler.path_vector import converged_routes

    switches = resolved.switches
    index = {switch.name: position for position, switch in enumerate(switches)}
    tails, heads, ports = [], [], []
    for position, switch in enumerate(switches):
        for port in switch.ports:
            if port.peer not in (None, "host"):
                tails.append(position)
                heads.append(index[port.peer.partition(":")[0]])
                ports.append(port)
    links = _SwitchLinks(len(switches), np.array(tails, dtype=np.int64),
                         np.array(heads, dtype=np.int64), tuple(ports))
    host_ports = [[p for p in s.ports if p.peer == "host"] for s in switches]
    edge = np.array([i for i, hosts in enumerate(host_ports) if hosts], dtype=np.int64)
    bgp = routing.bgp(tuple(s.name for s in switches))
    converged = converged_routes(links, edge, np.ones(links.tail.size, dtype=bool), bgp)
    assert converged.best_link is not None
    hops = converged.hops[:, edge]
    hops[~np.isfinite(hops)] = -1.0
    row, column = np.unravel_index(int(np.argmax(hops)), hops.shape)
    if hops[row, column] <= 0 or int(hops[row, column]) == resolved.hops - 2:
        return resolved  # the graph's longest fewest-hop path is as long as an installed one
    end, start = int(edge[row]), int(edge[column])
    path: list[ResolvedPort] = []
    node = start
    while node != end:
        link = int(converged.best_link[row, node])
        path.append(links.ports[link])
        node = int(links.head[link])
    return _host_path(switches, host_ports, start, end, path, resolved.latency_derived_from_wire)


def _resolve_switches(intent: Intent, source_map: SourceMap) -> ResolvedTopology:
    if intent.topology.leaf_spine is not None:
        spec = intent.topology.leaf_spine
        latency = generator_latencies(spec.link_latency, {"host_link": spec.host_link, "fabric_link": spec.fabric_link},
                                      ("topology", "leaf_spine"), source_map)
        return _leaf_spine(spec, latency)
    if intent.topology.clos is not None:
        clos = intent.topology.clos
        links = {"host_link": clos.host_link, "fabric_link": clos.fabric_link, "super_link": clos.super_link or clos.fabric_link}
        return resolve_clos(clos, generator_latencies(clos.link_latency, links, ("topology", "clos"), source_map))
    assert intent.topology.switches is not None
    return _explicit(intent, source_map)


def generator_latencies(link_latency_s: float | None, links: dict[str, LinkSpec], place: tuple[str, ...],
                        source_map: SourceMap) -> dict[str, float]:
    """Each link class's one-way latency in a generated topology: the intent's ``link_latency``,
    which must not be below any class's wire, else (no latency given) each class's wire."""
    wires = {name: wire_delay_s(link.cable, link.phy_delay) for name, link in links.items()}
    if link_latency_s is None:
        return wires
    name, longest = max(wires.items(), key=lambda item: item[1])
    if link_latency_s < longest:
        link = links[name]
        raise source_map.error(
            (*place, "link_latency"),
            f"link_latency {format_time(link_latency_s)} is less than the {name}'s wire: {_wire_text(link.cable, link.phy_delay)}",
            f"link_latency is the per-hop latency including the switch's forwarding, so at least {format_time(longest)}: "
            f"raise it, or shorten the {name}'s cable{' or phy_delay' if link.phy_delay else ''}",
        )
    return dict.fromkeys(links, link_latency_s)


def _leaf_spine(spec: LeafSpine, latency: dict[str, float]) -> ResolvedTopology:
    spine_profile = spec.spine_profile or spec.leaf_profile

    def port_name(index: int) -> str:
        return f"{spec.port_prefix}{index * spec.port_stride}"

    switches: list[ResolvedSwitch] = []
    host_latency, fabric_latency = latency["host_link"], latency["fabric_link"]
    host_phy, fabric_phy = spec.host_link.phy_delay, spec.fabric_link.phy_delay
    for leaf in range(spec.leaves):
        ports = [
            ResolvedPort(port_name(h), spec.host_link.speed, spec.host_link.cable, "host", host_latency, host_phy)
            for h in range(spec.hosts_per_leaf)
        ]
        ports += [
            ResolvedPort(
                port_name(spec.hosts_per_leaf + s),
                spec.fabric_link.speed,
                spec.fabric_link.cable,
                f"spine{s + 1}:{port_name(leaf)}",
                fabric_latency,
                fabric_phy,
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
                fabric_phy,
            )
            for leaf in range(spec.leaves)
        ]
        switches.append(ResolvedSwitch(f"spine{spine + 1}", spine_profile, tuple(ports), "spine"))
    latencies: tuple[float, ...]
    speeds: tuple[float, ...]
    if spec.leaves == 1:
        latencies = (host_latency, host_latency)
        speeds = (spec.host_link.speed, spec.host_link.speed)
    else:
        latencies = (host_latency, fabric_latency, fabric_latency, host_latency)
        speeds = (spec.host_link.speed, spec.fabric_link.speed, spec.fabric_link.speed, spec.host_link.speed)
    return ResolvedTopology(tuple(switches), latencies, speeds, spec.link_latency is None)


def _explicit_ports(switch: SwitchSpec) -> Iterator[tuple[int, str, float, float, str | None, float]]:
    for index, port in enumerate(switch.ports):
        for name in expand_port_names(port.name):
            yield index, name, port.speed, port.cable, port.peer, port.phy_delay


@dataclass
class _PortDraft:
    """A port while links are being applied (peers and latencies may still change)."""

    speed_bps: float
    cable_m: float
    peer: str | None
    latency_s: float
    phy_delay_s: float
    latency_given: bool = False

    @property
    def wire_s(self) -> float:
        return wire_delay_s(self.cable_m, self.phy_delay_s)


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
        for p_index, name, speed, cable, peer, phy in _explicit_ports(switch):
            if name in table:
                raise source_map.error(("topology", "switches", s_index, "ports", p_index, "name"), f"port {name} of '{switch.name}' is listed twice", "list each port once (ranges must not overlap)")
            if peer not in (None, "host"):
                peer_switch, _, peer_port = peer.partition(":")
                if peer_switch not in names or not peer_port:
                    raise source_map.error(("topology", "switches", s_index, "ports", p_index, "peer"), f"peer '{peer}' is not 'host' or 'switch:port' of a defined switch", f"known switches: {', '.join(sorted(names))}")
            draft = _PortDraft(speed, cable, peer, wire_delay_s(cable, phy), phy)
            host_latency = intent.topology.host_latency
            if peer == "host" and host_latency is not None:
                if host_latency < draft.wire_s:
                    raise source_map.error(("topology", "host_latency"), _below_wire(host_latency, f"host port {switch.name}:{name}", draft),
                                           f"host_latency includes the forwarding, so at least {format_time(draft.wire_s)}")
                draft.latency_s, draft.latency_given = host_latency, True
            table[name] = draft
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
        # Both ends carry the same wire: the longer of the two declarations (cable and PHY).
        wire_entry = max(a_entry, b_entry, key=lambda entry: entry.wire_s)
        if link.latency is not None:
            if link.latency < wire_entry.wire_s:
                raise source_map.error(("topology", "links", l_index, "latency"), _below_wire(link.latency, f"link {link.a} - {link.b}", wire_entry),
                                       f"latency includes the receiving switch's forwarding, so at least {format_time(wire_entry.wire_s)}")
            a_entry.latency_s = b_entry.latency_s = link.latency
            a_entry.latency_given = b_entry.latency_given = True
        else:
            a_entry.latency_s = b_entry.latency_s = wire_entry.wire_s
    switches = tuple(
        ResolvedSwitch(
            spec.name,
            spec.profile,
            tuple(ResolvedPort(name, e.speed_bps, e.cable_m, e.peer, e.latency_s, e.phy_delay_s) for name, e in ports_of[spec.name].items()),
            "switch",
        )
        for spec in specs
    )
    derived = not any(e.latency_given for table in ports_of.values() for e in table.values())
    return _longest_host_path(switches, source_map, derived)


def _below_wire(latency_s: float, what: str, draft: _PortDraft) -> str:
    return f"latency {format_time(latency_s)} of {what} is less than its wire: {_wire_text(draft.cable_m, draft.phy_delay_s)}"


def _wire_text(cable_m: float, phy_delay_s: float) -> str:
    """How a wire's one-way delay is made up, for the errors that refuse a latency below it."""
    phy = f" + phy_delay {format_time(phy_delay_s)}" if phy_delay_s else ""
    return (f"{cable_m:g} m of cable at {PROPAGATION_M_PER_S / 1e3:,.0f} km/s ({1e9 / PROPAGATION_M_PER_S:.2f} ns/m) is "
            f"{format_time(cable_m / PROPAGATION_M_PER_S)}{phy} one way")


def _longest_host_path(switches: tuple[ResolvedSwitch, ...], source_map: SourceMap, derived: bool, *, search: bool = False) -> ResolvedTopology:
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
    if len(switches) <= 2 and not search:
        return _two_switch_path(switches, link_port, host_ports, edge, source_map, derived)
    # SciPy's sparse graphs cost ~0.5 CPU s to import (a third of `simulate`'s start-up): only
    # topologies that need a search pay for them.
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    rows = np.array([u for u, _ in link_port], dtype=np.int64)
    columns = np.array([v for _, v in link_port], dtype=np.int64)
    graph = csr_matrix((np.ones(rows.size), (rows, columns)), shape=(len(switches), len(switches)))
    best_hops, best_pair = -1.0, (int(edge[0]), int(edge[0]))
    sources = _twin_representatives(edge, link_port)
    for chunk in np.array_split(sources, max(1, sources.size // 256)):
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
    return _host_path(switches, host_ports, start, end, links[::-1], derived)


def _twin_representatives(edge: npt.NDArray[np.int64],
                          link_port: dict[tuple[int, int], ResolvedPort]) -> npt.NDArray[np.int64]:
    """The first of ``edge`` (in order) of each set of switches with the same neighbours (the
    leaves of a pod). Twins u, v are as far from every other switch, and from each other both
    ways, so the first row reaching the largest distance, and its first column, are a
    representative's: one search per set, not per leaf, finds the same pair."""
    neighbours: dict[int, set[int]] = {}
    for u, v in link_port:
        neighbours.setdefault(u, set()).add(v)
        neighbours.setdefault(v, set()).add(u)
    first: dict[frozenset[int], int] = {}
    for node in edge.tolist():
        first.setdefault(frozenset(neighbours.get(node, ())), node)
    return np.array(sorted(first.values()), dtype=np.int64)


def _host_path(switches: tuple[ResolvedSwitch, ...], host_ports: list[list[ResolvedPort]], start: int, end: int,
               links: list[ResolvedPort], derived: bool) -> ResolvedTopology:
    """The path from the slowest host port of switch ``start`` over ``links`` to that of ``end``."""
    first_host = max(host_ports[start], key=lambda p: p.latency_s)
    last_host = max(host_ports[end], key=lambda p: p.latency_s)
    path = [first_host, *links, last_host]
    return ResolvedTopology(switches, tuple(p.latency_s for p in path), tuple(p.speed_bps for p in path), derived)


def _two_switch_path(switches: tuple[ResolvedSwitch, ...], link_port: dict[tuple[int, int], ResolvedPort], host_ports: list[list[ResolvedPort]],
                     edge: npt.NDArray[np.int64], source_map: SourceMap, derived: bool) -> ResolvedTopology:
    """:func:`_longest_host_path` of one or two switches, where there is nothing to search: the
    same pair, link and error as the search gives (the first host-facing switch to the last;
    ``search=True`` forces the search, tests/compiler/test_topology_paths.py compares the two)."""
    start, end = int(edge[0]), int(edge[-1])
    if start == end:
        return _host_path(switches, host_ports, start, end, [], derived)
    link = link_port.get((start, end)) or link_port.get((end, start))
    if link is None:
        raise source_map.error(("topology", "switches"), f"switches '{switches[start].name}' and '{switches[end].name}' both face hosts but are not connected",
                               "add the links between them (peer: switch:port)")
    return _host_path(switches, host_ports, start, end, [link], derived)
