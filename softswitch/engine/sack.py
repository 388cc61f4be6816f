"""A SACK sender's scoreboard (RFC 2018; RFC 6675 §2-4) in a bounded number of flow columns, and
what RFC 6675's and RFC 8985's loss recovery read from it.

The scoreboard holds at most ``SACK_BLOCKS`` (4) blocks [start, end) of SACKed segments above
snd_una, sorted and disjoint. A receiver reports the block holding each out-of-order segment as it
arrives (engine/window.py), so the sender learns every block while it grows; when a fifth block
would be needed the highest one is forgotten: its segments then count as not SACKed, which can
cost a needless retransmission (answered by a D-SACK) but never takes undelivered data for
delivered. Four blocks hold the losses of a window in every published scenario here (a tail drop
loses a run of segments, one hole per run).

Loss marking: an unSACKed segment is lost once ``DUPTHRESH`` (3) SACKed segments lie above it
(RFC 6675 §4 IsLost), or once RACK's reordering window (min_RTT/4, RFC 8985 §6.2) has passed
since a segment sent after it was delivered (RFC 8985 §6.3; ``FL_LOST_BELOW`` is raised by the
reordering timer, engine/window.py). The paths of one flow are FIFO (a flow keeps its ECMP
path), so "sent after it and delivered" is "SACKed above it"; a lost retransmission is left to
the retransmission timer (RACK's per-segment send times would need a timestamp per segment).
"""

from __future__ import annotations

from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    FL_HIGH_RXT,
    FL_LOST_BELOW,
    FL_SB_END,
    FL_SB_N,
    FL_SB_START,
    FL_SNDNXT,
    FL_SNDUNA,
    SACK_BLOCKS,
    W_FLI,
)

#: RFC 6675 §2 DupThresh: "the number of duplicate ACKs required to trigger a fast retransmission".
DUPTHRESH = 3


@compiled
def sack_prune(w: World, f: int) -> None:
    """Forget what the cumulative ACK covers: blocks below snd_una go, a block it cuts is
    trimmed."""
    fli = w[W_FLI]
    una = fli[f, FL_SNDUNA]
    kept = 0
    for i in range(fli[f, FL_SB_N]):
        start, end = fli[f, FL_SB_START + i], fli[f, FL_SB_END + i]
        if end <= una:
            continue
        fli[f, FL_SB_START + kept] = max(start, una)
        fli[f, FL_SB_END + kept] = end
        kept += 1
    fli[f, FL_SB_N] = kept


@compiled
def sack_merge(w: World, f: int, start: int, end: int) -> None:
    """Add the SACKed block [start, end) (RFC 6675 §4 Update()): merged with the blocks it
    touches, kept sorted; beyond ``SACK_BLOCKS`` blocks the highest is forgotten."""
    fli = w[W_FLI]
    start = max(start, fli[f, FL_SNDUNA])
    if end <= start:
        return
    n = fli[f, FL_SB_N]
    # Blocks wholly below, overlapping or touching, and wholly above the new one.
    below = 0
    while below < n and fli[f, FL_SB_END + below] < start:
        below += 1
    above = below
    while above < n and fli[f, FL_SB_START + above] <= end:
        start = min(start, fli[f, FL_SB_START + above])
        end = max(end, fli[f, FL_SB_END + above])
        above += 1
    merged = above - below  # blocks absorbed by the new one
    shift = 1 - merged  # how far the blocks above move
    total = min(n + shift, SACK_BLOCKS)
    if shift > 0:
        for i in range(n - 1, above - 1, -1):
            if i + shift < SACK_BLOCKS:
                fli[f, FL_SB_START + i + shift] = fli[f, FL_SB_START + i]
                fli[f, FL_SB_END + i + shift] = fli[f, FL_SB_END + i]
    elif shift < 0:
        for i in range(above, n):
            fli[f, FL_SB_START + i + shift] = fli[f, FL_SB_START + i]
            fli[f, FL_SB_END + i + shift] = fli[f, FL_SB_END + i]
    if below < SACK_BLOCKS:
        fli[f, FL_SB_START + below] = start
        fli[f, FL_SB_END + below] = end
    fli[f, FL_SB_N] = total


@compiled
def sacked_between(w: World, f: int, low: int, high: int) -> int:
    """SACKed segments in [low, high)."""
    fli = w[W_FLI]
    count = 0
    for i in range(fli[f, FL_SB_N]):
        a = max(fli[f, FL_SB_START + i], low)
        b = min(fli[f, FL_SB_END + i], high)
        if b > a:
            count += b - a
    return count


@compiled
def sack_highest(w: World, f: int) -> int:
    """The end of the highest SACKed block (snd_una when none)."""
    fli = w[W_FLI]
    n = fli[f, FL_SB_N]
    return int(fli[f, FL_SB_END + n - 1]) if n > 0 else int(fli[f, FL_SNDUNA])


@compiled
def dupthresh_boundary(w: World, f: int) -> int:
    """RFC 6675 §4 IsLost(): the unSACKed segments below the returned sequence have DupThresh
    SACKed segments above them (snd_una when fewer are SACKed)."""
    fli = w[W_FLI]
    needed = DUPTHRESH
    for i in range(fli[f, FL_SB_N] - 1, -1, -1):
        size = fli[f, FL_SB_END + i] - fli[f, FL_SB_START + i]
        if size >= needed:
            return int(fli[f, FL_SB_END + i] - needed)
        needed -= size
    return int(fli[f, FL_SNDUNA])


@compiled
def lost_unsent(w: World, f: int) -> int:
    """Lost segments not yet retransmitted: unSACKed in [max(HighRxt, snd_una), LostBelow)."""
    fli = w[W_FLI]
    low = max(fli[f, FL_HIGH_RXT], fli[f, FL_SNDUNA])
    high = min(fli[f, FL_LOST_BELOW], fli[f, FL_SNDNXT])
    if high <= low:
        return 0
    return int(high - low - sacked_between(w, f, low, high))


@compiled
def pipe(w: World, f: int) -> int:
    """RFC 6675 §4 SetPipe(): segments outstanding that are neither SACKed nor lost, plus the
    retransmissions of lost ones (counted once as they are sent)."""
    fli = w[W_FLI]
    una, nxt = fli[f, FL_SNDUNA], fli[f, FL_SNDNXT]
    return int(nxt - una - sacked_between(w, f, una, nxt) - lost_unsent(w, f))


@compiled
def next_lost(w: World, f: int) -> int:
    """RFC 6675 §4 NextSeg() rule 1: the lowest lost segment not yet retransmitted, or -1."""
    fli = w[W_FLI]
    seq = max(fli[f, FL_HIGH_RXT], fli[f, FL_SNDUNA])
    high = min(fli[f, FL_LOST_BELOW], fli[f, FL_SNDNXT])
    for i in range(fli[f, FL_SB_N]):
        if seq >= high:
            return -1
        if seq < fli[f, FL_SB_START + i]:
            return int(seq)
        seq = max(seq, fli[f, FL_SB_END + i])
    return int(seq) if seq < high else -1


__all__ = [
    "DUPTHRESH",
    "dupthresh_boundary",
    "lost_unsent",
    "next_lost",
    "pipe",
    "sack_highest",
    "sack_merge",
    "sack_prune",
    "sacked_between",
]
