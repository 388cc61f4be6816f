"""End hosts: open-loop sources and the closed-loop transports, compiled with the switch.

Window transports count in MSS-sized packets and ACK every packet (no delayed ACK, so the
ECN-Echo of each packet is exact, as DCTCP §3.1's receiver state machine achieves):

* TCP NewReno (RFC 6582): slow start, congestion avoidance, fast retransmit after three
  duplicate ACKs, fast recovery with partial-ACK retransmission; RFC 6298 retransmission timer.
* DCTCP (Alizadeh et al. 2010 §3.1): alpha <- (1 - g) alpha + g F once per window of data,
  cwnd <- cwnd (1 - alpha/2) at most once per window when ECN-Echo arrives; losses as NewReno.
* TBTCP (Xiong, Li & Song §4.3, §6.2): slow start until the first ECN-Echo, then RAI
  (+beta MSS per RTT) and QCD (cwnd <- max(cwnd - r, cwnd/2) per ECN-Echo, only while
  cwnd > 2, §5.5); losses as DCTCP.
* TLT on a window transport (TLT §5.1, Appendix A): the last packet of the initial window is
  Important Data; the receiver echoes it at once (Important Echo); the echo makes the sender's
  next packet important, or, when the window allows none, an important ACK-clocking packet:
  the first MSS of lost data when a loss was seen, else the first unacked byte. Duplicate ACKs
  caused by clocking packets are not counted; the duplicate-ACK threshold is one (TLT §5).

The rate-based transport is DCQCN (Zhu et al. 2015): the receiver (NP) sends at most one CNP per
flow every 50 us while CE-marked packets arrive; the sender (RP) cuts R_C <- R_C (1 - alpha/2)
per CNP, decays alpha after 55 us without CNPs and raises its rate in fast-recovery / additive /
hyper-additive stages driven by a 55 us timer (restarted by each CNP) and a byte counter, with
steps proportional to its line rate; go-back-N on NACK, and a transport timer that restarts only
when an ACK makes progress. With TLT
(TLT §5.2) the last packet of a flow, one packet every N, and the first packet of each
retransmission round are important.

The reverse path of ACKs and NACKs is an uncongested delay (``FF_ACK_DELAY``): in the scenarios
the data direction is the bottleneck and ACKs are 64-byte control frames. CNPs of a flow whose
switch maps the CNP DSCP to a queue (``FL_CNP_Q``, a compiled RoCE plan's strict-priority CNP
class) are packets: they cross the switch from the receiver's port to the sender's through that
queue, and reach the sender after ``FF_ACK_DELAY`` or their switch transit, whichever is longer
(the delay stands for the fabric hops the one switch does not model).
"""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.engine.heap import heap_push
from qosforge.softswitch.engine.jit import World, compiled, compiled_inline
from qosforge.softswitch.engine.layout import (
    C_ACKS,
    C_CNP,
    C_DELIVERED_BYTES,
    C_DELIVERED_PAYLOAD,
    C_ECN_ACKS,
    C_FAST_RETX,
    C_HOST_DROPS,
    C_IMPORTANT_SENT,
    C_POOL_EXHAUSTED,
    C_TIMEOUTS,
    EV_ACK,
    EV_CNP,
    EV_DCQCN,
    EV_GEN,
    EV_RTO,
    F_CE,
    F_CLOCK,
    F_CNP,
    F_ECT,
    F_IMP,
    F_RTX,
    FF_ACK_DELAY,
    FF_ALPHA,
    FF_BETA,
    FF_BYTE_CNT,
    FF_BYTES_CTR,
    FF_CWND,
    FF_DALPHA,
    FF_DCQCN_NEXT,
    FF_FINISH,
    FF_LAST_CNP,
    FF_LINE,
    FF_R,
    FF_RATE,
    FF_RTO,
    FF_RTO_AT,
    FF_RTTVAR,
    FF_RTX_TIME,
    FF_SRTT,
    FF_SSTHRESH,
    FF_TARGET,
    FF_TIMER_CNT,
    FL_ACKED_W,
    FL_CNP_COLOR,
    FL_CNP_PG,
    FL_CNP_PRIO,
    FL_CNP_Q,
    FL_COLOR,
    FL_COLOR_IMP,
    FL_CWR_END,
    FL_DCQCN_ARMED,
    FL_DONE,
    FL_DST,
    FL_DUPACKS,
    FL_ECT,
    FL_GEN_PENDING,
    FL_HDR,
    FL_HIGH,
    FL_IMP_STATE,
    FL_INREC,
    FL_KIND,
    FL_LOSS,
    FL_MARKED_W,
    FL_NACKED,
    FL_OOO,
    FL_PG,
    FL_PG_IMP,
    FL_PKT_BYTES,
    FL_PRIO,
    FL_Q,
    FL_Q_IMP,
    FL_RCVNXT,
    FL_RECOVER,
    FL_RTO_PENDING,
    FL_RTX_FIRST,
    FL_RTX_SEQ,
    FL_SEEN_ECN,
    FL_SINCE_IMP,
    FL_SIZE,
    FL_SNDNXT,
    FL_SNDUNA,
    FL_SRC,
    FL_TLT,
    FL_WEND,
    K_CBR,
    K_DCQCN,
    K_DCTCP,
    K_POISSON,
    K_TBTCP,
    K_TCP_ECN,
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
    PRI_HOSTQ,
    PRI_NP,
    PRI_WINDOW,
    PRM_CELL,
    PRM_CNP_INTERVAL,
    PRM_DCQCN_BYTES,
    PRM_DCQCN_F,
    PRM_DCQCN_G,
    PRM_DCQCN_MIN_RATE,
    PRM_DCQCN_RAI,
    PRM_DCQCN_RHAI,
    PRM_DCQCN_TIMER,
    PRM_DCTCP_G,
    PRM_IW,
    PRM_PFC_FRAME,
    PRM_RTO_MIN,
    PRM_TLT_N,
    PRM_WARMUP,
    QI_PKTS,
    ST_HSIZE,
    W_CNT,
    W_FLF,
    W_FLI,
    W_HI,
    W_HT,
    W_PKF,
    W_PKI,
    W_PRMF,
    W_PRMI,
    W_QI,
    W_RCV,
    W_ST,
)
from qosforge.softswitch.engine.ports import alloc_packet, free_packet, host_send
from qosforge.softswitch.traffic.spec import DCQCN_RATE_REFERENCE_BPS

