"""Window transports (the TCP family) count in MSS-sized packets. Their hosts are Linux's:

* Receivers delay ACKs (``_delayed_ack``): one ACK per two full segments, a 40 ms timer for a
  lone one, quick ACKs at a flow's start, for out-of-order data and after duplicates, and
  DCTCP's ECN-Echo state machine (RFC 8257 §3.2). TLT and TBTCP flows ACK every segment.
* Senders recover losses with SACK (RFC 2018), RFC 6675's scoreboard and pipe and RACK-TLP
  (RFC 8985; engine/sack.py), or with NewReno (RFC 6582) when SACK is off and under TLT.
* CUBIC (RFC 9438, engine/cubic.py) is what ``tcp`` runs, its slow start ended by HyStart.
  An ECN-capable CUBIC flow (a host with ``net.ipv4.tcp_ecn = 1``) answers ECN-Echo with
  CUBIC's own reduction (ssthresh = FlightSize beta, RFC 9438 §4.6: an ECN-Echo is a congestion
  event) in the window of reduction RFC 3168 TCP uses (Linux tcp_enter_cwr calls the
  congestion control's ssthresh).
* Each flow's minimum RTO and initial window are its own (its hosts' settings).

* TCP NewReno (RFC 6582, without SACK): slow start, congestion avoidance, fast retransmit after
  three duplicate ACKs, fast recovery with partial-ACK retransmission; RFC 6298 retransmission
  timer.
* DCTCP (Alizadeh et al. 2010 §3.1): alpha <- (1 - g) alpha + g F once per window of data;
  ECN-Echo sets ssthresh = cwnd (1 - alpha/2) at most once per window of data and opens a window
  of reduction (CWR, RFC 8257 §3.3 step 9) in which cwnd does not grow and Proportional Rate
  Reduction (RFC 6937) brings it down to ssthresh as ACKs return, as Linux and ns-3 run it;
  losses as NewReno. Its window is Linux's whole packets (``_linux_reno_increase``): ssthresh
  by tcp_dctcp.c's integer arithmetic, growth by tcp_cong_avoid_ai's counter.
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
from qosforge.softswitch.engine.cubic import (
    cubic_acked,
    cubic_congestion,
    cubic_increase,
    cubic_timeout,
)
from qosforge.softswitch.engine.host_nic import (
    A_CLOCK_ECHO,
    A_DUP,
    A_ECE,
    A_HOLE,
    A_IMP_ECHO,
    ACK_FLAGS,
    ACK_SHIFT,
    SACK_LEN_SHIFT,
    SACK_MASK,
    SACK_OFF_SHIFT,
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
    EV_DELACK,
    EV_REO,
    EV_TLP,
    F_CE,
    F_CLOCK,
    F_IMP,
    F_RTX,
    FF_ACK_DELAY,
    FF_ALPHA,
    FF_BETA,
    FF_CWND,
    FF_DELACK_AT,
    FF_DELACK_ECHO,
    FF_FINISH,
    FF_IW,
    FF_MIN_RTT,
    FF_R,
    FF_REO_AT,
    FF_RTO,
    FF_RTO_AT,
    FF_RTO_MIN,
    FF_RTTVAR,
    FF_RTX_TIME,
    FF_SRTT,
    FF_SSTHRESH,
    FF_TLP_AT,
    FL_ACKED_W,
    FL_CE_STATE,
    FL_CWND_CNT,
    FL_CWR,
    FL_CWR_END,
    FL_DELACK,
    FL_DELACK_ARMED,
    FL_DELACK_HELD,
    FL_DONE,
    FL_DUPACKS,
    FL_ECT,
    FL_HIGH,
    FL_HIGH_RXT,
    FL_IMP_STATE,
    FL_INREC,
    FL_KIND,
    FL_LOSS,
    FL_LOST_BELOW,
    FL_MARKED_W,
    FL_OOO,
    FL_PRR_DELIVERED,
    FL_PRR_FLIGHT,
    FL_PRR_OUT,
    FL_QUICKACK,
    FL_RACK_HIGH,
    FL_RCVNXT,
    FL_RECOVER,
    FL_REO_ARMED,
    FL_RTX_SEQ,
    FL_SACK,
    FL_SB_N,
    FL_SEEN_ECN,
    FL_SIZE,
    FL_SNDNXT,
    FL_SNDUNA,
    FL_TLP_ARMED,
    FL_TLP_OUT,
    FL_TLT,
    FL_WEND,
    K_CUBIC,
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
    PRM_DELACK_TIMEOUT,
    PRM_PFC_FRAME,
    PRM_QUICKACKS,
    PRM_WARMUP,
    W_FLF,
    W_FLI,
    W_PKF,
    W_PKI,
    W_PRMF,
    W_PRMI,
    W_RCV,
)
from qosforge.softswitch.engine.sack import (
    dupthresh_boundary,
    next_lost,
    pipe,
    sack_highest,
    sack_merge,
    sack_prune,
)

#: RFC 8985 §7.2 WCDelAckT, the worst-case delayed ACK a probe of one segment waits for:
#: "RECOMMENDED value is 200 ms" (Linux adds TCP_RTO_MIN, 200 ms, tcp_schedule_loss_probe).
TLP_WORST_DELAYED_ACK_S = 0.2


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
    sack = fli[f, FL_SACK] == 1
    while True:
        nxt = fli[f, FL_SNDNXT]
        in_flight = nxt - fli[f, FL_SNDUNA]
        if sack:
            # RFC 6675 §5 (C): send while pipe < cwnd, the lost segments first (NextSeg()).
            if pipe(w, f) >= int(flf[f, FF_CWND]):
                break
            lost = next_lost(w, f)
            if lost >= 0:
                _retransmit(w, now, f, lost)
                fli[f, FL_HIGH_RXT] = lost + 1
                if fli[f, FL_CWR] == 1:
                    fli[f, FL_PRR_OUT] += 1
                continue
        elif in_flight >= int(flf[f, FF_CWND]):
            break
        if fli[f, FL_SIZE] >= 0 and nxt >= fli[f, FL_SIZE]:
            break
        if in_flight >= limit:
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
        if sack:
            _arm_tail_loss_probe(w, now, f)


@compiled
def _fired_early(w: World, now: float, f: int, armed: int, deadline: int, kind: int) -> bool:
    """A flow's one-at-a-time timer event (``kind``, flag column ``armed``, deadline column
    ``deadline``) fired before its deadline, which a later arming moved: it is queued again for
    the deadline and True is returned."""
    flf = w[W_FLF]
    if now < flf[f, deadline] - 1e-12:
        w[W_FLI][f, armed] = 1
        push_event(w, flf[f, deadline], kind, f, 0, 0.0)
        return True
    return False


@compiled
def _arm_tail_loss_probe(w: World, now: float, f: int) -> None:
    """RFC 8985 §7.2: with data outstanding and no recovery under way, a probe timeout of
    2 SRTT, plus the worst-case delayed ACK when one segment is outstanding (WCDelAckT), at most
    the RTO; the retransmission timer waits for the probe (Linux arms one in place of the
    other, tcp_schedule_loss_probe)."""
    fli, flf = w[W_FLI], w[W_FLF]
    flight = fli[f, FL_SNDNXT] - fli[f, FL_SNDUNA]
    if fli[f, FL_INREC] == 1 or fli[f, FL_TLP_OUT] == 1 or flf[f, FF_SRTT] <= 0.0 or flight <= 0:
        return
    timeout = 2.0 * flf[f, FF_SRTT]
    if flight == 1:
        timeout += TLP_WORST_DELAYED_ACK_S
    timeout = min(timeout, flf[f, FF_RTO])
    flf[f, FF_TLP_AT] = now + timeout
    flf[f, FF_RTO_AT] = max(flf[f, FF_RTO_AT], flf[f, FF_TLP_AT] + 1e-9)
    if fli[f, FL_TLP_ARMED] == 0:
        fli[f, FL_TLP_ARMED] = 1
        push_event(w, flf[f, FF_TLP_AT], EV_TLP, f, 0, 0.0)


@compiled
def tail_loss_probe(w: World, now: float, f: int) -> None:
    """The probe timer fired (RFC 8985 §7.3): send one new segment if there is one, else
    retransmit the highest segment sent, so that an ACK comes back and RACK finds the tail's
    losses without a retransmission timeout; then the retransmission timer runs again."""
    fli = w[W_FLI]
    fli[f, FL_TLP_ARMED] = 0
    nxt, una = fli[f, FL_SNDNXT], fli[f, FL_SNDUNA]
    if fli[f, FL_DONE] == 1 or fli[f, FL_INREC] == 1 or fli[f, FL_TLP_OUT] == 1 or nxt <= una:
        return
    if _fired_early(w, now, f, FL_TLP_ARMED, FF_TLP_AT, EV_TLP):
        return
    fresh = fli[f, FL_SIZE] < 0 or nxt < fli[f, FL_SIZE]
    if fresh and nxt - una < w[W_PRMI][PRI_WINDOW] - 1:
        if send_packet(w, now, f, nxt, F_RTX if nxt < fli[f, FL_HIGH] else 0, data_bytes(w, f, nxt)):
            fli[f, FL_SNDNXT] = nxt + 1
            fli[f, FL_HIGH] = max(fli[f, FL_HIGH], nxt + 1)
    else:
        _retransmit(w, now, f, nxt - 1)
    fli[f, FL_TLP_OUT] = 1
    arm_rto(w, now, f)


@compiled
def reordering_timeout(w: World, now: float, f: int) -> None:
    """RACK's reordering window has passed since data above a hole was SACKed (RFC 8985 §6.3):
    the hole is lost; loss recovery starts (or goes on) with it."""
    fli = w[W_FLI]
    fli[f, FL_REO_ARMED] = 0
    if fli[f, FL_DONE] == 1:
        return
    if _fired_early(w, now, f, FL_REO_ARMED, FF_REO_AT, EV_REO):
        return
    fli[f, FL_LOST_BELOW] = max(fli[f, FL_LOST_BELOW], fli[f, FL_RACK_HIGH])
    _sack_detect(w, now, f)
    window_send(w, now, f)


@compiled
def _sack_detect(w: World, now: float, f: int) -> None:
    """Mark losses from the scoreboard (RFC 6675 IsLost; RACK's reordering window, RFC 8985
    §6.2: min_RTT/4, none once in recovery) and enter loss recovery on the first (RFC 6675 §5:
    ssthresh from the congestion control, cwnd = ssthresh, the first lost segment resent at once)."""
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_SB_N] == 0:
        return
    fli[f, FL_LOST_BELOW] = max(fli[f, FL_LOST_BELOW], dupthresh_boundary(w, f))
    highest_sacked = sack_highest(w, f) - 1
    if highest_sacked > fli[f, FL_LOST_BELOW]:
        if fli[f, FL_INREC] == 1:
            fli[f, FL_LOST_BELOW] = highest_sacked
        elif fli[f, FL_REO_ARMED] == 0:
            fli[f, FL_RACK_HIGH] = highest_sacked
            fli[f, FL_REO_ARMED] = 1
            flf[f, FF_REO_AT] = now + flf[f, FF_MIN_RTT] / 4.0
            push_event(w, flf[f, FF_REO_AT], EV_REO, f, 0, 0.0)
    if fli[f, FL_INREC] == 0 and fli[f, FL_LOST_BELOW] > fli[f, FL_SNDUNA]:
        count_measured(w, now, C_FAST_RETX)
        loss_window(w, f)
        flf[f, FF_CWND] = max(flf[f, FF_SSTHRESH], 1.0)
        fli[f, FL_INREC] = 1
        fli[f, FL_CWR] = 0  # loss recovery supersedes the window of reduction (RFC 6937 §3)
        fli[f, FL_RECOVER] = fli[f, FL_SNDNXT]
        fli[f, FL_HIGH_RXT] = fli[f, FL_SNDUNA]
        lost = next_lost(w, f)
        if lost >= 0:
            _retransmit(w, now, f, lost)
            fli[f, FL_HIGH_RXT] = lost + 1


@compiled
def _lost_retransmissions(w: World, f: int, echo: float) -> None:
    """RACK applies to retransmissions too (RFC 8985 §6.2): a SACK for a segment sent after the
    last retransmission (its send time, the ACK's echo, later than that retransmission's) tells
    that every retransmitted segment still neither ACKed nor SACKed was lost again; they are
    resent (NextSeg from snd_una) instead of waiting for the retransmission timer. Loss recovery
    goes on: no second reduction (Linux tcp_rack_detect_loss marks them lost in the same
    recovery episode). The reordering window is zero in recovery (as ``_sack_detect``), and
    RACK's time condition holds by itself: the retransmission is older than the delivered
    segment, whose round trip has ended."""
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_INREC] == 1 and fli[f, FL_HIGH_RXT] > fli[f, FL_SNDUNA] and echo > flf[f, FF_RTX_TIME]:
        fli[f, FL_HIGH_RXT] = fli[f, FL_SNDUNA]


@compiled
def _counted_flags(w: World, now: float, payload: int) -> int:
    """An ACK's flags; the ACK is counted (and as an ECN-Echo when it is one)."""
    flags = payload & ACK_FLAGS
    count_measured(w, now, C_ACKS)
    if flags & A_ECE:
        count_measured(w, now, C_ECN_ACKS)
    return int(flags)


