"""The event loop: switch arrivals through the MMU, transmissions, PFC, host events, sampling.

A *packet event* — the benchmark's unit (docs/softswitch-engine.md "Packet event, state and
memory") — is one enqueue into a switch egress queue, one dequeue of a packet for transmission
at a switch port, or one drop of a packet at a switch port; host-side events (sources, NICs,
ACKs, timers) are not counted.
"""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.dcqcn import dcqcn_cnp, dcqcn_timer
from qosforge.softswitch.engine.heap import pop_until, schedule
from qosforge.softswitch.engine.hosts import (
    delayed_ack_timeout,
    flow_generate,
    host_receive,
    open_loop_arrival,
    reordering_timeout,
    retransmission_timeout,
    sender_ack,
    tail_loss_probe,
    trim_nack,
)
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_DEADLOCKS,
    C_DROP,
    C_ENQ,
    C_EVENTS,
    C_IMPORTANT_DROPS,
    C_LOSSLESS_BY_REASON,
    C_LOSSLESS_DROPS,
    C_MARKS,
    C_PKT_EVENTS,
    C_TRIM_DROPS,
    C_WATCHDOG_DROPS,
    CL_DSCP_COLOR,
    CL_DSCP_TC,
    CL_TC_PG,
    CL_TC_QUEUE,
    DR_BUFFER,
    DR_EGRESS,
    DR_INGRESS,
    DR_LOSSLESS,
    DR_WATCHDOG,
    DR_WRED,
    EV_ACK,
    EV_ARR_HOST,
    EV_ARR_SW,
    EV_CNP,
    EV_DCQCN,
    EV_DELACK,
    EV_DLD,
    EV_DLR,
    EV_FWD,
    EV_GEN,
    EV_PFC,
    EV_REO,
    EV_RTO,
    EV_TLP,
    EV_TRIM_NACK,
    EV_TX_DONE,
    EV_WAKE,
    F_CE,
    F_CNP,
    F_IMP,
    F_TRIM,
    FF_FLOWLET_GAP,
    FL_DROPPED_M,
    FL_DSCP,
    FL_DSCP_CNP,
    FL_DSCP_IMP,
    FL_DST,
    FL_HASH,
    FL_LB,
    FL_SRC,
    GI_HDR,
    GI_OCC,
    GI_POOL,
    GI_XOFF,
    LB_HASH,
    LB_LEAST_QUEUE,
    LK_CLS,
    LK_FEEDER,
    LK_HOP_COUNT,
    LK_HOP_START,
    LK_LEAF,
    LK_PEER,
    LK_SWITCH,
    MS_MAX_BYTES,
    MS_MAX_PKTS,
    MS_SAMPLES,
    MS_SUM_BYTES,
    MS_SUM_PKTS,
    P_ACC,
    P_BYTES,
    P_CELLS,
    P_COLOR,
    P_FLAGS,
    P_FLOW,
    P_HDR,
    P_IN,
    P_NEXT,
    P_OUT,
    P_PG,
    P_Q,
    PRI_NP,
    PRI_QHIST_WIDTH,
    PRM_MIXED_CELLS,
    PRM_SAMPLE,
    PRM_STOP,
    PRM_WARMUP,
    PS_RECEIVED,
    PS_RECOVERING,
    PSC_DEADLOCKS,
    PSC_PFC_RX,
    PSC_PG_DROPS,
    PSC_TRIM_DROPS,
    PT_DLD_S,
    PT_DLR_S,
    PT_RECEIVED_S,
    PT_RECEIVED_SINCE,
    QF_CELL,
    QI_BYTES,
    QI_CELLS,
    QI_DLR,
    QI_HEAD,
    QI_PAUSED,
    QI_PKTS,
    QI_TAIL,
    ST_QHIST_ROWS,
    ST_QHIST_SAMPLES,
    ST_RING_N,
    ST_RING_SKIP,
    ST_RING_STRIDE,
    STF_NEXT_SAMPLE,
    SW_CAPACITY,
    SW_PEAK,
    SW_SALT,
    SW_TOTAL,
    TXF_FWD,
    TXF_PROP,
    TXI_BUSY,
    TXI_NONEMPTY,
    TXI_PFC_RX,
    TXI_WAKE,
    W_CLS,
    W_CNT,
    W_DROP,
    W_DROPC,
    W_ECMP,
    W_ENQ,
    W_EVENT,
    W_FLF,
    W_FLI,
    W_FLOWLET_M,
    W_FLOWLET_T,
    W_GI,
    W_HIST,
    W_LINK,
    W_MARK,
    W_MON,
    W_MONS,
    W_PFCPRIO,
    W_PFCS,
    W_PFCT,
    W_PGMAX,
    W_PKI,
    W_PORTSTAT,
    W_PRMF,
    W_PRMI,
    W_QF,
    W_QHIST,
    W_QHIST_ROW,
    W_QI,
    W_QMAX,
    W_RING,
    W_RINGT,
    W_ROUTE,
    W_ST,
    W_STF,
    W_SWI,
    W_TXF,
    W_TXI,
)
from qosforge.softswitch.engine.mmu import (
    ADMIT_HEADROOM,
    REJECT_INGRESS,
    REJECT_LOSSLESS,
    charge_pg,
    charge_queue,
    egress_admission,
    ingress_admission,
    monitor_index,
    release,
    wred_decision,
)
from qosforge.softswitch.engine.pfc_time import pause_time
from qosforge.softswitch.engine.ports import append, free_packet, start_transmission
from qosforge.softswitch.engine.trimming import TRIM_DSCP_SHIFT, trim_packet, trims


