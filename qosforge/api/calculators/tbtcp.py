"""``qosforge whatif tbtcp``: TBTCP's steady state (queue, windows, marking) on one bottleneck
(TBTCP §4.4 on the §6.2 marking curve)."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.defaults import (
    DEFAULT_LSO_BURST,
    DEFAULT_MTU,
    DEFAULT_TBTCP_BETA,
    DEFAULT_TBTCP_R,
)
from qosforge.models.tbtcp import TbtcpSteadyState, tbtcp_steady_state
from qosforge.ranges import RTT


def _compute(values: dict[str, Any]) -> TbtcpSteadyState:
    return tbtcp_steady_state(
        rate_bps=values["rate_bps"],
        rtt_s=values["rtt_s"],
        flows=values["flows"],
        beta=values["beta"],
        mss_bytes=values["mss_bytes"],
        lso_burst_bytes=values["lso_burst_bytes"],
        window_reduction_r=values["window_reduction_r"],
    )


SPEC = WhatIf(
    name="tbtcp",
    summary="TBTCP steady state: queue ≈ beta·n, windows and marking on one bottleneck.",
    description=(
        "n synchronized flows settle where RAI's beta per RTT equals QCD's expected cut w·p(Q), "
        "with W = BDP + Q (TBTCP §4.4). With l = 0 this is Eq. 8, Q = beta·n MSS; the switch "
        "marks with p(Q) = (Q − l)/(BDP − l + Q), capped at 0.5 (§6.2), scaled by 1/r while hosts "
        "cut r MSS per mark: CWND <- max(CWND − r, CWND/2)."
    ),
    params=(
        Param("--speed", "rate_bps", "rate", "Bottleneck link rate C (e.g. 10G).", required=True, aliases=("--rate",)),
        Param("--rtt", "rtt_s", "time", "Base round-trip time (e.g. 150us).", required=True, bounds=RTT),
        Param(
            "--flows", "flows", "integer", "Long-lived flows n on the bottleneck.", default="100"
        ),
        Param(
            "--beta",
            "beta",
            "number",
            "RAI increase per RTT in MSS (TBTCP §5.1 uses 0.1).",
            default=f"{DEFAULT_TBTCP_BETA:g}",
        ),
        Param("--mss", "mss_bytes", "size", "Segment size (MSS).", default=DEFAULT_MTU),
        Param(
            "--lso-burst",
            "lso_burst_bytes",
            "size",
            "Marking start l, at least the NIC's LSO burst (TBTCP §6.2's testbed uses 138kB) "
            f"[default: {DEFAULT_LSO_BURST}, the intent's design.lso_burst, as compile].",
            default=DEFAULT_LSO_BURST,
            packet_size_argument="mss_bytes",
        ),
        Param(
            "--r",
            "window_reduction_r",
            "number",
            f"QCD cut per mark r; curve scaled by 1/r (§6.2) [default: {DEFAULT_TBTCP_R}, as the intent's tbtcp.r].",
            default=str(DEFAULT_TBTCP_R),
        ),
    ),
    compute=_compute,
    headline=("queue_bytes", "queue_delay_s", "per_flow_window_packets", "marking_probability"),
    examples=(
        "qosforge whatif tbtcp --speed 10G --rtt 150us --flows 100",
        "qosforge whatif tbtcp --speed 40G --rtt 160us --sweep flows=10:1000:100 --plot queue.png",
    ),
)
