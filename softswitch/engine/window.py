"""Window transports (the TCP family) count in MSS-sized packets and ACK every packet (no delayed
ACK, so the ECN-Echo of each packet is exact, as DCTCP §3.1's receiver state machine achieves):

* TCP NewReno (RFC 6582): slow start, congestion avoidance, fast retransmit after three
  duplicate ACKs, fast recovery with partial-ACK retransmission; RFC 6298 retransmission timer.
* DCTCP (Alizadeh et al. 2010 §3.1): alpha <- (1 - g) alpha + g F once per window of data;
  ECN-Echo sets ssthresh = cwnd (1 - alpha/2) at most once per window of data and opens a window
  of reduction (CWR, RFC 8257 §3.3 step 9) in which cwnd does not grow and Proportional Rate
  Reduction (RFC 6937) brings it down to ssthresh as ACKs return, as Linux and ns-3 run it;
  losses as NewReno.
* TCP with RFC 3168 ECN: NewReno whose ECN-Echo opens the same window of reduction with
  ssthresh = max(FlightSize/2, 2) (RFC 3168 §6.1.2: answered as a loss), once per window of data
  whether the reduction came from a loss or a mark.
* TBTCP (Xiong, Li & Song §4.3, §6.2): slow start until the first ECN-Echo, then RAI
  (+beta MSS per RTT) and QCD (cwnd <- max(cwnd - r, cwnd/2) per ECN-Echo, only while
  cwnd > 2, §5.5); losses as DCTCP.
* TLT on a window transport (TLT §5.1, Appendix A): the last packet of the initial window is
  Important Data; the receiver echoes it at once (Important Echo); the echo makes the sender's
  next packet important, or, when the window allows none, an important ACK-clocking packet:
  the first MSS of lost data when a loss was seen, else the first unacked byte. Duplicate ACKs
  caused by clocking packets are not counted; the duplicate-ACK threshold is one (TLT §5).
"""

from __future__ import annotations

from qosforge.softswitch.engine.counters import count_measured
from qosforge.softswitch.engine.host_nic import (
    A_CLOCK_ECHO,
    A_DUP,
    A_ECE,
    A_HOLE,
    A_IMP_ECHO,
    ACK_SHIFT,
    arm_rto,
    count_delivered,
    data_bytes,
    push_event,
    send_packet,
)
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_ACKS,
    C_ECN_ACKS,
    C_FAST_RETX,
    EV_ACK,
    F_CE,
    F_CLOCK,
    F_IMP,
    F_RTX,
    FF_ACK_DELAY,
    FF_ALPHA,
    FF_BETA,
    FF_CWND,
    FF_FINISH,
    FF_R,
    FF_RTO,
    FF_RTTVAR,
    FF_RTX_TIME,
    FF_SRTT,
    FF_SSTHRESH,
    FL_ACKED_W,
    FL_CWR,
    FL_CWR_END,
    FL_DONE,
    FL_DUPACKS,
    FL_HIGH,
    FL_IMP_STATE,
    FL_INREC,
    FL_KIND,
    FL_LOSS,
    FL_MARKED_W,
    FL_OOO,
    FL_PRR_DELIVERED,
    FL_PRR_FLIGHT,
    FL_PRR_OUT,
    FL_RCVNXT,
    FL_RECOVER,
    FL_RTX_SEQ,
    FL_SEEN_ECN,
    FL_SIZE,
    FL_SNDNXT,
    FL_SNDUNA,
    FL_TLT,
    FL_WEND,
    K_DCTCP,
    K_TBTCP,
    K_TCP_ECN,
    P_BYTES,
    P_FLAGS,
    P_FLOW,
    P_SEQ,
    PF_SENT,
    PRI_WINDOW,
    PRM_DCTCP_G,
    PRM_IW,
    PRM_PFC_FRAME,
    PRM_RTO_MIN,
    PRM_WARMUP,
    W_FLF,
    W_FLI,
    W_PKF,
    W_PKI,
    W_PRMF,
    W_PRMI,
    W_RCV,
)

#: RFC 6298 §2: alpha = 1/8, beta = 1/4, K = 4.
RTT_ALPHA = 0.125


