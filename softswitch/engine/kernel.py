"""The event loop: switch arrivals through the MMU, transmissions, PFC, host events, sampling.

A *packet event* — the benchmark's unit (docs/softswitch.md) — is one enqueue into a switch
egress queue, one dequeue of a packet for transmission at a switch port, or one drop of a
packet at a switch port; host-side events (sources, NICs, ACKs, timers) are not counted.
"""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.heap import heap_pop, heap_push
from qosforge.softswitch.engine.hosts import (
    dcqcn_cnp,
    dcqcn_timer,
    flow_generate,
    host_receive,
    retransmission_timeout,
    sender_ack,
)
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_DROP,
    C_ENQ,
    C_EVENTS,
    C_IMPORTANT_DROPS,
    C_LOSSLESS_DROPS,
    C_MARKS,
    C_PKT_EVENTS,
    DR_BUFFER,
    DR_EGRESS,
    DR_INGRESS,
    DR_LOSSLESS,
    DR_WRED,
    EV_ACK,
    EV_ARR_HOST,
    EV_ARR_SW,
    EV_CNP,
    EV_DCQCN,
    EV_GEN,
    EV_PFC,
    EV_RTO,
    EV_TX_DONE,
    EV_WAKE,
    F_CE,
    F_IMP,
    GI_HDR,
    GI_OCC,
    GI_POOL,
    GI_XOFF,
    MS_MAX_PKTS,
    MS_SAMPLES,
    MS_SUM_BYTES,
    MS_SUM_PKTS,
    P_ACC,
    P_CELLS,
    P_COLOR,
    P_FLAGS,
    P_HDR,
    P_IN,
    P_OUT,
    P_PG,
    P_Q,
    PRI_NP,
    PRM_END,
    PRM_SAMPLE,
    PRM_TOTAL_CELLS,
    PRM_WARMUP,
    QI_BYTES,
    QI_CELLS,
    QI_PAUSED,
    QI_PKTS,
    ST_HSIZE,
    ST_RING_N,
    ST_RING_SKIP,
    ST_RING_STRIDE,
    ST_TOTAL,
    STF_NEXT_SAMPLE,
    TXF_PROP,
    TXI_BUSY,
    TXI_WAKE,
    W_CNT,
    W_DROP,
    W_DROPC,
    W_ENQ,
    W_EVENT,
    W_GI,
    W_HI,
    W_HIST,
    W_HT,
    W_MARK,
    W_MON,
    W_MONS,
    W_PFCPRIO,
    W_PGMAX,
    W_PKI,
    W_PRMF,
    W_PRMI,
    W_QI,
    W_QMAX,
    W_RING,
    W_RINGT,
    W_ST,
    W_STF,
    W_TXF,
    W_TXI,
)
from qosforge.softswitch.engine.mmu import (
    ADMIT_HEADROOM,
    REJECT_INGRESS,
    REJECT_LOSSLESS,
    charge,
    egress_admission,
    ingress_admission,
    monitor_index,
    wred_decision,
)
from qosforge.softswitch.engine.ports import append, free_packet, start_transmission


@compiled
def _drop(w: World, now: float, packet: int, port: int, queue: int, reason: int) -> None:
    pki, cnt = w[W_PKI], w[W_CNT]
    cnt[C_PKT_EVENTS] += 1
    if now >= w[W_PRMF][PRM_WARMUP]:
        cnt[C_DROP] += 1
        w[W_DROP][port, queue, reason] += 1
        w[W_DROPC][port, queue, pki[packet, P_COLOR]] += 1
        if reason == DR_LOSSLESS:
            cnt[C_LOSSLESS_DROPS] += 1
        if pki[packet, P_FLAGS] & F_IMP:
            cnt[C_IMPORTANT_DROPS] += 1
    free_packet(w, packet)


