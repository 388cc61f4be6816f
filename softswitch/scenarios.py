"""Compatibility import path: the single-switch scenarios live in softswitch/helper/single_switch.py."""

from qosforge.softswitch.helper.single_switch import (
    DUMBBELL_MAX_SENDER_PORTS,
    TRANSPORTS,
    DumbbellSpec,
    dumbbell,
    incast_flows,
)

__all__ = ["DUMBBELL_MAX_SENDER_PORTS", "TRANSPORTS", "DumbbellSpec", "dumbbell", "incast_flows"]
