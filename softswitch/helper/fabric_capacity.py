"""What the fabric's leaf uplinks can carry against what all-to-all offers them.

all-to-all sends every flow to a host on another switch (softswitch/traffic/fabric_workloads.py),
so each leaf pushes all of its hosts' offered load (hosts × load × host rate) into its uplinks.
Where that exceeds the uplinks' capacity the fabric, not the QoS configuration, limits goodput and
queues build at the leaf uplinks whatever the thresholds: an operator reading the results must know.
The ratio is the classic oversubscription of a leaf (host-facing over uplink capacity, as in
Al-Fares et al., "A Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008, §2.1)
scaled by the offered load.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosforge.softswitch.engine.build import HOST
from qosforge.softswitch.helper.fabric import Fabric
from qosforge.units import format_value


@dataclass(frozen=True)
class LeafUplinkLoad:
    """One leaf's offered cross-fabric traffic against its uplinks (bits per second of payload)."""

    leaf: str
    hosts: int
    host_capacity_bps: float
    uplink_capacity_bps: float
    offered_bps: float

    @property
    def oversubscription(self) -> float:
        """Host-facing over uplink capacity (e.g. 8.0 for 16 × 100G hosts on 2 × 100G uplinks)."""
        return self.host_capacity_bps / self.uplink_capacity_bps

    @property
    def offered_ratio(self) -> float:
        """Offered cross-fabric load over uplink capacity; above 1 the uplinks cannot carry it."""
        return self.offered_bps / self.uplink_capacity_bps


def leaf_uplink_loads(fabric: Fabric, load: float, host_rate_bps: float) -> tuple[LeafUplinkLoad, ...]:
    """Per switch with hosts: its hosts' offered load (``load`` × ``host_rate_bps`` each, as
    all-to-all draws it) against the capacity of its links to the other selected switches."""
    loads: list[LeafUplinkLoad] = []
    port = 0
    for switch in fabric.switches:
        hosts, host_bps, uplink_bps = 0, 0.0, 0.0
        for config_port in switch.config.ports:
            peer = fabric.topology.peers[port]
            if peer == HOST:
                hosts += 1
                host_bps += config_port.speed_bps
            elif peer >= 0:
                uplink_bps += config_port.speed_bps
            port += 1
        if hosts and uplink_bps > 0:
            loads.append(LeafUplinkLoad(switch.ir.name, hosts, host_bps, uplink_bps, hosts * load * host_rate_bps))
    return tuple(loads)


def uplink_report(fabric: Fabric, load: float, host_rate_bps: float) -> tuple[dict[str, object], list[str]]:
    """The JSON ``uplink_load`` (the most loaded leaf) and the notes to show when it is above 1."""
    loads = leaf_uplink_loads(fabric, load, host_rate_bps)
    if not loads:
        return {}, []
    worst = max(loads, key=lambda entry: entry.offered_ratio)
    report: dict[str, object] = {
        "leaf": worst.leaf, "hosts": worst.hosts, "offered_bps": worst.offered_bps, "uplink_capacity_bps": worst.uplink_capacity_bps,
        "offered_ratio": round(worst.offered_ratio, 4), "oversubscription": round(worst.oversubscription, 4),
    }
    notes: list[str] = []
    if worst.offered_ratio > 1.0:
        over = [entry.leaf for entry in loads if entry.offered_ratio > 1.0]
        notes.append(
            f"the offered load exceeds the leaf uplinks by {worst.offered_ratio:.2f}x: {worst.hosts} hosts x {load:.0%} x "
            f"{format_value(host_rate_bps, 'bps')} = {format_value(worst.offered_bps, 'bps')} leave {worst.leaf} over "
            f"{format_value(worst.uplink_capacity_bps, 'bps')} of uplinks ({worst.oversubscription:g}:1 oversubscribed"
            f"{'; also ' + ', '.join(over[1:]) if len(over) > 1 else ''}), so the uplinks, not the QoS thresholds, limit goodput "
            f"(--load {100.0 * load / worst.offered_ratio:.3g}% or less fits)"
        )
    return report, notes


__all__ = ["LeafUplinkLoad", "leaf_uplink_loads", "uplink_report"]
