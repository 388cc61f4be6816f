"""What every host transport shares: building a data packet and handing it to the sender's NIC,
counting delivered bytes, the ACK flags the receivers set, and the retransmission timer's arming.

The reverse path of ACKs and NACKs is an uncongested delay (``FF_ACK_DELAY``): in the scenarios
the data direction is the bottleneck and ACKs are 64-byte control frames. Without SACK, the
receiver reports what SACK would tell the sender with two ACK flags: ``A_HOLE`` (it holds data
beyond a hole, the TLT echo's loss indication) and ``A_DUP`` (the ACK answers a duplicate
segment, D-SACK, RFC 2883).
"""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.counters import count_measured
from qosforge.softswitch.engine.heap import schedule
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_DELIVERED_BYTES,
    C_DELIVERED_PAYLOAD,
    C_DELIVERED_WIRE,
    C_IMPORTANT_SENT,
    C_POOL_EXHAUSTED,
    EV_RTO,
    F_ECT,
    F_IMP,
    F_RTX,
    F_VLAN,
    FF_RTO,
    FF_RTO_AT,
    FL_COLOR,
    FL_COLOR_IMP,
    FL_DST,
    FL_ECT,
    FL_HDR,
    FL_LAST_BYTES,
    FL_PAYLOAD_M,
    FL_PG,
    FL_PG_IMP,
    FL_PKT_BYTES,
    FL_PRIO,
    FL_Q,
    FL_Q_IMP,
    FL_RESENT_M,
    FL_RTO_PENDING,
    FL_SENT_M,
    FL_SIZE,
    FL_SRC,
    FL_TLT,
    FL_VLAN,
    P_BYTES,
    P_CELLS,
    P_COLOR,
    P_FLAGS,
    P_FLOW,
    P_IN,
    P_OUT,
    P_PG,
    P_PRIO,
    P_Q,
    P_SEQ,
    PF_SENT,
    PRI_NP,
    PRM_CELL,
    PRM_WARMUP,
    W_CNT,
    W_FLF,
    W_FLI,
    W_PKF,
    W_PKI,
    W_PRMF,
    W_PRMI,
)
from qosforge.softswitch.engine.ports import alloc_packet, host_send, wire_bytes

# ACK payload flags (the low 6 bits of the event's b; the cumulative ACK is b >> ACK_SHIFT).
A_ECE = 1


A_IMP_ECHO = 2  # TLT Important Echo


A_CLOCK_ECHO = 4  # TLT ImportantClockEcho


A_NACK = 8


A_HOLE = 16  # the receiver holds out-of-order data: a segment before it is missing (SACK's view)


A_DUP = 32  # the ACK answers a duplicate segment (D-SACK, RFC 2883): not a sign of loss


#: The ACK payload (the event's b): the cumulative ACK above ``ACK_SHIFT``, then one SACK block
#: (RFC 2018 §4: the block holding the segment that triggered the ACK) as its offset above the
#: cumulative ACK and its length, ``SACK_BITS`` each (0 length: none), then the flags.
ACK_SHIFT = 32


SACK_BITS = 13


SACK_OFF_SHIFT = 19


SACK_LEN_SHIFT = 6


SACK_MASK = (1 << SACK_BITS) - 1


ACK_FLAGS = (1 << SACK_LEN_SHIFT) - 1


#: FL_TLT value of a flow whose every packet carries the important mark (not TLT's clocking).
ALL_IMPORTANT = 2


#: RFC 6298 §5.5: back off the timer, doubling it; bounded at 64 x so a flow always recovers.
RTO_BACKOFF_CAP = 64.0


@compiled
def push_event(w: World, time: float, kind: int, a: int, b: int, value: float) -> None:
    schedule(w, time, kind, a, b, value)