@compiled
def _advance_una(w: World, f: int, ack: int) -> int:
    """A cumulative ACK above snd_una: snd_una (and snd_nxt, after a timeout reset it) moves to
    it; returns the segments newly acknowledged."""
    fli = w[W_FLI]
    acked = ack - fli[f, FL_SNDUNA]
    fli[f, FL_SNDUNA] = ack
    if fli[f, FL_SNDNXT] < ack:
        fli[f, FL_SNDNXT] = ack
    return int(acked)


@compiled
def _sack_ack(w: World, now: float, f: int, payload: int, echo: float) -> None:
    """An ACK at a SACK sender: the cumulative ACK, the SACK block it carries, loss marking and
    recovery (RFC 6675, RFC 8985), the congestion control's window, then what it may send."""
    fli, flf = w[W_FLI], w[W_FLF]
    ack = payload >> ACK_SHIFT
    flags = _counted_flags(w, now, payload)
    ece = (flags & A_ECE) != 0
    una = fli[f, FL_SNDUNA]
    if ack > una:
        acked = _advance_una(w, f, ack)
        fli[f, FL_TLP_OUT] = 0
        sample = now - echo
        _rtt_sample(w, f, sample)
        if flf[f, FF_MIN_RTT] <= 0.0 or sample < flf[f, FF_MIN_RTT]:
            flf[f, FF_MIN_RTT] = sample
        if fli[f, FL_KIND] == K_CUBIC:
            cubic_acked(w, now, f, sample)
        sack_prune(w, f)
        if fli[f, FL_INREC] == 1:
            if ack >= fli[f, FL_RECOVER]:
                fli[f, FL_INREC] = 0  # RFC 6675 §5: recovery ends when RecoveryPoint is ACKed
                flf[f, FF_CWND] = flf[f, FF_SSTHRESH]
            _ecn_reaction(w, f, ece, acked)
        else:
            _window_on_ack(w, now, f, ece, acked, fli[f, FL_SNDNXT] - una)
    elif not flags & A_DUP:
        _ecn_reaction(w, f, ece, 1)
    length = (payload >> SACK_LEN_SHIFT) & SACK_MASK
    if length > 0:
        start = ack + ((payload >> SACK_OFF_SHIFT) & SACK_MASK)
        sack_merge(w, f, start, start + length)
        _lost_retransmissions(w, f, echo)
    _sack_detect(w, now, f)
    if fli[f, FL_SIZE] >= 0 and fli[f, FL_SNDUNA] >= fli[f, FL_SIZE]:
        fli[f, FL_DONE] = 1
        return
    window_send(w, now, f)


