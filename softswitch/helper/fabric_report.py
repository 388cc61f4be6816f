"""The fabric keys of ``qosforge simulate --format json``: per-switch queues, PFC and drops,
flow completion times, how far pauses spread, and what the PFC watchdog did."""

from __future__ import annotations

import numpy as np

from qosforge.softswitch.fabric_metrics import pause_depth
from qosforge.softswitch.helper.fabric import Fabric
from qosforge.softswitch.metrics import (
    REASONS_WITH_WATCHDOG,
    SimulationResult,
    histogram_percentile,
)


def _by_reason(counts: np.ndarray) -> dict[str, int]:
    """Drop counts (one per reason, REASONS_WITH_WATCHDOG order) keyed by reason name."""
    return {name: int(count) for name, count in zip(REASONS_WITH_WATCHDOG, counts, strict=True)}


def _queue_stats(result: SimulationResult, port: int, queue: int, cell_bytes: float) -> dict[str, float | None]:
    """One queue's depth: the exact maximum in bytes (the engine tracks it on every enqueue) and,
    from the sampled histogram, the deepest sample and the 99th percentile in packets. The
    histogram keeps RunSpec.queue_histogram_packets bins and counts every deeper sample in the
    last one, so a statistic that lands there is only a lower bound: it is reported as null, with
    that bound in ``packets_beyond_histogram``, never as a measured depth."""
    assert result.queue_histograms is not None
    histogram = result.queue_histograms[port, queue]
    last = histogram.size - 1
    deepest = np.flatnonzero(histogram)
    p99 = histogram_percentile(histogram, 0.99)
    saturated = bool(histogram[last] > 0)
    stats: dict[str, float | None] = {
        "max_bytes": float(result.queue_max_cells[port, queue] * cell_bytes),
        "max_packets_sampled": None if saturated else (float(deepest[-1]) if deepest.size else 0.0),
        "p99_packets": None if p99 >= last else p99,
    }
    if saturated:
        stats["packets_beyond_histogram"] = float(last)
    return stats


def switch_reports(result: SimulationResult, fabric: Fabric) -> list[dict[str, object]]:
    """Per switch: every connected port's queue statistics per class, PFC pause seconds sent
    (asking its peer to stop) and received (stopped by its peer), and drops by reason."""
    assert result.pfc_seconds is not None
    classes = fabric.switches[0].ir.classes
    reports: list[dict[str, object]] = []
    port = 0
    for switch in fabric.switches:
        cell = switch.config.asic.cell_bytes
        ports: list[dict[str, object]] = []
        drops = np.zeros(len(REASONS_WITH_WATCHDOG), dtype=np.int64)
        for config_port in switch.config.ports:
            drops += result.drops[port].sum(axis=0)
            if fabric.topology.peers[port] != -2:
                ports.append({
                    "port": config_port.name,
                    "peer": config_port.peer,
                    "queues": {c.name: _queue_stats(result, port, config_port.tc_to_queue[c.traffic_class], cell) for c in classes},
                    "pfc_pause_seconds_sent": float(result.pfc_seconds[port, :, 0].sum()),
                    "pfc_pause_seconds_received": float(result.pfc_seconds[port, :, 1].sum()),
                    "drops_by_reason": _by_reason(result.drops[port].sum(axis=0)),
                })
            port += 1
        reports.append({"name": switch.ir.name, "vendor_profile": switch.config.asic.name, "ports": ports,
                        "drops_by_reason": _by_reason(drops)})
    return reports


#: What ``goodput_gbps`` sums in a fabric run: the engine counts payload reaching any receiving host
#: (softswitch/metrics.py ``summary``), so in fabric-incast that is the one receiver, elsewhere the
#: fabric-wide sum (pause-storm: the stalled host's flows and all the background traffic).
GOODPUT_SCOPE = {
    "fabric-incast": "the receiving host (the only receiver)",
    "all-to-all": "every receiving host of the fabric (sum)",
    "pause-storm": "every receiving host of the fabric (sum): the stalled host and the background traffic",
}


def fabric_summary(result: SimulationResult, fabric: Fabric, origin: int, scenario: str) -> dict[str, object]:
    """The keys a fabric run adds to (or, for ``drops_by_reason``, widens in) the single-switch
    JSON (docs/softswitch.md)."""
    assert result.pfc_seconds is not None
    paused = [fabric.port_ref(p) for p in range(fabric.topology.n_ports) if result.pfc_seconds[p, :, 1].sum() > 0.0]
    fct = result.flow_completion.as_json()
    return {
        "switches": switch_reports(result, fabric),
        "lossless_drops": result.counters["lossless_drops"],
        # Every switch's drops, the PFC watchdog's included (their sum is ``drops``).
        "drops_by_reason": _by_reason(result.drops.sum(axis=(0, 1))),
        "goodput_scope": GOODPUT_SCOPE[scenario],
        "fct_p50_s": fct["p50_s"],
        "flow_completion": fct,
        "pause_depth": pause_depth(fabric.port_ref(origin), paused, fabric.links()),
        "paused_ports": [str(ref) for ref in paused],
        "pfc_watchdog": {"deadlocks": result.counters["pfc_deadlocks"], "drops": result.counters["watchdog_drops"]},
    }


__all__ = ["GOODPUT_SCOPE", "fabric_summary", "switch_reports"]
