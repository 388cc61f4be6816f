"""A resolved topology: every switch's ports with speed, cable, peer and latency, and the
fabric's longest host-to-host path (the RTT behind ECN K and the BDP). Built by
compiler/topology.py (leaf-spine, explicit switches) and compiler/clos.py (multi-tier Clos); see
compiler/topology.py for the delay model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qosforge.compiler.routing import SHORTEST_PATH_ROUTING, Routing
from qosforge.models.pfc_headroom import DEFAULT_PROPAGATION_SPEED_MPS

#: Signal propagation in fibre and twinax: 5 ns/m (IEEE 802.3 Table 29-3), the one value the
#: compiler's wire, the physical headroom model and the software switch's links share (SONiC's
#: Mellanox headroom script, reproduced bit for bit in models/sonic_headroom.py, uses 1.98e8 m/s).
PROPAGATION_M_PER_S = DEFAULT_PROPAGATION_SPEED_MPS
#: A TCP ACK on the wire: 64 B minimum Ethernet frame + 20 B preamble and inter-frame gap.
ACK_WIRE_BYTES = 84.0


def wire_delay_s(cable_m: float, phy_delay_s: float = 0.0) -> float:
    """One-way wire delay: the cable at the propagation speed plus the PHY stages."""
    return cable_m / PROPAGATION_M_PER_S + phy_delay_s


@dataclass(frozen=True)
class ResolvedPort:
    name: str
    speed_bps: float
    cable_m: float
    peer: str | None
    """'host', 'switch:port', or None when unconnected."""
    latency_s: float
    """One-way latency of the port's link including the receiving switch's forwarding."""
    phy_delay_s: float = 0.0
    """One-way delay of the link's PHY stages (gearbox, retimer, FEC): part of the wire."""

    @property
    def wire_delay_s(self) -> float:
        """What a frame (data or PFC) spends between the two MACs: cable + PHY."""
        return wire_delay_s(self.cable_m, self.phy_delay_s)

    @property
    def forwarding_delay_s(self) -> float:
        """The part of the latency spent inside the receiving switch (or host), never negative."""
        return max(self.latency_s - self.wire_delay_s, 0.0)


@dataclass(frozen=True)
class ResolvedSwitch:
    name: str
    profile: str
    ports: tuple[ResolvedPort, ...]
    role: str
    """'leaf', 'spine', 'super-spine' or 'switch' (explicit topologies)."""
    pod: int = 0
    """The pod of a Clos leaf or spine (its spines share the pod's ASN, RFC 7938 §5.2.1)."""

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
    latency_derived_from_wire: bool = False
    """Whether the link latencies were derived from the wire because the intent gave none."""
    routing: Routing = field(default=SHORTEST_PATH_ROUTING)
    """The routing model whose converged routes the fabric forwards on (compiler/routing.py)."""

    def rtt_s(self, mtu_bytes: float) -> float:
        propagation = 2.0 * sum(self.path_link_latencies_s)
        data_serialisation = sum(mtu_bytes * 8.0 / speed for speed in self.path_link_speeds_bps)
        ack_serialisation = sum(ACK_WIRE_BYTES * 8.0 / speed for speed in self.path_link_speeds_bps)
        return propagation + data_serialisation + ack_serialisation

    @property
    def hops(self) -> int:
        return len(self.path_link_latencies_s)


__all__ = [
    "ACK_WIRE_BYTES",
    "PROPAGATION_M_PER_S",
    "ResolvedPort",
    "ResolvedSwitch",
    "ResolvedTopology",
    "wire_delay_s",
]
