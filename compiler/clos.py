"""The three-tier Clos generator (``topology.clos``): pods of leaves and spines plus a super-spine
tier, for fabrics too large for one spine layer (a spine of a two-tier fabric needs one port per
leaf; here a spine needs one per leaf of its pod plus one per super-spine of its plane).

Wiring, as in Facebook's data center fabric ("Introducing data center fabric", 2014) and Google's
Jupiter (SIGCOMM 2015 §3): every leaf of a pod connects to every spine of that pod; the
super-spines form ``spines_per_pod`` planes of ``super_spines / spines_per_pod`` each, and spine s
of every pod connects to every super-spine of plane s. A super-spine therefore has one port per
pod.

Ports are numbered like SONiC names them (``Ethernet0``, ``Ethernet4``, ... with the generator's
stride): leaves list host ports, then one uplink per spine; spines list one downlink per leaf, then
the uplinks of their plane; super-spines one port per pod.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosforge.compiler.intent import Clos, LinkSpec
from qosforge.compiler.resolved import ResolvedPort, ResolvedSwitch, ResolvedTopology


def leaf_name(pod: int, leaf: int) -> str:
    return f"pod{pod + 1}-leaf{leaf + 1}"


def spine_name(pod: int, spine: int) -> str:
    return f"pod{pod + 1}-spine{spine + 1}"


def super_spine_name(index: int) -> str:
    return f"superspine{index + 1}"


@dataclass(frozen=True)
class _Wiring:
    spec: Clos
    latency: dict[str, float]
    """One-way latency per link class (compiler/topology.py generator_latencies)."""

    @property
    def per_plane(self) -> int:
        return self.spec.super_spines // self.spec.spines_per_pod

    @property
    def super_link(self) -> LinkSpec:
        return self.spec.super_link or self.spec.fabric_link

    def port(self, index: int) -> str:
        return f"{self.spec.port_prefix}{index * self.spec.port_stride}"

    def link(self, number: int, link: LinkSpec, peer: str) -> ResolvedPort:
        return ResolvedPort(self.port(number), link.speed, link.cable, peer, self.latency_of(link), link.phy_delay)

    def latency_of(self, link: LinkSpec) -> float:
        spec = self.spec
        if link is spec.host_link:
            return self.latency["host_link"]
        return self.latency["fabric_link"] if link is spec.fabric_link else self.latency["super_link"]

    def leaf(self, pod: int, leaf: int) -> ResolvedSwitch:
        spec = self.spec
        ports = [self.link(h, spec.host_link, "host") for h in range(spec.hosts_per_leaf)]
        ports += [
            self.link(spec.hosts_per_leaf + s, spec.fabric_link, f"{spine_name(pod, s)}:{self.port(leaf)}")
            for s in range(spec.spines_per_pod)
        ]
        return ResolvedSwitch(leaf_name(pod, leaf), spec.leaf_profile, tuple(ports), "leaf", pod)

    def spine(self, pod: int, spine: int) -> ResolvedSwitch:
        spec = self.spec
        ports = [
            self.link(leaf, spec.fabric_link, f"{leaf_name(pod, leaf)}:{self.port(spec.hosts_per_leaf + spine)}")
            for leaf in range(spec.leaves_per_pod)
        ]
        ports += [
            self.link(spec.leaves_per_pod + j, self.super_link, f"{super_spine_name(spine * self.per_plane + j)}:{self.port(pod)}")
            for j in range(self.per_plane)
        ]
        profile = spec.spine_profile or spec.leaf_profile
        return ResolvedSwitch(spine_name(pod, spine), profile, tuple(ports), "spine", pod)

    def super_spine(self, index: int) -> ResolvedSwitch:
        spec = self.spec
        plane, position = divmod(index, self.per_plane)
        ports = [
            self.link(pod, self.super_link, f"{spine_name(pod, plane)}:{self.port(spec.leaves_per_pod + position)}")
            for pod in range(spec.pods)
        ]
        profile = spec.super_spine_profile or spec.spine_profile or spec.leaf_profile
        return ResolvedSwitch(super_spine_name(index), profile, tuple(ports), "super-spine")


def resolve_clos(spec: Clos, latency: dict[str, float]) -> ResolvedTopology:
    """Every switch of the Clos and its longest host-to-host path (the RTT model of compiler/topology.py);
    ``latency``: each link class's one-way latency (host_link, fabric_link, super_link)."""
    wiring = _Wiring(spec, latency)
    switches = [wiring.leaf(pod, leaf) for pod in range(spec.pods) for leaf in range(spec.leaves_per_pod)]
    switches += [wiring.spine(pod, spine) for pod in range(spec.pods) for spine in range(spec.spines_per_pod)]
    switches += [wiring.super_spine(index) for index in range(spec.super_spines)]
    host, fabric, upper = spec.host_link.speed, spec.fabric_link.speed, wiring.super_link.speed
    # Hosts in different pods: host-leaf-spine-superspine-spine-leaf-host; one pod stops at a spine.
    h, f, u = latency["host_link"], latency["fabric_link"], latency["super_link"]
    if spec.pods > 1:
        speeds: tuple[float, ...] = (host, fabric, upper, upper, fabric, host)
        latencies: tuple[float, ...] = (h, f, u, u, f, h)
    elif spec.leaves_per_pod > 1:
        speeds, latencies = (host, fabric, fabric, host), (h, f, f, h)
    else:
        speeds, latencies = (host, host), (h, h)
    return ResolvedTopology(tuple(switches), latencies, speeds, spec.link_latency is None)


__all__ = ["leaf_name", "resolve_clos", "spine_name", "super_spine_name"]
