"""The rate-based transport, DCQCN (Zhu et al. 2015): the receiver (NP) sends at most one CNP per
flow every 50 us while CE-marked packets arrive; the sender (RP) cuts R_C <- R_C (1 - alpha/2)
per CNP, decays alpha after 55 us without CNPs and raises its rate in fast-recovery / additive /
hyper-additive stages driven by a 55 us timer (restarted by each CNP) and a byte counter, with
steps proportional to its line rate; go-back-N on NACK, and a transport timer that restarts only
when an ACK makes progress. With TLT
(TLT §5.2) the last packet of a flow, one packet every N, and the first packet of each
retransmission round are important.

CNPs of a flow whose switch maps the CNP DSCP to a queue (``FL_CNP_Q``, a compiled RoCE plan's
strict-priority CNP class) are packets: they cross the fabric from the receiver's port to the
sender's, and reach the sender after ``FF_ACK_DELAY`` or their transit, whichever is longer.
"""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.counters import count_measured
from qosforge.softswitch.engine.host_nic import (
    A_NACK,
    ACK_SHIFT,
    arm_rto,
    count_delivered,
    data_bytes,
    push_event,
    send_packet,
)
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_CNP,
    C_POOL_EXHAUSTED,
    EV_ACK,
    EV_CNP,
    EV_DCQCN,
    EV_GEN,
    F_CE,
    F_CNP,
    F_IMP,
    F_RTX,
    F_VLAN,
    FF_ACK_DELAY,
    FF_BYTE_CNT,
    FF_BYTES_CTR,
    FF_DALPHA,
    FF_DCQCN_NEXT,
    FF_FINISH,
    FF_LAST_CNP,
    FF_LINE,
    FF_RATE,
    FF_REWIND_AT,
    FF_RTO,
    FF_RTO_INITIAL,
    FF_TARGET,
    FF_TIMER_CNT,
    FL_CNP_COLOR,
    FL_CNP_PG,
    FL_CNP_PRIO,
    FL_CNP_Q,
    FL_DCQCN_ARMED,
    FL_DCQCN_OFF,
    FL_DONE,
    FL_DST,
    FL_GEN_PENDING,
    FL_HIGH,
    FL_NACKED,
    FL_PKT_BYTES,
    FL_PRIO,
    FL_RCVNXT,
    FL_RTO_PENDING,
    FL_RTX_FIRST,
    FL_SINCE_IMP,
    FL_SIZE,
    FL_SNDNXT,
    FL_SNDUNA,
    FL_SR,
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
    PRM_CNP_INTERVAL,
    PRM_DCQCN_BYTES,
    PRM_DCQCN_F,
    PRM_DCQCN_G,
    PRM_DCQCN_MIN_RATE,
    PRM_DCQCN_RAI,
    PRM_DCQCN_RHAI,
    PRM_DCQCN_TIMER,
    PRM_TLT_N,
    PRM_WARMUP,
    QI_PKTS,
    W_CNT,
    W_FLF,
    W_FLI,
    W_PKF,
    W_PKI,
    W_PRMF,
    W_PRMI,
    W_QI,
)
from qosforge.softswitch.engine.ports import alloc_packet, host_send, wire_bytes
from qosforge.softswitch.engine.selective_repeat import (
    sr_ack,
    sr_next,
    sr_receive,
    sr_sent,
    sr_timeout,
    sr_trim_nack,
)
from qosforge.softswitch.engine.trimming import NACK_RTX, NACK_SHIFT
from qosforge.softswitch.traffic.spec import DCQCN_RATE_REFERENCE_BPS


@compiled
def resume_pacer(w: World, now: float, f: int) -> None:
    fli = w[W_FLI]
    if fli[f, FL_GEN_PENDING] == 0:
        fli[f, FL_GEN_PENDING] = 1
        push_event(w, now, EV_GEN, f, 0, 0.0)


