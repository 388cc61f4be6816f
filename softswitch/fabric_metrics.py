"""Fabric-wide results: flow completion times and how far PFC pauses spread."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FlowCompletionStats:
    """Flow completion times of the finished flows (seconds); nan when none finished.

    Percentiles are nearest-rank (the smallest FCT with at least that fraction of finished flows
    at or below it), the rule :func:`qosforge.softswitch.metrics.histogram_percentile` applies
    to queue depths; so p99 is always an FCT some flow had.
    """

    count: int
    """Finished flows."""
    unfinished: int
    mean_s: float
    p50_s: float
    p99_s: float

    def as_json(self) -> dict[str, float | int | None]:
        """The fields as a JSON-safe dict (nan -> None)."""
        return {
            "count": self.count,
            "unfinished": self.unfinished,
            "mean_s": _finite_or_none(self.mean_s),
            "p50_s": _finite_or_none(self.p50_s),
            "p99_s": _finite_or_none(self.p99_s),
        }


def flow_completion_stats(start_s: np.ndarray, finish_s: np.ndarray) -> FlowCompletionStats:
    """FCT = finish - start of each flow; finish < 0 or nan means unfinished.

    ``start_s`` and ``finish_s`` are per flow, same shape (the engine's ``flow_start_s`` and
    ``flow_finish_s``, where an unfinished flow's finish is -1).
    """
    start = np.asarray(start_s, dtype=float)
    finish = np.asarray(finish_s, dtype=float)
    if start.shape != finish.shape:
        raise ValueError(f"start {start.shape} and finish {finish.shape} differ in shape")
    finished = np.isfinite(finish) & (finish >= 0.0)
    fct = (finish - start)[finished]
    count = int(fct.size)
    unfinished = int(finish.size - count)
    if count == 0:
        return FlowCompletionStats(0, unfinished, math.nan, math.nan, math.nan)
    p50, p99 = np.quantile(fct, [0.50, 0.99], method="inverted_cdf")
    return FlowCompletionStats(count, unfinished, float(fct.mean()), float(p50), float(p99))


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class PortRef:
    """Port ``port`` of switch ``switch`` (for pauses: the egress side, which PFC stops)."""

    switch: str
    port: str

    def __str__(self) -> str:
        return f"{self.switch}:{self.port}"


def pause_depth(
    origin: PortRef, paused: Iterable[PortRef], links: Mapping[PortRef, PortRef]
) -> int:
    """The largest number of switch hops from ``origin`` to a port paused because of it.

    ``origin`` is the congested or stalled egress port; ``paused`` the switch egress ports that
    received PFC PAUSE during the run; ``links`` maps a switch port to the port at the other end
    of its cable (one direction per cable is enough; host ports may be left out).

    A hop is one switch-to-switch cable crossed upstream, against the data: PFC stops an egress
    port, the switch's ingress buffers fill behind it and that switch pauses its neighbours'
    egress ports feeding it (IEEE 802.1Qbb: a PAUSE frame stops the link partner's sender). So
    from a switch S, the ports one hop further are the peers of S's ports, and a paused port
    met there is at distance d + 1 when S was reached at distance d (``origin``'s switch is at
    0). The search goes on only through paused ports (a port that was not paused cannot pass a
    pause on) and each port counts at its shortest distance. Paused ports that no chain of
    paused ports connects to ``origin`` (another cause) are ignored; 0 = nothing upstream paused.
    """
    peers: dict[PortRef, PortRef] = {}
    for near, far in links.items():
        peers[near] = far
        peers.setdefault(far, near)
    ports_by_switch: dict[str, list[PortRef]] = {}
    for port in peers:
        ports_by_switch.setdefault(port.switch, []).append(port)
    still_paused = set(paused)
    still_paused.discard(origin)
    expanded = {origin.switch}
    frontier = [origin.switch]
    depth = 0
    while frontier:
        reached = [
            upstream
            for switch in frontier
            for port in ports_by_switch.get(switch, ())
            if (upstream := peers[port]) in still_paused
        ]
        if not reached:
            break
        depth += 1
        still_paused.difference_update(reached)
        frontier = list(dict.fromkeys(port.switch for port in reached if port.switch not in expanded))
        expanded.update(frontier)
    return depth


@dataclass(frozen=True)
class PfcExposure:
    """Which flows PFC paused, and which of those were victims of another port's congestion."""

    paused: tuple[bool, ...]
    victim: tuple[bool, ...]


def pfc_victims(
    flow_hops: Sequence[Sequence[Sequence[int]]],
    queue_paused: Sequence[bool],
    queue_congested: Sequence[bool],
) -> PfcExposure:
    """Victim flows of PFC: flows paused at some hop whose own path crosses no congested egress.

    PFC pauses a whole priority on a link, so a flow that shares a paused link with the flows of
    a congested port stops with them although its own path is free: head-of-line blocking and
    congestion spreading, the "victim flow" of Zhu et al., "Congestion Control for Large-Scale
    RDMA Deployments" (DCQCN), SIGCOMM 2015, §2, and of Mittal et al., "Revisiting Network
    Support for RDMA" (IRN), SIGCOMM 2018, §2.

    ``flow_hops[f]`` lists flow f's hops, each the egress queues (indexes into the two masks) it
    may leave that switch by: one queue, or each ECMP member when its hash is not known here.
    ``queue_paused[q]``: the queue received PFC PAUSE in the window. ``queue_congested[q]``: the
    queue was congested on its own (not paused, yet it backed up: the caller's test).

    A flow is paused when, at some hop, every queue it may take was paused; it is a victim when
    it is paused and no queue it may take anywhere is congested. With ECMP both tests lean the
    same way (a flow counts as paused only if it was, and as crossing a congested queue if it may
    have), so the victims are a lower bound.
    """
    paused = tuple(
        any(hop and all(queue_paused[q] for q in hop) for hop in hops) for hops in flow_hops
    )
    victim = tuple(
        was_paused and not any(queue_congested[q] for hop in hops for q in hop)
        for was_paused, hops in zip(paused, flow_hops, strict=True)
    )
    return PfcExposure(paused, victim)


__all__ = [
    "FlowCompletionStats",
    "PfcExposure",
    "PortRef",
    "flow_completion_stats",
    "pause_depth",
    "pfc_victims",
]
