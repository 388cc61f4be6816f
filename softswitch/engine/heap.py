"""The event queue: events ordered by (time, push sequence number), in a heap and FIFO lanes.

Order: the earliest time first and, among events at the same time, the one pushed first — the
order they were scheduled in, ns-3's rule (src/core/model/scheduler.h, ``Scheduler::EventKey``:
timestamp, then uid). Equal times are common (CBR sources with equal rates, bursts starting on
the same millisecond, equal serialisation times), and without a total order the binary heap's
pop order among them is a function of its history, so any change to the queue's shape or
algorithm would move results; with it, every correct priority queue pops the same sequence.

Layout: the heap holds only what its sift loops move: ``keys`` (float64, the event times) and
``slots`` (int64, where each event's payload lives), both one-dimensional and contiguous, so a
level of a sift is two loads and two stores in two flat arrays. An event's payload — kind, a, b
and its sequence number (``slot_i``) and a float value (``slot_f``) — is written once when it is
pushed and read once when it is popped; the sequence number is read from there only when two
times are equal. Lanes: most events are scheduled a fixed delay after the current time — a transmission's end
(the frame's serialisation time, the same for equal frames at one speed) and an arrival (the
link's propagation delay) — so events of one such kind are mostly pushed in time order. Each of
those kinds (``EV_TX_DONE``, ``EV_ARR_SW``, ``EV_ARR_HOST``, and ``EV_FWD``, a switch's forwarding
latency after an arrival) has a FIFO ring beside the heap: an
event goes to its kind's lane when its time is not earlier than the lane's last event (then the
lane stays sorted by time and, since sequence numbers only grow, by (time, sequence)); otherwise,
or when the lane is full, to the heap. A pop takes the earliest by (time, sequence) of the next
flow start, the heap's top and the lanes' heads, so the order is exactly the heap-only order and
results do not move (bench/engine_fingerprint.py), while most events cost a ring append and a
head compare instead of a sift through the heap (docs/softswitch-engine.md "Event queue").

Slots: ``st[ST_SLOTS]`` counts the slots in use (heap and lanes), so ``free[ST_SLOTS:]`` are
exactly the unused ones: a push takes ``free[used]``, a pop puts its slot back at
``free[used - 1]``.
"""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    EV_FWD,
    EV_GEN,
    EV_TX_DONE,
    LANES,
    SL_A,
    SL_B,
    SL_KIND,
    SL_SEQ,
    ST_HSIZE,
    ST_NEXT_START,
    ST_SEQ,
    ST_SLOTS,
    W_EVENT,
    W_HI,
    W_HT,
    W_LANE_N,
    W_LANE_S,
    W_LANE_T,
    W_SLOTF,
    W_SLOTFREE,
    W_SLOTI,
    W_ST,
    W_START_FLOW,
    W_START_S,
)

#: Children per node: a power of two (ARITY_BITS = log2), so a node's children are found by a shift.
ARITY_BITS = 2
ARITY = 1 << ARITY_BITS


@compiled
def _precedes(slot_i: np.ndarray, time: float, slot: int, other_time: float, other_slot: int) -> bool:
    """Whether event ``slot`` at ``time`` runs before ``other_slot`` at ``other_time``."""
    return time < other_time or (time == other_time and slot_i[slot, SL_SEQ] < slot_i[other_slot, SL_SEQ])


@compiled
def _take_slot(free: np.ndarray, slot_f: np.ndarray, slot_i: np.ndarray, st: np.ndarray, kind: int, a: int, b: int, value: float) -> int:
    """A free slot holding the event's payload and the next sequence number."""
    used = st[ST_SLOTS]
    if used >= free.shape[0]:
        raise RuntimeError("softswitch event heap full: raise the engine's event capacity")
    slot = free[used]
    st[ST_SLOTS] = used + 1
    slot_i[slot, SL_KIND] = kind
    slot_i[slot, SL_A] = a
    slot_i[slot, SL_B] = b
    slot_i[slot, SL_SEQ] = st[ST_SEQ]
    st[ST_SEQ] += 1
    slot_f[slot] = value
    return int(slot)


@compiled
def _give_back(free: np.ndarray, slot_i: np.ndarray, st: np.ndarray, slot: int, out_i: np.ndarray) -> None:
    """Copy a popped event's (kind, a, b) to ``out_i`` and free its slot."""
    out_i[0] = slot_i[slot, SL_KIND]
    out_i[1] = slot_i[slot, SL_A]
    out_i[2] = slot_i[slot, SL_B]
    used = st[ST_SLOTS] - 1
    st[ST_SLOTS] = used
    free[used] = slot


@compiled
def _heap_insert(keys: np.ndarray, slots: np.ndarray, st: np.ndarray, time: float, slot: int) -> None:
    n = st[ST_HSIZE]
    st[ST_HSIZE] = n + 1
    i = n
    while i > 0:
        parent = (i - 1) >> ARITY_BITS
        # The new event has the largest sequence number yet: a parent at the same time precedes it.
        if keys[parent] <= time:
            break
        keys[i] = keys[parent]
        slots[i] = slots[parent]
        i = parent
    keys[i] = time
    slots[i] = slot