@compiled
def _dcqcn_increase(w: World, f: int) -> None:
    """DCQCN rate increase event (Zhu et al. §3.1): fast recovery while both stage counters are
    below F, hyper increase once both exceed it, additive increase otherwise; then
    R_C <- (R_T + R_C)/2. The steps R_AI, R_HAI are stated at the paper's 40 Gb/s and scale with
    the sender's line rate (traffic/spec.py DCQCN_RATE_REFERENCE_BPS)."""
    flf, prmf = w[W_FLF], w[W_PRMF]
    stages_f = prmf[PRM_DCQCN_F]
    timer, counter = flf[f, FF_TIMER_CNT], flf[f, FF_BYTE_CNT]
    line = flf[f, FF_LINE]
    scale = line / (DCQCN_RATE_REFERENCE_BPS / 8.0)
    if max(timer, counter) < stages_f:
        pass
    elif min(timer, counter) > stages_f:
        flf[f, FF_TARGET] += (min(timer, counter) - stages_f) * prmf[PRM_DCQCN_RHAI] * scale
    else:
        flf[f, FF_TARGET] += prmf[PRM_DCQCN_RAI] * scale
    flf[f, FF_TARGET] = min(flf[f, FF_TARGET], line)
    flf[f, FF_RATE] = min((flf[f, FF_TARGET] + flf[f, FF_RATE]) / 2.0, line)


@compiled
def _dcqcn_restart_timer(w: World, now: float, f: int) -> None:
    """(Re)start the RP's alpha/rate-increase timer: it fires after 55 us without a CNP (Zhu et
    al. §3.1: "if the RP does not get feedback for K time units"; the authors' ns-3 qbb-net-device.cc
    cancels and reschedules both timers on every CNP). A superseded tick finds a later
    FF_DCQCN_NEXT and is ignored."""
    flf = w[W_FLF]
    flf[f, FF_DCQCN_NEXT] = now + w[W_PRMF][PRM_DCQCN_TIMER]
    w[W_FLI][f, FL_DCQCN_ARMED] = 1
    push_event(w, flf[f, FF_DCQCN_NEXT], EV_DCQCN, f, 0, 0.0)


@compiled
def _line_time(w: World, f: int, size: int) -> int:
    """Bytes of line time of one of the flow's packets: the rate limiter's rate R_C is a rate on
    the wire (at R_C = line rate the NIC sends back to back), so the pacer spaces whole frames
    with their preamble and gap (models/ethernet.py), not bare datagrams."""
    return wire_bytes(size, F_VLAN if w[W_FLI][f, FL_VLAN] == 1 else 0)


@compiled
def dcqcn_generate(w: World, now: float, f: int) -> None:
    fli, flf, prmf = w[W_FLI], w[W_FLF], w[W_PRMF]
    fli[f, FL_GEN_PENDING] = 0
    if fli[f, FL_DONE] == 1:
        return
    if fli[f, FL_DCQCN_ARMED] == 0:
        _dcqcn_restart_timer(w, now, f)
    seq = fli[f, FL_SNDNXT]
    size = fli[f, FL_SIZE]
    if fli[f, FL_SR] == 1:
        # Selective repeat: a lost packet first, else a new one within BDP-FC; with neither
        # the pacer stops until an ACK, a NACK or the timer restarts it.
        seq = sr_next(w, f)
        if seq < 0:
            return
    elif size >= 0 and seq >= size:
        return
    nic = w[W_PRMI][PRI_NP] + fli[f, FL_SRC]
    if w[W_QI][nic, fli[f, FL_PRIO], QI_PKTS] >= 2:
        # The NIC is paused or busy: the rate limiter waits for it rather than queueing more.
        fli[f, FL_GEN_PENDING] = 1
        gap = _line_time(w, f, fli[f, FL_PKT_BYTES]) / flf[f, FF_LINE]
        push_event(w, now + gap, EV_GEN, f, 0, 0.0)
        return
    flags = 0
    if fli[f, FL_TLT] == 1:
        fli[f, FL_SINCE_IMP] += 1
        last = size >= 0 and seq == size - 1
        if fli[f, FL_RTX_FIRST] == 1 or last or fli[f, FL_SINCE_IMP] >= int(prmf[PRM_TLT_N]):
            flags |= F_IMP
            fli[f, FL_SINCE_IMP] = 0
    fli[f, FL_RTX_FIRST] = 0
    if seq < fli[f, FL_HIGH]:
        flags |= F_RTX
    size_bytes = data_bytes(w, f, seq)
    if not send_packet(w, now, f, seq, flags, size_bytes):
        fli[f, FL_GEN_PENDING] = 1
        push_event(w, now + _line_time(w, f, size_bytes) / flf[f, FF_LINE], EV_GEN, f, 0, 0.0)
        return
    if fli[f, FL_SR] == 1:
        sr_sent(w, f, seq)
    else:
        fli[f, FL_SNDNXT] = seq + 1
    if seq + 1 > fli[f, FL_HIGH]:
        fli[f, FL_HIGH] = seq + 1
    if fli[f, FL_RTO_PENDING] == 0:
        # The transport timer runs from the oldest unacknowledged packet and restarts only when
        # an ACK makes progress (dcqcn_ack; RFC 6298 §5.1/5.3, as the RoCE QP's local ACK
        # timeout): re-armed on every send it never fired while the pacer ran, and a flow whose
        # retransmission was lost again sent unacceptable packets for the rest of the run.
        arm_rto(w, now, f)
    flf[f, FF_BYTES_CTR] += size_bytes
    if flf[f, FF_BYTES_CTR] >= prmf[PRM_DCQCN_BYTES]:
        flf[f, FF_BYTES_CTR] = 0.0
        flf[f, FF_BYTE_CNT] += 1.0
        _dcqcn_increase(w, f)
    fli[f, FL_GEN_PENDING] = 1
    push_event(w, now + _line_time(w, f, size_bytes) / flf[f, FF_RATE], EV_GEN, f, 0, 0.0)