# ACK payload flags (low 5 bits of the event's b; the cumulative ACK is b >> ACK_SHIFT).
A_ECE = 1
A_IMP_ECHO = 2  # TLT Important Echo
A_CLOCK_ECHO = 4  # TLT ImportantClockEcho
A_NACK = 8
A_HOLE = 16  # the receiver holds out-of-order data: a segment before it is missing (SACK's view)
A_DUP = 32  # the ACK answers a duplicate segment (D-SACK, RFC 2883): not a sign of loss
ACK_SHIFT = 6
#: FL_TLT value of a flow whose every packet carries the important mark (not TLT's clocking).
ALL_IMPORTANT = 2
#: RFC 6298 §2: alpha = 1/8, beta = 1/4, K = 4.
RTT_ALPHA = 0.125
RTT_BETA = 0.25
RTT_K = 4.0
#: RFC 6298 §5.5: back off the timer, doubling it; bounded at 64 x so a flow always recovers.
RTO_BACKOFF_CAP = 64.0


@compiled_inline
def _push(w: World, time: float, kind: int, a: int, b: int, value: float) -> None:
    heap_push(w[W_HT], w[W_HI], w[W_ST], ST_HSIZE, time, kind, a, b, value)


@compiled_inline
def _delivered(w: World, f: int, size: int) -> None:
    """A data packet reached its receiver for the first time: count the wire bytes and the
    application payload (the packet less its headers)."""
    cnt = w[W_CNT]
    cnt[C_DELIVERED_BYTES] += size
    cnt[C_DELIVERED_PAYLOAD] += size - w[W_FLI][f, FL_HDR]


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
        w[W_CNT][C_IMPORTANT_SENT] += 1
    host_send(w, now, w[W_PRMI][PRI_NP] + fli[f, FL_SRC], fli[f, FL_PRIO], packet)
    return True


