"""The report's ``host_tcp`` in text: one line per class, each value with where it came from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from qosforge.units import format_value

#: What a run without a Linux TCP host (only RoCE or open-loop traffic) says in text.
NO_TCP_HOST = "none (no class of this run has a Linux TCP host)"


def describe_host_tcp(model: Mapping[str, Any]) -> str:
    """``tcp: cubic, not ECN-capable (intent transport); rto_min 4 ms (intent hosts.rto_min);
    initial window 10 segments (Linux default ...)``."""
    sources = model["sources"]
    ecn = "ECN-capable" if model["ecn_capable"] else "not ECN-capable"
    return (f"{model['class']}: {model['congestion_control']}, {ecn} ({sources['ecn']}); "
            f"rto_min {format_value(model['rto_min_s'], 's')} ({sources['rto_min']}); "
            f"initial window {model['initial_window_segments']} segments "
            f"({sources['initial_window']})")


def host_tcp_lines(models: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each class's line, or :data:`NO_TCP_HOST` for none."""
    return [describe_host_tcp(model) for model in models] or [NO_TCP_HOST]


__all__ = ["NO_TCP_HOST", "describe_host_tcp", "host_tcp_lines"]