@compiled
def dcqcn_timer(w: World, now: float, f: int) -> None:
    fli, flf, prmf = w[W_FLI], w[W_FLF], w[W_PRMF]
    if now < flf[f, FF_DCQCN_NEXT] - 1e-12:
        return  # restarted by a CNP since this tick was scheduled
    if fli[f, FL_DONE] == 1:
        fli[f, FL_DCQCN_ARMED] = 0
        return
    # K = 55 us without a CNP: alpha decays (§3.1), and the timer stage advances.
    flf[f, FF_DALPHA] = (1.0 - prmf[PRM_DCQCN_G]) * flf[f, FF_DALPHA]
    flf[f, FF_TIMER_CNT] += 1.0
    _dcqcn_increase(w, f)
    _dcqcn_restart_timer(w, now, f)


@compiled
def dcqcn_cnp(w: World, now: float, f: int) -> None:
    """CNP at the RP (§3.1): R_T <- R_C, R_C <- R_C (1 - alpha/2), alpha <- (1 - g) alpha + g;
    the stage counters, the byte counter and the timer start over. A NIC whose reaction point is
    disabled on the flow's priority (FL_DCQCN_OFF bit 0) ignores the CNP: its rate stays."""
    if w[W_FLI][f, FL_DCQCN_OFF] & 1:
        return
    flf, prmf = w[W_FLF], w[W_PRMF]
    g = prmf[PRM_DCQCN_G]
    flf[f, FF_TARGET] = flf[f, FF_RATE]
    flf[f, FF_RATE] = max(flf[f, FF_RATE] * (1.0 - flf[f, FF_DALPHA] / 2.0), prmf[PRM_DCQCN_MIN_RATE])
    flf[f, FF_DALPHA] = (1.0 - g) * flf[f, FF_DALPHA] + g
    flf[f, FF_TIMER_CNT] = 0.0
    flf[f, FF_BYTE_CNT] = 0.0
    flf[f, FF_BYTES_CTR] = 0.0
    if w[W_FLI][f, FL_DONE] == 0:
        _dcqcn_restart_timer(w, now, f)


#: A RoCEv2 CNP as an IP datagram, like every packet of the engine: IPv4 20 + UDP 8 + BTH 12 +
#: 16 reserved bytes + ICRC 4 (InfiniBand Architecture Specification, Annex A17 RoCEv2, CNP
#: format); its Ethernet header and FCS (78 B frame) are added on the wire (engine/ports.py).
CNP_BYTES = 60


