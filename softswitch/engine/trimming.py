"""Packet trimming at the switch and the receivers' answer to a trimmed packet.

A queue whose buffer profile discards by trimming (SAI inc/saibuffer.h
``SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION = ..._DROP_AND_TRIM``, "applicable only
when attached to a queue") does not drop a packet it cannot admit: the switch cuts it to
``SAI_SWITCH_ATTR_PACKET_TRIM_SIZE`` bytes, rewrites its DSCP to
``SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE`` and sends it on queue
``SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX`` (SAI inc/saiswitch.h; sonic-net/SONiC
doc/packet_trimming/packet-trimming-design.md §2.1). If that queue cannot admit the header either,
the header is dropped: SAI counts it in ``SAI_QUEUE_STAT_DROPPED_TRIM_PACKETS``.

The receiver turns a trimmed header into a NACK for that packet (NDP, Handley et al., SIGCOMM
2017, §3.1 and §3.2: "the receiver ... sends a NACK"; UEC 1.0 specification, trimmed packets as
loss notifications), which the sender gets after the reverse path's delay and answers at once,
without a timeout: a go-back-N RoCE sender goes back to the receiver's next expected packet, a
selective-repeat one resends that packet only (engine/selective_repeat.py). Window (TCP-family)
receivers have no NACK in their protocol: they discard the header and the sender recovers as from
a loss (SACK/RACK or the timeout), which is what a Linux host does with a truncated segment.
"""

from __future__ import annotations

import numpy as np

from qosforge.models.ethernet import FCS_BYTES, MAC_HEADER_BYTES
from qosforge.softswitch.engine.host_nic import push_event
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    C_TRIMMED,
    EV_TRIM_NACK,
    F_CNP,
    F_RTX,
    F_TRIM,
    FF_ACK_DELAY,
    FL_KIND,
    FL_RCVNXT,
    FL_TRIMMED_M,
    K_DCQCN,
    P_BYTES,
    P_CELLS,
    P_FLAGS,
    P_FLOW,
    P_Q,
    P_SEQ,
    PF_SENT,
    PRM_WARMUP,
    PSC_TRIM,
    QF_CELL,
    QI_TRIM,
    SW_TRIM_BYTES,
    SW_TRIM_DSCP,
    SW_TRIM_QUEUE,
    W_CNT,
    W_FLF,
    W_FLI,
    W_PKF,
    W_PKI,
    W_PORTSTAT,
    W_PRMF,
    W_QF,
    W_QI,
    W_SWI,
)

#: A trimmed packet carries the trim DSCP in its flags above this bit, so every later switch
#: classifies it by that DSCP (its own DSCP -> TC -> queue maps), as the rewritten header would be.
TRIM_DSCP_SHIFT = 8
#: The trim size counts the whole Ethernet frame; the engine's packets are IP datagrams.
FRAME_OVERHEAD_BYTES = MAC_HEADER_BYTES + FCS_BYTES
#: Half of the NACK payload's bits: the trimmed sequence below, the receiver's next expected above.
NACK_SHIFT = 32
#: Set in the lower half when the trimmed copy was a retransmission (it carried F_RTX), so the
#: sender can tell a NACK for a copy it already resent from one for the resend itself.
NACK_RTX = 1 << (NACK_SHIFT - 1)


@compiled
def trims(w: World, packet: int, switch: int, port: int, queue: int) -> bool:
    """Whether a packet the queue cannot admit is trimmed rather than dropped: the queue's profile
    trims, the switch has a trim size, and the packet is data not trimmed before (a header that
    fails admission again, and a CNP, are dropped)."""
    if w[W_QI][port, queue, QI_TRIM] == 0 or w[W_SWI][switch, SW_TRIM_BYTES] <= 0:
        return False
    return not w[W_PKI][packet, P_FLAGS] & (F_TRIM | F_CNP)


@compiled
def trim_packet(w: World, now: float, packet: int, switch: int, port: int) -> None:
    """Cut the packet to the switch's trim size and point it at the trim queue, counting it
    (SAI_QUEUE_STAT_TRIM_PACKETS of the queue that refused it)."""
    pki, swi = w[W_PKI], w[W_SWI]
    queue = pki[packet, P_Q]
    size = max(swi[switch, SW_TRIM_BYTES] - FRAME_OVERHEAD_BYTES, 1)
    if pki[packet, P_BYTES] > size:
        pki[packet, P_BYTES] = size
    pki[packet, P_CELLS] = int(np.ceil(pki[packet, P_BYTES] / w[W_QF][port, 0, QF_CELL] - 1e-9))
    pki[packet, P_FLAGS] |= F_TRIM | (swi[switch, SW_TRIM_DSCP] << TRIM_DSCP_SHIFT)
    pki[packet, P_Q] = swi[switch, SW_TRIM_QUEUE]
    if now >= w[W_PRMF][PRM_WARMUP]:
        w[W_CNT][C_TRIMMED] += 1
        w[W_PORTSTAT][port, queue, PSC_TRIM] += 1
        w[W_FLI][pki[packet, P_FLOW], FL_TRIMMED_M] += 1


@compiled
def trimmed_header_received(w: World, now: float, packet: int) -> None:
    """A trimmed header reaches its receiver: a RoCE receiver NACKs it (the trimmed sequence,
    whether that copy was a retransmission, and its next expected one, echoing the header's send
    time); a window receiver discards it."""
    pki, fli = w[W_PKI], w[W_FLI]
    f = pki[packet, P_FLOW]
    if fli[f, FL_KIND] != K_DCQCN:
        return
    rtx = NACK_RTX if pki[packet, P_FLAGS] & F_RTX else 0
    payload = pki[packet, P_SEQ] | rtx | (fli[f, FL_RCVNXT] << NACK_SHIFT)
    push_event(
        w, now + w[W_FLF][f, FF_ACK_DELAY], EV_TRIM_NACK, f, payload, w[W_PKF][packet, PF_SENT]
    )


__all__ = [
    "FRAME_OVERHEAD_BYTES",
    "NACK_RTX",
    "NACK_SHIFT",
    "TRIM_DSCP_SHIFT",
    "trim_packet",
    "trimmed_header_received",
    "trims",
]