@compiled
def _drop(w: World, now: float, packet: int, port: int, queue: int, reason: int) -> None:
    pki, cnt = w[W_PKI], w[W_CNT]
    cnt[C_PKT_EVENTS] += 1
    if now >= w[W_PRMF][PRM_WARMUP]:
        cnt[C_DROP] += 1
        w[W_DROP][port, queue, reason] += 1
        w[W_DROPC][port, queue, pki[packet, P_COLOR]] += 1
        in_port, pg = pki[packet, P_IN], pki[packet, P_PG]
        if reason == DR_LOSSLESS or reason == DR_INGRESS:
            w[W_PORTSTAT][in_port, pg, PSC_PG_DROPS] += 1
        gi = w[W_GI]
        if gi[in_port, pg, GI_POOL] >= 0 and gi[in_port, pg, GI_XOFF] > 0:
            # A packet of a lossless class (its ingress PG is lossless) lost for any cause: a
            # lossless loss, counted with its cause (headroom overflow, WRED, a full chip, the
            # PFC watchdog's recovery).
            cnt[C_LOSSLESS_DROPS] += 1
            cnt[C_LOSSLESS_BY_REASON + reason] += 1
        if reason == DR_WATCHDOG:
            cnt[C_WATCHDOG_DROPS] += 1
        if pki[packet, P_FLAGS] & F_IMP:
            cnt[C_IMPORTANT_DROPS] += 1
        if not pki[packet, P_FLAGS] & F_CNP:
            w[W_FLI][pki[packet, P_FLOW], FL_DROPPED_M] += 1
    free_packet(w, packet)


@compiled
def _least_queued(w: World, packet: int, start: int, count: int) -> int:
    """The member whose egress queue for the packet's class holds the fewest bytes, an idle
    transmitter breaking a tie (adaptive routing's port-quality choice by egress queue depth:
    NVIDIA Spectrum adaptive routing, Broadcom Dynamic Load Balancing); the scan starts at a random
    member, so equal members are chosen evenly."""
    pki, fli, members, qi, cls, txi = w[W_PKI], w[W_FLI], w[W_ECMP], w[W_QI], w[W_CLS], w[W_TXI]
    link = w[W_LINK]
    f = pki[packet, P_FLOW]
    dscp = fli[f, FL_DSCP_IMP] if pki[packet, P_FLAGS] & F_IMP else fli[f, FL_DSCP]
    tc = cls[link[pki[packet, P_IN], LK_CLS], CL_DSCP_TC, dscp]
    offset = np.random.randint(0, count)
    best, best_load = 0, -1
    for i in range(count):
        member = (offset + i) % count
        port = members[start + member]
        load = 2 * qi[port, cls[link[port, LK_CLS], CL_TC_QUEUE, tc], QI_BYTES] + txi[port, TXI_BUSY]
        if best_load < 0 or load < best_load:
            best, best_load = member, load
    return best


