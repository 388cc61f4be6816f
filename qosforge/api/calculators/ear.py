"""``qosforge whatif ear``: EAR's per-hop ECN threshold K and host delay threshold T (EAR §4)."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.defaults import DEFAULT_LSO_BURST, DEFAULT_MTU
from qosforge.errors import QosforgeError
from qosforge.models.ear import EarThresholds, ear_thresholds
from qosforge.ranges import RTT
from qosforge.units import parse_size_bytes


def _compute(values: dict[str, Any]) -> EarThresholds:
    if values["ecn_threshold_bytes"] is not None and values["burst_bytes"] is not None:
        raise QosforgeError(
            "--burst only applies when K is derived with the DCTCP model",
            place="--burst",
            hint="drop --burst, or drop --ecn-threshold to derive K",
        )
    # The burst compile uses (design.lso_burst): EAR's switch side is DCTCP's K (EAR §4.2), which
    # compile floors at the LSO burst (DCTCP §3.5), so the derived K agrees with compile's.
    burst = values["burst_bytes"]
    return ear_thresholds(
        rate_bps=values["rate_bps"],
        packet_bytes=values["packet_bytes"],
        base_rtt_s=values["base_rtt_s"],
        delay_threshold_s=values["delay_threshold_s"],
        ecn_threshold_bytes=values["ecn_threshold_bytes"],
        burst_bytes=parse_size_bytes(DEFAULT_LSO_BURST) if burst is None else burst,
    )


SPEC = WhatIf(
    name="ear",
    summary="EAR thresholds: switch ECN K per hop and host delay T > K (EAR §3.1, §4.2).",
    description=(
        "An ACK signals congestion if ECN-marked (queue > K) or if RTT > base RTT + T. T as a "
        "queue is T·C/8 bytes and must exceed K to tolerate multiple bottlenecks. The paper "
        "uses K = 65 packets and T = 144 us (120 packets) at 10 Gbps; T has no formula beyond "
        "T > K. Without --ecn-threshold, K is DCTCP's for --speed and --base-rtt, at least --burst (the LSO burst, as compile's)."
    ),
    params=(
        Param("--speed", "rate_bps", "rate", "Link rate C.", required=True),
        Param("--base-rtt", "base_rtt_s", "time", "RTT without queueing.", required=True, bounds=RTT),
        Param(
            "--delay-threshold",
            "delay_threshold_s",
            "time",
            "Host queueing-delay threshold T (e.g. 144us = 120 packets at 10G).",
            required=True,
            bounds=RTT,  # the intent's ear.rtt_threshold, in the RTT range
        ),
        Param(
            "--ecn-threshold",
            "ecn_threshold_bytes",
            "size",
            "Switch ECN threshold K (e.g. 65pkt) [default: DCTCP's K].",
            packet_size_argument="packet_bytes",
        ),
        Param(
            "--burst",
            "burst_bytes",
            "size",
            "Host burst for the derived DCTCP K (e.g. 65pkt; 1B for the bound alone) "
            f"[default: {DEFAULT_LSO_BURST}, the intent's design.lso_burst, so K matches compile].",
            packet_size_argument="packet_bytes",
        ),
        Param("--packet", "packet_bytes", "size", "Packet size (MTU).", default=DEFAULT_MTU),
    ),
    compute=_compute,
    headline=(
        "ecn_threshold_bytes",
        "ecn_threshold_packets",
        "delay_threshold_s",
        "delay_threshold_packets",
        "rtt_threshold_s",
    ),
    examples=(
        "qosforge whatif ear --speed 10G --base-rtt 116us --ecn-threshold 65pkt "
        "--delay-threshold 144us",
        "qosforge whatif ear --speed 25G --base-rtt 60us --burst 64KiB --delay-threshold 50us",
    ),
)
