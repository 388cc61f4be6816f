"""Fabric workloads: which host sends how much to which host, and when.

Pure descriptions (no engine types): the fabric scenarios turn each :class:`FabricFlow` into a
transport flow between the edge ports of its hosts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from qosforge.softswitch.traffic.flow_sizes import FlowSizeDistribution


@dataclass(frozen=True)
class FabricFlow:
    src_host: int
    dst_host: int
    start_s: float
    size_bytes: int | None
    """None = long-lived (sends until the run ends)."""


@dataclass(frozen=True)
class HostSite:
    """A host attached to edge port ``port`` of switch ``switch``."""

    host: int
    switch: str
    port: str


def all_to_all_arrivals(
    hosts: Sequence[HostSite],
    host_rate_bps: float,
    load: float,
    distribution: FlowSizeDistribution,
    duration_s: float,
    seed: int,
) -> tuple[FabricFlow, ...]:
    """Poisson flow arrivals from every host at ``load`` of its link, sorted by start time.

    Per source host a Poisson process of rate ``load * host_rate_bps / (8 * mean size)`` flows/s
    over [0, ``duration_s``); each flow's size is drawn from ``distribution`` and its destination
    uniformly over the hosts on OTHER switches (HPCC's ``traffic_gen/traffic_gen.py`` draws the
    destination uniformly among the other hosts with exponential inter-arrival times at
    ``avg_inter_arrival = 1 / (bandwidth * load / 8 / avg flow size)``). Deterministic for a seed.
    """
    raise NotImplementedError


def fabric_incast(
    hosts: Sequence[HostSite], receiver: int, flows: int, size_bytes: int | None
) -> tuple[FabricFlow, ...]:
    """``flows`` senders on the other leaves (switches other than the receiver's) to ``receiver``.

    Senders are the hosts of the other switches taken round-robin (several flows per host when
    ``flows`` exceeds their number); every flow starts at 0.
    """
    raise NotImplementedError


@dataclass(frozen=True)
class PauseStormPlan:
    stalled_host: int
    stall_start_s: float
    stall_s: float
    flows: tuple[FabricFlow, ...]


def pause_storm(
    hosts: Sequence[HostSite],
    stalled_host: int,
    stall_s: float,
    flows_per_host: int,
    size_bytes: int | None,
) -> PauseStormPlan:
    """Background traffic into and around ``stalled_host``, which stops draining after a warm-up."""
    raise NotImplementedError


__all__ = [
    "FabricFlow",
    "HostSite",
    "PauseStormPlan",
    "all_to_all_arrivals",
    "fabric_incast",
    "pause_storm",
]
