"""The fabric keys of ``qosforge simulate --format json``: per-switch queues, PFC and drops,
flow completion times, how far pauses spread, and what the PFC watchdog did."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qosforge.softswitch.config import PortConfig, SwitchConfig
from qosforge.softswitch.fabric_metrics import pause_depth
from qosforge.softswitch.helper.class_report import all_port_classes, port_classes
from qosforge.softswitch.helper.fabric import Fabric
from qosforge.softswitch.metrics import (
    REASONS_WITH_WATCHDOG,
    ClassQueue,
    SimulationResult,
    class_drops,
    histogram_percentile,
    lossless_causes,
    reordering_totals,
)


def _by_reason(counts: np.ndarray) -> dict[str, int]:
    """Drop counts (one per reason, REASONS_WITH_WATCHDOG order) keyed by reason name."""
    return {name: int(count) for name, count in zip(REASONS_WITH_WATCHDOG, counts, strict=True)}


def _queue_stats(result: SimulationResult, port: int, queue: int, cell_bytes: float) -> dict[str, float | None]:
    """One queue's depth over the measured window (after the warm-up, like the run's top-level
    statistics): the exact maximum in bytes (the engine tracks it on every enqueue) and, from the
    sampled histogram, the deepest sample and the 99th percentile in packets, each the lower edge
    of its histogram bin (``histogram_bin_packets`` wide). The bins reach a whole switch buffer of
    the run's smallest frames (engine/build.py queue_histogram_width), so the last bin is only
    reached by a queue holding the entire buffer; a statistic landing there is reported as null
    with that bound in ``packets_beyond_histogram``, never as a measured depth."""
    assert result.queue_histograms is not None
    histogram = result.queue_histograms[port, queue]
    width = result.queue_histogram_width
    last = histogram.size - 1
    deepest = np.flatnonzero(histogram)
    p99 = histogram_percentile(histogram, 0.99)
    saturated = bool(histogram[last] > 0)
    stats: dict[str, float | None] = {
        "max_bytes": float(result.queue_max_cells[port, queue] * cell_bytes),
        "max_packets_sampled": None if saturated else (float(deepest[-1] * width) if deepest.size else 0.0),
        "p99_packets": None if p99 >= last else p99 * width,
        "histogram_bin_packets": float(width),
    }
    if saturated:
        stats["packets_beyond_histogram"] = float(last * width)
    return stats


@dataclass(frozen=True)
class HeadroomUse:
    """One lossless PG's PFC headroom in the measured window: the most it held at once against
    the XOFF_TH its program configures (engine accounting in whole cells, engine/mmu.py)."""

    switch: str
    port: str
    pg: int
    peak_bytes: float
    xoff_bytes: float

    @property
    def margin_bytes(self) -> float:
        return self.xoff_bytes - self.peak_bytes

    def as_json(self) -> dict[str, object]:
        return {"switch": self.switch, "port": self.port, "pg": self.pg, "headroom_peak_bytes": self.peak_bytes,
                "xoff_bytes": self.xoff_bytes, "margin_bytes": self.margin_bytes}

    def text(self) -> str:
        return (f"headroom used {self.peak_bytes / 1e3:.1f} of {self.xoff_bytes / 1e3:.1f} kB at {self.switch}:{self.port} "
                f"PG {self.pg} (margin {self.margin_bytes / 1e3:.1f} kB)")


def _lossless_pgs(config: SwitchConfig, port: PortConfig) -> list[tuple[int, int]]:
    """(PG index, XOFF in cells) of the port's lossless PGs: an XOFF_TH and a PFC-enabled priority
    mapped to the PG, the engine's rule (engine/build.py, SAI inc/saibuffer.h XOFF_TH)."""
    found = []
    for pg in port.pgs:
        if pg.buffer_profile is None:
            continue
        profile = config.profile(pg.buffer_profile)
        if profile.xoff_bytes > 0 and port.pfc_mask_of_pg(pg.index):
            found.append((pg.index, config.asic.cells(profile.xoff_bytes)))
    return found


def headroom_uses(result: SimulationResult, fabric: Fabric) -> list[HeadroomUse]:
    """Every lossless PG of every connected switch port, in port order."""
    uses = []
    port = 0
    for switch in fabric.switches:
        cell = switch.config.asic.cell_bytes
        for config_port in switch.config.ports:
            if fabric.topology.peers[port] != -2:
                for pg, xoff_cells in _lossless_pgs(switch.config, config_port):
                    uses.append(HeadroomUse(switch.ir.name, config_port.name, pg, float(result.pg_max_cells[port, pg, 1] * cell), float(xoff_cells * cell)))
            port += 1
    return uses