# --------------------------------------------------------------------------- open loop
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
            w[W_CNT][C_HOST_DROPS] += 1
    else:
        flags = F_IMP if fli[f, FL_TLT] == 1 else 0
        send_packet(w, now, f, seq, flags, fli[f, FL_PKT_BYTES])
    rate = flf[f, FF_RATE]
    gap = np.random.exponential(1.0 / rate) if fli[f, FL_KIND] == K_POISSON else 1.0 / rate
    _push(w, now + gap, EV_GEN, f, 0, 0.0)


# --------------------------------------------------------------------------- window transports
@compiled
def _arm_rto(w: World, now: float, f: int) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    flf[f, FF_RTO_AT] = now + flf[f, FF_RTO]
    if fli[f, FL_RTO_PENDING] == 0:
        fli[f, FL_RTO_PENDING] = 1
        _push(w, flf[f, FF_RTO_AT], EV_RTO, f, 0, 0.0)


@compiled
def _may_resend(w: World, now: float, f: int) -> bool:
    """The first unacked segment is outstanding and was not already resent within the last
    smoothed RTT (its retransmission may still be on its way; a SACK scoreboard knows this)."""
    fli, flf = w[W_FLI], w[W_FLF]
    una = fli[f, FL_SNDUNA]
    if una >= fli[f, FL_SNDNXT]:
        return False
    return bool(una != fli[f, FL_RTX_SEQ] or now - flf[f, FF_RTX_TIME] >= flf[f, FF_SRTT])


@compiled
def _retransmit(w: World, now: float, f: int, seq: int) -> None:
    """Resend segment ``seq``; with TLT it goes as Important Data when the clock is due
    (TLT Appendix A lines 18-20: the lost segment is sent as the important packet)."""
    fli = w[W_FLI]
    fli[f, FL_RTX_SEQ] = seq
    w[W_FLF][f, FF_RTX_TIME] = now
    flags = F_RTX
    if fli[f, FL_TLT] == 1 and fli[f, FL_IMP_STATE] == 1:
        flags |= F_IMP
        fli[f, FL_IMP_STATE] = 0
        fli[f, FL_LOSS] = 0
    send_packet(w, now, f, seq, flags, fli[f, FL_PKT_BYTES])


@compiled
def window_send(w: World, now: float, f: int) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    limit = w[W_PRMI][PRI_WINDOW] - 1
    if fli[f, FL_TLT] == 1 and fli[f, FL_IMP_STATE] == 1 and fli[f, FL_LOSS] == 1 and _may_resend(w, now, f):
        # TLT Appendix A lines 18-20: with a loss detected, the important packet is the first
        # MSS of lost data, not new data.
        _retransmit(w, now, f, fli[f, FL_SNDUNA])
    while True:
        nxt = fli[f, FL_SNDNXT]
        if fli[f, FL_SIZE] >= 0 and nxt >= fli[f, FL_SIZE]:
            break
        in_flight = nxt - fli[f, FL_SNDUNA]
        if in_flight >= int(flf[f, FF_CWND]) or in_flight >= limit:
            break
        flags = F_RTX if nxt < fli[f, FL_HIGH] else 0
        if fli[f, FL_TLT] == 1 and fli[f, FL_IMP_STATE] == 1:
            flags |= F_IMP
            fli[f, FL_IMP_STATE] = 0
        if not send_packet(w, now, f, nxt, flags, fli[f, FL_PKT_BYTES]):
            break
        fli[f, FL_SNDNXT] = nxt + 1
        if nxt + 1 > fli[f, FL_HIGH]:
            fli[f, FL_HIGH] = nxt + 1
    if fli[f, FL_SNDNXT] > fli[f, FL_SNDUNA]:
        _arm_rto(w, now, f)


