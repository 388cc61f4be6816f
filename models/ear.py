"""EAR (Zeng et al., "Combining ECN and RTT for Datacenter Transport", APNet 2017).

EAR senders count an ACK as a congestion indicator if it carries an ECN mark (the switch queue
exceeded K, EAR eq. 1) *or* its RTT exceeds base_rtt + T (eq. 2), then apply DCTCP's window law
(§4.1). Two thresholds therefore have to be configured:

* K, per hop, in the switch: DCTCP's step marking threshold ("the recommended value of 65pkts at
  10Gbps", EAR §4.2), which the compiler sizes with :mod:`qosforge.models.dctcp`;
* T, in the host: a queueing-delay threshold. EAR §3.1 maps queue to delay one-to-one at a
  single congestion point of uniform capacity C, so T expressed as a queue is T·C/8 bytes. §4.2
  requires T > K "so as to tolerate potential multiple bottlenecks" and picks T = 144 µs, i.e.
  120 packets at 10 Gbps (120 × 1500 B × 8 / 10 Gbps = 144 µs), empirically (Figure 5); the
  paper gives no formula for T beyond T > K. With a base RTT (≈ 116 µs across 8 hops, §4.2) the
  host flags RTT > base_rtt + T.

Note the paper's evaluation measures the delay signal one-way, "similar to DX" (§4.2), while eq. 2
is written with the RTT; both compare the same queueing delay against T.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from qosforge.errors import InfeasibleDesignError
from qosforge.models._checks import as_float_array, require_positive
from qosforge.models.dctcp import SOURCE_DCTCP_K, dctcp_marking_threshold
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_EAR = "Zeng et al., 'Combining ECN and RTT for Datacenter Transport' (EAR), APNet 2017"
SOURCE_EAR_SIGNALS = f"{SOURCE_EAR}, §3.1 eqs. 1-2, §4.1"
SOURCE_EAR_PARAMS = f"{SOURCE_EAR}, §4.2 (K = 65 pkts, T = 120 pkts = 144 us at 10 Gbps, T > K)"

BITS_PER_BYTE: Final = 8.0


@dataclass(frozen=True, kw_only=True)
class EarThresholds:
    rate_bps: Any = quantity("bps", "link rate C")
    packet_bytes: Any = quantity("B", "packet size used to count packets (MTU)")
    base_rtt_s: Any = quantity("s", "round-trip time without queueing")
    ecn_threshold_bytes: Any = quantity("B", "switch ECN marking threshold K (per hop)")
    ecn_threshold_packets: Any = quantity("packets", "K in packets")
    delay_threshold_s: Any = quantity("s", "host queueing-delay threshold T")
    delay_threshold_bytes: Any = quantity("B", "T as the queue that drains in T at rate C")
    delay_threshold_packets: Any = quantity("packets", "T as a queue in packets")
    rtt_threshold_s: Any = quantity("s", "RTT above which an ACK signals congestion: base + T")
    provenance: Provenance


def ear_thresholds(
    rate_bps: Any,
    packet_bytes: Any,
    base_rtt_s: Any,
    ecn_threshold_bytes: Any,
    delay_threshold_s: Any,
    *,
    burst_bytes: Any = 0.0,
) -> EarThresholds:
    """EAR's ECN threshold K and host delay threshold T, both as bytes, packets and time.

    K is ``ecn_threshold_bytes`` unless that is ``None``; then it is DCTCP's K for this rate and
    base RTT with the host burst ``burst_bytes`` (EAR §4.2 uses DCTCP's recommended K). Raises
    :class:`InfeasibleDesignError` at ``delay_threshold_s`` when T (as a queue) is not larger
    than K, which EAR §4.2 requires.
    """
    rate_bps = as_float_array(rate_bps)
    packet_bytes = as_float_array(packet_bytes)
    base_rtt_s = as_float_array(base_rtt_s)
    delay_threshold_s = as_float_array(delay_threshold_s)
    require_positive("rate_bps", rate_bps, hint="give the link rate, e.g. 10G")
    require_positive("packet_bytes", packet_bytes, hint="give the packet size (MTU), e.g. 1500B")
    require_positive("base_rtt_s", base_rtt_s, hint="give the RTT without queueing, e.g. 116us")
    if ecn_threshold_bytes is None:
        dctcp = dctcp_marking_threshold(rate_bps, base_rtt_s, packet_bytes, burst_bytes)
        ecn_threshold_bytes = dctcp.threshold_bytes
        k_inputs = (input_value("burst_bytes", dctcp.burst_bytes, "B"),)
        k_derivations = (
            *(
                item
                for item in dctcp.provenance.derivations
                if item.quantity
                in ("stability_bound_packets", "burst_packets", "threshold_packets")
            ),
            Derivation(
                "ecn_threshold_bytes",
                "DCTCP threshold_packets*packet_bytes at base_rtt_s",
                f"{SOURCE_EAR_PARAMS}; {SOURCE_DCTCP_K}",
            ),
        )
    else:
        ecn_threshold_bytes = as_float_array(ecn_threshold_bytes)
        require_positive(
            "ecn_threshold_bytes", ecn_threshold_bytes, hint="give K, e.g. 65pkt or 97.5kB"
        )
        k_inputs = (input_value("ecn_threshold_bytes", ecn_threshold_bytes, "B"),)
        k_derivations = ()
    require_positive("delay_threshold_s", delay_threshold_s, hint="give T, e.g. 144us or 120pkt")
    # One-to-one queue ↔ delay at a single congestion point of rate C (EAR §3.1).
    delay_bytes = delay_threshold_s * rate_bps / BITS_PER_BYTE
    if np.any(delay_bytes <= ecn_threshold_bytes):
        _raise_t_not_above_k(delay_bytes, ecn_threshold_bytes, rate_bps, delay_threshold_s)
    return EarThresholds(
        rate_bps=rate_bps,
        packet_bytes=packet_bytes,
        base_rtt_s=base_rtt_s,
        ecn_threshold_bytes=ecn_threshold_bytes,
        ecn_threshold_packets=ecn_threshold_bytes / packet_bytes,
        delay_threshold_s=delay_threshold_s,
        delay_threshold_bytes=delay_bytes,
        delay_threshold_packets=delay_bytes / packet_bytes,
        rtt_threshold_s=base_rtt_s + delay_threshold_s,
        provenance=Provenance(
            model="ear_thresholds",
            inputs=(
                input_value("rate_bps", rate_bps, "bps"),
                input_value("packet_bytes", packet_bytes, "B"),
                input_value("base_rtt_s", base_rtt_s, "s"),
                input_value("delay_threshold_s", delay_threshold_s, "s"),
                *k_inputs,
            ),
            derivations=(
                *k_derivations,
                Derivation(
                    "ecn_threshold_packets", "ecn_threshold_bytes/packet_bytes", SOURCE_EAR_PARAMS
                ),
                Derivation(
                    "delay_threshold_bytes", "delay_threshold_s*rate_bps/8", SOURCE_EAR_SIGNALS
                ),
                Derivation(
                    "delay_threshold_packets",
                    "delay_threshold_bytes/packet_bytes",
                    SOURCE_EAR_PARAMS,
                ),
                Derivation("rtt_threshold_s", "base_rtt_s + delay_threshold_s", SOURCE_EAR_SIGNALS),
            ),
        ),
    )


def _raise_t_not_above_k(delay_bytes: Any, ecn_bytes: Any, rate_bps: Any, delay_s: Any) -> None:
    shape = np.broadcast(delay_bytes, ecn_bytes, rate_bps, delay_s).shape
    margin = np.broadcast_to(delay_bytes - ecn_bytes, shape)
    worst = np.unravel_index(int(np.argmin(margin)), shape) if shape else ()
    t_bytes = float(np.broadcast_to(delay_bytes, shape)[worst])
    k_bytes = float(np.broadcast_to(ecn_bytes, shape)[worst])
    rate = float(np.broadcast_to(rate_bps, shape)[worst])
    t_s = float(np.broadcast_to(delay_s, shape)[worst])
    k_time_us = k_bytes * BITS_PER_BYTE / rate * 1e6
    raise InfeasibleDesignError(
        f"delay threshold T = {t_s * 1e6:.3g} us is a queue of {t_bytes:.0f} B at "
        f"{rate / 1e9:g} Gbps, not above the ECN threshold K = {k_bytes:.0f} B "
        f"({k_time_us:.3g} us); EAR needs T > K to tolerate multiple bottlenecks",
        place="delay_threshold_s",
        hint=f"raise T above {k_time_us:.3g} us (EAR uses 120 packets against K = 65 at 10 Gbps) "
        "or lower K",
    )


__all__ = ["EarThresholds", "ear_thresholds"]
