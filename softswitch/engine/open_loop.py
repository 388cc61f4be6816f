"""Open-loop sources: Poisson and CBR flows, finite or not; a full host NIC queue drops at the host."""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.counters import count_measured
from qosforge.softswitch.engine.host_nic import data_bytes, push_event, send_packet
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_HOST_DROPS,
    EV_GEN,
    F_IMP,
    FF_RATE,
    FL_KIND,
    FL_PRIO,
    FL_SIZE,
    FL_SNDNXT,
    FL_SRC,
    FL_TLT,
    K_POISSON,
    PRI_HOSTQ,
    PRI_NP,
    PRM_WARMUP,
    QI_PKTS,
    W_FLF,
    W_FLI,
    W_PRMF,
    W_PRMI,
    W_QI,
)


@compiled
def open_loop_generate(w: World, now: float, f: int) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    nic = w[W_PRMI][PRI_NP] + fli[f, FL_SRC]
    seq = fli[f, FL_SNDNXT]
    if fli[f, FL_SIZE] >= 0 and seq >= fli[f, FL_SIZE]:
        return
    fli[f, FL_SNDNXT] = seq + 1
    if w[W_QI][nic, fli[f, FL_PRIO], QI_PKTS] >= w[W_PRMI][PRI_HOSTQ]:
        if now >= w[W_PRMF][PRM_WARMUP]:
            count_measured(w, now, C_HOST_DROPS)
    else:
        flags = F_IMP if fli[f, FL_TLT] == 1 else 0
        send_packet(w, now, f, seq, flags, data_bytes(w, f, seq))
    rate = flf[f, FF_RATE]
    gap = np.random.exponential(1.0 / rate) if fli[f, FL_KIND] == K_POISSON else 1.0 / rate
    push_event(w, now + gap, EV_GEN, f, 0, 0.0)


__all__ = ["open_loop_generate"]