@compiled
def window_start(w: World, now: float, f: int) -> None:
    """Initial window; with TLT its last packet is Important Data (TLT §5.1)."""
    fli, flf = w[W_FLI], w[W_FLF]
    initial = int(w[W_PRMF][PRM_IW])
    flf[f, FF_CWND] = initial
    if fli[f, FL_TLT] == 1:
        count = initial if fli[f, FL_SIZE] < 0 else min(initial, fli[f, FL_SIZE])
        flf[f, FF_CWND] = count - 1
        window_send(w, now, f)
        flf[f, FF_CWND] = initial
        fli[f, FL_IMP_STATE] = 1
    window_send(w, now, f)


@compiled
def _rtt_sample(w: World, f: int, sample: float) -> None:
    flf = w[W_FLF]
    if flf[f, FF_SRTT] <= 0.0:
        flf[f, FF_SRTT] = sample
        flf[f, FF_RTTVAR] = sample / 2.0
    else:
        flf[f, FF_RTTVAR] = (1.0 - RTT_BETA) * flf[f, FF_RTTVAR] + RTT_BETA * abs(flf[f, FF_SRTT] - sample)
        flf[f, FF_SRTT] = (1.0 - RTT_ALPHA) * flf[f, FF_SRTT] + RTT_ALPHA * sample
    flf[f, FF_RTO] = max(w[W_PRMF][PRM_RTO_MIN], flf[f, FF_SRTT] + RTT_K * flf[f, FF_RTTVAR])


@compiled
def _loss_window(w: World, f: int) -> None:
    """ssthresh = max(FlightSize/2, 2) (RFC 5681 eq. 4)."""
    fli, flf = w[W_FLI], w[W_FLF]
    flight = fli[f, FL_SNDNXT] - fli[f, FL_SNDUNA]
    flf[f, FF_SSTHRESH] = max(flight / 2.0, 2.0)
    if fli[f, FL_KIND] == K_TCP_ECN:
        # RFC 3168 §6.1.2: at most one window reduction per window, whether from a loss or ECE.
        fli[f, FL_CWR_END] = fli[f, FL_SNDNXT]


@compiled
def _ecn_reaction(w: World, f: int, ece: bool, acked: int) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    kind = fli[f, FL_KIND]
    if kind == K_DCTCP:
        # DCTCP §3.1: F = fraction of marked packets in the last window of data.
        fli[f, FL_ACKED_W] += acked
        if ece:
            fli[f, FL_MARKED_W] += acked
        if fli[f, FL_SNDUNA] >= fli[f, FL_WEND]:
            if fli[f, FL_ACKED_W] > 0:
                g = w[W_PRMF][PRM_DCTCP_G]
                fraction = fli[f, FL_MARKED_W] / fli[f, FL_ACKED_W]
                flf[f, FF_ALPHA] = (1.0 - g) * flf[f, FF_ALPHA] + g * fraction
            fli[f, FL_ACKED_W] = 0
            fli[f, FL_MARKED_W] = 0
            fli[f, FL_WEND] = fli[f, FL_SNDNXT]
        if ece and fli[f, FL_SNDUNA] >= fli[f, FL_CWR_END]:
            flf[f, FF_CWND] = max(flf[f, FF_CWND] * (1.0 - flf[f, FF_ALPHA] / 2.0), 1.0)
            flf[f, FF_SSTHRESH] = flf[f, FF_CWND]
            fli[f, FL_CWR_END] = fli[f, FL_SNDNXT]
    elif kind == K_TCP_ECN:
        # RFC 3168 §6.1.2: on ECN-Echo halve the window as for a loss (ssthresh = max(FlightSize/2,
        # 2), cwnd = ssthresh), at most once per window of data: CWR ends the window at snd_nxt.
        if ece and fli[f, FL_SNDUNA] >= fli[f, FL_CWR_END] and fli[f, FL_INREC] == 0:
            _loss_window(w, f)
            flf[f, FF_CWND] = flf[f, FF_SSTHRESH]
            fli[f, FL_CWR_END] = fli[f, FL_SNDNXT]
    elif kind == K_TBTCP and ece:
        # QCD (TBTCP §6.2): each mark removes r MSS, never more than half; only while cwnd > 2 (§5.5).
        fli[f, FL_SEEN_ECN] = 1
        if flf[f, FF_CWND] > 2.0:
            flf[f, FF_CWND] = max(flf[f, FF_CWND] - flf[f, FF_R], flf[f, FF_CWND] / 2.0)
        flf[f, FF_SSTHRESH] = flf[f, FF_CWND]