@compiled
def window_start(w: World, now: float, f: int) -> None:
    """Initial window; with TLT its last packet is Important Data (TLT §5.1)."""
    fli, flf = w[W_FLI], w[W_FLF]
    initial = int(flf[f, FF_IW])
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
    flf[f, FF_RTO] = max(flf[f, FF_RTO_MIN], flf[f, FF_SRTT] + RTT_K * flf[f, FF_RTTVAR])


@compiled
def _reno_ssthresh(flight_packets: int) -> float:
    """ssthresh = max(FlightSize/2, 2) (RFC 5681 eq. 4), after a loss or an RFC 3168 ECN-Echo."""
    return max(flight_packets / 2.0, 2.0)


@compiled
def _cwr_transport(w: World, f: int) -> bool:
    """The flow answers ECN-Echo with a window of reduction: DCTCP, RFC 3168 TCP, and CUBIC on
    hosts that negotiated ECN (its packets ECT)."""
    kind = w[W_FLI][f, FL_KIND]
    return bool(kind == K_DCTCP or kind == K_TCP_ECN or (kind == K_CUBIC and w[W_FLI][f, FL_ECT] == 1))


@compiled
def loss_window(w: World, f: int) -> None:
    """ssthresh = max(FlightSize/2, 2) (RFC 5681 eq. 4); CUBIC's congestion event (RFC 9438 §4.6)."""
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_KIND] == K_CUBIC:
        cubic_congestion(w, f, fli[f, FL_SNDNXT] - fli[f, FL_SNDUNA])
        if fli[f, FL_ECT] == 1:
            fli[f, FL_CWR_END] = fli[f, FL_SNDNXT]  # RFC 3168 §6.1.2, as for RFC 3168 TCP below
        return
    flf[f, FF_SSTHRESH] = _reno_ssthresh(fli[f, FL_SNDNXT] - fli[f, FL_SNDUNA])
    fli[f, FL_CWND_CNT] = 0  # tcp_init_cwnd_reduction and tcp_enter_loss reset tp->snd_cwnd_cnt
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
def _window_on_ack(w: World, now: float, f: int, ece: bool, acked: int, flight_before: int) -> None:
    """The congestion control's answer to an ACK that advances snd_una outside loss recovery:
    the window (a window of reduction for the ECN transports, else growth) and DCTCP's alpha or
    TBTCP's QCD (``_ecn_reaction``).

    DCTCP updates alpha first, as Linux orders the two: tcp_ack (net/ipv4/tcp_input.c) calls
    tcp_in_ack_event, whose DCTCP hook is dctcp_update_alpha (net/ipv4/tcp_dctcp.c), before
    tcp_fastretrans_alert -> tcp_try_to_open -> tcp_enter_cwr -> tcp_init_cwnd_reduction ->
    dctcp_ssthresh, so the ACK that closes an observation window cuts with the alpha it produced.
    (ns-3.37 cuts first: TcpSocketBase::ReceivedAck calls EnterCwr before ProcessAck's
    PktsAcked.) TBTCP's QCD keeps its place after the window's growth."""
    alpha_first = w[W_FLI][f, FL_KIND] == K_DCTCP
    if alpha_first:
        _ecn_reaction(w, f, ece, acked)
    if _cwr_transport(w, f):
        _ecn_cwr_window(w, now, f, ece, acked, flight_before)
    else:
        _increase(w, now, f, acked)
    if not alpha_first:
        _ecn_reaction(w, f, ece, acked)


