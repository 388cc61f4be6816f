"""End hosts: open-loop sources and the closed-loop transports, compiled with the switch.

One module per transport family: ``open_loop`` (Poisson, CBR), ``window`` (NewReno, NewReno with
ECN, DCTCP, TBTCP, TLT on a window), ``dcqcn`` (the rate-based transport), on ``host_nic`` (what
they share). This module dispatches the kernel's host events to them.
"""

from __future__ import annotations

from qosforge.softswitch.engine.counters import count_measured
from qosforge.softswitch.engine.dcqcn import (
    dcqcn_ack,
    dcqcn_generate,
    dcqcn_receive,
    dcqcn_timeout,
    dcqcn_trim_nack,
)
from qosforge.softswitch.engine.dependencies import release_dependents
from qosforge.softswitch.engine.host_nic import RTO_BACKOFF_CAP, count_delivered, push_event
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_TIMEOUTS,
    EV_CNP,
    EV_RTO,
    F_CLOCK,
    F_CNP,
    F_RTX,
    F_TRIM,
    FF_ACK_DELAY,
    FF_RTO,
    FF_RTO_AT,
    FF_RTO_MIN,
    FL_ARRIVED_M,
    FL_DONE,
    FL_DUP_RTX_M,
    FL_KIND,
    FL_OOO_PKTS,
    FL_RCV_HIGH,
    FL_RCVNXT,
    FL_RTO_M,
    FL_RTO_PENDING,
    FL_SNDNXT,
    FL_SNDUNA,
    K_CBR,
    K_DCQCN,
    K_POISSON,
    P_BYTES,
    P_FLAGS,
    P_FLOW,
    P_SEQ,
    PF_SENT,
    PRM_END,
    PRM_WARMUP,
    W_FLF,
    W_FLI,
    W_PKF,
    W_PKI,
    W_PRMF,
    W_RCV,
)
from qosforge.softswitch.engine.open_loop import open_loop_generate
from qosforge.softswitch.engine.ports import free_packet
from qosforge.softswitch.engine.trimming import trimmed_header_received
from qosforge.softswitch.engine.window import (
    delayed_ack_timeout,
    reordering_timeout,
    tail_loss_probe,
    window_ack,
    window_receive,
    window_start,
    window_timeout,
)


@compiled
def retransmission_timeout(w: World, now: float, f: int) -> None:
    """The retransmission timer of flow ``f`` fired: unless it was re-armed later, back it off
    (RFC 6298 §5.5) and let the flow's transport recover."""
    fli, flf = w[W_FLI], w[W_FLF]
    fli[f, FL_RTO_PENDING] = 0
    if fli[f, FL_DONE] == 1 or (fli[f, FL_SNDNXT] <= fli[f, FL_SNDUNA] and fli[f, FL_KIND] != K_DCQCN):
        return
    if now < flf[f, FF_RTO_AT] - 1e-12:
        fli[f, FL_RTO_PENDING] = 1
        push_event(w, flf[f, FF_RTO_AT], EV_RTO, f, 0, 0.0)
        return
    count_measured(w, now, C_TIMEOUTS)
    if now >= w[W_PRMF][PRM_WARMUP]:
        fli[f, FL_RTO_M] += 1
    flf[f, FF_RTO] = min(flf[f, FF_RTO] * 2.0, flf[f, FF_RTO_MIN] * RTO_BACKOFF_CAP)
    if fli[f, FL_KIND] == K_DCQCN:
        dcqcn_timeout(w, now, f)
    else:
        window_timeout(w, now, f)


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
def _count_reordering(w: World, packet: int, measuring: bool) -> None:
    """Reordering as the receiver sees it, before its transport acts on the packet. A first
    transmission whose sequence number is below the highest one received so far arrived out of
    order (RFC 4737 §3.3: a packet is reordered when its sequence number is less than NextExp);
    retransmissions and TLT's clocking packets repeat an earlier sequence number by design and
    are left out. A segment the receiver already holds arrives again only because it was sent
    twice and both copies arrived: one transmission was spurious (the duplicate a D-SACK reports,
    RFC 2883 §4), whichever copy came first. Counted in the measured window (``measuring``); the
    highest sequence number is followed throughout."""
    pki, fli = w[W_PKI], w[W_FLI]
    f, flags, seq = pki[packet, P_FLOW], pki[packet, P_FLAGS], pki[packet, P_SEQ]
    if flags & F_CLOCK:
        return
    held = seq < fli[f, FL_RCVNXT]
    if not held and fli[f, FL_KIND] != K_DCQCN:
        rcv = w[W_RCV]
        held = seq < fli[f, FL_RCVNXT] + rcv.shape[1] and rcv[f, seq % rcv.shape[1]] == 1
    if held and measuring:
        fli[f, FL_DUP_RTX_M] += 1
    if not flags & F_RTX:
        if seq < fli[f, FL_RCV_HIGH]:
            if measuring:
                fli[f, FL_OOO_PKTS] += 1
        else:
            fli[f, FL_RCV_HIGH] = seq + 1