@compiled
def _increase(w: World, f: int, acked: int) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    cwnd = flf[f, FF_CWND]
    if fli[f, FL_KIND] == K_TBTCP and fli[f, FL_SEEN_ECN] == 1:
        cwnd += flf[f, FF_BETA] * acked / cwnd  # RAI: beta MSS per RTT (TBTCP §4.3)
    elif cwnd < flf[f, FF_SSTHRESH]:
        cwnd += acked  # slow start (RFC 5681 §3.1)
    else:
        cwnd += acked / cwnd  # congestion avoidance: one MSS per RTT
    limit = w[W_PRMI][PRI_WINDOW] - 1.0
    flf[f, FF_CWND] = min(cwnd, limit)


@compiled
def _important_clocking(w: World, now: float, f: int) -> None:
    """TLT §5.1 adaptive important ACK-clocking when the window allowed no Important Data."""
    fli = w[W_FLI]
    fli[f, FL_IMP_STATE] = 0
    una = fli[f, FL_SNDUNA]
    unfinished = fli[f, FL_SIZE] < 0 or una < fli[f, FL_SIZE]
    if not unfinished:
        return
    if fli[f, FL_LOSS] == 1 and _may_resend(w, now, f):
        fli[f, FL_IMP_STATE] = 1
        _retransmit(w, now, f, una)
    else:
        send_packet(w, now, f, una, F_IMP | F_CLOCK, int(w[W_PRMF][PRM_PFC_FRAME]))
    _arm_rto(w, now, f)


@compiled
def window_ack(w: World, now: float, f: int, payload: int, echo: float) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_DONE] == 1:
        return
    ack = payload >> ACK_SHIFT
    flags = payload & ((1 << ACK_SHIFT) - 1)
    ece = (flags & A_ECE) != 0
    tlt = fli[f, FL_TLT] == 1
    w[W_CNT][C_ACKS] += 1
    if ece:
        w[W_CNT][C_ECN_ACKS] += 1
    una = fli[f, FL_SNDUNA]
    if tlt and flags & (A_IMP_ECHO | A_CLOCK_ECHO):
        fli[f, FL_IMP_STATE] = 1  # TLT Appendix A lines 9-12
        # The echo "indicates loss" when the receiver holds data beyond a hole (TLT §5.1,
        # Figure 3a, where SACK tells the sender; here the receiver's flag does).
        fli[f, FL_LOSS] = 1 if flags & A_HOLE else 0
    if ack > una:
        acked = ack - una
        fli[f, FL_SNDUNA] = ack
        if fli[f, FL_SNDNXT] < ack:
            fli[f, FL_SNDNXT] = ack
        fli[f, FL_DUPACKS] = 0
        _rtt_sample(w, f, now - echo)
        if fli[f, FL_INREC] == 1:
            if ack >= fli[f, FL_RECOVER]:
                fli[f, FL_INREC] = 0  # full ACK: leave fast recovery (RFC 6582 §3.2 step 3)
                flf[f, FF_CWND] = flf[f, FF_SSTHRESH]
            else:
                # Partial ACK: retransmit the next hole, deflate by the amount acked (step 4).
                _retransmit(w, now, f, ack)
                flf[f, FF_CWND] = max(flf[f, FF_CWND] - acked + 1.0, 1.0)
        else:
            _increase(w, f, acked)
        _ecn_reaction(w, f, ece, acked)
    elif ack == una and fli[f, FL_SNDNXT] > una and not flags & (A_CLOCK_ECHO | A_DUP):
        fli[f, FL_DUPACKS] += 1
        threshold = 1 if tlt else 3
        if fli[f, FL_INREC] == 0 and fli[f, FL_DUPACKS] == threshold:
            w[W_CNT][C_FAST_RETX] += 1
            _loss_window(w, f)
            flf[f, FF_CWND] = flf[f, FF_SSTHRESH] + threshold
            fli[f, FL_INREC] = 1
            fli[f, FL_RECOVER] = fli[f, FL_SNDNXT]
            _retransmit(w, now, f, una)
        elif fli[f, FL_INREC] == 1:
            # Inflation (RFC 6582 step 3), bounded at twice ssthresh: without SACK the sender
            # cannot tell dropped packets from delivered ones, and unbounded inflation after a
            # burst of losses would keep the queue pinned at the drop threshold.
            flf[f, FF_CWND] = min(flf[f, FF_CWND] + 1.0, 2.0 * flf[f, FF_SSTHRESH] + threshold)
        _ecn_reaction(w, f, ece, 1)
    if fli[f, FL_SIZE] >= 0 and fli[f, FL_SNDUNA] >= fli[f, FL_SIZE]:
        fli[f, FL_DONE] = 1
        return
    window_send(w, now, f)
    if tlt and fli[f, FL_IMP_STATE] == 1:
        _important_clocking(w, now, f)