@compiled
def _send_cnp(w: World, now: float, f: int) -> None:
    """One CNP of flow ``f`` from the receiver's host into the switch, towards the sender."""
    packet = alloc_packet(w)
    if packet < 0:
        w[W_CNT][C_POOL_EXHAUSTED] += 1
        return
    fli, pki = w[W_FLI], w[W_PKI]
    pki[packet, P_FLOW] = f
    pki[packet, P_BYTES] = CNP_BYTES
    pki[packet, P_CELLS] = int(np.ceil(CNP_BYTES / w[W_PRMF][PRM_CELL] - 1e-9))
    pki[packet, P_SEQ] = 0
    # Tagged as the flow's frames are (the NIC's trust mode applies to its CNPs too).
    pki[packet, P_FLAGS] = F_CNP | F_VLAN if fli[f, FL_VLAN] == 1 else F_CNP
    pki[packet, P_COLOR] = fli[f, FL_CNP_COLOR]
    pki[packet, P_PG] = fli[f, FL_CNP_PG]
    pki[packet, P_Q] = fli[f, FL_CNP_Q]
    pki[packet, P_IN] = fli[f, FL_DST]
    pki[packet, P_OUT] = fli[f, FL_SRC]
    pki[packet, P_PRIO] = fli[f, FL_CNP_PRIO]
    w[W_PKF][packet, PF_SENT] = now
    host_send(w, now, w[W_PRMI][PRI_NP] + fli[f, FL_DST], fli[f, FL_CNP_PRIO], packet)


@compiled
def dcqcn_receive(w: World, now: float, packet: int) -> None:
    pki, fli, flf, prmf = w[W_PKI], w[W_FLI], w[W_FLF], w[W_PRMF]
    f = pki[packet, P_FLOW]
    flags = pki[packet, P_FLAGS]
    seq = pki[packet, P_SEQ]
    delay = flf[f, FF_ACK_DELAY]
    # The notification point answers CE with a CNP at most once per interval per flow (DCQCN
    # §3.1), unless the receiver's NIC disables it on the flow's priority (FL_DCQCN_OFF bit 1).
    notify = flags & F_CE and not fli[f, FL_DCQCN_OFF] & 2
    if notify and now - flf[f, FF_LAST_CNP] >= prmf[PRM_CNP_INTERVAL]:
        flf[f, FF_LAST_CNP] = now
        count_measured(w, now, C_CNP)
        if fli[f, FL_CNP_Q] >= 0:
            _send_cnp(w, now, f)
        else:
            push_event(w, now + delay, EV_CNP, f, 0, 0.0)
    if fli[f, FL_SR] == 1:
        sr_receive(w, now, packet)
        return
    nxt = fli[f, FL_RCVNXT]
    if seq == nxt:
        fli[f, FL_RCVNXT] = nxt + 1
        if now >= prmf[PRM_WARMUP]:
            count_delivered(w, f, pki[packet, P_BYTES])
        if fli[f, FL_SIZE] >= 0 and nxt + 1 >= fli[f, FL_SIZE] and flf[f, FF_FINISH] < 0.0:
            flf[f, FF_FINISH] = now
        push_event(w, now + delay, EV_ACK, f, (nxt + 1) << ACK_SHIFT, w[W_PKF][packet, PF_SENT])
    elif seq > nxt and fli[f, FL_NACKED] != nxt:
        # Go-back-N receiver: one NACK per missing sequence number, later packets discarded.
        fli[f, FL_NACKED] = nxt
        push_event(w, now + delay, EV_ACK, f, (nxt << ACK_SHIFT) | A_NACK, w[W_PKF][packet, PF_SENT])


