"""Fabric workloads: which host sends how much to which host, and when.

Pure descriptions (no engine types): the fabric scenarios turn each :class:`FabricFlow` into a
transport flow between the edge ports of its two hosts. Hosts are :class:`HostSite` s; the
switches that have hosts are the leaves. Errors name the ``qosforge simulate`` flag a value comes
from (``--load``, ``--flows``, ``--flow-size``, ``--stall``), as the single-switch scenarios do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from qosforge.errors import QosforgeError
from qosforge.softswitch.traffic.flow_sizes import FlowSizeDistribution
from qosforge.softswitch.traffic.spec import MAX_FLOWS


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

    As HPCC's generator (alibaba-edu/High-Precision-Congestion-Control
    ``traffic_gen/traffic_gen.py``): each host is a Poisson source whose mean inter-arrival time
    is ``1 / (host_rate_bps * load / 8 / mean size)``, the first flow one inter-arrival after 0,
    sizes drawn from ``distribution``. As in HPCC, ``load`` counts the flows' bytes; the packet
    headers (traffic.spec.HEADER_BYTES) come on top on the wire. Unlike HPCC, which draws the destination uniformly among
    all other hosts, the destination here is uniform over the hosts on OTHER switches, so every
    flow crosses the fabric (same-leaf flows never reach a spine). Flows start in [0,
    ``duration_s``); ties keep host order. Deterministic for a seed: each host draws from its own
    streams (``SeedSequence([seed, host])``), so a longer run extends a shorter one and adding a
    host leaves the others' arrival times and sizes unchanged.
    """
    _check_hosts(hosts)
    if not (math.isfinite(load) and 0.0 < load <= 1.0):
        raise QosforgeError(f"must be within (0, 1] (got {load:g})", place="--load", hint="the fraction of each host link's rate offered, e.g. 0.6")
    if not (math.isfinite(duration_s) and duration_s > 0.0):
        raise QosforgeError(f"must be positive (got {duration_s:g} s)", place="--duration", hint="e.g. 10ms")
    if not (math.isfinite(host_rate_bps) and host_rate_bps > 0.0):
        raise ValueError(f"host link rate must be positive (got {host_rate_bps:g} b/s)")
    if seed < 0:
        raise QosforgeError(f"must be >= 0 (got {seed})", place="--seed", hint="e.g. --seed 1")
    flows_per_s = load * host_rate_bps / (8.0 * distribution.mean_bytes)
    expected_flows = len(hosts) * flows_per_s * duration_s
    if expected_flows > MAX_FLOWS:
        # Refused before drawing: the arrays and then the engine's flow tables grow with the count.
        raise QosforgeError(
            f"{len(hosts)} hosts at {load:.0%} load for {duration_s * 1e3:g} ms with a {distribution.mean_bytes:,.0f} B mean flow "
            f"are ~{expected_flows:,.0f} flows, above the engine's {MAX_FLOWS:,}",
            place="--load", hint="lower --load or --duration, or give --flow-size-dist larger flows",
        )
    starts: list[np.ndarray] = []
    sources: list[np.ndarray] = []
    sizes: list[np.ndarray] = []
    destinations: list[np.ndarray] = []
    host_ids = np.array([h.host for h in hosts], dtype=np.int64)
    switch_of = np.array([h.switch for h in hosts], dtype=object)
    # The hosts on other switches, once per switch (per host: hosts^2 steps, 16 M at 4,096).
    remotes: dict[str, np.ndarray] = {}
    for site in hosts:
        remote = remotes.get(site.switch)
        if remote is None:
            remote = remotes[site.switch] = host_ids[switch_of != site.switch]
        if remote.size == 0:
            raise QosforgeError(
                f"every host is on switch {site.switch}: all-to-all needs hosts on two switches",
                place="--switch", hint="select at least two leaves with hosts",
            )
        time_stream, size_stream, destination_stream = (
            np.random.default_rng(child)
            for child in np.random.SeedSequence([seed, site.host]).spawn(3)
        )
        start = _poisson_arrivals(time_stream, flows_per_s, duration_s)
        starts.append(start)
        sources.append(np.full(start.size, site.host, dtype=np.int64))
        sizes.append(distribution.sample(size_stream, start.size))
        destinations.append(remote[destination_stream.integers(remote.size, size=start.size)])
    start_all = np.concatenate(starts)
    order = np.argsort(start_all, kind="stable")
    columns = zip(
        np.concatenate(sources)[order].tolist(),
        np.concatenate(destinations)[order].tolist(),
        start_all[order].tolist(),
        np.concatenate(sizes)[order].tolist(),
        strict=True,
    )
    return tuple(FabricFlow(src, dst, start, size) for src, dst, start, size in columns)


def _poisson_arrivals(rng: np.random.Generator, rate_per_s: float, duration_s: float) -> np.ndarray:
    """Arrival times in [0, duration_s) of a Poisson process: cumulative exponential gaps,
    drawn in blocks (mean + 6 standard deviations of the count) until past the end."""
    expected = rate_per_s * duration_s
    block = int(expected + 6.0 * math.sqrt(expected)) + 16
    times = np.cumsum(rng.exponential(1.0 / rate_per_s, size=block))
    while times[-1] < duration_s:
        more = times[-1] + np.cumsum(rng.exponential(1.0 / rate_per_s, size=block))
        times = np.concatenate([times, more])
    return times[: np.searchsorted(times, duration_s, side="left")]