@compiled
def retransmission_timeout(w: World, now: float, f: int) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    fli[f, FL_RTO_PENDING] = 0
    if fli[f, FL_DONE] == 1 or (fli[f, FL_SNDNXT] <= fli[f, FL_SNDUNA] and fli[f, FL_KIND] != K_DCQCN):
        return
    if now < flf[f, FF_RTO_AT] - 1e-12:
        fli[f, FL_RTO_PENDING] = 1
        _push(w, flf[f, FF_RTO_AT], EV_RTO, f, 0, 0.0)
        return
    w[W_CNT][C_TIMEOUTS] += 1
    flf[f, FF_RTO] = min(flf[f, FF_RTO] * 2.0, w[W_PRMF][PRM_RTO_MIN] * RTO_BACKOFF_CAP)
    if fli[f, FL_KIND] == K_DCQCN:
        if fli[f, FL_SNDUNA] < fli[f, FL_SNDNXT] or fli[f, FL_SIZE] < 0 or fli[f, FL_SNDUNA] < fli[f, FL_SIZE]:
            fli[f, FL_SNDNXT] = fli[f, FL_SNDUNA]
            fli[f, FL_RTX_FIRST] = 1
            _resume_pacer(w, now, f)
            _arm_rto(w, now, f)
        return
    _loss_window(w, f)
    flf[f, FF_CWND] = 1.0
    fli[f, FL_SNDNXT] = fli[f, FL_SNDUNA]
    fli[f, FL_INREC] = 0
    fli[f, FL_DUPACKS] = 0
    if fli[f, FL_TLT] == 1:
        fli[f, FL_IMP_STATE] = 1  # restart the important clock with the retransmission
    window_send(w, now, f)


