"""``qosforge whatif d2tcp``: D2TCP deadline imminence and penalty for one flow (D2TCP §3.2)."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.defaults import DEFAULT_MTU
from qosforge.models.d2tcp import (
    D_MAX_DEFAULT,
    D_MIN_DEFAULT,
    D2tcpDeadline,
    d2tcp_deadline,
    d2tcp_deadline_penalty,
)
from qosforge.ranges import RTT


def _compute(values: dict[str, Any]) -> D2tcpDeadline:
    common = {
        "remaining_bytes": values["remaining_bytes"],
        "window_bytes": values["window_bytes"],
        "rtt_s": values["rtt_s"],
        "deadline_s": values["deadline_s"],
        "d_min": values["d_min"],
        "d_max": values["d_max"],
    }
    if values["congestion_alpha"] is None:
        return d2tcp_deadline(**common)
    return d2tcp_deadline_penalty(congestion_alpha=values["congestion_alpha"], **common)


SPEC = WhatIf(
    name="d2tcp",
    summary="D2TCP deadline imminence d = T_c/D and penalty p = alpha^d (D2TCP §3.2).",
    description=(
        "T_c = B/(3W/4) RTTs is the time to send B bytes with window W (bytes per RTT) under full "
        "congestion; d = T_c/D is capped to [d_min, d_max]. T_c <= D means the deadline is met "
        "even deadline-agnostically (d = 1, plain DCTCP). With --dctcp-alpha, also the penalty "
        "p = alpha^d and window factor 1 - p/2. The switch side is DCTCP's: see 'whatif dctcp'."
    ),
    params=(
        Param(
            "--remaining",
            "remaining_bytes",
            "size",
            "Bytes B left to send.",
            required=True,
            packet_size_argument="packet_bytes",
        ),
        Param(
            "--window",
            "window_bytes",
            "size",
            "Congestion window W (bytes per RTT, or e.g. 40pkt).",
            required=True,
            packet_size_argument="packet_bytes",
        ),
        Param("--rtt", "rtt_s", "time", "Round-trip time.", required=True, bounds=RTT),
        Param("--deadline", "deadline_s", "time", "Time D left until the deadline.", required=True),
        Param("--packet", "packet_bytes", "size", "Segment size for pkt units.", default=DEFAULT_MTU),
        Param("--dctcp-alpha", "congestion_alpha", "number", "DCTCP congestion estimate alpha (0..1).", aliases=("--alpha",)),
        Param(
            "--d-min",
            "d_min",
            "number",
            "Lower cap on d (D2TCP §4.1.1).",
            default=f"{D_MIN_DEFAULT:g}",
        ),
        Param(
            "--d-max",
            "d_max",
            "number",
            "Upper cap on d (D2TCP §4.1.1).",
            default=f"{D_MAX_DEFAULT:g}",
        ),
    ),
    compute=_compute,
    headline=(
        "completion_s",
        "imminence_raw",
        "imminence",
        "meets_deadline_agnostic",
        "within_cap",
        "penalty",
    ),
    examples=(
        "qosforge whatif d2tcp --remaining 300kB --window 20kB --rtt 200us --deadline 8ms",
        "qosforge whatif d2tcp --remaining 10MB --window 40pkt --rtt 200us --deadline 20ms "
        "--dctcp-alpha 0.5",
    ),
)