@compiled
def _ecn_cwr_window(w: World, now: float, f: int, ece: bool, acked: int, flight_before: int) -> None:
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
            flf[f, FF_SSTHRESH] = _dctcp_ssthresh(flf[f, FF_CWND], flf[f, FF_ALPHA])
            fli[f, FL_CWND_CNT] = 0  # tcp_init_cwnd_reduction: tp->snd_cwnd_cnt = 0
        elif fli[f, FL_KIND] == K_CUBIC:
            cubic_congestion(w, f, flight_before)
        else:
            flf[f, FF_SSTHRESH] = _reno_ssthresh(flight_before)
        fli[f, FL_PRR_DELIVERED] = 0
        fli[f, FL_PRR_OUT] = 0
        fli[f, FL_PRR_FLIGHT] = max(flight_before, 1)
    if fli[f, FL_CWR] == 0:
        _increase(w, now, f, acked)
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
def _dctcp_ssthresh(cwnd: float, alpha: float) -> float:
    """tcp_dctcp.c dctcp_ssthresh on Linux's whole-packet window: max(cwnd - ((cwnd * alpha) >>
    11), 2) with alpha in 1/1024 units (DCTCP_MAX_ALPHA), so the cut is rounded down to whole
    packets. Linux keeps two segments (max(..., 2U)): a window of one would wait for the
    receiver's delayed-ACK timer on every round trip."""
    packets = int(cwnd)
    alpha_1024 = int(alpha * 1024.0)
    return float(max(packets - ((packets * alpha_1024) >> 11), 2))