@compiled
def _heap_remove_top(keys: np.ndarray, slots: np.ndarray, slot_i: np.ndarray, st: np.ndarray) -> int:
    """Remove the heap's earliest event; returns its slot."""
    top = slots[0]
    n = st[ST_HSIZE] - 1
    st[ST_HSIZE] = n
    if n == 0:
        return int(top)
    last_t = keys[n]
    last_slot = slots[n]
    i = 0
    while True:
        first = (i << ARITY_BITS) + 1
        if first >= n:
            break
        # The earliest of the node's (up to ARITY) children, whose keys are adjacent in memory.
        best = first
        best_t = keys[first]
        for child in range(first + 1, min(first + ARITY, n)):
            child_t = keys[child]
            if _precedes(slot_i, child_t, slots[child], best_t, slots[best]):
                best = child
                best_t = child_t
        if not _precedes(slot_i, best_t, slots[best], last_t, last_slot):
            break
        keys[i] = best_t
        slots[i] = slots[best]
        i = best
    keys[i] = last_t
    slots[i] = last_slot
    return int(top)


@compiled
def heap_push(keys: np.ndarray, slots: np.ndarray, free: np.ndarray, slot_f: np.ndarray, slot_i: np.ndarray, st: np.ndarray,
              time: float, kind: int, a: int, b: int, value: float) -> None:
    """Push an event onto the heap (build.py's scripted events; the kernel uses :func:`schedule`).
    ``_take_slot`` refuses a full queue: the heap never holds more events than slots in use."""
    _heap_insert(keys, slots, st, time, _take_slot(free, slot_f, slot_i, st, kind, a, b, value))


@compiled
def heap_pop(keys: np.ndarray, slots: np.ndarray, free: np.ndarray, slot_f: np.ndarray, slot_i: np.ndarray, st: np.ndarray,
             out_i: np.ndarray) -> tuple[float, float]:
    """Remove the heap's earliest event: returns (time, value) and writes (kind, a, b) to ``out_i``."""
    time = keys[0]
    slot = _heap_remove_top(keys, slots, slot_i, st)
    value = slot_f[slot]
    _give_back(free, slot_i, st, slot, out_i)
    return time, value


@compiled
def schedule(w: World, time: float, kind: int, a: int, b: int, value: float) -> None:
    """Push an event onto the world's event queue: its kind's lane when that keeps the lane in
    time order, else the heap."""
    slot = _take_slot(w[W_SLOTFREE], w[W_SLOTF], w[W_SLOTI], w[W_ST], kind, a, b, value)
    lane = LANES - 1 if kind == EV_FWD else kind - EV_TX_DONE
    if 0 <= lane < LANES:
        lane_n, lane_t = w[W_LANE_N], w[W_LANE_T]
        length = lane_n[lane, 1]
        capacity = lane_t.shape[1]  # a power of two (engine/build.py lane_capacity)
        if length < capacity:
            head = lane_n[lane, 0]
            if length == 0 or lane_t[lane, (head + length - 1) & (capacity - 1)] <= time:
                tail = (head + length) & (capacity - 1)
                lane_t[lane, tail] = time
                w[W_LANE_S][lane, tail] = slot
                lane_n[lane, 1] = length + 1
                return
    _heap_insert(w[W_HT], w[W_HI], w[W_ST], time, slot)


@compiled
def pop_until(w: World, end: float) -> tuple[bool, float, float]:
    """Take the world's next event if it is due by ``end``: (taken, time, value), with (kind, a, b)
    in ``W_EVENT``. The next event is the earliest, by (time, sequence number), of the next flow
    start (W_START_S; flow f's start has sequence number f, build.py), the heap's top and the
    lanes' heads, so the order is the one a heap holding every event would give."""
    keys, slots, slot_i, st, event = w[W_HT], w[W_HI], w[W_SLOTI], w[W_ST], w[W_EVENT]
    start_s, start_flow = w[W_START_S], w[W_START_FLOW]
    lane_n, lane_t, lane_s = w[W_LANE_N], w[W_LANE_T], w[W_LANE_S]
    # source: -2 none, -1 the next flow start, 0 the heap, 1 + l lane l
    source = -2
    best_t = 0.0
    best_seq = 0
    k = st[ST_NEXT_START]
    if k < start_s.shape[0]:
        source = -1
        best_t = start_s[k]
        best_seq = start_flow[k]
    if st[ST_HSIZE] > 0:
        time = keys[0]
        if source == -2 or time < best_t or (time == best_t and slot_i[slots[0], SL_SEQ] < best_seq):
            source = 0
            best_t = time
            best_seq = slot_i[slots[0], SL_SEQ]
    for lane in range(LANES):
        if lane_n[lane, 1] > 0:
            head_slot = lane_s[lane, lane_n[lane, 0]]
            time = lane_t[lane, lane_n[lane, 0]]
            if source == -2 or time < best_t or (time == best_t and slot_i[head_slot, SL_SEQ] < best_seq):
                source = 1 + lane
                best_t = time
                best_seq = slot_i[head_slot, SL_SEQ]
    if source == -2 or best_t > end:
        return False, end, 0.0
    if source == -1:
        st[ST_NEXT_START] = k + 1
        event[0] = EV_GEN
        event[1] = start_flow[k]
        event[2] = 0
        return True, best_t, 0.0
    if source == 0:
        slot = _heap_remove_top(keys, slots, slot_i, st)
    else:
        lane = source - 1
        head = lane_n[lane, 0]
        slot = lane_s[lane, head]
        lane_n[lane, 0] = (head + 1) & (lane_s.shape[1] - 1)
        lane_n[lane, 1] -= 1
    value = w[W_SLOTF][slot]
    _give_back(w[W_SLOTFREE], slot_i, st, slot, event)
    return True, best_t, value


__all__ = ["heap_pop", "heap_push", "pop_until", "schedule"]