@compiled
def _balanced_member(w: World, now: float, packet: int, switch: int, start: int, count: int) -> int:
    """The ECMP member a flowlet-switching, spraying or adaptive switch sends the packet to
    (FL_LB, FF_FLOWLET_GAP). With a gap, the switch's flowlet table keeps a flow's member while its
    packets come closer together than the gap and picks anew for the first packet after a longer
    pause (CONGA SIGCOMM 2014 §3.4; LetFlow NSDI 2017 §3: a new flowlet may take another path
    without reordering when the gap exceeds the paths' delay difference); without one, every
    packet is chosen on its own (packet spraying, Dixit et al. INFOCOM 2013 "random packet
    spraying", or per-packet adaptive routing)."""
    fli = w[W_FLI]
    f = w[W_PKI][packet, P_FLOW]
    gap = w[W_FLF][f, FF_FLOWLET_GAP]
    table_t, table_m = w[W_FLOWLET_T], w[W_FLOWLET_M]
    entry = -1
    if gap > 0.0 and table_t.shape[1] > 0:
        entry = (fli[f, FL_HASH] ^ w[W_SWI][switch, SW_SALT]) % table_t.shape[1]
        if now - table_t[switch, entry] <= gap:
            table_t[switch, entry] = now
            return int(table_m[switch, entry] % count)
    if fli[f, FL_LB] == LB_LEAST_QUEUE:
        member = _least_queued(w, packet, start, count)
    else:
        member = np.random.randint(0, count)
    if entry >= 0:
        table_t[switch, entry] = now
        table_m[switch, entry] = member
    return int(member)


@compiled
def route_and_classify(w: World, now: float, packet: int) -> int:
    """Pick the packet's egress port at the switch it entered on ``P_IN`` and classify it there;
    returns that switch's index.

    Forwarding: the ECMP group of the destination host's switch at this switch (its own port at that switch), one member chosen by the
    flow's seeded hash salted per switch (a per-flow hash, so a flow keeps its path and packets
    stay in order), or, for a class balanced beyond ECMP, by :func:`_balanced_member`. Classification with this switch's maps (SAI inc/saiport.h SAI_PORT_ATTR_QOS_*_MAP): DSCP -> TC and color and
    TC -> PG on the ingress port, TC -> queue on the egress port; the packet keeps its DSCP
    (the flow's, its important DSCP under TLT, or its CNP DSCP) from hop to hop."""
    pki, fli, link = w[W_PKI], w[W_FLI], w[W_LINK]
    in_port = pki[packet, P_IN]
    switch = link[in_port, LK_SWITCH]
    f = pki[packet, P_FLOW]
    flags = pki[packet, P_FLAGS]
    host = fli[f, FL_SRC] if flags & F_CNP else fli[f, FL_DST]
    if link[host, LK_SWITCH] == switch:
        # The last hop: the host's own port (or the group a test's topology gives it).
        start, count = link[host, LK_HOP_START], link[host, LK_HOP_COUNT]
    else:
        # Forwarded by the destination switch's prefix, as a switch's LPM table holds it.
        leaf = link[host, LK_LEAF]
        route = w[W_ROUTE]
        start, count = route[switch, leaf, 0], route[switch, leaf, 1]
    member = 0
    if count > 1:
        if fli[f, FL_LB] == LB_HASH or flags & F_CNP:
            member = (fli[f, FL_HASH] ^ w[W_SWI][switch, SW_SALT]) % count
        else:
            member = _balanced_member(w, now, packet, switch, start, count)
    out_port = w[W_ECMP][start + member]
    pki[packet, P_OUT] = out_port
    if w[W_PRMF][PRM_MIXED_CELLS] == 1.0:
        # Occupancy counts whole cells of this switch (its vendor profile's cell size); with one
        # cell size everywhere the host's count stands.
        pki[packet, P_CELLS] = int(np.ceil(pki[packet, P_BYTES] / w[W_QF][in_port, 0, QF_CELL] - 1e-9))
    if link[in_port, LK_FEEDER] >= w[W_PRMI][PRI_NP]:
        # From a host: the host classified the packet for this, its first, switch (engine/build.py),
        # for the egress the flow's hash picks; a balanced flow's egress may be another member,
        # whose TC -> queue map gives the queue.
        if count > 1 and fli[f, FL_LB] != LB_HASH and not flags & F_CNP:
            dscp = fli[f, FL_DSCP_IMP] if flags & F_IMP else fli[f, FL_DSCP]
            tc = w[W_CLS][link[in_port, LK_CLS], CL_DSCP_TC, dscp]
            pki[packet, P_Q] = w[W_CLS][link[out_port, LK_CLS], CL_TC_QUEUE, tc]
        return int(switch)
    if flags & F_CNP:
        dscp = fli[f, FL_DSCP_CNP]
    elif flags & F_TRIM:
        dscp = (flags >> TRIM_DSCP_SHIFT) & 63  # the DSCP the trimming switch wrote
    else:
        dscp = fli[f, FL_DSCP_IMP] if flags & F_IMP else fli[f, FL_DSCP]
    cls = w[W_CLS]
    maps = link[in_port, LK_CLS]
    tc = cls[maps, CL_DSCP_TC, dscp]
    pki[packet, P_COLOR] = cls[maps, CL_DSCP_COLOR, dscp]
    pki[packet, P_PG] = cls[maps, CL_TC_PG, tc]
    pki[packet, P_Q] = cls[link[out_port, LK_CLS], CL_TC_QUEUE, tc]
    return int(switch)


