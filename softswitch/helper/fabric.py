"""A whole fabric on the software switch: every switch of a compiled intent (or a connected
subset), each loaded from its own SAI program, linked as the intent's topology says.

Each switch goes the same way as a single one (intent -> IR -> SAI program -> validate ->
:class:`SwitchConfig`, softswitch/helper/compiled.py); the links come from the IR's ports
(``PortIR.peer`` = "host", "switch:port" or None, with the port's speed and cable), and routes
from :mod:`qosforge.softswitch.helper.topology`. Hosts sit on the edge ports (peer "host").

Each link has the compiler's two delays (compiler/topology.py, ``ResolvedPort``): its **wire**
(cable at 5 ns/m plus declared PHY delay), which data, ACK, CNP and PFC frames cross, and its
**latency** (the intent's ``link_latency``, including the receiving switch's forwarding), which
the compiler's RTT for K/BDP sums (``2*sum(link latency) + ...``, ResolvedTopology.rtt_s). The
difference is spent inside the receiving switch after a packet has been admitted and charged to
its ingress PG, before it reaches its egress queue (``RunSpec.forwarding_delays_s``), or inside
a receiving host: every RTT the compiler used is kept while a PAUSE takes the wire alone, as
the headroom it was sized with assumes. The SAI program carries no latency, so without the
intent a port's cable alone is its wire and there is no forwarding delay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from qosforge.compiler.routing import SHORTEST_PATH_ROUTING, BgpSettings, Routing
from qosforge.errors import QosforgeError
from qosforge.ir import SwitchIR
from qosforge.softswitch.config import PortConfig, SwitchConfig
from qosforge.softswitch.engine.build import HOST, UNCONNECTED, Topology
from qosforge.softswitch.fabric_metrics import PortRef
from qosforge.softswitch.helper.compiled import (
    CompiledSwitch,
    DesignPoint,
    declared_classes,
    design_point,
    load_compiled,
)
from qosforge.softswitch.helper.topology import connected, routed_topology
from qosforge.softswitch.traffic.fabric_workloads import HostSite

if TYPE_CHECKING:
    from qosforge.compiler.topology import ResolvedTopology


@dataclass(frozen=True)
class Fabric:
    """Compiled switches, their links and routes, and the hosts on their edge ports."""

    switches: tuple[CompiledSwitch, ...]
    topology: Topology
    hosts: tuple[HostSite, ...]
    """Host i sits on switch port ``host_ports[i]``."""
    host_ports: tuple[int, ...]
    design: DesignPoint
    link_delays_s: tuple[float, ...]
    """One-way wire delay of the link on each engine port (both directions); see the module doc."""
    forwarding_delays_s: tuple[float, ...]
    """Per engine port, its link's latency beyond the wire (spent in the receiving switch or host)."""
    routing: Routing = SHORTEST_PATH_ROUTING
    """The routing model the routes come from (the intent's ``topology.routing``)."""

    @property
    def bgp(self) -> BgpSettings | None:
        """The eBGP settings over the simulated switches (None: shortest paths)."""
        return self.routing.bgp(tuple(s.ir.name for s in self.switches))

    @property
    def link_latencies_s(self) -> tuple[float, ...]:
        """Each engine port's one-way link latency: wire plus forwarding (the compiler's RTT terms)."""
        return tuple(wire + rest for wire, rest in zip(self.link_delays_s, self.forwarding_delays_s, strict=True))

    @property
    def configs(self) -> tuple[SwitchConfig, ...]:
        return tuple(s.config for s in self.switches)

    @cached_property
    def ports(self) -> tuple[PortConfig, ...]:
        """Every switch port's configuration, indexed by engine port (computed once: flow and
        report builders index it per flow)."""
        return tuple(port for config in self.configs for port in config.ports)

    def port_ref(self, port: int) -> PortRef:
        """The switch and port name of engine port ``port``."""
        owner = self.topology.switch_of()[port]
        offset = sum(self.topology.ports_per_switch[:owner])
        return PortRef(self.switches[owner].ir.name, self.switches[owner].config.ports[port - offset].name)

    def links(self) -> dict[PortRef, PortRef]:
        """Every inter-switch link direction: egress port -> the port receiving at the other end."""
        return {self.port_ref(p): self.port_ref(q) for p, q in enumerate(self.topology.peers) if q >= 0}

    def port_index(self, ref: PortRef) -> int:
        return next(p for p in range(self.topology.n_ports) if self.port_ref(p) == ref)


