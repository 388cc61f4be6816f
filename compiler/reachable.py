"""Refuse WRED/ECN thresholds a queue can never reach (the check lint's ecn-above-queue-limit
runs on a config_db, compiler/queue_limits.py): the queue tail-drops before the curve acts."""

from __future__ import annotations

from qosforge.compiler.buffers import EGRESS_LOSSLESS_PROFILE, EGRESS_LOSSY_PROFILE, BufferPlan
from qosforge.compiler.dynamic_th import dynamic_th_range
from qosforge.compiler.intent import ClassSpec, Intent
from qosforge.compiler.loader import SourceMap
from qosforge.compiler.queue_limits import first_active_curve, queue_limit
from qosforge.ir import WredIR
from qosforge.units import format_bytes
from qosforge.vendor_profiles.schema import VendorProfile


def rtt_input_path(intent: Intent, spec: ClassSpec) -> tuple[str | int, ...]:
    """The intent field that sets a class's RTT (and so its BDP-sized thresholds)."""
    if spec.rtt is not None:
        return ("classes", intent.classes.index(spec), "rtt")
    for generator in ("leaf_spine", "clos"):
        if getattr(intent.topology, generator) is not None:
            return ("topology", generator, "link_latency")
    return ("topology", "links") if intent.topology.links else ("topology", "switches")


def check_reachable(intent: Intent, source_map: SourceMap, spec: ClassSpec, rate_bps: float, wred: WredIR,
                    lossless: bool, buffer_plan: BufferPlan, profile: VendorProfile) -> None:
    start = first_active_curve(wred)
    if start is None:
        return
    name = EGRESS_LOSSLESS_PROFILE if lossless else EGRESS_LOSSY_PROFILE
    buffer_profile = next(p for p in buffer_plan.profiles if p.name == name)
    pool = next((p for p in buffer_plan.pools if p.name == buffer_profile.pool), None)
    limit = queue_limit(buffer_profile, pool.size_bytes.value if pool else None, mmu_count=int(profile.mmu_count.value or 1),
                        congested_ports=intent.design.congested_ports, accepted=dynamic_th_range(profile))
    if limit is None or start.min_bytes.value <= limit.limit_bytes:
        return
    raise source_map.error(
        rtt_input_path(intent, spec),
        f"class '{spec.name}' at {rate_bps / 1e9:g}G: {start.color} WRED/ECN starts at {format_bytes(start.min_bytes.value)} "
        f"({start.min_bytes.provenance.model}) but the queue holds at most {format_bytes(limit.limit_bytes)} "
        f"({limit.how(format_bytes)}): it tail-drops before marking",
        "lower the RTT (link_latency or classes[].rtt) or the class's thresholds, or raise the limit: fewer "
        "design.congested_ports, a larger design.alpha, or a switch with more buffer",
    )


__all__ = ["check_reachable", "rtt_input_path"]
