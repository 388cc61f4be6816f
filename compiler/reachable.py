"""Refuse WRED/ECN thresholds a queue can never reach (the check lint's ecn-above-queue-limit
runs on a config_db, compiler/queue_limits.py): the queue tail-drops before the curve acts."""

from __future__ import annotations

from qosforge.compiler.buffers import EGRESS_LOSSLESS_PROFILE, EGRESS_LOSSY_PROFILE, BufferPlan
from qosforge.compiler.dynamic_th import dynamic_th_range
from qosforge.compiler.intent import ClassSpec, Intent
from qosforge.compiler.loader import SourceMap
from qosforge.compiler.queue_limits import UnreachableThreshold, queue_limit, unreachable_thresholds
from qosforge.compiler.thresholds import explicit_ecn
from qosforge.ir import WredIR
from qosforge.transports import transport
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
    if not any(c.drop or c.mark for c in wred.curves):
        return
    name = EGRESS_LOSSLESS_PROFILE if lossless else EGRESS_LOSSY_PROFILE
    buffer_profile = next(p for p in buffer_plan.profiles if p.name == name)
    pool = next((p for p in buffer_plan.pools if p.name == buffer_profile.pool), None)
    limit = queue_limit(buffer_profile, pool.size_bytes.value if pool else None, mmu_count=int(profile.mmu_count.value or 1),
                        congested_ports=intent.design.congested_ports, accepted=dynamic_th_range(profile))
    if limit is None:
        return
    unreachable = unreachable_thresholds(wred, limit.limit_bytes)
    if not unreachable:
        return
    first = unreachable[0]
    curve = first.curve
    what = "starts" if first.bound == "min" else "reaches its full probability"
    threshold = curve.min_bytes if first.bound == "min" else curve.max_bytes
    stated = explicit_ecn(spec, rate_bps) if curve.mark else None
    if stated is not None:
        index = intent.classes.index(spec)
        raise source_map.error(
            ("classes", index, "ecn", (spec.ecn or []).index(stated), first.bound),
            f"class '{spec.name}' at {rate_bps / 1e9:g}G: the stated ECN {first.bound} {format_bytes(threshold.value)} is above "
            f"what the queue can hold, {format_bytes(limit.limit_bytes)} ({limit.how(format_bytes)}): "
            f"{first.effect(limit.limit_bytes, format_bytes)}",
            f"lower classes[{spec.name}].ecn's {first.bound} at this speed to at most {format_bytes(limit.limit_bytes)}, or raise "
            "the limit: fewer design.congested_ports, a larger design.alpha, or a switch with more buffer",
        )
    raise source_map.error(
        _input_path(intent, spec, first),
        f"class '{spec.name}' at {rate_bps / 1e9:g}G: {curve.color} WRED/ECN {what} at {format_bytes(threshold.value)} "
        f"({threshold.provenance.model}) but the queue holds at most {format_bytes(limit.limit_bytes)} "
        f"({limit.how(format_bytes)}): {first.effect(limit.limit_bytes, format_bytes)}",
        ("lower the RTT (link_latency or classes[].rtt) or the class's thresholds" if first.bound == "min" else
         "lower the max threshold (DCQCN's K_max: classes[].dcqcn.kmax) to at most the queue limit")
        + ", or raise the limit: fewer design.congested_ports, a larger design.alpha, or a switch with more buffer",
    )


def _input_path(intent: Intent, spec: ClassSpec, first: UnreachableThreshold) -> tuple[str | int, ...]:
    """The intent field that sets the unreachable threshold: the block's max field (DCQCN's K_max)
    for a max threshold of a class whose block states one (DCQCN/IRN) (given, or the speed-scaled default of the class), else the RTT."""
    known = transport(spec.transport)
    if first.bound == "max" and known.block is not None and known.marking_fields is not None:
        index = intent.classes.index(spec)
        field = known.marking_fields[1]
        given = getattr(spec.parameters(), field, None) is not None
        return ("classes", index, known.block, field) if given else ("classes", index)
    return rtt_input_path(intent, spec)


__all__ = ["check_reachable", "rtt_input_path"]
