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


# The kernel's queue: lanes beside the heap (engine/heap.py). Kinds 1-3 have lanes, EV_ACK not.
LANE_KINDS = st.sampled_from([L.EV_ACK, L.EV_TX_DONE, L.EV_ARR_SW, L.EV_ARR_HOST])
WORLD_OPERATIONS = st.lists(st.one_of(st.tuples(st.just("push"), TIMES, LANE_KINDS), st.just(("pop", 0.0, 0))), max_size=300)


def _empty_world() -> tuple[np.ndarray, ...]:
    from qosforge.softswitch.engine.build import build_world
    from qosforge.softswitch.traffic.spec import RunSpec
    from tests.softswitch.conftest import make_switch

    return build_world(make_switch(), (), RunSpec(duration_s=1e-3))


def _pop_world(world: tuple[np.ndarray, ...]) -> tuple[float, int, int]:
    from qosforge.softswitch.engine.heap import pop_until

    taken, time, _ = pop_until(world, np.inf)
    assert taken
    event = world[L.W_EVENT]
    return time, int(event[0]), int(event[1])


@settings(max_examples=60, deadline=None)
@given(WORLD_OPERATIONS)
def test_lanes_and_heap_together_pop_in_time_then_sequence_order(operations: list[tuple[str, float, int]]) -> None:
    from qosforge.softswitch.engine.heap import schedule

    world = _empty_world()
    reference: list[tuple[float, int, int]] = []
    pushed = 0
    for operation, time, kind in operations:
        if operation == "push":
            schedule(world, time, kind, pushed, 0, 0.0)
            heapq.heappush(reference, (time, pushed, kind))
            pushed += 1
        elif reference:
            expected_time, expected_sequence, expected_kind = heapq.heappop(reference)
            assert _pop_world(world) == (expected_time, expected_kind, expected_sequence)
        assert world[L.W_ST][L.ST_SLOTS] == len(reference)
        assert world[L.W_ST][L.ST_HSIZE] + world[L.W_LANE_N][:, 1].sum() == len(reference)
    while reference:
        expected_time, expected_sequence, expected_kind = heapq.heappop(reference)
        assert _pop_world(world) == (expected_time, expected_kind, expected_sequence)


def test_in_order_events_stay_in_their_lane_and_a_full_lane_overflows_to_the_heap() -> None:
    from qosforge.softswitch.engine.heap import schedule

    world = _empty_world()
    count = L.LANE_CAPACITY + 50
    for i in range(count):
        schedule(world, 1e-6 * (i + 1), L.EV_TX_DONE, i, 0, 0.0)
    assert world[L.W_LANE_N][0, 1] == L.LANE_CAPACITY
    assert world[L.W_ST][L.ST_HSIZE] == 50
    schedule(world, 0.5e-6, L.EV_TX_DONE, count, 0, 0.0)  # earlier than the lane's tail: heap
    assert world[L.W_ST][L.ST_HSIZE] == 51
    assert [_pop_world(world)[2] for _ in range(count + 1)] == [count, *range(count)]