RTT_BETA = 0.25


RTT_K = 4.0


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
    send_packet(w, now, f, seq, flags, data_bytes(w, f, seq))


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
        if not send_packet(w, now, f, nxt, flags, data_bytes(w, f, nxt)):
            break
        fli[f, FL_SNDNXT] = nxt + 1
        if fli[f, FL_CWR] == 1:
            fli[f, FL_PRR_OUT] += 1
        if nxt + 1 > fli[f, FL_HIGH]:
            fli[f, FL_HIGH] = nxt + 1
    if fli[f, FL_SNDNXT] > fli[f, FL_SNDUNA]:
        arm_rto(w, now, f)


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
def _reno_ssthresh(flight_packets: int) -> float:
    """ssthresh = max(FlightSize/2, 2) (RFC 5681 eq. 4), after a loss or an RFC 3168 ECN-Echo."""
    return max(flight_packets / 2.0, 2.0)


@compiled
def loss_window(w: World, f: int) -> None:
    """ssthresh = max(FlightSize/2, 2) (RFC 5681 eq. 4)."""
    fli, flf = w[W_FLI], w[W_FLF]
    flf[f, FF_SSTHRESH] = _reno_ssthresh(fli[f, FL_SNDNXT] - fli[f, FL_SNDUNA])
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
    elif kind == K_TBTCP and ece:
        # QCD (TBTCP §6.2): each mark removes r MSS, never more than half; only while cwnd > 2 (§5.5).
        fli[f, FL_SEEN_ECN] = 1
        if flf[f, FF_CWND] > 2.0:
            flf[f, FF_CWND] = max(flf[f, FF_CWND] - flf[f, FF_R], flf[f, FF_CWND] / 2.0)
        flf[f, FF_SSTHRESH] = flf[f, FF_CWND]


