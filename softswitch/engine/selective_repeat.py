"""RoCE selective repeat as IRN runs it (Mittal et al., "Revisiting Network Support for RDMA",
SIGCOMM 2018, §3), next to the NIC's go-back-N (engine/dcqcn.py).

Receiver (IRN §3.1): it keeps packets that arrive out of order, ACKs the in-order ones
cumulatively, and answers an out-of-order packet with a NACK carrying the cumulative ACK and that
packet's sequence number (its selective ACK).

Sender (IRN §3.1, §3.2): a packet is lost once a packet sent after it is selectively ACKed; in
recovery it resends the lost packets (only those), lowest first, before new ones; a timeout resends
every packet not selectively ACKed. BDP-FC caps the packets outstanding at the path's
bandwidth-delay product in packets (``FL_SR_CAP``, engine/build.py). A NACK for a trimmed packet
(engine/trimming.py) names one lost packet, which is resent at once.

Per-sequence state is kept in the flow's ring ``W_RCV[f, seq % ring]`` (the window receivers'
reordering ring), one bit each: the receiver's holding bit and the sender's. Receiver and sender
of one flow index the same ring with sequences in [snd_una, snd_una + ring), so a slot always
belongs to one sequence (BDP-FC keeps the cap below the ring).
"""

from __future__ import annotations

from qosforge.softswitch.engine.host_nic import (
    A_NACK,
    ACK_SHIFT,
    SACK_LEN_SHIFT,
    SACK_MASK,
    SACK_OFF_SHIFT,
    count_delivered,
    push_event,
)
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    EV_ACK,
    FF_ACK_DELAY,
    FF_FINISH,
    FL_HIGH_RXT,
    FL_LOST_BELOW,
    FL_OOO,
    FL_RCVNXT,
    FL_SIZE,
    FL_SNDNXT,
    FL_SNDUNA,
    FL_SR_CAP,
    FL_TRIM_MARKS,
    FL_TRIM_SCAN,
    P_BYTES,
    P_FLOW,
    P_SEQ,
    PF_SENT,
    PRM_WARMUP,
    W_FLF,
    W_FLI,
    W_PKF,
    W_PKI,
    W_PRMF,
    W_RCV,
)

#: Ring bits: the receiver holds the packet; the sender was told a trimmed copy was lost and
#: must resend it; the sender resent it on that NACK; the receiver selectively ACKed it; the
#: sender resent it by IRN's loss rule (a later packet selectively ACKed).
HELD = 1
TRIMMED = 2
TRIM_RESENT = 4
SACKED = 8
LOST_RESENT = 16
SENDER_BITS = TRIMMED | TRIM_RESENT | SACKED


@compiled
def sr_receive(w: World, now: float, packet: int) -> None:
    """IRN's receiver: deliver in order, keep what is ahead, NACK a hole with the arriving
    packet's sequence as its selective ACK."""
    pki, fli, flf, rcv = w[W_PKI], w[W_FLI], w[W_FLF], w[W_RCV]
    f = pki[packet, P_FLOW]
    seq = pki[packet, P_SEQ]
    ring = rcv.shape[1]
    nxt = fli[f, FL_RCVNXT]
    measuring = now >= w[W_PRMF][PRM_WARMUP]
    delay, echo = flf[f, FF_ACK_DELAY], w[W_PKF][packet, PF_SENT]
    if seq == nxt:
        nxt += 1
        while rcv[f, nxt % ring] & HELD:
            rcv[f, nxt % ring] &= ~HELD
            fli[f, FL_OOO] -= 1
            nxt += 1
        fli[f, FL_RCVNXT] = nxt
        if measuring:
            count_delivered(w, f, pki[packet, P_BYTES])
        if fli[f, FL_SIZE] >= 0 and nxt >= fli[f, FL_SIZE] and flf[f, FF_FINISH] < 0.0:
            flf[f, FF_FINISH] = now
        push_event(w, now + delay, EV_ACK, f, nxt << ACK_SHIFT, echo)
    elif nxt < seq < nxt + min(ring, SACK_MASK) and not rcv[f, seq % ring] & HELD:
        rcv[f, seq % ring] |= HELD
        fli[f, FL_OOO] += 1
        if measuring:
            count_delivered(w, f, pki[packet, P_BYTES])
        block = ((seq - nxt) << SACK_OFF_SHIFT) | (1 << SACK_LEN_SHIFT)
        push_event(w, now + delay, EV_ACK, f, (nxt << ACK_SHIFT) | block | A_NACK, echo)
    else:
        # A duplicate (or beyond the ring): the cumulative ACK again.
        push_event(w, now + delay, EV_ACK, f, nxt << ACK_SHIFT, echo)