@compiled
def switch_arrival(w: World, now: float, packet: int) -> None:
    """A packet enters a switch: ingress admission by its PG (SAI inc/saibuffer.h ingress PG
    profile; PFC headroom for a lossless PG). With no forwarding latency it goes on to its egress
    queue at once; otherwise the switch holds it, charged to its PG so PFC counts it, while the
    part of the link's latency that is not wire passes (docs/softswitch.md "Link model"), and it
    meets its egress queue's admission and WRED/ECN only when it reaches that queue
    (:func:`forwarded`): a packet still in the forwarding stage is not in the queue those read."""
    pki = w[W_PKI]
    switch = route_and_classify(w, now, packet)
    in_port, pg = pki[packet, P_IN], pki[packet, P_PG]
    out_port, queue = pki[packet, P_OUT], pki[packet, P_Q]
    cells = pki[packet, P_CELLS]
    if w[W_QI][out_port, queue, QI_DLR] == 1:
        # PFC deadlock recovery with the drop action: the queue's packets are discarded (SAI
        # inc/saiswitch.h SAI_SWITCH_ATTR_PFC_DLR_PACKET_ACTION, default DROP).
        _drop(w, now, packet, out_port, queue, DR_WATCHDOG)
        return
    decision = ingress_admission(w, in_port, pg, cells)
    if decision == REJECT_INGRESS:
        _drop(w, now, packet, out_port, queue, DR_INGRESS)
        return
    if decision == REJECT_LOSSLESS:
        _drop(w, now, packet, out_port, queue, DR_LOSSLESS)
        return
    forwarding = w[W_TXF][in_port, TXF_FWD]
    if forwarding > 0.0:
        swi = w[W_SWI]
        if swi[switch, SW_TOTAL] + cells > swi[switch, SW_CAPACITY]:
            _drop(w, now, packet, out_port, queue, DR_BUFFER)
            return
        _hold(w, now, packet, switch, decision)
        schedule(w, now + forwarding, EV_FWD, packet, 0, 0.0)
        return
    _enqueue(w, now, packet, switch, decision, False)


@compiled
def _hold(w: World, now: float, packet: int, switch: int, decision: int) -> None:
    """The switch takes the packet into its buffer: charged to its ingress PG (shared part or
    headroom, which may send XOFF) and to the chip's total."""
    pki, gi, swi = w[W_PKI], w[W_GI], w[W_SWI]
    in_port, pg, cells = pki[packet, P_IN], pki[packet, P_PG], pki[packet, P_CELLS]
    headroom = 1 if decision == ADMIT_HEADROOM else 0
    pki[packet, P_HDR] = headroom
    pki[packet, P_ACC] = charge_pg(w, now, in_port, pg, cells, headroom)
    swi[switch, SW_TOTAL] += cells
    if now >= w[W_PRMF][PRM_WARMUP]:
        # Maxima over the measured window only, like every other statistic of the run.
        if swi[switch, SW_TOTAL] > swi[switch, SW_PEAK]:
            swi[switch, SW_PEAK] = swi[switch, SW_TOTAL]
        pgmax = w[W_PGMAX]
        if gi[in_port, pg, GI_OCC] > pgmax[in_port, pg, 0]:
            pgmax[in_port, pg, 0] = gi[in_port, pg, GI_OCC]
        if gi[in_port, pg, GI_HDR] > pgmax[in_port, pg, 1]:
            pgmax[in_port, pg, 1] = gi[in_port, pg, GI_HDR]