def _peer_ref(peer: str) -> PortRef:
    switch, _, port = peer.partition(":")
    return PortRef(switch, port)


def fabric_from_switches(switches: tuple[SwitchIR, ...], *, assume: Mapping[str, str] | None = None, design: DesignPoint | None = None,
                         declared_classes: tuple[str, ...] = (), link_latencies_s: Mapping[PortRef, LinkDelays] | None = None,
                         routing: Routing = SHORTEST_PATH_ROUTING) -> Fabric:
    """Load every switch from its own SAI program and link them; links to switches not in
    ``switches`` are left unconnected. ``link_latencies_s``: each port's wire and latency from
    the intent (:func:`intent_link_latencies_s`); a port not in it gets its cable as its wire.
    ``routing``: the intent's routing model (compiler/routing.py), over the switches selected."""
    compiled = tuple(load_compiled(s, assume=assume, design=design, declared_classes=declared_classes) for s in switches)
    index: dict[PortRef, int] = {}
    ports_per_switch = []
    for entry in compiled:
        for port in entry.config.ports:
            index[PortRef(entry.ir.name, port.name)] = len(index)
        ports_per_switch.append(len(entry.config.ports))
    peers: list[int] = []
    for entry in compiled:
        for port in entry.config.ports:
            if port.peer == "host":
                peers.append(HOST)
            elif port.peer and _peer_ref(port.peer) in index:
                peers.append(index[_peer_ref(port.peer)])
            else:
                peers.append(UNCONNECTED)
    for p, q in enumerate(peers):
        if q >= 0 and peers[q] != p:
            raise QosforgeError(f"link {p} -> {q} is not symmetric in the compiled topology", place="topology", hint="each switch:port peer must name the port back")
    counts = tuple(ports_per_switch)
    if not connected(counts, tuple(peers)):
        names = ", ".join(s.ir.name for s in compiled)
        raise QosforgeError(f"the switches {names} are not connected by links among themselves", place="--switch",
                            hint="select switches that form a connected part of the fabric (e.g. a leaf with the spines it links to)")
    bgp = routing.bgp(tuple(entry.ir.name for entry in compiled))
    topology = routed_topology(counts, tuple(peers), bgp)
    host_ports = tuple(p for p, q in enumerate(peers) if q == HOST)
    if not host_ports:
        raise QosforgeError("the selected switches have no host ports", place="--switch", hint="include at least one leaf (a switch with ports whose peer is 'host')")
    latencies = link_latencies_s or {}
    given = [latencies.get(PortRef(entry.ir.name, port.name), LinkDelays(port.cable_delay_s, 0.0))
             for entry in compiled for port in entry.config.ports]
    wires = tuple(delays.wire_s for delays in given)
    forwarding = tuple(delays.forwarding_s for delays in given)
    design = design or DesignPoint()
    fabric = Fabric(compiled, topology, (), host_ports, design, wires, forwarding, routing)
    hosts = tuple(HostSite(i, fabric.port_ref(p).switch, fabric.port_ref(p).port) for i, p in enumerate(host_ports))
    return Fabric(compiled, topology, hosts, host_ports, fabric.design, wires, forwarding, routing)


@dataclass(frozen=True)
class LinkDelays:
    """A port's link as the compiler resolved it (compiler/topology.py ``ResolvedPort``): its
    one-way wire and the rest of its latency, spent in the receiving switch or host."""

    wire_s: float
    forwarding_s: float


def intent_link_latencies_s(topology: ResolvedTopology) -> dict[PortRef, LinkDelays]:
    """Every switch port's wire and forwarding delay as the compiler resolved them (compiler/topology.py)."""
    return {PortRef(switch.name, port.name): LinkDelays(port.wire_delay_s, port.forwarding_delay_s)
            for switch in topology.switches for port in switch.ports}


