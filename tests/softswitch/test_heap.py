"""The event queue pops events in (time, push sequence) order: same-time events run in the order
they were scheduled (ns-3's rule, src/core/model/scheduler.h Scheduler::EventKey)."""

from __future__ import annotations

import heapq

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.heap import heap_pop, heap_push

Queue = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _queue(capacity: int) -> Queue:
    state = np.zeros(L.ST_COLS, dtype=np.int64)
    return (np.zeros(capacity), np.zeros(capacity, dtype=np.int64), np.arange(capacity, dtype=np.int64), np.zeros(capacity),
            np.zeros((capacity, L.SL_COLS), dtype=np.int64), state)


def _pop(queue: Queue) -> tuple[float, int, int, int, float]:
    out = np.zeros(3, dtype=np.int64)
    time, value = heap_pop(*queue, out)
    return time, int(out[0]), int(out[1]), int(out[2]), value


def test_same_time_events_pop_in_the_order_they_were_pushed() -> None:
    queue = _queue(16)
    for a in range(10):
        heap_push(*queue, 5e-6, L.EV_GEN, a, 0, 0.0)
    heap_push(*queue, 1e-6, L.EV_TX_DONE, 99, 0, 0.0)
    popped = [_pop(queue) for _ in range(11)]
    assert popped[0][:3] == (1e-6, L.EV_TX_DONE, 99)
    assert [event[2] for event in popped[1:]] == list(range(10))
    assert queue[5][L.ST_HSIZE] == 0


# Times from a small set, so most pops decide between equal times.
TIMES = st.sampled_from([0.0, 1e-6, 2e-6, 2e-6 + 1e-12, 3.5e-6, 1.0])
OPERATIONS = st.lists(st.one_of(st.tuples(st.just("push"), TIMES, st.floats(-1e3, 1e3)), st.just(("pop", 0.0, 0.0))), max_size=300)


@settings(max_examples=60, deadline=None)
@given(OPERATIONS)
def test_random_pushes_and_pops_come_out_in_time_then_sequence_order(operations: list[tuple[str, float, float]]) -> None:
    queue = _queue(len(operations) + 1)
    reference: list[tuple[float, int, float]] = []
    pushed = 0
    for operation, time, value in operations:
        if operation == "push":
            heap_push(*queue, time, L.EV_ACK, pushed, pushed % 7, value)
            heapq.heappush(reference, (time, pushed, value))
            pushed += 1
        elif reference:
            expected_time, expected_sequence, expected_value = heapq.heappop(reference)
            assert _pop(queue) == (expected_time, L.EV_ACK, expected_sequence, expected_sequence % 7, expected_value)
        assert queue[5][L.ST_HSIZE] == len(reference)
    while reference:
        expected_time, expected_sequence, expected_value = heapq.heappop(reference)
        assert _pop(queue) == (expected_time, L.EV_ACK, expected_sequence, expected_sequence % 7, expected_value)


def test_a_full_queue_refuses_the_push() -> None:
    import pytest

    queue = _queue(2)
    heap_push(*queue, 1.0, L.EV_GEN, 0, 0, 0.0)
    heap_push(*queue, 2.0, L.EV_GEN, 1, 0, 0.0)
    with pytest.raises(RuntimeError, match="event heap full"):
        heap_push(*queue, 3.0, L.EV_GEN, 2, 0, 0.0)