@compiled
def _enqueue(w: World, now: float, packet: int, switch: int, decision: int, held: bool) -> None:
    """The packet reaches its egress queue: egress admission (the queue's shared-buffer limit),
    the chip's buffer (unless the switch already ``held`` it), WRED/ECN against the queue as it is
    now, then it joins the queue. A held packet that is refused gives its PG charge back."""
    pki, gi, cnt, swi = w[W_PKI], w[W_GI], w[W_CNT], w[W_SWI]
    in_port, pg = pki[packet, P_IN], pki[packet, P_PG]
    out_port, queue = pki[packet, P_OUT], pki[packet, P_Q]
    cells, color = pki[packet, P_CELLS], pki[packet, P_COLOR]
    # Lossless traffic is governed by PG accounting and PFC only; the egress limit would turn
    # back-pressure into loss (SONiC's lossless queue profiles are unlimited for this reason).
    lossless = gi[in_port, pg, GI_POOL] >= 0 and gi[in_port, pg, GI_XOFF] > 0
    if not lossless and not egress_admission(w, out_port, queue, cells):
        if trims(w, packet, switch, out_port, queue):
            _enqueue_trimmed(w, now, packet, switch, held)
            return
        _refuse(w, now, packet, out_port, queue, DR_EGRESS, held)
        return
    if not held and swi[switch, SW_TOTAL] + cells > swi[switch, SW_CAPACITY]:
        _drop(w, now, packet, out_port, queue, DR_BUFFER)
        return
    outcome = wred_decision(w, now, out_port, queue, color, pki[packet, P_FLAGS], cells, monitor_index(w, out_port, queue))
    if outcome == 2:
        _refuse(w, now, packet, out_port, queue, DR_WRED, held)
        return
    measuring = now >= w[W_PRMF][PRM_WARMUP]
    if outcome == 1:
        pki[packet, P_FLAGS] |= F_CE
        if measuring:
            cnt[C_MARKS] += 1
            w[W_MARK][out_port, queue, color] += 1
    _join(w, now, packet, switch, decision, held, queue, measuring)


@compiled
def _join(w: World, now: float, packet: int, switch: int, decision: int, held: bool, queue: int,
          measuring: bool) -> None:
    """An admitted packet joins egress queue ``queue`` of its port: the switch takes it into its
    buffer (unless it already ``held`` it), the queue is charged and counts it, and the port
    starts sending if it is idle."""
    pki, cnt = w[W_PKI], w[W_CNT]
    out_port, cells = pki[packet, P_OUT], pki[packet, P_CELLS]
    if not held:
        _hold(w, now, packet, switch, decision)
    pki[packet, P_ACC] |= charge_queue(w, out_port, queue, cells)
    cnt[C_ENQ] += 1
    cnt[C_PKT_EVENTS] += 1
    if measuring:
        w[W_ENQ][out_port, queue] += 1
        qmax, qi = w[W_QMAX], w[W_QI]
        if qi[out_port, queue, QI_CELLS] > qmax[out_port, queue]:
            qmax[out_port, queue] = qi[out_port, queue, QI_CELLS]
    append(w, out_port, queue, packet)
    start_transmission(w, now, out_port)