def fabric_incast(
    hosts: Sequence[HostSite], receiver: int, flows: int, size_bytes: int | None
) -> tuple[FabricFlow, ...]:
    """``flows`` senders on the other leaves (switches other than the receiver's) to ``receiver``.

    The senders are the hosts of the other switches taken round-robin across switches (the
    first host of each other leaf, then the second of each, ...), so a few flows already come
    from different leaves; beyond one flow per host, hosts send several flows. Every flow starts
    at 0 with ``size_bytes`` (None = long-lived).
    """
    _check_hosts(hosts)
    _check_count(flows, "--flows", "the number of incast senders")
    _check_size(size_bytes)
    site = _site(hosts, receiver)
    senders = _interleaved_by_switch([h for h in hosts if h.switch != site.switch])
    if not senders:
        raise QosforgeError(
            f"no hosts outside the receiver's switch {site.switch}",
            place="--switch", hint="a fabric incast needs hosts on another leaf",
        )
    return tuple(
        FabricFlow(src_host=senders[i % len(senders)].host, dst_host=receiver, start_s=0.0, size_bytes=size_bytes)
        for i in range(flows)
    )


@dataclass(frozen=True)
class PauseStormPlan:
    stalled_host: int
    stall_start_s: float
    """When the stalled host stops draining (its NIC pauses its edge port)."""
    stall_s: float
    """How long it stays stalled."""
    flows: tuple[FabricFlow, ...]


def pause_storm(
    hosts: Sequence[HostSite],
    stalled_host: int,
    stall_s: float,
    flows_per_host: int,
    size_bytes: int | None,
    *,
    stall_start_s: float | None = None,
) -> PauseStormPlan:
    """Background traffic into and around ``stalled_host``, which stops draining after a warm-up.

    Every host on another switch sends ``flows_per_host`` flows to the stalled host and
    ``flows_per_host`` flows to a bystander: a host on the stalled host's switch (whose traffic
    shares the paused spine-to-leaf links: the victims of head-of-line blocking), or, when the
    stalled host is alone on its switch, a host on a third switch (none when there is no third
    switch). Bystanders are taken round-robin. All flows start at 0. The stall starts at ``stall_start_s``, by default after a
    warm-up as long as the stall itself, so the run has a steady-state window before the stall
    as long as the stall.
    """
    _check_hosts(hosts)
    _check_count(flows_per_host, "--flows", "flows per sending host")
    _check_size(size_bytes)
    if not (math.isfinite(stall_s) and stall_s > 0.0):
        raise QosforgeError(f"must be positive (got {stall_s:g} s)", place="--stall", hint="e.g. 1ms")
    start = stall_s if stall_start_s is None else stall_start_s
    if not (math.isfinite(start) and start >= 0.0):
        raise QosforgeError(f"the stall start must be >= 0 (got {start:g} s)", place="--warmup", hint="e.g. 1ms")
    stalled = _site(hosts, stalled_host)
    senders = [h for h in hosts if h.switch != stalled.switch]
    if not senders:
        raise QosforgeError(
            f"no hosts outside the stalled host's switch {stalled.switch}",
            place="--switch", hint="a pause storm needs senders on another leaf",
        )
    neighbours = [h for h in hosts if h.switch == stalled.switch and h.host != stalled_host]
    flows: list[FabricFlow] = []
    bystander_turn = 0
    for sender in senders:
        bystanders = neighbours or [h for h in senders if h.switch != sender.switch]
        for _ in range(flows_per_host):
            flows.append(FabricFlow(sender.host, stalled_host, 0.0, size_bytes))
        for _ in range(flows_per_host if bystanders else 0):
            bystander = bystanders[bystander_turn % len(bystanders)]
            bystander_turn += 1
            flows.append(FabricFlow(sender.host, bystander.host, 0.0, size_bytes))
    return PauseStormPlan(stalled_host=stalled_host, stall_start_s=start, stall_s=stall_s, flows=tuple(flows))


def _check_hosts(hosts: Sequence[HostSite]) -> None:
    seen: set[int] = set()
    for site in hosts:
        if site.host < 0 or site.host in seen:
            raise ValueError(f"host numbers must be distinct and >= 0 (host {site.host})")
        seen.add(site.host)
    if not hosts:
        raise QosforgeError("the fabric has no hosts", place="--switch", hint="select switches with edge ports")


def _check_count(count: int, flag: str, what: str) -> None:
    if count < 1:
        raise QosforgeError(f"must be at least 1 (got {count})", place=flag, hint=what)


def _check_size(size_bytes: int | None) -> None:
    if size_bytes is not None and size_bytes < 1:
        raise QosforgeError(f"must be at least 1 byte (got {size_bytes})", place="--flow-size", hint="e.g. 1MB, or leave it out for long-lived flows")


def _site(hosts: Sequence[HostSite], host: int) -> HostSite:
    """The site of ``host``; the scenario picks it among ``hosts``, so a miss is a caller bug."""
    for site in hosts:
        if site.host == host:
            return site
    raise ValueError(f"host {host} is not one of the {len(hosts)} hosts given")


def _interleaved_by_switch(hosts: Sequence[HostSite]) -> list[HostSite]:
    """The hosts ordered round-robin over their switches (switches in order of appearance)."""
    per_switch: dict[str, list[HostSite]] = {}
    for site in hosts:
        per_switch.setdefault(site.switch, []).append(site)
    rounds = max((len(group) for group in per_switch.values()), default=0)
    return [group[i] for i in range(rounds) for group in per_switch.values() if i < len(group)]


__all__ = [
    "FabricFlow",
    "HostSite",
    "PauseStormPlan",
    "all_to_all_arrivals",
    "fabric_incast",
    "pause_storm",
]
