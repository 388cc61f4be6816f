"""The event queue: a binary min-heap of events ordered by (time, push sequence number).

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
times are equal. Free slots: with ``n`` events in the heap, ``free[n:]`` are exactly the unused
slots (a pop puts its slot back at ``free[n - 1]``, a push takes ``free[n]``), so the heap's
size is also the free list's top.
"""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    EV_GEN,
    SL_A,
    SL_B,
    SL_KIND,
    SL_SEQ,
    ST_HSIZE,
    ST_NEXT_START,
    ST_SEQ,
    W_EVENT,
    W_HI,
    W_HT,
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
def heap_push(keys: np.ndarray, slots: np.ndarray, free: np.ndarray, slot_f: np.ndarray, slot_i: np.ndarray, st: np.ndarray,
              time: float, kind: int, a: int, b: int, value: float) -> None:
    n = st[ST_HSIZE]
    if n >= keys.shape[0]:
        raise RuntimeError("softswitch event heap full: raise the engine's event capacity")
    slot = free[n]
    slot_i[slot, SL_KIND] = kind
    slot_i[slot, SL_A] = a
    slot_i[slot, SL_B] = b
    slot_i[slot, SL_SEQ] = st[ST_SEQ]
    st[ST_SEQ] += 1
    slot_f[slot] = value
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
def heap_pop(keys: np.ndarray, slots: np.ndarray, free: np.ndarray, slot_f: np.ndarray, slot_i: np.ndarray, st: np.ndarray,
             out_i: np.ndarray) -> tuple[float, float]:
    """Remove the earliest event: returns (time, value) and writes (kind, a, b) to ``out_i``."""
    time = keys[0]
    slot = slots[0]
    out_i[0] = slot_i[slot, SL_KIND]
    out_i[1] = slot_i[slot, SL_A]
    out_i[2] = slot_i[slot, SL_B]
    value = slot_f[slot]
    n = st[ST_HSIZE] - 1
    st[ST_HSIZE] = n
    free[n] = slot
    if n == 0:
        return time, value
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
    return time, value


@compiled
def schedule(w: World, time: float, kind: int, a: int, b: int, value: float) -> None:
    """Push an event onto the world's event queue."""
    heap_push(w[W_HT], w[W_HI], w[W_SLOTFREE], w[W_SLOTF], w[W_SLOTI], w[W_ST], time, kind, a, b, value)


@compiled
def pop_until(w: World, end: float) -> tuple[bool, float, float]:
    """Take the world's next event if it is due by ``end``: (taken, time, value), with (kind, a, b)
    in ``W_EVENT``. The next event is the earlier, by (time, sequence number), of the heap's top
    and the next flow start (W_START_S; flow f's start has sequence number f, build.py), so the
    order is the one a heap holding every start would give."""
    keys, slots, slot_i, st, event = w[W_HT], w[W_HI], w[W_SLOTI], w[W_ST], w[W_EVENT]
    start_s, start_flow = w[W_START_S], w[W_START_FLOW]
    k = st[ST_NEXT_START]
    n = st[ST_HSIZE]
    if k < start_s.shape[0]:
        time = start_s[k]
        if n == 0 or time < keys[0] or (time == keys[0] and start_flow[k] < slot_i[slots[0], SL_SEQ]):
            if time > end:
                return False, time, 0.0
            st[ST_NEXT_START] = k + 1
            event[0] = EV_GEN
            event[1] = start_flow[k]
            event[2] = 0
            return True, time, 0.0
    if n == 0 or keys[0] > end:
        return False, end, 0.0
    time, value = heap_pop(keys, slots, w[W_SLOTFREE], w[W_SLOTF], slot_i, st, event)
    return True, time, value


__all__ = ["heap_pop", "heap_push", "pop_until", "schedule"]