@compiled
def _enqueue_trimmed(w: World, now: float, packet: int, switch: int, held: bool) -> None:
    """A packet its queue could not admit, trimmed (engine/trimming.py), goes to the trim queue
    under that queue's own admission; a held packet first gives its full charge back, the header
    is charged anew. A header the trim queue (or the chip) cannot take is dropped
    (SAI_QUEUE_STAT_DROPPED_TRIM_PACKETS of the queue that trimmed it)."""
    pki, cnt, swi = w[W_PKI], w[W_CNT], w[W_SWI]
    in_port, pg = pki[packet, P_IN], pki[packet, P_PG]
    out_port, queue = pki[packet, P_OUT], pki[packet, P_Q]
    if held:
        cells = pki[packet, P_CELLS]
        swi[switch, SW_TOTAL] -= cells
        release(w, now, in_port, pg, out_port, queue, cells, pki[packet, P_ACC])
        pki[packet, P_ACC] = 0
    trim_packet(w, now, packet, switch, out_port)
    trim_queue, cells = pki[packet, P_Q], pki[packet, P_CELLS]
    measuring = now >= w[W_PRMF][PRM_WARMUP]
    fits = egress_admission(w, out_port, trim_queue, cells)
    if not fits or swi[switch, SW_TOTAL] + cells > swi[switch, SW_CAPACITY]:
        if measuring:
            cnt[C_TRIM_DROPS] += 1
            w[W_PORTSTAT][out_port, queue, PSC_TRIM_DROPS] += 1
        _drop(w, now, packet, out_port, trim_queue, DR_EGRESS if fits else DR_BUFFER)
        return
    # Its charges were given back above: the switch takes the header in anew.
    _join(w, now, packet, switch, 0, False, trim_queue, measuring)


@compiled
def _refuse(w: World, now: float, packet: int, port: int, queue: int, reason: int,
            held: bool) -> None:
    if held:
        _discard_admitted(w, now, packet, port, queue, reason)
    else:
        _drop(w, now, packet, port, queue, reason)


@compiled
def forwarded(w: World, now: float, packet: int) -> None:
    """A packet admitted ``TXF_FWD`` ago reaches its egress queue (:func:`_enqueue`); if deadlock
    recovery is discarding that queue meanwhile, it is discarded too, freeing its buffer as a
    departure would (as :func:`_flush_queue` does for the packets already queued)."""
    pki = w[W_PKI]
    out_port, queue = pki[packet, P_OUT], pki[packet, P_Q]
    if w[W_QI][out_port, queue, QI_DLR] == 1:
        _discard_admitted(w, now, packet, out_port, queue, DR_WATCHDOG)
        return
    _enqueue(w, now, packet, w[W_LINK][pki[packet, P_IN], LK_SWITCH], 0, True)


@compiled
def _discard_admitted(w: World, now: float, packet: int, port: int, queue: int,
                      reason: int) -> None:
    """The drop of a packet the switch holds (deadlock recovery's, or a refusal at its egress
    queue after the forwarding latency): its cells leave the buffer as a departure's would (which
    may send XON upstream), then it counts as a drop for ``reason``."""
    pki = w[W_PKI]
    cells = pki[packet, P_CELLS]
    w[W_SWI][w[W_LINK][port, LK_SWITCH], SW_TOTAL] -= cells
    release(w, now, pki[packet, P_IN], pki[packet, P_PG], port, queue, cells, pki[packet, P_ACC])
    _drop(w, now, packet, port, queue, reason)