@compiled
def switch_arrival(w: World, now: float, packet: int) -> None:
    pki, gi, cnt = w[W_PKI], w[W_GI], w[W_CNT]
    in_port, pg = pki[packet, P_IN], pki[packet, P_PG]
    out_port, queue = pki[packet, P_OUT], pki[packet, P_Q]
    cells, color = pki[packet, P_CELLS], pki[packet, P_COLOR]
    decision = ingress_admission(w, in_port, pg, cells)
    if decision == REJECT_INGRESS:
        _drop(w, now, packet, out_port, queue, DR_INGRESS)
        return
    if decision == REJECT_LOSSLESS:
        _drop(w, now, packet, out_port, queue, DR_LOSSLESS)
        return
    # Lossless traffic is governed by PG accounting and PFC only; the egress limit would turn
    # back-pressure into loss (SONiC's lossless queue profiles are unlimited for this reason).
    lossless = gi[in_port, pg, GI_POOL] >= 0 and gi[in_port, pg, GI_XOFF] > 0
    if not lossless and not egress_admission(w, out_port, queue, cells):
        _drop(w, now, packet, out_port, queue, DR_EGRESS)
        return
    st = w[W_ST]
    if st[ST_TOTAL] + cells > w[W_PRMF][PRM_TOTAL_CELLS]:
        _drop(w, now, packet, out_port, queue, DR_BUFFER)
        return
    outcome = wred_decision(w, now, out_port, queue, color, pki[packet, P_FLAGS], cells, monitor_index(w, out_port, queue))
    if outcome == 2:
        _drop(w, now, packet, out_port, queue, DR_WRED)
        return
    measuring = now >= w[W_PRMF][PRM_WARMUP]
    if outcome == 1:
        pki[packet, P_FLAGS] |= F_CE
        if measuring:
            cnt[C_MARKS] += 1
            w[W_MARK][out_port, queue, color] += 1
    headroom = 1 if decision == ADMIT_HEADROOM else 0
    pki[packet, P_HDR] = headroom
    pki[packet, P_ACC] = charge(w, now, in_port, pg, out_port, queue, cells, headroom)
    st[ST_TOTAL] += cells
    cnt[C_ENQ] += 1
    cnt[C_PKT_EVENTS] += 1
    if measuring:
        w[W_ENQ][out_port, queue] += 1
    qmax, pgmax, qi = w[W_QMAX], w[W_PGMAX], w[W_QI]
    if qi[out_port, queue, QI_CELLS] > qmax[out_port, queue]:
        qmax[out_port, queue] = qi[out_port, queue, QI_CELLS]
    if gi[in_port, pg, GI_OCC] > pgmax[in_port, pg, 0]:
        pgmax[in_port, pg, 0] = gi[in_port, pg, GI_OCC]
    if gi[in_port, pg, GI_HDR] > pgmax[in_port, pg, 1]:
        pgmax[in_port, pg, 1] = gi[in_port, pg, GI_HDR]
    append(w, out_port, queue, packet)
    start_transmission(w, now, out_port)


@compiled
def _sample(w: World, when: float) -> None:
    """Queue depth of every monitored queue: streaming moments, a fixed histogram and a
    fixed-size trace that halves its resolution when full (memory flat in duration)."""
    mon, mons, hist, qi = w[W_MON], w[W_MONS], w[W_HIST], w[W_QI]
    if when < w[W_PRMF][PRM_WARMUP]:
        return
    bins = hist.shape[1]
    for m in range(mon.shape[0]):
        packets = qi[mon[m, 0], mon[m, 1], QI_PKTS]
        mons[m, MS_SUM_PKTS] += packets
        mons[m, MS_SUM_BYTES] += qi[mon[m, 0], mon[m, 1], QI_BYTES]
        mons[m, MS_SAMPLES] += 1.0
        if packets > mons[m, MS_MAX_PKTS]:
            mons[m, MS_MAX_PKTS] = packets
        hist[m, packets if packets < bins else bins - 1] += 1
    st, ring, ring_t = w[W_ST], w[W_RING], w[W_RINGT]
    st[ST_RING_SKIP] += 1
    if st[ST_RING_SKIP] < st[ST_RING_STRIDE]:
        return
    st[ST_RING_SKIP] = 0
    n = st[ST_RING_N]
    size = ring_t.shape[0]
    if n == size:
        half = size // 2
        for i in range(half):
            ring_t[i] = ring_t[2 * i]
            for m in range(mon.shape[0]):
                ring[m, i] = ring[m, 2 * i]
        n = half
        st[ST_RING_STRIDE] *= 2
    ring_t[n] = when
    for m in range(mon.shape[0]):
        ring[m, n] = qi[mon[m, 0], mon[m, 1], QI_PKTS]
    st[ST_RING_N] = n + 1


