"""A binary min-heap of events in preallocated arrays (time, float payload | kind, a, b)."""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.jit import compiled


@compiled
def heap_push(ht: np.ndarray, hi: np.ndarray, st: np.ndarray, size_index: int, time: float, kind: int, a: int, b: int, value: float) -> None:
    n = st[size_index]
    if n >= ht.shape[0]:
        raise RuntimeError("softswitch event heap full: raise the engine's event capacity")
    st[size_index] = n + 1
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if ht[parent, 0] <= time:
            break
        ht[i, 0] = ht[parent, 0]
        ht[i, 1] = ht[parent, 1]
        hi[i, 0] = hi[parent, 0]
        hi[i, 1] = hi[parent, 1]
        hi[i, 2] = hi[parent, 2]
        i = parent
    ht[i, 0] = time
    ht[i, 1] = value
    hi[i, 0] = kind
    hi[i, 1] = a
    hi[i, 2] = b


@compiled
def heap_pop(ht: np.ndarray, hi: np.ndarray, st: np.ndarray, size_index: int, out_i: np.ndarray) -> tuple[float, float]:
    """Remove the earliest event: returns (time, value) and writes (kind, a, b) to ``out_i``."""
    time = ht[0, 0]
    value = ht[0, 1]
    out_i[0] = hi[0, 0]
    out_i[1] = hi[0, 1]
    out_i[2] = hi[0, 2]
    n = st[size_index] - 1
    st[size_index] = n
    if n == 0:
        return time, value
    last_t = ht[n, 0]
    last_v = ht[n, 1]
    k, a, b = hi[n, 0], hi[n, 1], hi[n, 2]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and ht[child + 1, 0] < ht[child, 0]:
            child += 1
        if ht[child, 0] >= last_t:
            break
        ht[i, 0] = ht[child, 0]
        ht[i, 1] = ht[child, 1]
        hi[i, 0] = hi[child, 0]
        hi[i, 1] = hi[child, 1]
        hi[i, 2] = hi[child, 2]
        i = child
    ht[i, 0] = last_t
    ht[i, 1] = last_v
    hi[i, 0] = k
    hi[i, 1] = a
    hi[i, 2] = b
    return time, value
