"""Flows that start when others finish (a collective's steps, softswitch/traffic/collectives.py).

A flow's finish is the receiver's: the time its last byte arrives in order (FF_FINISH, set by the
transports' receivers). At that moment every flow waiting for it counts one fewer; one that waits
for nothing more starts then, as a rank starts its next step when its chunk has arrived.
"""

from __future__ import annotations

from qosforge.softswitch.engine.host_nic import push_event
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    EV_GEN,
    FF_FINISH,
    FF_START,
    W_DEP_NEXT,
    W_DEP_PTR,
    W_DEP_WAIT,
    W_FLF,
)


@compiled
def release_dependents(w: World, now: float, f: int) -> None:
    """Once flow ``f`` has finished, start the flows that waited only for it (once per flow)."""
    wait, ptr = w[W_DEP_WAIT], w[W_DEP_PTR]
    if ptr.shape[0] == 0 or wait[f] != 0 or w[W_FLF][f, FF_FINISH] < 0.0:
        return
    wait[f] = -1
    nxt, flf = w[W_DEP_NEXT], w[W_FLF]
    for k in range(ptr[f], ptr[f + 1]):
        d = nxt[k]
        wait[d] -= 1
        if wait[d] == 0:
            flf[d, FF_START] = now
            push_event(w, now, EV_GEN, d, 0, 0.0)


__all__ = ["release_dependents"]
