"""The shared-buffer MMU: ingress PG and egress queue accounting, PFC XOFF/XON, WRED/ECN.

Section numbers refer to the SAI headers (opencomputeproject/SAI inc/) and sonic-sairedis. Occupancy is counted in whole cells (a frame of
s bytes holds ceil(s/cell) cells, docs/architecture.md §6). Each admitted packet is charged twice, as
shared-buffer chips do: to its ingress priority group (in the ingress pool, or PG headroom) and
to its egress queue (in the egress pool); the chip's whole buffer caps the sum of packets held.

The two charges happen at different times when the link's latency includes forwarding
(engine/kernel.py): the PG is charged when the packet arrives (so PFC sees it at once), the
egress queue when the packet enters it, after the forwarding latency; egress admission (the
queue's dynamic/static threshold) and WRED/ECN are decided at that moment, against the packets
actually in the queue. Shared-buffer ASICs admit the same way, by ingress PG and by egress queue
(SAI inc/saibuffer.h: ingress PG and queue buffer profiles are separate limits), with the egress
check made when the packet is enqueued.
"""

from __future__ import annotations

import numpy as np

from qosforge.models.ethernet import PER_FRAME_GAP_BYTES
from qosforge.softswitch.engine.counters import count_measured
from qosforge.softswitch.engine.heap import schedule
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    BD_ARRIVALS,
    BD_DROPS,
    BD_MARKS,
    C_PFC_XOFF,
    C_PFC_XON,
    EV_PFC,
    F_CE,
    F_ECT,
    GF_ALPHA,
    GI_DYN,
    GI_HDR,
    GI_MASK,
    GI_OCC,
    GI_POOL,
    GI_RES,
    GI_STATE,
    GI_STATIC,
    GI_XOFF,
    GI_XON,
    GI_XON_OFFSET,
    LK_FEEDER,
    PO_HDR_SIZE,
    PO_HDR_USED,
    PO_SHARED,
    PO_USED,
    PRM_BAND,
    PRM_PFC_FRAME,
    PRM_WARMUP,
    PSC_PFC_TX,
    PT_SENT_S,
    PT_SENT_SINCE,
    QF_ALPHA,
    QF_AVG,
    QF_CELL,
    QF_WEIGHT,
    QI_CELLS,
    QI_DYN,
    QI_POOL,
    QI_RES,
    QI_STATIC,
    QI_WRED,
    TXF_BUSY_UNTIL,
    TXF_PROP,
    TXF_RATE,
    TXF_RESPONSE,
    W_BAND,
    W_GF,
    W_GI,
    W_LINK,
    W_MON,
    W_PFCT,
    W_PO,
    W_PORTSTAT,
    W_PRMF,
    W_QF,
    W_QI,
    W_TXF,
    W_WRF,
    W_WRI,
    W_WRP,
    WRI_ECT_DROP,
    WRI_ENABLED,
    WRI_MARK,
)
from qosforge.softswitch.engine.pfc_time import pause_time

#: Admission outcomes.
ADMIT_SHARED = 0
ADMIT_HEADROOM = 1
REJECT_INGRESS = 2
REJECT_LOSSLESS = 3
REJECT_EGRESS = 4


@compiled
def shared_part(occupancy: int, reserved: int) -> int:
    """Cells above the reserved size, i.e. charged to the pool's shared space (SAI inc/saibuffer.h)."""
    return occupancy - reserved if occupancy > reserved else 0


@compiled
def _fits(shared_now: int, extra: int, free: int, dynamic: int, alpha: float, static: int) -> bool:
    """Dynamic threshold (Choudhury-Hahne; SAI inc/saibuffer.h SHARED_DYNAMIC_TH): admit while the shared usage is below
    alpha x the pool's free shared space. Static: shared usage stays within SHARED_STATIC_TH
    ("When set to zero there is no limit", SAI inc/saibuffer.h). Either way the pool must have the room."""
    if extra == 0:
        return True
    if extra > free:
        return False
    if dynamic == 1:
        return shared_now < alpha * free
    return static == 0 or shared_now + extra <= static


