"""Transmit ports: queues, the scheduler, shapers, serialisation and the packet pool.

A transmit port is a switch egress port (index < P) or the NIC of the host on switch port i
(index P + i). Scheduling per port (SAI inc/saischeduler.h): STRICT queues first, higher
queue index first; then DWRR among the others with a quantum proportional to
SCHEDULING_WEIGHT; a queue with MAX_BANDWIDTH_RATE is shaped by a token bucket (bytes/s, burst
MAX_BANDWIDTH_BURST_RATE). Queues paused by PFC are skipped. Host NICs serve their eight
priority queues with equal weights.

A packet (an IP datagram) is serialised as the Ethernet frame that carries it: MAC header, FCS,
the 802.1Q tag of a tagged frame, padding to the minimum frame, preamble/SFD and the inter-frame
gap all take line time (models/ethernet.py, IEEE Std 802.3 clauses 3.1.1 and 4.4.2). Buffer
occupancy, queue bytes, DWRR deficits and shaper tokens still count the datagram.
"""

from __future__ import annotations

from typing import Any

from qosforge.models.ethernet import (
    FCS_BYTES,
    MAC_HEADER_BYTES,
    MIN_FRAME_BYTES,
    PER_FRAME_GAP_BYTES,
    VLAN_TAG_BYTES,
)
from qosforge.softswitch.engine.heap import schedule
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_DEQ,
    C_FORWARDED,
    C_MAX_PKTS_ALIVE,
    C_PKT_EVENTS,
    EV_TX_DONE,
    EV_WAKE,
    F_VLAN,
    LK_SWITCH,
    P_ACC,
    P_BYTES,
    P_CELLS,
    P_FLAGS,
    P_IN,
    P_NEXT,
    P_PG,
    PRI_NP,
    PRM_WARMUP,
    PSC_TX_PKTS,
    QF_BURST,
    QF_DEFICIT,
    QF_SHAPE_RATE,
    QF_TOKEN_TIME,
    QF_TOKENS,
    QI_BYTES,
    QI_HEAD,
    QI_PAUSED,
    QI_PKTS,
    QI_QUANTUM,
    QI_TAIL,
    ST_ALIVE,
    ST_FREE_TOP,
    SW_TOTAL,
    TXF_BUSY_UNTIL,
    TXF_RATE,
    TXI_BUSY,
    TXI_CREDITED,
    TXI_CUR,
    TXI_DEFICIT,
    TXI_NONEMPTY,
    TXI_NQ,
    TXI_RR,
    TXI_STRICT,
    TXI_WAKE,
    W_CNT,
    W_DEQB,
    W_FREE,
    W_LINK,
    W_PKI,
    W_PORTSTAT,
    W_PRMF,
    W_PRMI,
    W_QF,
    W_QI,
    W_ST,
    W_SWI,
    W_TXF,
    W_TXI,
)
from qosforge.softswitch.engine.mmu import release


@compiled
def alloc_packet(w: World) -> int:
    """A free packet slot, or -1 when the fixed pool is exhausted (memory stays flat)."""
    st = w[W_ST]
    top = st[ST_FREE_TOP]
    if top == 0:
        return -1
    top -= 1
    st[ST_FREE_TOP] = top
    st[ST_ALIVE] += 1
    if st[ST_ALIVE] > w[W_CNT][C_MAX_PKTS_ALIVE]:
        w[W_CNT][C_MAX_PKTS_ALIVE] = st[ST_ALIVE]
    packet: int = w[W_FREE][top]
    w[W_PKI][packet, P_NEXT] = -1
    return packet


@compiled
def free_packet(w: World, packet: int) -> None:
    st = w[W_ST]
    w[W_FREE][st[ST_FREE_TOP]] = packet
    st[ST_FREE_TOP] += 1
    st[ST_ALIVE] -= 1


@compiled
def wire_bytes(size: int, flags: int) -> int:
    """Line time in bytes of a datagram of ``size`` bytes (models/ethernet.py wire_bytes, the
    same formula for the kernel): frame = datagram + MAC header + FCS (+ 802.1Q tag), at least
    the minimum frame, plus preamble/SFD and the inter-frame gap."""
    frame = size + MAC_HEADER_BYTES + FCS_BYTES
    if flags & F_VLAN:
        frame += VLAN_TAG_BYTES
    if frame < MIN_FRAME_BYTES:
        frame = MIN_FRAME_BYTES
    return frame + PER_FRAME_GAP_BYTES