def compile_fabric(intent_path: Path, switch_names: tuple[str, ...], *, assume: Mapping[str, str] | None = None) -> Fabric:
    """Compile ``intent_path`` for SAI and load every switch (or those named) as a fabric."""
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.compiler.topology import resolve_topology

    if not intent_path.is_file():
        raise QosforgeError(f"no such file: {intent_path}", place="INTENT", hint="give an intent YAML, e.g. examples/roce-pod.yaml")
    intent, source_map = load_intent(intent_path)
    fabric_ir = compile_intent(intent, source_map, targets=("sai",))
    switches = fabric_ir.for_target("sai")
    known = {s.name: s for s in switches}
    for name in switch_names:
        if name not in known:
            raise QosforgeError(f"no switch {name!r} in {intent_path}", place="--switch", hint=f"switches: {', '.join(known)}")
    if not switch_names and len(switches) == 1:
        # Without this the workloads report a missing second leaf as if --switch had been given.
        raise QosforgeError(f"the intent has one switch ({switches[0].name}): fabric scenarios need hosts on two switches", place=str(intent_path),
                            hint="simulate one switch with --scenario incast")
    selected = tuple(known[n] for n in dict.fromkeys(switch_names)) if switch_names else switches
    resolved = resolve_topology(intent, source_map)
    return fabric_from_switches(selected, assume=assume, design=design_point(intent), declared_classes=declared_classes(intent),
                                link_latencies_s=intent_link_latencies_s(resolved),
                                routing=resolved.routing)


def failed_cable(fabric: Fabric, text: str) -> tuple[int, int]:
    """The two engine ports of the cable ``text`` names (``--fail-link``): one of its ends as
    ``switch:port``, or ``a-b`` for the one cable between switches a and b."""
    ends = [p for p in range(fabric.topology.n_ports) if fabric.topology.peers[p] >= 0]
    if ":" in text:
        found = [p for p in ends if str(fabric.port_ref(p)) == text]
    else:
        names = {s.ir.name for s in fabric.switches}
        # A switch name may hold a '-' itself: split where both sides name switches.
        splits = [(text[:i], text[i + 1:]) for i, c in enumerate(text) if c == "-" and text[:i] in names and text[i + 1:] in names]
        found = []
        if splits:
            a, b = splits[0]
            found = [p for p in ends if fabric.port_ref(p).switch == a and fabric.port_ref(fabric.topology.peers[p]).switch == b]
            if len(found) > 1:
                raise QosforgeError(f"{len(found)} cables join {a} and {b}", place=f"--fail-link {text}",
                                    hint=f"name one by an end, e.g. --fail-link {fabric.port_ref(found[0])}")
    if not found:
        example = f"{fabric.port_ref(ends[0]).switch}-{fabric.port_ref(fabric.topology.peers[ends[0]]).switch}" if ends else "leaf1-spine1"
        raise QosforgeError(f"no switch-to-switch link {text!r} in the simulated fabric", place="--fail-link",
                            hint=f"name a cable by its two switches (e.g. {example}) or by one end as SWITCH:PORT")
    return found[0], fabric.topology.peers[found[0]]


def with_failed_links(fabric: Fabric, cables: tuple[tuple[int, int], ...]) -> Fabric:
    """The fabric with ``cables`` (pairs of engine ports) down: their ports unconnected and every
    route recomputed around them under the fabric's routing model (:mod:`.topology`), as the
    protocol converges after withdrawing the routes over a dead link. Refused when the failure
    cuts hosts off (eBGP: also where a path exists but no neighbour may advertise it)."""
    peers = list(fabric.topology.peers)
    for a, b in cables:
        peers[a] = peers[b] = UNCONNECTED
    topology = routed_topology(fabric.topology.ports_per_switch, tuple(peers), fabric.bgp)
    owner = topology.switch_of()
    for src in fabric.host_ports:
        for dst in fabric.host_ports:
            if owner[src] != owner[dst] and not topology.routes[owner[src]][dst]:
                names = " and ".join(f"{fabric.port_ref(a)} - {fabric.port_ref(b)}" for a, b in cables)
                source, destination = fabric.port_ref(src).switch, fabric.port_ref(dst).switch
                raise QosforgeError(f"with {names} down, {source} has no route to the hosts of "
                                    f"{destination} under {fabric.routing.model} routing",
                                    place="--fail-link", hint="fail links that leave every leaf connected (a cut-off leaf cannot deadlock, it is unreachable)")
    return Fabric(fabric.switches, topology, fabric.hosts, fabric.host_ports, fabric.design,
                  fabric.link_delays_s, fabric.forwarding_delays_s, fabric.routing)


__all__ = ["Fabric", "LinkDelays", "compile_fabric", "fabric_from_switches", "failed_cable", "intent_link_latencies_s", "with_failed_links"]