@compiled
def window_receive(w: World, now: float, packet: int) -> None:
    pki, fli, flf, rcv = w[W_PKI], w[W_FLI], w[W_FLF], w[W_RCV]
    f = pki[packet, P_FLOW]
    flags = pki[packet, P_FLAGS]
    seq = pki[packet, P_SEQ]
    ring = rcv.shape[1]
    ack_flags = A_ECE if flags & F_CE else 0
    if flags & F_CLOCK:
        ack_flags |= A_CLOCK_ECHO  # first unacked byte only: no segment completes
        if seq >= fli[f, FL_RCVNXT]:
            # The byte belongs to a segment the receiver lacks; the path is FIFO, so that segment
            # was lost (with bytes, TLT sees an ACK inside the segment, §5.1 Figure 3b).
            ack_flags |= A_HOLE
    else:
        if flags & F_IMP:
            ack_flags |= A_IMP_ECHO
        nxt = fli[f, FL_RCVNXT]
        fresh = False
        if seq == nxt:
            fresh = True
            nxt += 1
            while rcv[f, nxt % ring] == 1:
                rcv[f, nxt % ring] = 0
                fli[f, FL_OOO] -= 1
                nxt += 1
            fli[f, FL_RCVNXT] = nxt
            if fli[f, FL_SIZE] >= 0 and nxt >= fli[f, FL_SIZE] and flf[f, FF_FINISH] < 0.0:
                flf[f, FF_FINISH] = now
        elif nxt < seq < nxt + ring and rcv[f, seq % ring] == 0:
            fresh = True
            rcv[f, seq % ring] = 1
            fli[f, FL_OOO] += 1
        else:
            ack_flags |= A_DUP
        # Goodput counts each data packet once, when it first arrives (after the warm-up).
        if fresh and now >= w[W_PRMF][PRM_WARMUP]:
            _delivered(w, f, fli[f, FL_PKT_BYTES])
    if fli[f, FL_OOO] > 0:
        ack_flags |= A_HOLE
    _push(w, now + flf[f, FF_ACK_DELAY], EV_ACK, f, (fli[f, FL_RCVNXT] << ACK_SHIFT) | ack_flags, w[W_PKF][packet, PF_SENT])


