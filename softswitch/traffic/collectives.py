"""Collective operations as flows with step dependencies: the schedule, not the transport.

Each collective over N ranks and a message of M bytes is a sequence of steps; in each step every
rank sends one chunk to one peer. The algorithms are the bandwidth-optimal ones NCCL runs on a
ring (NVIDIA NCCL documentation, "Collective Operations"; Patarasuk and Yuan, "Bandwidth optimal
all-reduce algorithms for clusters of workstations", JPDC 69(2) 2009, §3):

* ``reduce-scatter``: N-1 steps; in step s rank r sends chunk (r - s) mod N, M/N bytes, to rank
  r+1 (mod N), which reduces it into its own copy and forwards it in step s+1.
* ``all-gather``: N-1 steps of M/N bytes around the same ring (M is the gathered output).
* ``ring-allreduce``: reduce-scatter then all-gather, 2(N-1) steps of M/N bytes, so each rank
  sends 2(N-1)/N·M bytes, the bound of Patarasuk and Yuan §3.
* ``all-to-all`` (MoE token exchange): pairwise exchange, N-1 steps; in step k rank r sends its
  M/N bytes for rank r+k (mod N) (M is one rank's whole send buffer).

Dependencies (:func:`step_dependencies`): a rank's flows of a step start when every flow of the
previous step that the rank sent or received has finished, i.e. when its chunk has arrived and
its own send has been delivered; a step of one iteration follows the last step of the previous
iteration the same way. Ranks proceed at their own pace (no global barrier), as NCCL's ring does;
the job completion time is the slowest rank's.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

CollectiveKind = Literal["ring-allreduce", "all-to-all", "all-gather", "reduce-scatter"]
COLLECTIVE_KINDS: tuple[CollectiveKind, ...] = (
    "ring-allreduce",
    "all-to-all",
    "all-gather",
    "reduce-scatter",
)
SOURCE_COLLECTIVES = (
    "NVIDIA NCCL documentation, 'Collective Operations' (ring algorithms); Patarasuk & Yuan, "
    "'Bandwidth optimal all-reduce algorithms for clusters of workstations', JPDC 69(2) 2009, §3"
)


@dataclass(frozen=True)
class StepFlow:
    """One chunk of one step: ``src`` and ``dst`` are rank indices."""

    iteration: int
    step: int
    src: int
    dst: int
    size_bytes: int


def collective_steps(
    kind: CollectiveKind, ranks: int, message_bytes: int, iterations: int = 1
) -> tuple[StepFlow, ...]:
    """The flows of ``iterations`` runs of the collective, in (iteration, step, rank) order."""
    if ranks < 2:
        raise ValueError(f"a collective needs at least 2 ranks, not {ranks}")
    if message_bytes < ranks:
        raise ValueError(
            f"a message of {message_bytes} B cannot be cut into {ranks} chunks of at least 1 B"
        )
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    chunk = math.ceil(message_bytes / ranks)
    steps = {"ring-allreduce": 2 * (ranks - 1)}.get(kind, ranks - 1)
    flows = []
    for iteration in range(iterations):
        for step in range(steps):
            for rank in range(ranks):
                # Pairwise exchange sends to rank + k in step k (k = 1..N-1); the rings to rank + 1.
                peer = (rank + step + 1) % ranks if kind == "all-to-all" else (rank + 1) % ranks
                flows.append(StepFlow(iteration, step, rank, peer, chunk))
    return tuple(flows)


def step_dependencies(
    steps: Sequence[tuple[int, Hashable, Hashable]],
) -> tuple[tuple[int, ...], ...]:
    """For flows given as (order, src, dst), where ``order`` numbers the steps in the order they
    run: the indices of the flows each must wait for, those of the nearest earlier step in which
    its sender took part (sent or received). The first step a host takes part in waits for
    nothing."""
    by_order: dict[int, list[int]] = {}
    for index, (order, _src, _dst) in enumerate(steps):
        by_order.setdefault(order, []).append(index)
    last_of_host: dict[Hashable, list[int]] = {}
    after: list[tuple[int, ...]] = [() for _ in steps]
    for order in sorted(by_order):
        members = by_order[order]
        for index in members:
            src = steps[index][1]
            after[index] = tuple(last_of_host.get(src, ()))
        touched: dict[Hashable, list[int]] = {}
        for index in members:
            _order, src, dst = steps[index]
            touched.setdefault(src, []).append(index)
            touched.setdefault(dst, []).append(index)
        last_of_host.update(touched)
    return tuple(after)


def collective_dependencies(flows: Sequence[StepFlow]) -> tuple[tuple[int, ...], ...]:
    """:func:`step_dependencies` of a collective's flows (steps ordered by iteration, then step)."""
    per_iteration = max((f.step for f in flows), default=0) + 1
    return step_dependencies([(f.iteration * per_iteration + f.step, f.src, f.dst) for f in flows])


def bytes_sent_per_rank(flows: Sequence[StepFlow], ranks: int) -> list[int]:
    sent = [0] * ranks
    for flow in flows:
        sent[flow.src] += flow.size_bytes
    return sent


__all__ = [
    "COLLECTIVE_KINDS",
    "SOURCE_COLLECTIVES",
    "CollectiveKind",
    "StepFlow",
    "bytes_sent_per_rank",
    "collective_dependencies",
    "collective_steps",
    "step_dependencies",
]