@compiled
def host_receive(w: World, now: float, packet: int) -> None:
    """A packet reaches its host: a CNP, or data of a closed-loop flow (open-loop data never
    arrives as an event: the kernel delivers it with :func:`open_loop_arrival`)."""
    pki, fli = w[W_PKI], w[W_FLI]
    f = pki[packet, P_FLOW]
    kind = fli[f, FL_KIND]
    if pki[packet, P_FLAGS] & F_CNP:
        transit = now - w[W_PKF][packet, PF_SENT]
        push_event(w, now + max(w[W_FLF][f, FF_ACK_DELAY] - transit, 0.0), EV_CNP, f, 0, 0.0)
    elif pki[packet, P_FLAGS] & F_TRIM:
        trimmed_header_received(w, now, packet)
    else:
        measuring = now >= w[W_PRMF][PRM_WARMUP]
        if measuring:
            fli[f, FL_ARRIVED_M] += 1
        _count_reordering(w, packet, measuring)
        if kind == K_DCQCN:
            dcqcn_receive(w, now, packet)
        else:
            window_receive(w, now, packet)
        release_dependents(w, now, f)
    free_packet(w, packet)


@compiled
def open_loop_arrival(w: World, arrival: float, packet: int) -> bool:
    """Deliver a packet whose receiver answers nothing (an open-loop flow's data) when it leaves
    the last switch, with the time it will arrive, instead of as an arrival event; returns False
    for every other packet (the caller schedules its arrival). Delivery then only adds to two
    counters read after the run, so results are those of the event (counted if it arrives
    within warm-up..end, as the event would have run), one event per packet fewer. The packet's
    buffer returns to the pool a propagation delay early, which can only help a run that
    exhausts the pool (docs/softswitch.md "Event queue")."""
    pki = w[W_PKI]
    if pki[packet, P_FLAGS] & F_CNP:
        return False
    f = pki[packet, P_FLOW]
    kind = w[W_FLI][f, FL_KIND]
    if kind != K_POISSON and kind != K_CBR:
        return False
    if pki[packet, P_FLAGS] & F_TRIM:
        free_packet(w, packet)  # a trimmed header: an open-loop receiver has nothing to NACK
        return True
    prmf = w[W_PRMF]
    if prmf[PRM_WARMUP] <= arrival <= prmf[PRM_END]:
        w[W_FLI][f, FL_ARRIVED_M] += 1
        count_delivered(w, f, pki[packet, P_BYTES])
    free_packet(w, packet)
    return True


@compiled
def sender_ack(w: World, now: float, f: int, payload: int, echo: float) -> None:
    if w[W_FLI][f, FL_KIND] == K_DCQCN:
        dcqcn_ack(w, now, f, payload, echo)
    else:
        window_ack(w, now, f, payload, echo)


@compiled
def trim_nack(w: World, now: float, f: int, payload: int, echo: float) -> None:
    """A receiver's NACK for a trimmed packet (engine/trimming.py); only RoCE receivers send one."""
    dcqcn_trim_nack(w, now, f, payload, echo)


__all__ = ["delayed_ack_timeout", "flow_generate", "host_receive", "open_loop_arrival", "reordering_timeout", "retransmission_timeout", "sender_ack", "tail_loss_probe", "trim_nack"]