@compiled
def _pfc_frame(w: World, now: float, port: int, payload: int) -> None:
    """A PFC frame takes effect: pause (or resume) the priorities in its vector. At a host NIC
    queue i is priority i; at a switch port PFC_PRIORITY_TO_QUEUE picks the queue (§4)."""
    qi = w[W_QI]
    on = payload >> 8
    mask = payload & 255
    n_ports = w[W_PRMI][PRI_NP]
    prio_queue = w[W_PFCPRIO]
    for priority in range(8):
        if not (mask >> priority) & 1:
            continue
        if port >= n_ports:
            qi[port, priority, QI_PAUSED] = on
        elif prio_queue[port, priority] >= 0:
            qi[port, prio_queue[port, priority], QI_PAUSED] = on
    if on == 0:
        start_transmission(w, now, port)


@compiled
def run_kernel(w: World) -> None:
    """Process events until the end time; all results are left in the world's arrays."""
    ht, hi, st, stf, prmf = w[W_HT], w[W_HI], w[W_ST], w[W_STF], w[W_PRMF]
    txi, txf, cnt = w[W_TXI], w[W_TXF], w[W_CNT]
    end = prmf[PRM_END]
    step = prmf[PRM_SAMPLE]
    n_ports = w[W_PRMI][PRI_NP]
    event = w[W_EVENT]
    while st[ST_HSIZE] > 0:
        if ht[0, 0] > end:
            break
        now, value = heap_pop(ht, hi, st, ST_HSIZE, event)
        while stf[STF_NEXT_SAMPLE] <= now:
            _sample(w, stf[STF_NEXT_SAMPLE])
            stf[STF_NEXT_SAMPLE] += step
        cnt[C_EVENTS] += 1
        kind, a, b = event[0], event[1], event[2]
        if kind == EV_TX_DONE:
            txi[a, TXI_BUSY] = 0
            destination = EV_ARR_HOST if a < n_ports else EV_ARR_SW
            heap_push(ht, hi, st, ST_HSIZE, now + txf[a, TXF_PROP], destination, b, 0, 0.0)
            start_transmission(w, now, a)
        elif kind == EV_ARR_SW:
            switch_arrival(w, now, a)
        elif kind == EV_ARR_HOST:
            host_receive(w, now, a)
        elif kind == EV_GEN:
            flow_generate(w, now, a)
        elif kind == EV_ACK:
            sender_ack(w, now, a, b, value)
        elif kind == EV_PFC:
            _pfc_frame(w, now, a, b)
        elif kind == EV_WAKE:
            txi[a, TXI_WAKE] = 0
            start_transmission(w, now, a)
        elif kind == EV_RTO:
            retransmission_timeout(w, now, a)
        elif kind == EV_DCQCN:
            dcqcn_timer(w, now, a)
        elif kind == EV_CNP:
            dcqcn_cnp(w, now, a)
    while stf[STF_NEXT_SAMPLE] <= end:
        _sample(w, stf[STF_NEXT_SAMPLE])
        stf[STF_NEXT_SAMPLE] += step




@compiled
def seed_kernel(seed: int) -> None:
    """Seed numba's generator (separate from NumPy's in the interpreter)."""
    np.random.seed(seed)


__all__ = ["run_kernel", "seed_kernel", "switch_arrival"]
