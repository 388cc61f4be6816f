"""Collective schedules: step counts, chunk sizes and bytes per rank as the ring algorithms give
them (NCCL; Patarasuk & Yuan 2009 §3), and the step dependencies."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.softswitch.traffic.collectives import (
    COLLECTIVE_KINDS,
    CollectiveKind,
    bytes_sent_per_rank,
    collective_dependencies,
    collective_steps,
    step_dependencies,
)


def test_ring_allreduce_is_reduce_scatter_then_all_gather() -> None:
    n, m = 8, 8_000_000
    flows = collective_steps("ring-allreduce", n, m)
    assert len({f.step for f in flows}) == 2 * (n - 1) and len(flows) == 2 * (n - 1) * n
    assert {f.size_bytes for f in flows} == {m // n}
    assert all(f.dst == (f.src + 1) % n for f in flows)
    # Each rank sends 2(N-1)/N * M, the bandwidth-optimal bound (Patarasuk & Yuan §3).
    assert bytes_sent_per_rank(flows, n) == [2 * (n - 1) * m // n] * n
    rs = collective_steps("reduce-scatter", n, m)
    ag = collective_steps("all-gather", n, m)
    assert (
        len(rs) == len(ag) == (n - 1) * n and bytes_sent_per_rank(rs, n) == [(n - 1) * m // n] * n
    )


def test_all_to_all_sends_each_peer_one_chunk() -> None:
    n, m = 5, 1000
    flows = collective_steps("all-to-all", n, m)
    assert len({f.step for f in flows}) == n - 1
    for rank in range(n):
        assert sorted(f.dst for f in flows if f.src == rank) == sorted(set(range(n)) - {rank})
    assert {f.size_bytes for f in flows} == {math.ceil(m / n)}


def test_ring_step_waits_for_own_send_and_the_chunk_it_forwards() -> None:
    n = 4
    flows = collective_steps("ring-allreduce", n, 4000, iterations=2)
    after = collective_dependencies(flows)
    index = {(f.iteration, f.step, f.src): i for i, f in enumerate(flows)}
    last = 2 * (n - 1) - 1
    for i, flow in enumerate(flows):
        if flow.iteration == 0 and flow.step == 0:
            assert after[i] == ()
            continue
        iteration, step = (
            (flow.iteration, flow.step - 1) if flow.step else (flow.iteration - 1, last)
        )
        expected = {
            index[(iteration, step, flow.src)],
            index[(iteration, step, (flow.src - 1) % n)],
        }
        assert set(after[i]) == expected


def test_a_trace_of_steps_chains_by_host() -> None:
    # host a sends in step 0 and 2; in step 1 only b -> c: a's step 2 waits for its step 0 send.
    steps = [(0, "a", "b"), (1, "b", "c"), (2, "a", "c"), (2, "c", "a")]
    assert step_dependencies(steps) == ((), (0,), (0,), (1,))


@pytest.mark.parametrize(("ranks", "size"), [(1, 100), (4, 3)])
def test_impossible_collectives_are_refused(ranks: int, size: int) -> None:
    with pytest.raises(ValueError):
        collective_steps("ring-allreduce", ranks, size)


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(COLLECTIVE_KINDS),
    ranks=st.integers(2, 12),
    size=st.integers(12, 10**7),
    iterations=st.integers(1, 3),
)
def test_every_rank_sends_equally_and_waits_only_on_the_previous_step(
    kind: CollectiveKind, ranks: int, size: int, iterations: int
) -> None:
    flows = collective_steps(kind, ranks, size, iterations)
    sent = bytes_sent_per_rank(flows, ranks)
    assert len(set(sent)) == 1
    per_iteration = max(f.step for f in flows) + 1
    order = [f.iteration * per_iteration + f.step for f in flows]
    for i, before in enumerate(collective_dependencies(flows)):
        assert all(order[b] == order[i] - 1 for b in before)
        assert (order[i] == 0) == (before == ())
        # Its own previous send is always among them (the ring and the pairwise exchange both
        # have every rank send in every step).
        if before:
            assert any(flows[b].src == flows[i].src for b in before)