@compiled
def count_delivered(w: World, f: int, size: int) -> None:
    """A data packet reached its receiver for the first time: count its bytes (the IP datagram),
    the line time its frame took (models/ethernet.py) and the application payload (the datagram
    less its headers)."""
    cnt = w[W_CNT]
    cnt[C_DELIVERED_BYTES] += size
    cnt[C_DELIVERED_WIRE] += wire_bytes(size, F_VLAN if w[W_FLI][f, FL_VLAN] == 1 else 0)
    cnt[C_DELIVERED_PAYLOAD] += size - w[W_FLI][f, FL_HDR]
    w[W_FLI][f, FL_PAYLOAD_M] += size - w[W_FLI][f, FL_HDR]


@compiled
def data_bytes(w: World, f: int, seq: int) -> int:
    """Bytes on the wire of data segment ``seq`` of flow ``f``: a whole packet, except a finite
    flow's last, which carries the payload left over (FL_LAST_BYTES)."""
    fli = w[W_FLI]
    if fli[f, FL_SIZE] >= 0 and seq == fli[f, FL_SIZE] - 1:
        return int(fli[f, FL_LAST_BYTES])
    return int(fli[f, FL_PKT_BYTES])


@compiled
def send_packet(w: World, now: float, f: int, seq: int, flags: int, size: int) -> bool:
    """Build one data packet of flow ``f`` and hand it to the sender's NIC."""
    packet = alloc_packet(w)
    if packet < 0:
        w[W_CNT][C_POOL_EXHAUSTED] += 1
        return False
    fli, pki = w[W_FLI], w[W_PKI]
    if fli[f, FL_TLT] == ALL_IMPORTANT:
        flags |= F_IMP
    important = (flags & F_IMP) != 0
    if fli[f, FL_ECT] == 1:
        flags |= F_ECT
    if fli[f, FL_VLAN] == 1:
        flags |= F_VLAN
    pki[packet, P_FLOW] = f
    pki[packet, P_BYTES] = size
    pki[packet, P_CELLS] = int(np.ceil(size / w[W_PRMF][PRM_CELL] - 1e-9))
    pki[packet, P_SEQ] = seq
    pki[packet, P_FLAGS] = flags
    # Important packets carry the important DSCP: its color and class come from the switch's
    # maps (DSCP->color, DSCP->TC->PG/queue), resolved per flow when the scenario was built.
    pki[packet, P_COLOR] = fli[f, FL_COLOR_IMP] if important else fli[f, FL_COLOR]
    pki[packet, P_PG] = fli[f, FL_PG_IMP] if important else fli[f, FL_PG]
    pki[packet, P_Q] = fli[f, FL_Q_IMP] if important else fli[f, FL_Q]
    pki[packet, P_IN] = fli[f, FL_SRC]
    pki[packet, P_OUT] = fli[f, FL_DST]
    pki[packet, P_PRIO] = fli[f, FL_PRIO]
    w[W_PKF][packet, PF_SENT] = now
    if important:
        count_measured(w, now, C_IMPORTANT_SENT)
    if now >= w[W_PRMF][PRM_WARMUP]:
        fli[f, FL_SENT_M] += 1
        if flags & F_RTX:
            fli[f, FL_RESENT_M] += 1
    host_send(w, now, w[W_PRMI][PRI_NP] + fli[f, FL_SRC], fli[f, FL_PRIO], packet)
    return True


@compiled
def arm_rto(w: World, now: float, f: int) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    flf[f, FF_RTO_AT] = now + flf[f, FF_RTO]
    if fli[f, FL_RTO_PENDING] == 0:
        fli[f, FL_RTO_PENDING] = 1
        push_event(w, flf[f, FF_RTO_AT], EV_RTO, f, 0, 0.0)


__all__ = ["ACK_FLAGS", "ACK_SHIFT", "ALL_IMPORTANT", "A_CLOCK_ECHO", "A_DUP", "A_ECE", "A_HOLE", "A_IMP_ECHO", "A_NACK", "RTO_BACKOFF_CAP", "SACK_BITS", "SACK_LEN_SHIFT", "SACK_MASK", "SACK_OFF_SHIFT", "arm_rto", "count_delivered", "data_bytes", "push_event", "send_packet"]
