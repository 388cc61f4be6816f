"""Ethernet framing: the bytes a packet occupies on the wire, and the payload rate a link carries.

A packet handed to a port is an IP datagram (the simulator's packet, traffic.spec.HEADER_BYTES).
On the wire it travels as an Ethernet frame (IEEE Std 802.3 clause 3.1.1, Figure 3-1):

* preamble 7 B + start frame delimiter 1 B (clause 3.2.1, 3.2.2);
* MAC header: destination 6 B, source 6 B, Length/Type 2 B (clause 3.2.3 - 3.2.6);
* an IEEE 802.1Q tag of 4 B when the frame is VLAN-tagged (clause 3.5, IEEE Std 802.1Q-2018
  §9.3): the only way a frame carries its priority (PCP) in its L2 header;
* MAC client data, padded so the frame (header to FCS) is at least minFrameSize = 64 B
  (clause 4.4.2; a tagged frame keeps the same minimum, clause 3.5);
* frame check sequence 4 B (clause 3.2.9);
* and at least the interFrameGap of 96 bit times = 12 B before the next frame (clause 4.4.2).

So a 1500 B IP packet is a 1518 B frame (1522 B tagged) and occupies 1538 B (1542 B) of line time;
a link of rate R carries at most R * payload / wire_bytes of payload. PFC frames are MAC Control
frames of minFrameSize (clause 31.4, Annex 31D): 64 + 20 = 84 B of line time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Preamble (7 B) and SFD (1 B), IEEE Std 802.3 clause 3.2.1-3.2.2.
PREAMBLE_SFD_BYTES = 8
#: Destination address 6 B + source address 6 B + Length/Type 2 B,
#: IEEE Std 802.3 clause 3.2.3-3.2.6.
MAC_HEADER_BYTES = 14
#: Frame check sequence (CRC-32), IEEE Std 802.3 clause 3.2.9.
FCS_BYTES = 4
#: IEEE 802.1Q tag (TPID 2 B + TCI 2 B), IEEE Std 802.3 clause 3.5 and IEEE Std 802.1Q-2018 §9.3.
VLAN_TAG_BYTES = 4
#: interFrameGap, 96 bit times, IEEE Std 802.3 clause 4.4.2.
INTER_FRAME_GAP_BYTES = 12
#: minFrameSize (destination address through FCS), IEEE Std 802.3 clause 4.4.2.
MIN_FRAME_BYTES = 64
#: Line time every frame adds beyond the frame itself: preamble, SFD and the gap.
PER_FRAME_GAP_BYTES = PREAMBLE_SFD_BYTES + INTER_FRAME_GAP_BYTES
#: A PFC frame: a minimum-size MAC Control frame (IEEE Std 802.3 clause 31.4, Annex 31D).
PFC_FRAME_BYTES = MIN_FRAME_BYTES


def frame_bytes(ip_bytes: Any, tagged: Any = False) -> Any:
    """The Ethernet frame (MAC header through FCS, padded to minFrameSize) carrying an IP datagram
    of ``ip_bytes``; 4 B more when 802.1Q-tagged (vectorised)."""
    tag = VLAN_TAG_BYTES * np.asarray(tagged, dtype=np.int64)
    frame = np.asarray(ip_bytes) + MAC_HEADER_BYTES + FCS_BYTES + tag
    result = np.maximum(frame, MIN_FRAME_BYTES)
    return result.item() if result.ndim == 0 else result


def wire_bytes(ip_bytes: Any, tagged: Any = False) -> Any:
    """Line time, in bytes at the link rate, of an IP datagram of ``ip_bytes``: its frame plus
    preamble, SFD and inter-frame gap."""
    return frame_bytes(ip_bytes, tagged) + PER_FRAME_GAP_BYTES


def payload_rate_bound_bps(
    rate_bps: Any, ip_bytes: Any, header_bytes: Any, tagged: Any = False
) -> Any:
    """The most application payload a link of ``rate_bps`` can carry in back-to-back datagrams of
    ``ip_bytes``, each with ``header_bytes`` of L3/L4 headers: R * (ip - header) / wire_bytes."""
    payload = np.asarray(ip_bytes) - np.asarray(header_bytes)
    bound = np.asarray(rate_bps, dtype=np.float64) * payload / wire_bytes(ip_bytes, tagged)
    return float(bound) if bound.ndim == 0 else bound


__all__ = [
    "FCS_BYTES",
    "INTER_FRAME_GAP_BYTES",
    "MAC_HEADER_BYTES",
    "MIN_FRAME_BYTES",
    "PER_FRAME_GAP_BYTES",
    "PFC_FRAME_BYTES",
    "PREAMBLE_SFD_BYTES",
    "VLAN_TAG_BYTES",
    "frame_bytes",
    "payload_rate_bound_bps",
    "wire_bytes",
]