@compiled
def _linux_reno_increase(w: World, f: int, acked: int) -> None:
    """Linux's Reno growth on a whole-packet window (net/ipv4/tcp_cong.c tcp_reno_cong_avoid,
    which DCTCP runs): slow start up to ssthresh (tcp_slow_start: cwnd = min(cwnd + acked,
    ssthresh), the rest of the ACKed segments go on to avoidance), then one packet per cwnd
    segments ACKed counted in tp->snd_cwnd_cnt (tcp_cong_avoid_ai), which a window reduction
    resets (tcp_init_cwnd_reduction). Linux's tcp_sock.snd_cwnd is a packet count: a real-valued
    window (cwnd += acked/cwnd) keeps the fraction a cut leaves and grows on it, and with
    windows of a few packets that moves when flows are cut (docs/dctcp-ce-marks.md)."""
    fli, flf = w[W_FLI], w[W_FLF]
    cwnd = int(flf[f, FF_CWND])
    ssthresh = flf[f, FF_SSTHRESH]
    if cwnd < ssthresh:
        grown = min(cwnd + acked, int(ssthresh))
        acked -= grown - cwnd
        cwnd = grown
    if acked > 0:
        per = max(cwnd, 1)
        count = fli[f, FL_CWND_CNT]
        if count >= per:
            count = 0  # "credits accumulated at a higher w, apply them gently now"
            cwnd += 1
        count += acked
        if count >= per:
            cwnd += count // per
            count -= (count // per) * per
        fli[f, FL_CWND_CNT] = count
    flf[f, FF_CWND] = min(float(cwnd), w[W_PRMI][PRI_WINDOW] - 1.0)


@compiled
def _increase(w: World, now: float, f: int, acked: int) -> None:
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_KIND] == K_DCTCP:
        _linux_reno_increase(w, f, acked)
        return
    cwnd = flf[f, FF_CWND]
    if fli[f, FL_KIND] == K_TBTCP and fli[f, FL_SEEN_ECN] == 1:
        cwnd += flf[f, FF_BETA] * acked / cwnd  # RAI: beta MSS per RTT (TBTCP §4.3)
    elif cwnd < flf[f, FF_SSTHRESH]:
        cwnd += acked  # slow start (RFC 5681 §3.1)
    elif fli[f, FL_KIND] == K_CUBIC:
        cwnd = cubic_increase(w, now, f, acked)
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
    if fli[f, FL_SACK] == 1:
        _sack_ack(w, now, f, payload, echo)
        return
    ack = payload >> ACK_SHIFT
    flags = _counted_flags(w, now, payload)
    ece = (flags & A_ECE) != 0
    tlt = fli[f, FL_TLT] == 1
    una = fli[f, FL_SNDUNA]
    if tlt and flags & (A_IMP_ECHO | A_CLOCK_ECHO):
        fli[f, FL_IMP_STATE] = 1  # TLT Appendix A lines 9-12
        # The echo "indicates loss" when the receiver holds data beyond a hole (TLT §5.1,
        # Figure 3a, where SACK tells the sender; here the receiver's flag does).
        fli[f, FL_LOSS] = 1 if flags & A_HOLE else 0
    if ack > una:
        acked = _advance_una(w, f, ack)
        fli[f, FL_DUPACKS] = 0
        _rtt_sample(w, f, now - echo)
        if fli[f, FL_KIND] == K_CUBIC:
            cubic_acked(w, now, f, now - echo)
        if fli[f, FL_INREC] == 1:
            if ack >= fli[f, FL_RECOVER]:
                fli[f, FL_INREC] = 0  # full ACK: leave fast recovery (RFC 6582 §3.2 step 3)
                flf[f, FF_CWND] = flf[f, FF_SSTHRESH]
            else:
                # Partial ACK: retransmit the next hole, deflate by the amount acked (step 4).
                _retransmit(w, now, f, ack)
                flf[f, FF_CWND] = max(flf[f, FF_CWND] - acked + 1.0, 1.0)
            _ecn_reaction(w, f, ece, acked)
        else:
            _window_on_ack(w, now, f, ece, acked, fli[f, FL_SNDNXT] - una)
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
def _send_ack(w: World, now: float, f: int, rcv_nxt: int, ack_flags: int, echo: float) -> None:
    """The receiver's ACK of everything before ``rcv_nxt`` reaches the sender after the reverse
    path's delay; ``echo`` is the send time it returns for the RTT sample."""
    push_event(w, now + w[W_FLF][f, FF_ACK_DELAY], EV_ACK, f, (rcv_nxt << ACK_SHIFT) | ack_flags, echo)