@compiled
def ingress_admission(w: World, port: int, pg: int, cells: int) -> int:
    gi, gf, po = w[W_GI], w[W_GF], w[W_PO]
    pool = gi[port, pg, GI_POOL]
    if pool < 0:
        return ADMIT_SHARED  # no profile on this PG: no ingress limit (SAI inc/saibuffer.h SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE "Default no profile")
    occupancy, reserved = gi[port, pg, GI_OCC], gi[port, pg, GI_RES]
    shared_now = shared_part(occupancy, reserved)
    extra = shared_part(occupancy + cells, reserved) - shared_now
    free = po[pool, PO_SHARED] - po[pool, PO_USED]
    if _fits(shared_now, extra, free, gi[port, pg, GI_DYN], gf[port, pg, GF_ALPHA], gi[port, pg, GI_STATIC]):
        return ADMIT_SHARED
    xoff = gi[port, pg, GI_XOFF]
    if xoff == 0:
        return REJECT_INGRESS
    # Lossless PG past its limit: the frame lands in headroom, up to XOFF_TH per PG, or within
    # the pool's shared headroom (XOFF_SIZE) when there is one (SAI inc/saibuffer.h SAI_BUFFER_PROFILE_ATTR_XOFF_TH text).
    if gi[port, pg, GI_HDR] + cells > xoff:
        return REJECT_LOSSLESS
    headroom_pool = po[pool, PO_HDR_SIZE]
    if headroom_pool > 0 and po[pool, PO_HDR_USED] + cells > headroom_pool:
        return REJECT_LOSSLESS
    return ADMIT_HEADROOM


@compiled
def egress_admission(w: World, port: int, queue: int, cells: int) -> bool:
    qi, qf, po = w[W_QI], w[W_QF], w[W_PO]
    pool = qi[port, queue, QI_POOL]
    if pool < 0:
        return True
    occupancy, reserved = qi[port, queue, QI_CELLS], qi[port, queue, QI_RES]
    shared_now = shared_part(occupancy, reserved)
    extra = shared_part(occupancy + cells, reserved) - shared_now
    free = po[pool, PO_SHARED] - po[pool, PO_USED]
    return _fits(shared_now, extra, free, qi[port, queue, QI_DYN], qf[port, queue, QF_ALPHA], qi[port, queue, QI_STATIC])


@compiled
def _pg_limit_reached(w: World, port: int, pg: int) -> bool:
    gi, gf, po = w[W_GI], w[W_GF], w[W_PO]
    pool = gi[port, pg, GI_POOL]
    shared_now = shared_part(gi[port, pg, GI_OCC], gi[port, pg, GI_RES])
    free = po[pool, PO_SHARED] - po[pool, PO_USED]
    if gi[port, pg, GI_DYN] == 1:
        return bool(shared_now >= gf[port, pg, GF_ALPHA] * free or free <= 0)
    static = gi[port, pg, GI_STATIC]
    return bool((static > 0 and shared_now >= static) or free <= 0)


@compiled
def send_pfc(w: World, now: float, port: int, mask: int, on: int) -> None:
    """PFC frame from switch port ``port`` to the transmitter at the link's other end (the host's
    NIC, or the upstream switch's egress port): it waits for the frame the port is sending (MAC
    Control frames do not pre-empt, IEEE 802.3 Clause 31), is serialised, crosses the cable, and
    a PAUSE takes effect after the peer's reaction time (Annex 31B.3.7). The frame is a 64 B MAC
    Control frame and takes its preamble/SFD and inter-frame gap of line time too
    (models/ethernet.py)."""
    txf, prmf = w[W_TXF], w[W_PRMF]
    peer = w[W_LINK][port, LK_FEEDER]
    for priority in range(8):
        if (mask >> priority) & 1:
            pause_time(w[W_PFCT], port, priority, PT_SENT_SINCE, PT_SENT_S, now, prmf[PRM_WARMUP], on)
            if now >= prmf[PRM_WARMUP]:
                w[W_PORTSTAT][port, priority, PSC_PFC_TX] += 1
    start = max(now, txf[port, TXF_BUSY_UNTIL])
    # XON travels the same path, so the peer sees PAUSE and resume in the order they were sent.
    serialise = (prmf[PRM_PFC_FRAME] + PER_FRAME_GAP_BYTES) / txf[port, TXF_RATE]
    arrive = start + serialise + txf[port, TXF_PROP] + txf[peer, TXF_RESPONSE]
    schedule(w, arrive, EV_PFC, peer, mask | (on << 8), 0.0)
    count_measured(w, now, C_PFC_XOFF if on == 1 else C_PFC_XON)


#: Accounting bits of an admitted packet (P_ACC): charged to its ingress PG, to its egress queue's
#: buffer profile (pool), and to its egress queue's depth (QI_CELLS, what WRED and the dynamic
#: threshold read).
ACC_PG = 1
ACC_QUEUE_POOL = 2
ACC_QUEUE = 4