@compiled
def dcqcn_ack(w: World, now: float, f: int, payload: int, echo: float) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    ack = payload >> ACK_SHIFT
    if fli[f, FL_SR] == 1:
        _sr_ack(w, now, f, payload)
        return
    if ack > fli[f, FL_SNDUNA]:
        fli[f, FL_SNDUNA] = ack
        # Progress ends a timeout's back-off (hosts.retransmission_timeout doubles the timer on
        # each expiry): a RoCE NIC's retransmission timer is a configured interval, not an RTT
        # estimate, so it returns to the value the flow started with (engine/build.py), as a
        # TCP timer "collapses" back once data is acknowledged (RFC 6298 §5, after rule 5.7).
        w[W_FLF][f, FF_RTO] = w[W_FLF][f, FF_RTO_INITIAL]
        arm_rto(w, now, f)  # progress: the transport timer restarts (RFC 6298 §5.3)
    if fli[f, FL_SIZE] >= 0 and fli[f, FL_SNDUNA] >= fli[f, FL_SIZE]:
        fli[f, FL_DONE] = 1
        return
    if payload & A_NACK and ack < fli[f, FL_SNDNXT]:
        if flf[f, FF_REWIND_AT] >= 0.0:
            # The flow has had a trimmed packet NACKed (dcqcn_trim_nack): one go-back per round,
            # so a NACK raised by a packet sent before the last go-back is already answered.
            if echo < flf[f, FF_REWIND_AT]:
                return
            flf[f, FF_REWIND_AT] = now
        fli[f, FL_SNDNXT] = ack
        fli[f, FL_RTX_FIRST] = 1  # TLT §5.2: the first packet of a retransmission round
        resume_pacer(w, now, f)


@compiled
def _sr_ack(w: World, now: float, f: int, payload: int) -> None:
    """An ACK or NACK at a selective-repeat sender (engine/selective_repeat.py)."""
    fli = w[W_FLI]
    if sr_ack(w, f, payload):
        w[W_FLF][f, FF_RTO] = w[W_FLF][f, FF_RTO_INITIAL]
        arm_rto(w, now, f)
    if fli[f, FL_SIZE] >= 0 and fli[f, FL_SNDUNA] >= fli[f, FL_SIZE]:
        fli[f, FL_DONE] = 1
        return
    resume_pacer(w, now, f)


@compiled
def dcqcn_trim_nack(w: World, now: float, f: int, payload: int, echo: float) -> None:
    """A NACK for a trimmed packet (engine/trimming.py) reaches the sender: selective repeat
    resends that packet; go-back-N goes back to the receiver's next expected packet unless the
    trimmed packet left before the last go-back (whose resending covers it already).

    A trimmed packet is a loss to congestion, so the sender also slows down, once per round:
    FastLane's sender resends a notified packet at once and halves its window on the first
    notification of a window only (Zats et al., UCB/EECS-2013-113, §3.1 Algorithm 1, lines 6-13),
    so that senders do not answer notifications "too aggressively" (§3.2). DCQCN's rate is cut as
    by a CNP (dcqcn_cnp); a round is what left before the last cut (a NACK for a packet sent
    before it belongs to the same congestion event), the rule go-back-N applies to its go-backs.
    """
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_DONE] == 1:
        return
    seq = payload & (NACK_RTX - 1)
    expected = payload >> NACK_SHIFT
    if fli[f, FL_SR] == 1:
        sr_trim_nack(w, f, seq, payload & NACK_RTX != 0)
        if echo >= flf[f, FF_REWIND_AT]:
            flf[f, FF_REWIND_AT] = now
            dcqcn_cnp(w, now, f)
        resume_pacer(w, now, f)
        return
    if echo < flf[f, FF_REWIND_AT] or not fli[f, FL_SNDUNA] <= expected < fli[f, FL_SNDNXT]:
        return
    flf[f, FF_REWIND_AT] = now
    dcqcn_cnp(w, now, f)
    fli[f, FL_SNDNXT] = expected
    fli[f, FL_RTX_FIRST] = 1
    resume_pacer(w, now, f)


@compiled
def dcqcn_timeout(w: World, now: float, f: int) -> None:
    """The transport timer ran out (go-back-N): resend from the first unacknowledged packet."""
    fli = w[W_FLI]
    if fli[f, FL_SNDUNA] < fli[f, FL_SNDNXT] or fli[f, FL_SIZE] < 0 or fli[f, FL_SNDUNA] < fli[f, FL_SIZE]:
        if fli[f, FL_SR] == 1:
            sr_timeout(w, f)
        else:
            fli[f, FL_SNDNXT] = fli[f, FL_SNDUNA]
        fli[f, FL_RTX_FIRST] = 1
        resume_pacer(w, now, f)
        arm_rto(w, now, f)


__all__ = ["CNP_BYTES", "dcqcn_ack", "dcqcn_cnp", "dcqcn_generate", "dcqcn_receive", "dcqcn_timeout", "dcqcn_timer", "dcqcn_trim_nack", "resume_pacer"]