@compiled
def _delayed_ack(w: World, now: float, f: int, prior_rcv_nxt: int, ce: bool, ack_flags: int, sent: float, urgent: bool) -> None:
    """Linux's receiver (net/ipv4/tcp_input.c __tcp_ack_snd_check, tcp_send_delayed_ack): ACK at
    once when more than one full segment is unacknowledged (RFC 1122 §4.2.3.2, RFC 9293
    §3.8.6.3: at least every second full-sized segment), in quick-ack mode (the first
    ``PRM_QUICKACKS`` segments of a flow, tcp_event_data_recv's tcp_incr_quickack, and again
    after a duplicate segment, tcp_data_queue's tcp_enter_quickack_mode), while out-of-order
    data is held, when a segment fills a hole (RFC 5681 §4.2) and when ``urgent``; otherwise
    hold the ACK for at most the delayed-ACK timeout (TCP_DELACK_MIN, include/net/tcp.h).

    ECN-Echo: a DCTCP receiver echoes its CE state, and when a segment changes that state it
    first ACKs the segments held before it with the old state, then this one at once with the
    new (RFC 8257 §3.2; Linux tcp_dctcp.h dctcp_ece_ack_update). Other ECN receivers answer a
    CE segment at once with ECN-Echo (Linux __tcp_ecn_check_ce enters quick-ack mode for it);
    their senders reduce at most once per window whatever the echo count (RFC 3168 §6.1.2), so
    the echo repeated until CWR (RFC 3168 §6.1.3) is not modelled."""
    fli, flf = w[W_FLI], w[W_FLF]
    if fli[f, FL_KIND] == K_DCTCP:
        state = 1 if ce else 0
        if state != fli[f, FL_CE_STATE]:
            if fli[f, FL_DELACK_HELD] > 0 and prior_rcv_nxt > 0:
                _send_ack(w, now, f, prior_rcv_nxt, A_ECE if fli[f, FL_CE_STATE] == 1 else 0, flf[f, FF_DELACK_ECHO])
                fli[f, FL_DELACK_HELD] = 0
            fli[f, FL_CE_STATE] = state
            urgent = True
        if state == 1:
            ack_flags |= A_ECE
    elif ce:
        ack_flags |= A_ECE
        urgent = True
    if fli[f, FL_DELACK_HELD] == 0:
        flf[f, FF_DELACK_ECHO] = sent
    fli[f, FL_DELACK_HELD] += 1
    if ack_flags & (A_HOLE | A_DUP):
        urgent = True
    if urgent or fli[f, FL_QUICKACK] > 0 or fli[f, FL_DELACK_HELD] >= fli[f, FL_DELACK]:
        if fli[f, FL_QUICKACK] > 0:
            fli[f, FL_QUICKACK] -= 1
        _send_ack(w, now, f, fli[f, FL_RCVNXT], ack_flags, flf[f, FF_DELACK_ECHO])
        fli[f, FL_DELACK_HELD] = 0
        return
    if fli[f, FL_DELACK_HELD] == 1:
        flf[f, FF_DELACK_AT] = now + w[W_PRMF][PRM_DELACK_TIMEOUT]
        if fli[f, FL_DELACK_ARMED] == 0:
            fli[f, FL_DELACK_ARMED] = 1
            push_event(w, flf[f, FF_DELACK_AT], EV_DELACK, f, 0, 0.0)


