"""DCTCP step-marking threshold K (Alizadeh et al., SIGCOMM 2010, "Data Center TCP").

The switch marks CE on every packet that arrives while the instantaneous queue exceeds K (§3.1).
§3.4 (C in packets/s, RTT in s, K in packets): the queue sawtooth's minimum, minimised over the
number of synchronised flows N, stays above zero when

    K > (C × RTT) / 7                                             (DCTCP eq. 13)

and the estimation gain must satisfy g < 1.386 / sqrt(2(C × RTT + K)) (eq. 15). §3.5 adds that
real hosts send bursts (LSO, interrupt moderation: 30–40 packets at 10 Gbps), so K must also make
allowance for the host burst; the paper's testbed therefore used K = 65 packets at 10 Gbps
(and 20 at 1 Gbps) although eq. 13 alone allows "as low as 20 packets" at 10 Gbps. This model
returns K = max(smallest whole packet count above eq. 13, the host burst in packets).
The bound is restated by TBTCP §2 ("k should be at least (C*RTT)/7 = BDP/7"); the values
K = 65 at 10 Gbps / 20 at 1 Gbps are restated by D2TCP §4.1.1 and EAR §4.2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from qosforge.models._checks import (
    as_float_array,
    require_non_negative,
    require_positive,
    scalar_or_array,
)
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_DCTCP_K = (
    "Alizadeh et al., 'Data Center TCP (DCTCP)', SIGCOMM 2010, §3.4 eq. 13 (restated TBTCP §2)"
)
SOURCE_DCTCP_BURST = (
    "DCTCP §3.5 (allow for host bursts from LSO/interrupt moderation when picking K)"
)
SOURCE_DCTCP_GAIN = "DCTCP §3.4 eq. 15"

BITS_PER_BYTE: Final = 8.0
#: Denominator of DCTCP eq. 13, from minimising the sawtooth minimum over N (DCTCP §3.4).
DCTCP_BDP_DIVISOR: Final = 7.0
#: Constant of DCTCP eq. 15 (2·ln 2 ≈ 1.386, from (1−g)^T_C > 1/2 with N = 1).
DCTCP_GAIN_NUMERATOR: Final = 1.386


@dataclass(frozen=True, kw_only=True)
class DctcpThreshold:
    rate_bps: Any = quantity("bps", "bottleneck link rate C")
    rtt_s: Any = quantity("s", "round-trip time without queueing")
    packet_bytes: Any = quantity("B", "packet size used to count K in packets (MTU)")
    burst_bytes: Any = quantity("B", "largest host burst to tolerate (e.g. NIC LSO segment)")
    bdp_bytes: Any = quantity("B", "bandwidth-delay product C·RTT")
    bdp_packets: Any = quantity("packets", "bandwidth-delay product in packets")
    stability_bound_packets: Any = quantity(
        "packets", "DCTCP eq. 13 lower bound C·RTT/7 (K must exceed it)"
    )
    stability_bound_bytes: Any = quantity("B", "DCTCP eq. 13 lower bound in bytes")
    burst_packets: Any = quantity("packets", "host burst in whole packets")
    threshold_packets: Any = quantity("packets", "marking threshold K in packets")
    threshold_bytes: Any = quantity("B", "marking threshold K in bytes")
    max_gain: Any = quantity("1", "largest estimation gain g allowed at this K (eq. 15)")
    provenance: Provenance


def dctcp_marking_threshold(
    rate_bps: Any, rtt_s: Any, packet_bytes: Any, burst_bytes: Any = 0.0
) -> DctcpThreshold:
    """DCTCP marking threshold K = max(floor(C·RTT/7) + 1, ceil(burst)) packets (vectorised)."""
    rate_bps = as_float_array(rate_bps)
    rtt_s = as_float_array(rtt_s)
    packet_bytes = as_float_array(packet_bytes)
    burst_bytes = as_float_array(burst_bytes)
    require_positive("rate_bps", rate_bps, hint="give the link rate, e.g. 10G")
    require_positive("rtt_s", rtt_s, hint="give the round-trip time without queueing, e.g. 100us")
    require_positive("packet_bytes", packet_bytes, hint="give the packet size (MTU), e.g. 1500B")
    require_non_negative(
        "burst_bytes", burst_bytes, hint="give the NIC's LSO burst, e.g. 64KiB, or 0"
    )
    bdp_bytes = rate_bps * rtt_s / BITS_PER_BYTE
    bdp_packets = bdp_bytes / packet_bytes
    bound_packets = bdp_packets / DCTCP_BDP_DIVISOR
    # K > bound is strict (eq. 13), and the switch counts whole packets: next integer above.
    above_bound = np.floor(bound_packets) + 1.0
    burst_packets = np.ceil(burst_bytes / packet_bytes)
    threshold_packets = np.maximum(above_bound, burst_packets)
    threshold_bytes = threshold_packets * packet_bytes
    max_gain = DCTCP_GAIN_NUMERATOR / np.sqrt(2.0 * (bdp_packets + threshold_packets))
    return DctcpThreshold(
        rate_bps=rate_bps,
        rtt_s=rtt_s,
        packet_bytes=packet_bytes,
        burst_bytes=burst_bytes,
        bdp_bytes=bdp_bytes,
        bdp_packets=bdp_packets,
        stability_bound_packets=bound_packets,
        stability_bound_bytes=bound_packets * packet_bytes,
        burst_packets=scalar_or_array(burst_packets),
        threshold_packets=scalar_or_array(threshold_packets),
        threshold_bytes=scalar_or_array(threshold_bytes),
        max_gain=scalar_or_array(max_gain),
        provenance=Provenance(
            model="dctcp_marking_threshold",
            inputs=(
                input_value("rate_bps", rate_bps, "bps"),
                input_value("rtt_s", rtt_s, "s"),
                input_value("packet_bytes", packet_bytes, "B"),
                input_value("burst_bytes", burst_bytes, "B"),
            ),
            derivations=(
                Derivation("bdp_bytes", "rate_bps*rtt_s/8", SOURCE_DCTCP_K),
                Derivation("stability_bound_packets", "bdp_bytes/packet_bytes/7", SOURCE_DCTCP_K),
                Derivation("burst_packets", "ceil(burst_bytes/packet_bytes)", SOURCE_DCTCP_BURST),
                Derivation(
                    "threshold_packets",
                    "max(floor(stability_bound_packets) + 1, burst_packets)",
                    f"{SOURCE_DCTCP_K}; {SOURCE_DCTCP_BURST}",
                ),
                Derivation("threshold_bytes", "threshold_packets*packet_bytes", SOURCE_DCTCP_K),
                Derivation(
                    "max_gain", "1.386/sqrt(2*(bdp_packets + threshold_packets))", SOURCE_DCTCP_GAIN
                ),
            ),
        ),
    )




__all__ = ["DctcpThreshold", "dctcp_marking_threshold"]


@dataclass(frozen=True)
class DctcpQueueSawtooth:
    """The queue of N synchronised DCTCP flows at one marking port (DCTCP §3.3), in packets."""

    max_packets: float
    """Q_max = K + N (eq. 9)."""
    amplitude_packets: float
    """A = N·D with D = (W* + 1)·alpha/2, W* = (C·RTT + K)/N, alpha = sqrt(2/W*) (eqs. 6-8)."""


def dctcp_queue_sawtooth(threshold_packets: float, bdp_packets: float, flows: int) -> DctcpQueueSawtooth:
    """DCTCP §3.3 eqs. 6-9 for ``flows`` long-lived flows, K and C·RTT in packets."""
    window = (bdp_packets + threshold_packets) / flows
    amplitude = flows * (window + 1.0) * float(np.sqrt(2.0 / window)) / 2.0
    return DctcpQueueSawtooth(max_packets=threshold_packets + flows, amplitude_packets=amplitude)