@compiled
def sr_ack(w: World, f: int, payload: int) -> bool:
    """An ACK or NACK at an IRN sender: advance snd_una (forgetting the sender's marks below it),
    record the selectively ACKed packet, and on a NACK mark every packet below it that is not
    selectively ACKed as lost (IRN §3.1). Returns whether snd_una advanced."""
    fli, rcv = w[W_FLI], w[W_RCV]
    ring = rcv.shape[1]
    ack = payload >> ACK_SHIFT
    una = fli[f, FL_SNDUNA]
    advanced = ack > una
    if advanced:
        for seq in range(una, min(ack, una + ring)):
            bits = rcv[f, seq % ring]
            if bits & TRIMMED:
                fli[f, FL_TRIM_MARKS] -= 1
            rcv[f, seq % ring] = bits & HELD
        fli[f, FL_SNDUNA] = ack
    length = (payload >> SACK_LEN_SHIFT) & SACK_MASK
    if length > 0:
        sacked = ack + ((payload >> SACK_OFF_SHIFT) & SACK_MASK)
        if fli[f, FL_SNDUNA] <= sacked < fli[f, FL_SNDNXT]:
            rcv[f, sacked % ring] |= SACKED
            if payload & A_NACK and sacked > fli[f, FL_LOST_BELOW]:
                fli[f, FL_LOST_BELOW] = sacked
    return bool(advanced)


@compiled
def sr_trim_nack(w: World, f: int, seq: int, retransmission: bool) -> None:
    """A NACK for trimmed packet ``seq``: it is lost; resend it before anything else.

    Not when the trimmed copy was the first transmission and the loss rule has resent the packet
    since: a header that waits behind others in the trim queue lets a later packet's selective ACK
    overtake it, and the packet is already on its way again (a NACK for a trimmed resend, which
    carries ``retransmission``, is answered)."""
    fli, rcv = w[W_FLI], w[W_RCV]
    ring = rcv.shape[1]
    if not fli[f, FL_SNDUNA] <= seq < fli[f, FL_SNDNXT]:
        return
    bits = rcv[f, seq % ring]
    if bits & (TRIMMED | SACKED) or (bits & LOST_RESENT and not retransmission):
        return
    rcv[f, seq % ring] = (bits | TRIMMED) & ~TRIM_RESENT
    fli[f, FL_TRIM_MARKS] += 1
    if fli[f, FL_TRIM_MARKS] == 1 or seq < fli[f, FL_TRIM_SCAN]:
        fli[f, FL_TRIM_SCAN] = seq


@compiled
def sr_next(w: World, f: int) -> int:
    """The next sequence to send: a trim-NACKed packet, else a lost one (unACKed below the
    highest selectively ACKed, not resent since), else a new one if BDP-FC allows; -1 if none."""
    fli, rcv = w[W_FLI], w[W_RCV]
    ring = rcv.shape[1]
    una, nxt = fli[f, FL_SNDUNA], fli[f, FL_SNDNXT]
    if fli[f, FL_TRIM_MARKS] > 0:
        seq = max(fli[f, FL_TRIM_SCAN], una)
        while seq < nxt and not rcv[f, seq % ring] & TRIMMED:
            seq += 1
        if seq < nxt:
            fli[f, FL_TRIM_SCAN] = seq
            return int(seq)
        fli[f, FL_TRIM_MARKS] = 0  # every mark was below snd_una
    seq = max(fli[f, FL_HIGH_RXT], una)
    high = min(fli[f, FL_LOST_BELOW], nxt)
    while seq < high and rcv[f, seq % ring] & SENDER_BITS:
        seq += 1
    fli[f, FL_HIGH_RXT] = seq
    if seq < high:
        return int(seq)
    size = fli[f, FL_SIZE]
    if (size >= 0 and nxt >= size) or nxt - una >= fli[f, FL_SR_CAP]:
        return -1
    return int(nxt)


@compiled
def sr_sent(w: World, f: int, seq: int) -> None:
    """Bookkeeping once ``seq`` (chosen by :func:`sr_next`) has left."""
    fli, rcv = w[W_FLI], w[W_RCV]
    ring = rcv.shape[1]
    bits = rcv[f, seq % ring]
    if seq >= fli[f, FL_SNDNXT]:
        fli[f, FL_SNDNXT] = seq + 1
    elif bits & TRIMMED:
        rcv[f, seq % ring] = (bits & ~TRIMMED) | TRIM_RESENT
        fli[f, FL_TRIM_MARKS] -= 1
        fli[f, FL_TRIM_SCAN] = seq + 1
    else:
        rcv[f, seq % ring] = bits | LOST_RESENT
        fli[f, FL_HIGH_RXT] = seq + 1


@compiled
def sr_timeout(w: World, f: int) -> None:
    """IRN's timeout: every packet not selectively ACKed is resent, from snd_una."""
    fli, rcv = w[W_FLI], w[W_RCV]
    ring = rcv.shape[1]
    una, nxt = fli[f, FL_SNDUNA], fli[f, FL_SNDNXT]
    for seq in range(una, min(nxt, una + ring)):
        rcv[f, seq % ring] &= ~(TRIM_RESENT | LOST_RESENT)
    fli[f, FL_HIGH_RXT] = una
    fli[f, FL_LOST_BELOW] = nxt


__all__ = ["sr_ack", "sr_next", "sr_receive", "sr_sent", "sr_timeout", "sr_trim_nack"]