@compiled
def delayed_ack_timeout(w: World, now: float, f: int) -> None:
    """The delayed-ACK timer of flow ``f``'s receiver fired: ACK what it holds, unless that was
    ACKed meanwhile or the timer was re-armed for later (Linux tcp_delack_timer_handler)."""
    fli, flf = w[W_FLI], w[W_FLF]
    fli[f, FL_DELACK_ARMED] = 0
    if fli[f, FL_DELACK_HELD] == 0:
        return
    if _fired_early(w, now, f, FL_DELACK_ARMED, FF_DELACK_AT, EV_DELACK):
        return
    # Held segments carry no CE, except a DCTCP receiver's in the CE state (CE answers at once).
    flags = A_ECE if fli[f, FL_CE_STATE] == 1 else 0
    if fli[f, FL_OOO] > 0:
        flags |= A_HOLE
    _send_ack(w, now, f, fli[f, FL_RCVNXT], flags, flf[f, FF_DELACK_ECHO])
    fli[f, FL_DELACK_HELD] = 0


@compiled
def _sack_block(w: World, f: int, seq: int) -> int:
    """The SACK block holding out-of-order segment ``seq`` (RFC 2018 §4: the first block reports
    the segment that triggered the ACK), encoded for the ACK payload (engine/host_nic.py)."""
    fli, rcv = w[W_FLI], w[W_RCV]
    ring = rcv.shape[1]
    nxt = fli[f, FL_RCVNXT]
    low, high = seq, seq + 1
    while low - 1 > nxt and rcv[f, (low - 1) % ring] == 1:
        low -= 1
    while high < nxt + ring and rcv[f, high % ring] == 1:
        high += 1
    if high - nxt > SACK_MASK:
        return 0  # beyond what the payload encodes (a receive window over 8191 segments)
    return int(((low - nxt) << SACK_OFF_SHIFT) | ((high - low) << SACK_LEN_SHIFT))


