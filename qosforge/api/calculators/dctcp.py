"""``qosforge whatif dctcp``: DCTCP marking threshold K > C·RTT/7, at least the host burst."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.defaults import DEFAULT_LSO_BURST, DEFAULT_MTU
from qosforge.models.dctcp import DctcpThreshold, dctcp_marking_threshold
from qosforge.ranges import RTT


def _compute(values: dict[str, Any]) -> DctcpThreshold:
    burst = values["burst_bytes"]
    return dctcp_marking_threshold(
        rate_bps=values["rate_bps"],
        rtt_s=values["rtt_s"],
        packet_bytes=values["packet_bytes"],
        burst_bytes=0.0 if burst is None else burst,
    )


SPEC = WhatIf(
    name="dctcp",
    summary="DCTCP step-marking threshold K (DCTCP §3.4 eq. 13, §3.5 burst allowance).",
    description=(
        "K must exceed C·RTT/7 (C in packets/s) so the queue never underflows, and must make "
        "allowance for host bursts (LSO, interrupt moderation): K = max(floor(C·RTT/7)+1, burst) "
        "packets. DCTCP's testbed used 65 packets at 10 Gbps for 30-40-packet bursts; eq. 13 "
        "alone gives about 12 packets at 10 Gbps and 100 us. Also applies to D2TCP and EAR's K."
    ),
    params=(
        Param("--speed", "rate_bps", "rate", "Bottleneck link rate C.", required=True),
        Param("--rtt", "rtt_s", "time", "Round-trip time without queueing.", required=True, bounds=RTT),
        Param("--packet", "packet_bytes", "size", "Packet size (MTU).", default=DEFAULT_MTU),
        Param(
            "--burst",
            "burst_bytes",
            "size",
            "Largest host burst to absorb, e.g. the NIC LSO size or 40pkt; 1B for the bound alone "
            f"[default: {DEFAULT_LSO_BURST}, the intent's design.lso_burst default, so K matches compile].",
            default=DEFAULT_LSO_BURST,
            packet_size_argument="packet_bytes",
        ),
    ),
    compute=_compute,
    headline=(
        "stability_bound_packets",
        "burst_packets",
        "threshold_packets",
        "threshold_bytes",
        "max_gain",
    ),
    examples=(
        "qosforge whatif dctcp --speed 10G --rtt 100us",
        "qosforge whatif dctcp --speed 10G --rtt 100us --burst 65pkt",
        "qosforge whatif dctcp --speed 100G --rtt 20us --burst 64KiB --sweep rtt=5us:200us:40",
    ),
)
