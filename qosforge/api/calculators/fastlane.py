"""``qosforge whatif fastlane``: FastLane's notification overhead and its queue's caps on a port
(FastLane §3.2 Eq. 3; 2 % of bandwidth, 5 % of buffer)."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.defaults import DEFAULT_FASTLANE_BANDWIDTH_CAP, DEFAULT_FASTLANE_BUFFER_CAP
from qosforge.models.fastlane import FastLaneBudget, fastlane_notification_budget


def _compute(values: dict[str, Any]) -> FastLaneBudget:
    return fastlane_notification_budget(
        rate_bps=values["rate_bps"],
        buffer_bytes=values["buffer_bytes"],
        drop_probability=values["drop_probability"],
        bandwidth_cap_fraction=values["bandwidth_cap_fraction"],
        buffer_cap_fraction=values["buffer_cap_fraction"],
        data_packet_bytes=values["data_packet_bytes"],
        ack_bytes=values["ack_bytes"],
        notification_bytes=values["notification_bytes"],
    )


SPEC = WhatIf(
    name="fastlane",
    summary="FastLane drop-notification overhead and the notification queue's bps/byte caps.",
    description=(
        "Overhead at drop probability p: 64p(2−p)/(1464 + 64(1−p)p) for 1400 B data and 64 B "
        "ACKs/notifications (FastLane §3.2 Eq. 3), at most 4.37% at p = 100%. Notifications get "
        "strict priority but at most 2% of the port's bandwidth and 5% of its buffer (§3.2, §5)."
    ),
    params=(
        Param("--speed", "rate_bps", "rate", "Port rate C (e.g. 10G).", required=True, aliases=("--rate",)),
        Param(
            "--port-buffer",
            "buffer_bytes",
            "size",
            "The port's buffer the notification queue draws from (FastLane §5: 128KB per port).",
            required=True,
            aliases=("--buffer",),
        ),
        Param(
            "--drop-probability",
            "drop_probability",
            "fraction",
            "Packet drop probability p (default: the worst case, Fig. 3).",
            default="100%",
        ),
        Param(
            "--bandwidth-cap",
            "bandwidth_cap_fraction",
            "fraction",
            "Notification bandwidth cap.",
            default=DEFAULT_FASTLANE_BANDWIDTH_CAP,
        ),
        Param(
            "--buffer-cap",
            "buffer_cap_fraction",
            "fraction",
            "Notification buffer cap.",
            default=DEFAULT_FASTLANE_BUFFER_CAP,
        ),
        Param(
            "--data-packet",
            "data_packet_bytes",
            "size",
            "Data packet size D (§3.2).",
            default="1400B",
        ),
        Param("--ack", "ack_bytes", "size", "ACK size A (§3.2).", default="64B"),
        Param(
            "--notification",
            "notification_bytes",
            "size",
            "Notification size N (§3.2).",
            default="64B",
        ),
    ),
    compute=_compute,
    headline=(
        "overhead_fraction",
        "notification_rate_cap_bps",
        "notification_buffer_cap_bytes",
        "drop_probability_at_cap",
    ),
    examples=(
        "qosforge whatif fastlane --speed 10G --port-buffer 128kB",
        "qosforge whatif fastlane --speed 10G --port-buffer 128kB --sweep drop-probability=0%:100%:21",
    ),
)