@compiled
def _shaper_wait(w: World, now: float, port: int, queue: int) -> float:
    """0 when the queue may send now, else seconds until its token bucket is positive."""
    qf = w[W_QF]
    rate = qf[port, queue, QF_SHAPE_RATE]
    if rate <= 0.0:
        return 0.0
    tokens = qf[port, queue, QF_TOKENS] + rate * (now - qf[port, queue, QF_TOKEN_TIME])
    if tokens > qf[port, queue, QF_BURST]:
        tokens = qf[port, queue, QF_BURST]
    qf[port, queue, QF_TOKENS] = tokens
    qf[port, queue, QF_TOKEN_TIME] = now
    if tokens > 0.0:
        return 0.0
    return float((1.0 - tokens) / rate)


@compiled
def select_queue(w: World, now: float, port: int) -> int:
    """The queue the port sends from next: strict priority queues first (highest index), then
    DWRR among the others (Shreedhar & Varghese 1996); -1 when none may send now (a shaper's
    wake-up is scheduled when one will have tokens).

    The port's masks of non-empty and of strict queues (TXI_NONEMPTY, TXI_STRICT) let it skip
    what cannot be chosen: an empty queue is never sent from, so when no non-strict queue holds a
    packet the DWRR walk below would only pass every queue, zero the deficit of the empty ones
    and advance the round-robin pointer 2n + 2 places, which the shortcut does directly (same
    state afterwards, so the same results; it was a fifth of the loop on idle ports and NICs)."""
    qi, qf, txi = w[W_QI], w[W_QF], w[W_TXI]
    n_queues = txi[port, TXI_NQ]
    nonempty = txi[port, TXI_NONEMPTY]
    strict_ready = nonempty & txi[port, TXI_STRICT]
    wait = -1.0
    if strict_ready != 0:
        for queue in range(n_queues - 1, -1, -1):
            if (strict_ready >> queue) & 1 and qi[port, queue, QI_PAUSED] == 0:
                delay = _shaper_wait(w, now, port, queue)
                if delay == 0.0:
                    return queue
                if wait < 0.0 or delay < wait:
                    wait = delay
    if (nonempty & ~txi[port, TXI_STRICT]) == 0:
        for queue in range(n_queues):
            if not (nonempty >> queue) & 1 and (txi[port, TXI_DEFICIT] >> queue) & 1:
                qf[port, queue, QF_DEFICIT] = 0.0
        txi[port, TXI_DEFICIT] &= nonempty
        txi[port, TXI_RR] = (txi[port, TXI_RR] + 2 * n_queues + 2) % n_queues
        txi[port, TXI_CREDITED] = 0
    else:
        pki = w[W_PKI]
        strict = txi[port, TXI_STRICT]
        for _ in range(2 * n_queues + 2):
            queue = txi[port, TXI_RR]
            if not (nonempty >> queue) & 1:
                # An empty queue (its bit is clear exactly while QI_PKTS is 0): DWRR zeroes its
                # deficit. Its own memory is touched only if that deficit may be non-zero, so a
                # busy port's walk past its empty queues (every packet with a quantum of one MTU)
                # reads no queue rows: at 4,096 hosts each was a cache miss.
                if (txi[port, TXI_DEFICIT] >> queue) & 1:
                    qf[port, queue, QF_DEFICIT] = 0.0
                    txi[port, TXI_DEFICIT] &= ~(1 << queue)
            elif not (strict >> queue) & 1 and qi[port, queue, QI_PAUSED] == 0:
                delay = _shaper_wait(w, now, port, queue)
                if delay == 0.0:
                    if txi[port, TXI_CREDITED] == 0:
                        qf[port, queue, QF_DEFICIT] += qi[port, queue, QI_QUANTUM]
                        txi[port, TXI_DEFICIT] |= 1 << queue
                        txi[port, TXI_CREDITED] = 1
                    size = pki[qi[port, queue, QI_HEAD], P_BYTES]
                    if qf[port, queue, QF_DEFICIT] >= size:
                        qf[port, queue, QF_DEFICIT] -= size
                        return int(queue)
                elif wait < 0.0 or delay < wait:
                    wait = delay
            # The next queue round-robin (a compare, not a modulo: an integer division per step
            # was a visible share of the loop).
            txi[port, TXI_RR] = queue + 1 if queue + 1 < n_queues else 0
            txi[port, TXI_CREDITED] = 0
    if wait > 0.0 and txi[port, TXI_WAKE] == 0:
        txi[port, TXI_WAKE] = 1
        schedule(w, now + wait, EV_WAKE, port, 0, 0.0)
    return -1