@compiled
def charge_pg(w: World, now: float, in_port: int, pg: int, cells: int, headroom: int) -> int:
    """Account an admitted packet to its ingress PG (shared part or headroom) and send XOFF when
    the PG reaches its limit; returns ACC_PG when the PG has a buffer profile, else 0."""
    gi, po = w[W_GI], w[W_PO]
    pool = gi[in_port, pg, GI_POOL]
    if pool < 0:
        return 0
    if headroom == 1:
        gi[in_port, pg, GI_HDR] += cells
        if po[pool, PO_HDR_SIZE] > 0:
            po[pool, PO_HDR_USED] += cells
        if gi[in_port, pg, GI_STATE] == 0:
            # The frame did not fit under the shared limit: the limit is reached.
            gi[in_port, pg, GI_STATE] = 1
            send_pfc(w, now, in_port, gi[in_port, pg, GI_MASK], 1)
    else:
        occupancy, reserved = gi[in_port, pg, GI_OCC], gi[in_port, pg, GI_RES]
        grown = shared_part(occupancy + cells, reserved) - shared_part(occupancy, reserved)
        po[pool, PO_USED] += grown
        gi[in_port, pg, GI_OCC] = occupancy + cells
        # "on reaching its shared limit send PFC XOFF" for the priorities mapped to the PG.
        lossless_open = gi[in_port, pg, GI_XOFF] > 0 and gi[in_port, pg, GI_STATE] == 0
        if lossless_open and _pg_limit_reached(w, in_port, pg):
            gi[in_port, pg, GI_STATE] = 1
            send_pfc(w, now, in_port, gi[in_port, pg, GI_MASK], 1)
    return ACC_PG


@compiled
def charge_queue(w: World, out_port: int, queue: int, cells: int) -> int:
    """Account a packet entering its egress queue: the queue's depth (QI_CELLS) and, with a
    buffer profile, its pool; returns ACC_QUEUE (| ACC_QUEUE_POOL)."""
    qi, po = w[W_QI], w[W_PO]
    bits = ACC_QUEUE
    qpool = qi[out_port, queue, QI_POOL]
    occupancy = qi[out_port, queue, QI_CELLS]
    if qpool >= 0:
        bits |= ACC_QUEUE_POOL
        reserved = qi[out_port, queue, QI_RES]
        po[qpool, PO_USED] += shared_part(occupancy + cells, reserved) - shared_part(occupancy, reserved)
    qi[out_port, queue, QI_CELLS] = occupancy + cells
    return bits


@compiled
def release(w: World, now: float, in_port: int, pg: int, out_port: int, queue: int, cells: int, bits: int) -> None:
    """Free a departing (or dropped) packet's cells from what ``bits`` says it was charged to (its
    egress queue, its PG) and send XON when its PG has drained (SAI inc/saibuffer.h
    SAI_BUFFER_PROFILE_ATTR_XON_TH: headroom empty
    and usage <= max(XON_TH, limit - XON_OFFSET_TH))."""
    gi, gf, qi, po = w[W_GI], w[W_GF], w[W_QI], w[W_PO]
    if bits & ACC_QUEUE:
        occupancy = qi[out_port, queue, QI_CELLS]
        if bits & ACC_QUEUE_POOL:
            qpool = qi[out_port, queue, QI_POOL]
            reserved = qi[out_port, queue, QI_RES]
            shrunk = shared_part(occupancy, reserved) - shared_part(occupancy - cells, reserved)
            po[qpool, PO_USED] -= shrunk
        qi[out_port, queue, QI_CELLS] = occupancy - cells
    if not bits & ACC_PG:
        return
    pool = gi[in_port, pg, GI_POOL]
    # PG accounting is by counters, not per packet: a departure frees headroom first, then the
    # shared part, then the reserved part, so headroom is free again for the next XOFF as soon as
    # the PG drains (as shared-buffer MMUs and the HPCC/DCQCN ns-3 switch MMU account it).
    from_headroom = min(gi[in_port, pg, GI_HDR], cells)
    if from_headroom > 0:
        gi[in_port, pg, GI_HDR] -= from_headroom
        if po[pool, PO_HDR_SIZE] > 0:
            po[pool, PO_HDR_USED] -= from_headroom
    rest = cells - from_headroom
    if rest > 0:
        occupancy, reserved = gi[in_port, pg, GI_OCC], gi[in_port, pg, GI_RES]
        po[pool, PO_USED] -= shared_part(occupancy, reserved) - shared_part(occupancy - rest, reserved)
        gi[in_port, pg, GI_OCC] = occupancy - rest
    # SAI inc/saibuffer.h (XON_TH, XON_OFFSET_TH): resume "when the total buffer usage of this PG
    # is less than the maximum of XON_TH and the total buffer limit minus XON_OFFSET_TH, and
    # available buffer in the PG buffer is larger than the XOFF_TH", i.e. only once the headroom
    # is empty again (the HPCC/DCQCN ns-3 switch MMU resumes on the same condition, switch-mmu.cc).
    # Without the second condition a PG under a moving dynamic limit resumed with headroom still
    # occupied and the next XOFF's in-flight data overflowed it (docs/softswitch.md "Findings").
    # A program without XON_OFFSET_TH has the attribute's default, 0 (SAI metadata), so the PG
    # resumes at its limit.
    if gi[in_port, pg, GI_STATE] == 1 and gi[in_port, pg, GI_HDR] == 0:
        free = po[pool, PO_SHARED] - po[pool, PO_USED]
        if gi[in_port, pg, GI_DYN] == 1:
            shared_limit = gf[in_port, pg, GF_ALPHA] * free
        else:
            shared_limit = float(gi[in_port, pg, GI_STATIC]) if gi[in_port, pg, GI_STATIC] > 0 else float(po[pool, PO_SHARED])
        limit = gi[in_port, pg, GI_RES] + shared_limit
        if gi[in_port, pg, GI_OCC] <= max(float(gi[in_port, pg, GI_XON]), limit - gi[in_port, pg, GI_XON_OFFSET]):
            gi[in_port, pg, GI_STATE] = 0
            send_pfc(w, now, in_port, gi[in_port, pg, GI_MASK], 0)