@compiled
def window_receive(w: World, now: float, packet: int) -> None:
    pki, fli, flf, rcv = w[W_PKI], w[W_FLI], w[W_FLF], w[W_RCV]
    f = pki[packet, P_FLOW]
    flags = pki[packet, P_FLAGS]
    seq = pki[packet, P_SEQ]
    ring = rcv.shape[1]
    ce = (flags & F_CE) != 0
    ack_flags = A_ECE if ce else 0
    prior_rcv_nxt = fli[f, FL_RCVNXT]
    filled = False
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
                filled = True
            fli[f, FL_RCVNXT] = nxt
            if fli[f, FL_SIZE] >= 0 and nxt >= fli[f, FL_SIZE] and flf[f, FF_FINISH] < 0.0:
                flf[f, FF_FINISH] = now
        elif nxt < seq < nxt + ring and rcv[f, seq % ring] == 0:
            fresh = True
            rcv[f, seq % ring] = 1
            fli[f, FL_OOO] += 1
        else:
            ack_flags |= A_DUP
            # A retransmission of data already held: Linux answers it at once and ACKs the
            # next segments at once too (tcp_data_queue: tcp_enter_quickack_mode).
            fli[f, FL_QUICKACK] = max(fli[f, FL_QUICKACK], int(w[W_PRMF][PRM_QUICKACKS]))
        # Goodput counts each data packet once, when it first arrives (after the warm-up).
        if fresh and now >= w[W_PRMF][PRM_WARMUP]:
            count_delivered(w, f, pki[packet, P_BYTES])
    if fli[f, FL_OOO] > 0:
        ack_flags |= A_HOLE
        if fli[f, FL_SACK] == 1 and not flags & F_CLOCK and seq > fli[f, FL_RCVNXT]:
            ack_flags |= _sack_block(w, f, seq)
    if fli[f, FL_DELACK] > 1 and not ack_flags & (A_CLOCK_ECHO | A_IMP_ECHO):
        _delayed_ack(w, now, f, prior_rcv_nxt, ce, ack_flags & ~A_ECE, w[W_PKF][packet, PF_SENT], filled)
        return
    _send_ack(w, now, f, fli[f, FL_RCVNXT], ack_flags, w[W_PKF][packet, PF_SENT])


@compiled
def window_timeout(w: World, now: float, f: int) -> None:
    """RFC 6298 §5.4-5.7 / RFC 5681 §3.1: the window collapses to one segment and the sender goes
    back to the first unacknowledged one."""
    fli, flf = w[W_FLI], w[W_FLF]
    loss_window(w, f)
    if fli[f, FL_KIND] == K_CUBIC:
        cubic_timeout(w, now, f)
    flf[f, FF_CWND] = 1.0
    fli[f, FL_SNDNXT] = fli[f, FL_SNDUNA]
    fli[f, FL_INREC] = 0
    fli[f, FL_CWR] = 0
    fli[f, FL_DUPACKS] = 0
    # RFC 2018 §8: after a retransmission timeout the SACKed bits are turned off; the segments
    # are sent again from snd_una (duplicates are D-SACKed).
    fli[f, FL_SB_N] = 0
    fli[f, FL_HIGH_RXT] = fli[f, FL_SNDUNA]
    fli[f, FL_LOST_BELOW] = fli[f, FL_SNDUNA]
    fli[f, FL_TLP_OUT] = 0
    if fli[f, FL_TLT] == 1:
        fli[f, FL_IMP_STATE] = 1  # restart the important clock with the retransmission
    window_send(w, now, f)


__all__ = ["RTT_ALPHA", "RTT_BETA", "RTT_K", "delayed_ack_timeout", "loss_window", "reordering_timeout", "tail_loss_probe", "window_ack", "window_receive", "window_send", "window_start", "window_timeout"]
