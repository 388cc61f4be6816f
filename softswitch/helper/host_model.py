"""What one class's Linux TCP hosts ran in a simulation, with where each value came from (the
report's ``hosts.tcp`` / ``host_tcp``). Its own module, without the host settings document's
schema, so that a scenario with no document (the flag-only dumbbell) reports it cheaply."""

from __future__ import annotations

from dataclasses import dataclass

from qosforge.softswitch.traffic.spec import FlowKind


@dataclass(frozen=True)
class HostModel:
    """What one class's Linux hosts run, and where each value came from."""

    class_name: str
    congestion_control: str
    flow_kind: FlowKind
    ecn_capable: bool
    rto_min_s: float
    initial_window: int
    sources: dict[str, str]

    def as_json(self) -> dict[str, object]:
        return {
            "class": self.class_name,
            "congestion_control": self.congestion_control,
            "flow_kind": self.flow_kind,
            "ecn_capable": self.ecn_capable,
            "rto_min_s": self.rto_min_s,
            "initial_window_segments": self.initial_window,
            "sources": dict(self.sources),
        }


__all__ = ["HostModel"]