@compiled
def _ecn_cwr_window(w: World, f: int, ece: bool, acked: int, flight_before: int) -> None:
    """The window of an ECN transport (DCTCP, RFC 3168 TCP) on an ACK that advances snd_una
    outside loss recovery.

    ECN-Echo opens a window of reduction (RFC 8257 §3.3 step 9; RFC 3168 §6.1.2: at most one
    reduction per window of data): ssthresh = cwnd (1 - alpha/2) for DCTCP, max(FlightSize/2, 2)
    for RFC 3168 TCP (as for a loss, RFC 5681 eq. 4), and until data sent after that
    moment is acknowledged cwnd does not grow; Proportional Rate Reduction (RFC 6937 §3.1, PRR-SSRB)
    spreads the cut over the returning ACKs and cwnd = ssthresh when CWR ends. This is Linux's
    CA_CWR (net/ipv4/tcp_input.c tcp_enter_cwr, tcp_cwnd_reduction, tcp_end_cwnd_reduction) and
    ns-3's (src/internet/model/tcp-socket-base.cc EnterCwr, tcp-prr-recovery.cc). Both end CWR
    only when something *above* the data outstanding at its start is acknowledged (Linux:
    "CWR is to be held something *above* high_seq is ACKed for CWR bit to reach receiver";
    ns-3: ackNumber > m_recover), so a flow with a window of one or two packets is cut once per
    window + 1 packets, not once per window.
    """
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_CWR] == 1 and fli[f, FL_SNDUNA] > fli[f, FL_CWR_END]:
        fli[f, FL_CWR] = 0
        flf[f, FF_CWND] = flf[f, FF_SSTHRESH]
    dctcp = fli[f, FL_KIND] == K_DCTCP
    # RFC 3168 TCP also counts a loss recovery as the window's one reduction (loss_window).
    if ece and fli[f, FL_CWR] == 0 and (dctcp or fli[f, FL_SNDUNA] > fli[f, FL_CWR_END]):
        fli[f, FL_CWR] = 1
        fli[f, FL_CWR_END] = fli[f, FL_SNDNXT]
        if dctcp:
            flf[f, FF_SSTHRESH] = max(flf[f, FF_CWND] * (1.0 - flf[f, FF_ALPHA] / 2.0), 1.0)
        else:
            flf[f, FF_SSTHRESH] = _reno_ssthresh(flight_before)
        fli[f, FL_PRR_DELIVERED] = 0
        fli[f, FL_PRR_OUT] = 0
        fli[f, FL_PRR_FLIGHT] = max(flight_before, 1)
    if fli[f, FL_CWR] == 0:
        _increase(w, f, acked)
        return
    fli[f, FL_PRR_DELIVERED] += acked
    ssthresh = flf[f, FF_SSTHRESH]
    pipe = fli[f, FL_SNDNXT] - fli[f, FL_SNDUNA]
    delivered = fli[f, FL_PRR_DELIVERED]
    sent = fli[f, FL_PRR_OUT]
    if pipe > ssthresh:
        # Proportional part: send ssthresh/RecoverFS of what was delivered (RFC 6937 §3.1).
        send_count = float(-((-delivered * ssthresh) // fli[f, FL_PRR_FLIGHT])) - sent
    else:
        # Slow-start reduction bound: grow back towards ssthresh no faster than slow start.
        send_count = min(ssthresh - pipe, float(max(delivered - sent, acked) + 1))
    if sent == 0:
        send_count = max(send_count, 1.0)  # Linux and ns-3 send at least one packet on entry
    flf[f, FF_CWND] = max(pipe + send_count, 1.0)


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
    arm_rto(w, now, f)


@compiled
def window_ack(w: World, now: float, f: int, payload: int, echo: float) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_DONE] == 1:
        return
    ack = payload >> ACK_SHIFT
    flags = payload & ((1 << ACK_SHIFT) - 1)
    ece = (flags & A_ECE) != 0
    tlt = fli[f, FL_TLT] == 1
    count_measured(w, now, C_ACKS)
    if ece:
        count_measured(w, now, C_ECN_ACKS)
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
        elif fli[f, FL_KIND] == K_DCTCP or fli[f, FL_KIND] == K_TCP_ECN:
            _ecn_cwr_window(w, f, ece, acked, fli[f, FL_SNDNXT] - una)
        else:
            _increase(w, f, acked)
        _ecn_reaction(w, f, ece, acked)
    elif ack == una and fli[f, FL_SNDNXT] > una and not flags & (A_CLOCK_ECHO | A_DUP):
        fli[f, FL_DUPACKS] += 1
        threshold = 1 if tlt else 3
        if fli[f, FL_INREC] == 0 and fli[f, FL_DUPACKS] == threshold:
            count_measured(w, now, C_FAST_RETX)
            loss_window(w, f)
            flf[f, FF_CWND] = flf[f, FF_SSTHRESH] + threshold
            fli[f, FL_INREC] = 1
            fli[f, FL_CWR] = 0  # loss recovery supersedes the window of reduction (RFC 6937 §3)
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
            count_delivered(w, f, pki[packet, P_BYTES])
    if fli[f, FL_OOO] > 0:
        ack_flags |= A_HOLE
    push_event(w, now + flf[f, FF_ACK_DELAY], EV_ACK, f, (fli[f, FL_RCVNXT] << ACK_SHIFT) | ack_flags, w[W_PKF][packet, PF_SENT])


@compiled
def window_timeout(w: World, now: float, f: int) -> None:
    """RFC 6298 §5.4-5.7 / RFC 5681 §3.1: the window collapses to one segment and the sender goes
    back to the first unacknowledged one."""
    fli, flf = w[W_FLI], w[W_FLF]
    loss_window(w, f)
    flf[f, FF_CWND] = 1.0
    fli[f, FL_SNDNXT] = fli[f, FL_SNDUNA]
    fli[f, FL_INREC] = 0
    fli[f, FL_CWR] = 0
    fli[f, FL_DUPACKS] = 0
    if fli[f, FL_TLT] == 1:
        fli[f, FL_IMP_STATE] = 1  # restart the important clock with the retransmission
    window_send(w, now, f)


__all__ = ["RTT_ALPHA", "RTT_BETA", "RTT_K", "loss_window", "window_ack", "window_receive", "window_send", "window_start", "window_timeout"]