@compiled
def start_transmission(w: World, now: float, port: int) -> None:
    txi, txf, qi, qf, pki = w[W_TXI], w[W_TXF], w[W_QI], w[W_QF], w[W_PKI]
    if txi[port, TXI_BUSY] == 1:
        return
    queue = select_queue(w, now, port)
    if queue < 0:
        return
    packet = qi[port, queue, QI_HEAD]
    qi[port, queue, QI_HEAD] = pki[packet, P_NEXT]
    if qi[port, queue, QI_HEAD] < 0:
        qi[port, queue, QI_TAIL] = -1
    size = pki[packet, P_BYTES]
    qi[port, queue, QI_PKTS] -= 1
    if qi[port, queue, QI_PKTS] == 0:
        txi[port, TXI_NONEMPTY] &= ~(1 << queue)
    qi[port, queue, QI_BYTES] -= size
    if qf[port, queue, QF_SHAPE_RATE] > 0.0:
        qf[port, queue, QF_TOKENS] -= size
    done = now + wire_bytes(size, pki[packet, P_FLAGS]) / txf[port, TXF_RATE]
    txi[port, TXI_BUSY] = 1
    txi[port, TXI_CUR] = packet
    txf[port, TXF_BUSY_UNTIL] = done
    if port < w[W_PRMI][PRI_NP]:
        # A switch port: the packet leaves the buffer (one "dequeue" packet event).
        cnt = w[W_CNT]
        cnt[C_DEQ] += 1
        cnt[C_PKT_EVENTS] += 1
        if now >= w[W_PRMF][PRM_WARMUP]:
            cnt[C_FORWARDED] += 1
            w[W_DEQB][port, queue] += size
            w[W_PORTSTAT][port, queue, PSC_TX_PKTS] += 1
        cells = pki[packet, P_CELLS]
        w[W_SWI][w[W_LINK][port, LK_SWITCH], SW_TOTAL] -= cells
        release(w, now, pki[packet, P_IN], pki[packet, P_PG], port, queue, cells, pki[packet, P_ACC])
    schedule(w, done, EV_TX_DONE, port, packet, 0.0)


@compiled
def append(w: World, port: int, queue: int, packet: int) -> None:
    qi, pki = w[W_QI], w[W_PKI]
    pki[packet, P_NEXT] = -1
    tail = qi[port, queue, QI_TAIL]
    if tail < 0:
        qi[port, queue, QI_HEAD] = packet
    else:
        pki[tail, P_NEXT] = packet
    qi[port, queue, QI_TAIL] = packet
    qi[port, queue, QI_PKTS] += 1
    w[W_TXI][port, TXI_NONEMPTY] |= 1 << queue
    qi[port, queue, QI_BYTES] += pki[packet, P_BYTES]


@compiled
def queue_members(qi: Any, pki: Any, ports: Any, queues: Any, members: Any, counts: Any) -> None:
    """The packets of egress queues (``ports[k]``, ``queues[k]``), walked from each head in order
    and written one queue after another into ``members`` (as far as it holds), with each queue's
    count in ``counts``: the live state's queue contents for softswitch/pfc_deadlock.py, where a
    walk in Python cost more than the kernel's run."""
    at = 0
    for k in range(ports.size):
        count = 0
        packet = qi[ports[k], queues[k], QI_HEAD]
        # A list longer than every packet the caller expects is broken (a cycle would never end,
        # in compiled code that Ctrl-C cannot stop): its count, one over, tells the caller.
        while packet >= 0 and count <= members.size:
            if at < members.size:
                members[at] = packet
            at += 1
            count += 1
            packet = pki[packet, P_NEXT]
        counts[k] = count


@compiled
def host_send(w: World, now: float, nic: int, priority: int, packet: int) -> None:
    """Hand a packet to a host NIC (transmit port P + switch port) on its priority queue."""
    append(w, nic, priority, packet)
    start_transmission(w, now, nic)


__all__ = ["alloc_packet", "append", "free_packet", "host_send", "queue_members", "select_queue",
           "start_transmission", "wire_bytes"]