@compiled
def step_curve(w: World, wred: int, color: int, kind: int, queue_bytes: float) -> float:
    """The programmed step curve: 0 at or below min, step i's value on (min + i*s, min + (i+1)*s],
    1 above max (TBTCP §6.2; the same intervals as fitting.red_model.step_marking_probability)."""
    wrf, wrp = w[W_WRF], w[W_WRP]
    low, high = wrf[wred, color, kind, 0], wrf[wred, color, kind, 1]
    if queue_bytes <= low:
        return 0.0
    if queue_bytes > high:
        return 1.0
    steps = wrp.shape[3]
    index = int(np.ceil((queue_bytes - low) / ((high - low) / steps))) - 1
    if index < 0:
        index = 0
    elif index >= steps:
        index = steps - 1
    return float(wrp[wred, color, kind, index])


@compiled
def wred_decision(w: World, now: float, port: int, queue: int, color: int, flags: int, cells: int, monitor: int) -> int:
    """WRED on the egress queue (SAI inc/saiwred.h): returns 0 pass, 1 mark CE, 2 drop.

    Non-ECT packets are dropped with their color's curve if <C>_ENABLE. ECT packets of a color in
    ECN_MARK_MODE are marked with the ECT curve (ECN_<C>_* when the ECT thresholds are in
    effect, else the <C>_ curve) and face the drop curve too only where the chip applies color
    drop to ECT packets with ECT thresholds on (the builder folds that into WRI_ECT_DROP)."""
    qi, qf, wri = w[W_QI], w[W_QF], w[W_WRI]
    wred = qi[port, queue, QI_WRED]
    if wred < 0:
        return 0
    instantaneous = qi[port, queue, QI_CELLS] * qf[port, queue, QF_CELL]
    weight = qf[port, queue, QF_WEIGHT]
    if weight < 1.0:
        # avg = old*(1 - 2^-n) + current*2^-n (SAI WRED proposal, SAI inc/saiwred.h notes).
        qf[port, queue, QF_AVG] = qf[port, queue, QF_AVG] * (1.0 - weight) + instantaneous * weight
        depth = qf[port, queue, QF_AVG]
    else:
        depth = instantaneous
    ect = (flags & F_ECT) != 0
    decision = 0
    if ect and wri[wred, color, WRI_MARK] == 1:
        if wri[wred, color, WRI_ECT_DROP] == 1 and np.random.random() < step_curve(w, wred, color, 0, depth):
            decision = 2
        elif np.random.random() < step_curve(w, wred, color, 1, depth):
            decision = 1
    elif wri[wred, color, WRI_ENABLED] == 1 and np.random.random() < step_curve(w, wred, color, 0, depth):
        decision = 2
    if monitor >= 0 and now >= w[W_PRMF][PRM_WARMUP]:
        band_stats = w[W_BAND]
        band = int(depth // w[W_PRMF][PRM_BAND])
        if band >= band_stats.shape[3]:
            band = band_stats.shape[3] - 1
        e = 1 if ect else 0
        band_stats[monitor, color, e, band, BD_ARRIVALS] += 1
        if decision == 1:
            band_stats[monitor, color, e, band, BD_MARKS] += 1
        elif decision == 2:
            band_stats[monitor, color, e, band, BD_DROPS] += 1
    return decision


@compiled
def monitor_index(w: World, port: int, queue: int) -> int:
    mon = w[W_MON]
    for m in range(mon.shape[0]):
        if mon[m, 0] == port and mon[m, 1] == queue:
            return m
    return -1


__all__ = [
    "ACC_PG",
    "ACC_QUEUE",
    "ACC_QUEUE_POOL",
    "ADMIT_HEADROOM",
    "ADMIT_SHARED",
    "F_CE",
    "REJECT_EGRESS",
    "REJECT_INGRESS",
    "REJECT_LOSSLESS",
    "charge_pg",
    "charge_queue",
    "egress_admission",
    "ingress_admission",
    "monitor_index",
    "release",
    "send_pfc",
    "step_curve",
    "wred_decision",
]