def switch_reports(result: SimulationResult, fabric: Fabric, uses: list[HeadroomUse] | None = None) -> list[dict[str, object]]:
    """Per switch: its buffer and the most it held at once, and every connected port's queue
    statistics per class, lossless PGs' headroom use (``uses``, default :func:`headroom_uses`),
    PFC pause seconds sent (asking its peer to stop) and received (stopped by its peer), and
    drops by reason."""
    assert result.pfc_seconds is not None
    classes = fabric.switches[0].ir.classes
    reports: list[dict[str, object]] = []
    headroom: dict[tuple[str, str], list[dict[str, object]]] = {}
    for use in headroom_uses(result, fabric) if uses is None else uses:
        headroom.setdefault((use.switch, use.port), []).append(use.as_json())
    port = 0
    for index, switch in enumerate(fabric.switches):
        cell = switch.config.asic.cell_bytes
        ports: list[dict[str, object]] = []
        drops = np.zeros(len(REASONS_WITH_WATCHDOG), dtype=np.int64)
        switch_classes: list[tuple[int, tuple[ClassQueue, ...]]] = []
        for config_port in switch.config.ports:
            drops += result.drops[port].sum(axis=0)
            on_port = port_classes(switch.ir, config_port)
            switch_classes.append((port, on_port))
            if fabric.topology.peers[port] != -2:
                port_uses = headroom.get((switch.ir.name, config_port.name))
                ports.append({
                    "port": config_port.name,
                    "peer": config_port.peer,
                    "queues": {c.name: _queue_stats(result, port, config_port.tc_to_queue[c.traffic_class], cell) for c in classes},
                    **({"lossless_headroom": port_uses} if port_uses else {}),
                    "pfc_pause_seconds_sent": float(result.pfc_seconds[port, :, 0].sum()),
                    "pfc_pause_seconds_received": float(result.pfc_seconds[port, :, 1].sum()),
                    "drops_by_reason": _by_reason(result.drops[port].sum(axis=0)),
                    "drops_by_class": class_drops(result.drops, [(port, on_port)],
                                                  REASONS_WITH_WATCHDOG),
                })
            port += 1
        peak = None if result.switch_peak_cells is None else float(result.switch_peak_cells[index] * cell)
        reports.append({"name": switch.ir.name, "vendor_profile": switch.config.asic.name,
                        "buffer_bytes": float(switch.config.asic.capacity_cells * cell),
                        "buffer_peak_bytes": peak, "ports": ports,
                        "drops_by_reason": _by_reason(drops),
                        "drops_by_class": class_drops(result.drops, switch_classes,
                                                      REASONS_WITH_WATCHDOG)})
    return reports


def headroom_summary(uses: list[HeadroomUse]) -> dict[str, object]:
    """The lossless PG closest to overflowing its headroom (the smallest margin), in the JSON
    and the summary table, so a user sees how close the run came, not only a drop count."""
    if not uses:
        return {}
    worst = min(uses, key=lambda use: (use.margin_bytes, -use.peak_bytes))
    return {"headroom_used": worst.text(),
            "lossless_headroom": {"pgs": len(uses), "pgs_that_used_headroom": sum(1 for use in uses if use.peak_bytes > 0), "tightest": worst.as_json()}}


#: What ``goodput_gbps`` sums in a fabric run: the engine counts payload reaching any receiving host
#: (softswitch/metrics.py ``summary``), so in fabric-incast that is the one receiver, elsewhere the
#: fabric-wide sum (pause-storm: the stalled host's flows and all the background traffic).
GOODPUT_SCOPE = {
    "fabric-incast": "the receiving host (the only receiver)",
    "all-to-all": "every receiving host of the fabric (sum)",
    "pause-storm": "every receiving host of the fabric (sum): the stalled host and the background traffic",
    "deadlock": "every receiving host of the fabric (sum)",
}


def fabric_summary(result: SimulationResult, fabric: Fabric, origin: int, scenario: str) -> dict[str, object]:
    """The keys a fabric run adds to (or, for ``drops_by_reason``, widens in) the single-switch
    JSON (docs/softswitch-reports.md)."""
    assert result.pfc_seconds is not None
    paused = [fabric.port_ref(p) for p in range(fabric.topology.n_ports) if result.pfc_seconds[p, :, 1].sum() > 0.0]
    fct = result.flow_completion.as_json()
    uses = headroom_uses(result, fabric)
    return {
        "switches": switch_reports(result, fabric, uses),
        "lossless_drops": result.counters["lossless_drops"],
        "lossless_drops_by_reason": lossless_causes(result),
        **headroom_summary(uses),
        # Every switch's drops, the PFC watchdog's included (their sum is ``drops``).
        "drops_by_reason": _by_reason(result.drops.sum(axis=(0, 1))),
        "drops_by_class": class_drops(result.drops, all_port_classes(fabric),
                                      REASONS_WITH_WATCHDOG),
        "goodput_scope": GOODPUT_SCOPE[scenario],
        "fct_p50_s": fct["p50_s"],
        "flow_completion": fct,
        # Out-of-order deliveries and retransmissions (a balancing mode that moves a flow between
        # paths of different delay reorders it; docs/load-balancing.md).
        "reordering": reordering_totals(result),
        "pause_depth": pause_depth(fabric.port_ref(origin), paused, fabric.links()),
        "paused_ports": [str(ref) for ref in paused],
        "pfc_watchdog": {"deadlocks": result.counters["pfc_deadlocks"], "drops": result.counters["watchdog_drops"]},
    }


__all__ = ["GOODPUT_SCOPE", "HeadroomUse", "fabric_summary", "headroom_summary", "headroom_uses", "switch_reports"]