# --------------------------------------------------------------------------- DCQCN
@compiled
def _resume_pacer(w: World, now: float, f: int) -> None:
    fli = w[W_FLI]
    if fli[f, FL_GEN_PENDING] == 0:
        fli[f, FL_GEN_PENDING] = 1
        _push(w, now, EV_GEN, f, 0, 0.0)


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
    _push(w, flf[f, FF_DCQCN_NEXT], EV_DCQCN, f, 0, 0.0)


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
    if size >= 0 and seq >= size:
        return
    nic = w[W_PRMI][PRI_NP] + fli[f, FL_SRC]
    if w[W_QI][nic, fli[f, FL_PRIO], QI_PKTS] >= 2:
        # The NIC is paused or busy: the rate limiter waits for it rather than queueing more.
        fli[f, FL_GEN_PENDING] = 1
        _push(w, now + fli[f, FL_PKT_BYTES] / flf[f, FF_LINE], EV_GEN, f, 0, 0.0)
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
    size_bytes = fli[f, FL_PKT_BYTES]
    if not send_packet(w, now, f, seq, flags, size_bytes):
        fli[f, FL_GEN_PENDING] = 1
        _push(w, now + size_bytes / flf[f, FF_LINE], EV_GEN, f, 0, 0.0)
        return
    fli[f, FL_SNDNXT] = seq + 1
    if seq + 1 > fli[f, FL_HIGH]:
        fli[f, FL_HIGH] = seq + 1
    if fli[f, FL_RTO_PENDING] == 0:
        # The transport timer runs from the oldest unacknowledged packet and restarts only when
        # an ACK makes progress (dcqcn_ack; RFC 6298 §5.1/5.3, as the RoCE QP's local ACK
        # timeout): re-armed on every send it never fired while the pacer ran, and a flow whose
        # retransmission was lost again sent unacceptable packets for the rest of the run.
        _arm_rto(w, now, f)
    flf[f, FF_BYTES_CTR] += size_bytes
    if flf[f, FF_BYTES_CTR] >= prmf[PRM_DCQCN_BYTES]:
        flf[f, FF_BYTES_CTR] = 0.0
        flf[f, FF_BYTE_CNT] += 1.0
        _dcqcn_increase(w, f)
    fli[f, FL_GEN_PENDING] = 1
    _push(w, now + size_bytes / flf[f, FF_RATE], EV_GEN, f, 0, 0.0)


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
    the stage counters, the byte counter and the timer start over."""
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


#: A RoCEv2 CNP on the wire: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + 16 reserved bytes + ICRC 4
#: + FCS 4 (InfiniBand Architecture Specification, Annex A17 RoCEv2, CNP format).
CNP_BYTES = 78


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
    pki[packet, P_FLAGS] = F_CNP
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
    if flags & F_CE and now - flf[f, FF_LAST_CNP] >= prmf[PRM_CNP_INTERVAL]:
        flf[f, FF_LAST_CNP] = now
        w[W_CNT][C_CNP] += 1
        if fli[f, FL_CNP_Q] >= 0:
            _send_cnp(w, now, f)
        else:
            _push(w, now + delay, EV_CNP, f, 0, 0.0)
    nxt = fli[f, FL_RCVNXT]
    if seq == nxt:
        fli[f, FL_RCVNXT] = nxt + 1
        if now >= prmf[PRM_WARMUP]:
            _delivered(w, f, fli[f, FL_PKT_BYTES])
        if fli[f, FL_SIZE] >= 0 and nxt + 1 >= fli[f, FL_SIZE] and flf[f, FF_FINISH] < 0.0:
            flf[f, FF_FINISH] = now
        _push(w, now + delay, EV_ACK, f, (nxt + 1) << ACK_SHIFT, w[W_PKF][packet, PF_SENT])
    elif seq > nxt and fli[f, FL_NACKED] != nxt:
        # Go-back-N receiver: one NACK per missing sequence number, later packets discarded.
        fli[f, FL_NACKED] = nxt
        _push(w, now + delay, EV_ACK, f, (nxt << ACK_SHIFT) | A_NACK, w[W_PKF][packet, PF_SENT])


@compiled
def dcqcn_ack(w: World, now: float, f: int, payload: int) -> None:
    fli = w[W_FLI]
    ack = payload >> ACK_SHIFT
    if ack > fli[f, FL_SNDUNA]:
        fli[f, FL_SNDUNA] = ack
        _arm_rto(w, now, f)  # progress: the transport timer restarts (RFC 6298 §5.3)
    if fli[f, FL_SIZE] >= 0 and fli[f, FL_SNDUNA] >= fli[f, FL_SIZE]:
        fli[f, FL_DONE] = 1
        return
    if payload & A_NACK and ack < fli[f, FL_SNDNXT]:
        fli[f, FL_SNDNXT] = ack
        fli[f, FL_RTX_FIRST] = 1  # TLT §5.2: the first packet of a retransmission round
        _resume_pacer(w, now, f)


# --------------------------------------------------------------------------- dispatch
@compiled
def flow_generate(w: World, now: float, f: int) -> None:
    kind = w[W_FLI][f, FL_KIND]
    if kind == K_POISSON or kind == K_CBR:
        open_loop_generate(w, now, f)
    elif kind == K_DCQCN:
        dcqcn_generate(w, now, f)
    else:
        window_start(w, now, f)


@compiled
def host_receive(w: World, now: float, packet: int) -> None:
    pki, fli = w[W_PKI], w[W_FLI]
    f = pki[packet, P_FLOW]
    kind = fli[f, FL_KIND]
    if pki[packet, P_FLAGS] & F_CNP:
        transit = now - w[W_PKF][packet, PF_SENT]
        _push(w, now + max(w[W_FLF][f, FF_ACK_DELAY] - transit, 0.0), EV_CNP, f, 0, 0.0)
    elif kind == K_POISSON or kind == K_CBR:
        if now >= w[W_PRMF][PRM_WARMUP]:
            _delivered(w, f, pki[packet, P_BYTES])
    elif kind == K_DCQCN:
        dcqcn_receive(w, now, packet)
    else:
        window_receive(w, now, packet)
    free_packet(w, packet)


@compiled
def sender_ack(w: World, now: float, f: int, payload: int, echo: float) -> None:
    if w[W_FLI][f, FL_KIND] == K_DCQCN:
        dcqcn_ack(w, now, f, payload)
    else:
        window_ack(w, now, f, payload, echo)


__all__ = ["dcqcn_cnp", "dcqcn_timer", "flow_generate", "host_receive", "retransmission_timeout", "sender_ack"]