@compiled
def _sample_every_queue(w: World, st: np.ndarray, row_of: np.ndarray) -> None:
    """One sample of every switch queue's depth (softswitch/queue_histograms.py): only the
    queues holding packets are visited (their bits in the port's TXI_NONEMPTY mask,
    engine/ports.py), each counted in its row, which it gets the first time; an empty queue's
    sample is the implied bin 0. A dense [port, queue, bin] count touched every queue's memory
    at every sample (64 KiB per port, 768 MiB at 4,096 hosts)."""
    rows, qi, txi = w[W_QHIST], w[W_QI], w[W_TXI]
    st[ST_QHIST_SAMPLES] += 1
    last = rows.shape[1] - 1
    width = w[W_PRMI][PRI_QHIST_WIDTH]
    for port in range(row_of.shape[0]):
        nonempty = txi[port, TXI_NONEMPTY]
        queue = 0
        while nonempty != 0:
            if nonempty & 1:
                row = row_of[port, queue]
                if row < 0:
                    row = st[ST_QHIST_ROWS]
                    st[ST_QHIST_ROWS] = row + 1
                    row_of[port, queue] = row
                index = qi[port, queue, QI_PKTS] // width
                rows[row, index if index < last else last] += 1
            nonempty >>= 1
            queue += 1


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
        queued_bytes = qi[mon[m, 0], mon[m, 1], QI_BYTES]
        mons[m, MS_SUM_BYTES] += queued_bytes
        if queued_bytes > mons[m, MS_MAX_BYTES]:
            mons[m, MS_MAX_BYTES] = queued_bytes
        mons[m, MS_SAMPLES] += 1.0
        if packets > mons[m, MS_MAX_PKTS]:
            mons[m, MS_MAX_PKTS] = packets
        hist[m, packets if packets < bins else bins - 1] += 1
    st, ring, ring_t = w[W_ST], w[W_RING], w[W_RINGT]
    row_of = w[W_QHIST_ROW]
    if row_of.shape[0] > 0:
        _sample_every_queue(w, st, row_of)
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
    queue i is priority i; at a switch port PFC_PRIORITY_TO_QUEUE picks the queue (SAI inc/saiport.h SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP). A
    switch port whose program enables deadlock detection starts the detection timer when a
    priority becomes paused (SAI_PORT_ATTR_PFC_TC_DLD_INTERVAL)."""
    qi = w[W_QI]
    on = payload >> 8
    mask = payload & 255
    n_ports = w[W_PRMI][PRI_NP]
    prio_queue = w[W_PFCPRIO]
    pfcs, pfct = w[W_PFCS], w[W_PFCT]
    warmup = w[W_PRMF][PRM_WARMUP]
    for priority in range(8):
        if not (mask >> priority) & 1:
            continue
        if port >= n_ports and not (w[W_TXI][port, TXI_PFC_RX] >> priority) & 1:
            # A host NIC without PFC on this priority ignores the PAUSE
            # (IEEE 802.1Q-2018 §36.1.3.2).
            continue
        if now >= warmup:
            w[W_PORTSTAT][port, priority, PSC_PFC_RX] += 1
        pfcs[port, priority, PS_RECEIVED] = on
        started = pause_time(pfct, port, priority, PT_RECEIVED_SINCE, PT_RECEIVED_S, now, warmup, on)
        if port >= n_ports:
            qi[port, priority, QI_PAUSED] = on
        elif prio_queue[port, priority] >= 0:
            if pfcs[port, priority, PS_RECOVERING] == 0:
                qi[port, prio_queue[port, priority], QI_PAUSED] = on
            detection = pfct[port, priority, PT_DLD_S]
            if started and detection > 0.0:
                schedule(w, now + detection, EV_DLD, port, priority, now)
    if on == 0:
        start_transmission(w, now, port)


@compiled
def _flush_queue(w: World, now: float, port: int, queue: int) -> None:
    """Drop every packet held in an egress queue (deadlock recovery's drop action), freeing its
    buffer as a departure would (which may send XON upstream)."""
    qi, pki = w[W_QI], w[W_PKI]
    packet = qi[port, queue, QI_HEAD]
    while packet >= 0:
        following = pki[packet, P_NEXT]
        qi[port, queue, QI_PKTS] -= 1
        qi[port, queue, QI_BYTES] -= pki[packet, P_BYTES]
        _discard_admitted(w, now, packet, port, queue, DR_WATCHDOG)
        packet = following
    qi[port, queue, QI_HEAD] = -1
    qi[port, queue, QI_TAIL] = -1
    w[W_TXI][port, TXI_NONEMPTY] &= ~(1 << queue)


@compiled
def deadlock_detected(w: World, now: float, port: int, priority: int, since: float) -> None:
    """The detection interval ran out: if the priority has been paused ever since, the queue is
    declared deadlocked and recovers for the recovery interval: PFC is ignored and its packets
    are dropped (SAI_QUEUE_ATTR_PFC_DLR_INIT; recovery action DROP, the switch default)."""
    pfcs, pfct = w[W_PFCS], w[W_PFCT]
    if pfcs[port, priority, PS_RECEIVED] == 0 or pfcs[port, priority, PS_RECOVERING] == 1:
        return
    if pfct[port, priority, PT_RECEIVED_SINCE] != since:
        return  # resumed and paused again since the timer was started: a new timer runs
    queue = w[W_PFCPRIO][port, priority]
    w[W_CNT][C_DEADLOCKS] += 1
    if now >= w[W_PRMF][PRM_WARMUP]:
        w[W_PORTSTAT][port, priority, PSC_DEADLOCKS] += 1
    pfcs[port, priority, PS_RECOVERING] = 1
    qi = w[W_QI]
    qi[port, queue, QI_DLR] = 1
    qi[port, queue, QI_PAUSED] = 0
    _flush_queue(w, now, port, queue)
    schedule(w, now + pfct[port, priority, PT_DLR_S], EV_DLR, port, priority, since)
    start_transmission(w, now, port)


@compiled
def deadlock_recovered(w: World, now: float, port: int, priority: int, since: float) -> None:
    """Recovery ends: PFC applies again; a queue still paused is watched for another detection
    interval (pfcwd's restoration, then detection again)."""
    pfcs, pfct = w[W_PFCS], w[W_PFCT]
    queue = w[W_PFCPRIO][port, priority]
    qi = w[W_QI]
    pfcs[port, priority, PS_RECOVERING] = 0
    qi[port, queue, QI_DLR] = 0
    qi[port, queue, QI_PAUSED] = pfcs[port, priority, PS_RECEIVED]
    if pfcs[port, priority, PS_RECEIVED] == 1:
        schedule(w, now + pfct[port, priority, PT_DLD_S], EV_DLD, port, priority,
                  pfct[port, priority, PT_RECEIVED_SINCE])
    else:
        start_transmission(w, now, port)


@compiled
def run_kernel(w: World) -> None:
    """Process events until the stop time (the run's end unless the caller stops it in steps);
    all results are left in the world's arrays. Stopping and calling again processes the same
    events in the same order: events after the stop time stay queued."""
    stf, prmf = w[W_STF], w[W_PRMF]
    txi, txf, cnt = w[W_TXI], w[W_TXF], w[W_CNT]
    end = prmf[PRM_STOP]
    step = prmf[PRM_SAMPLE]
    link, pki = w[W_LINK], w[W_PKI]
    event = w[W_EVENT]
    while True:
        due, now, value = pop_until(w, end)
        if not due:
            break
        while stf[STF_NEXT_SAMPLE] <= now:
            _sample(w, stf[STF_NEXT_SAMPLE])
            stf[STF_NEXT_SAMPLE] += step
        cnt[C_EVENTS] += 1
        kind, a, b = event[0], event[1], event[2]
        if kind == EV_TX_DONE:
            txi[a, TXI_BUSY] = 0
            # The link table says what is at the other end: a host, or a switch port (which the
            # packet then enters on).
            peer = link[a, LK_PEER]
            if peer < 0:
                # A host spends the link's latency beyond the wire in its NIC and stack.
                arrival = now + txf[a, TXF_PROP] + txf[a, TXF_FWD]
                if not open_loop_arrival(w, arrival, b):
                    schedule(w, arrival, EV_ARR_HOST, b, 0, 0.0)
            else:
                pki[b, P_IN] = peer
                schedule(w, now + txf[a, TXF_PROP], EV_ARR_SW, b, 0, 0.0)
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
        elif kind == EV_DLD:
            deadlock_detected(w, now, a, b, value)
        elif kind == EV_DLR:
            deadlock_recovered(w, now, a, b, value)
        elif kind == EV_FWD:
            forwarded(w, now, a)
        elif kind == EV_DELACK:
            delayed_ack_timeout(w, now, a)
        elif kind == EV_TLP:
            tail_loss_probe(w, now, a)
        elif kind == EV_REO:
            reordering_timeout(w, now, a)
        elif kind == EV_TRIM_NACK:
            trim_nack(w, now, a, b, value)
    while stf[STF_NEXT_SAMPLE] <= end:
        _sample(w, stf[STF_NEXT_SAMPLE])
        stf[STF_NEXT_SAMPLE] += step




@compiled
def seed_kernel(seed: int) -> None:
    """Seed numba's generator (separate from NumPy's in the interpreter)."""
    np.random.seed(seed)


__all__ = ["deadlock_detected", "deadlock_recovered", "route_and_classify", "run_kernel", "seed_kernel", "switch_arrival"]
