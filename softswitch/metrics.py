"""Results of a run, read from the kernel's fixed-size statistics (docs/architecture.md §6 metrics).

Everything here is streaming: per-queue counters, a histogram and moments of each monitored
queue's depth, and a fixed-size trace; nothing grows with the simulated duration.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.fabric_metrics import FlowCompletionStats, flow_completion_stats
from qosforge.softswitch.queue_histograms import QueueHistograms


@dataclass(frozen=True)
class QueueDepth:
    """Depth statistics of one monitored queue, sampled every ``sample_interval_s``."""

    port: int
    queue: int
    samples: int
    mean_packets: float
    p50_packets: float
    p99_packets: float
    max_packets: float
    mean_bytes: float
    trace_time_s: np.ndarray
    trace_packets: np.ndarray
    bands: np.ndarray
    """[color, ect, band, (arrivals, marks, drops)] of WRED decisions by queue-depth band."""


@dataclass(frozen=True)
class SimulationResult:
    duration_s: float
    warmup_s: float
    wall_seconds: float
    cpu_seconds: float
    """CPU time of the event loop (on a shared machine, the rate per CPU second is the fair one)."""
    events: int
    packet_events: int
    counters: dict[str, int]
    drops: np.ndarray
    """[port, queue, reason] (reasons: egress, wred, ingress, lossless, buffer)."""
    marks: np.ndarray
    """[port, queue, color]."""
    drops_by_color: np.ndarray
    enqueued: np.ndarray
    dequeued_bytes: np.ndarray
    queue_max_cells: np.ndarray
    pg_max_cells: np.ndarray
    """[port, pg, (shared+reserved, headroom)] peak occupancy in cells."""
    monitors: tuple[QueueDepth, ...]
    flow_finish_s: np.ndarray
    flow_start_s: np.ndarray
    flow_window: np.ndarray
    cell_bytes: float
    pfc_seconds: np.ndarray | None = None
    """[transmit port, priority, (sent, received)]: seconds a switch port asked its peer to pause
    (sent, from its ingress) and was paused by its peer (received, at its egress), after the
    warm-up; pauses still running at the end count up to the end."""
    queue_histograms: QueueHistograms | None = None
    """[switch port, queue, depth bin] sample counts (fabric runs; None otherwise); bin i holds
    depths i*width .. (i+1)*width - 1 packets (``queue_histogram_width``)."""
    queue_histogram_width: int = 1
    """Packets per bin of ``queue_histograms`` (engine/build.py queue_histogram_width)."""
    switch_peak_cells: np.ndarray | None = None
    """[switch] most cells each switch held at once in the measured window."""
    lossless_drops_by_reason: dict[str, int] = field(default_factory=dict)
    """Packets of lossless classes (their ingress PG is lossless) dropped, by cause
    (REASONS_WITH_WATCHDOG names); their sum is ``counters["lossless_drops"]``."""
    flow_reordering: np.ndarray | None = None
    """[flow, REORDERING_COLUMNS] per flow over the measured window: first transmissions received
    out of order (RFC 4737 §3.3), retransmissions sent, and segments arriving at a receiver that
    already held them, each one spurious transmission (RFC 2883 §4's duplicates) (engine/hosts.py
    _count_reordering)."""

    @property
    def measured_s(self) -> float:
        return self.duration_s - self.warmup_s

    @property
    def goodput_bps(self) -> float:
        """Application payload reaching receivers after the warm-up (each packet once, headers
        removed: traffic.spec.HEADER_BYTES), in bits/s: what ns-3's PacketSink and iperf report."""
        return self.counters["delivered_payload_bytes"] * 8.0 / self.measured_s

    @property
    def ip_bps(self) -> float:
        """The same packets counted whole as IP datagrams (headers in, Ethernet framing out),
        in bits/s."""
        return self.counters["delivered_bytes"] * 8.0 / self.measured_s

    @property
    def wire_bps(self) -> float:
        """The line time the same packets took (L1: Ethernet frames with preamble/SFD and the
        inter-frame gap, models/ethernet.py), in bits/s: a link carrying them back to back is at
        its line rate."""
        return self.counters["delivered_wire_bytes"] * 8.0 / self.measured_s

    @cached_property
    def flow_completion(self) -> FlowCompletionStats:
        """Flow completion times (nearest-rank percentiles), computed once for every report."""
        return flow_completion_stats(self.flow_start_s, self.flow_finish_s)

    @property
    def packet_events_per_second(self) -> float:
        return self.packet_events / self.wall_seconds if self.wall_seconds > 0 else float("inf")


#: Drop causes in engine order (layout.DR_*): the egress queue's shared-buffer limit (tail drop
#: against the dynamic/static threshold), WRED, the ingress PG's limit, a lossless PG's headroom
#: overflow, the chip's whole buffer full.
_REASONS = ("egress_threshold", "wred", "ingress_limit", "lossless_headroom", "buffer_full")
#: Fabric runs also report drops by the PFC watchdog's recovery (single-switch JSON keeps the
#: five above).
REASONS_WITH_WATCHDOG = (*_REASONS, "pfc_watchdog")


_COUNTER_NAMES = {
    "events": L.C_EVENTS,
    "enqueued": L.C_ENQ,
    "dequeued": L.C_DEQ,
    "drops": L.C_DROP,
    "packet_events": L.C_PKT_EVENTS,
    "pool_exhausted": L.C_POOL_EXHAUSTED,
    "host_drops": L.C_HOST_DROPS,
    "important_drops": L.C_IMPORTANT_DROPS,
    "important_sent": L.C_IMPORTANT_SENT,
    "pfc_xoff_sent": L.C_PFC_XOFF,
    "pfc_xon_sent": L.C_PFC_XON,
    "lossless_drops": L.C_LOSSLESS_DROPS,
    "timeouts": L.C_TIMEOUTS,
    "fast_retransmits": L.C_FAST_RETX,
    "cnps": L.C_CNP,
    "delivered_bytes": L.C_DELIVERED_BYTES,
    "delivered_payload_bytes": L.C_DELIVERED_PAYLOAD,
    "delivered_wire_bytes": L.C_DELIVERED_WIRE,
    "marks": L.C_MARKS,
    "packets_forwarded": L.C_FORWARDED,
    "ecn_echo_acks": L.C_ECN_ACKS,
    "acks": L.C_ACKS,
    "max_packets_alive": L.C_MAX_PKTS_ALIVE,
    "pfc_deadlocks": L.C_DEADLOCKS,
    "watchdog_drops": L.C_WATCHDOG_DROPS,
}


def histogram_percentile(histogram: np.ndarray, fraction: float) -> float:
    """The smallest depth d with P(depth <= d) >= fraction (nearest-rank percentile)."""
    total = int(histogram.sum())
    if total == 0:
        return 0.0
    cumulative = np.cumsum(histogram)
    return float(np.searchsorted(cumulative, fraction * total - 1e-9, side="left"))


def pause_seconds(times: np.ndarray, end_s: float, warmup_s: float) -> np.ndarray:
    """Sent and received pause seconds per transmit port and priority, closing open pauses at the end."""
    seconds = np.stack([times[:, :, L.PT_SENT_S], times[:, :, L.PT_RECEIVED_S]], axis=-1)
    for column, since in ((0, L.PT_SENT_SINCE), (1, L.PT_RECEIVED_SINCE)):
        start = times[:, :, since]
        running = start >= 0.0
        seconds[:, :, column] += np.where(running, np.maximum(end_s - np.maximum(start, warmup_s), 0.0), 0.0)
    return seconds


def _queue_histograms(world: tuple[np.ndarray, ...]) -> QueueHistograms | None:
    """The every-queue histograms: only the rows the kernel gave out are copied."""
    row_of = world[L.W_QHIST_ROW]
    if not row_of.shape[0]:
        return None
    st = world[L.W_ST]
    return QueueHistograms(rows=world[L.W_QHIST][:st[L.ST_QHIST_ROWS]].copy(), row_of=row_of.copy(),
                           samples=int(st[L.ST_QHIST_SAMPLES]))


def collect(world: tuple[np.ndarray, ...], wall_seconds: float, cpu_seconds: float = 0.0) -> SimulationResult:
    prmf, cnt, mons = world[L.W_PRMF], world[L.W_CNT], world[L.W_MONS]
    st = world[L.W_ST]
    monitors = []
    n_trace = int(st[L.ST_RING_N])
    for m, (port, queue) in enumerate(world[L.W_MON]):
        samples = int(mons[m, L.MS_SAMPLES])
        histogram = world[L.W_HIST][m]
        monitors.append(QueueDepth(
            port=int(port),
            queue=int(queue),
            samples=samples,
            mean_packets=float(mons[m, L.MS_SUM_PKTS] / samples) if samples else 0.0,
            p50_packets=histogram_percentile(histogram, 0.50),
            p99_packets=histogram_percentile(histogram, 0.99),
            max_packets=float(mons[m, L.MS_MAX_PKTS]),
            mean_bytes=float(mons[m, L.MS_SUM_BYTES] / samples) if samples else 0.0,
            trace_time_s=world[L.W_RINGT][:n_trace].copy(),
            trace_packets=world[L.W_RING][m, :n_trace].copy(),
            bands=world[L.W_BAND][m].copy(),
        ))
    counters = {name: int(cnt[index]) for name, index in _COUNTER_NAMES.items()}
    return SimulationResult(
        duration_s=float(prmf[L.PRM_END]),
        warmup_s=float(prmf[L.PRM_WARMUP]),
        wall_seconds=wall_seconds,
        cpu_seconds=cpu_seconds,
        events=counters["events"],
        packet_events=counters["packet_events"],
        counters=counters,
        drops=world[L.W_DROP].copy(),
        marks=world[L.W_MARK].copy(),
        drops_by_color=world[L.W_DROPC].copy(),
        enqueued=world[L.W_ENQ].copy(),
        dequeued_bytes=world[L.W_DEQB].copy(),
        queue_max_cells=world[L.W_QMAX].copy(),
        pg_max_cells=world[L.W_PGMAX].copy(),
        monitors=tuple(monitors),
        flow_finish_s=world[L.W_FLF][:, L.FF_FINISH].copy(),
        flow_start_s=world[L.W_FLF][:, L.FF_START].copy(),
        flow_window=world[L.W_FLF][:, L.FF_CWND].copy(),
        cell_bytes=float(prmf[L.PRM_CELL]),
        pfc_seconds=pause_seconds(world[L.W_PFCT], float(prmf[L.PRM_END]), float(prmf[L.PRM_WARMUP])),
        queue_histograms=_queue_histograms(world),
        queue_histogram_width=int(world[L.W_PRMI][L.PRI_QHIST_WIDTH]) or 1,
        switch_peak_cells=world[L.W_SWI][:, L.SW_PEAK].copy(),
        lossless_drops_by_reason={name: int(cnt[L.C_LOSSLESS_BY_REASON + reason])
                                  for reason, name in enumerate(REASONS_WITH_WATCHDOG)},
        flow_reordering=world[L.W_FLI][:, [L.FL_OOO_PKTS, L.FL_RESENT_M, L.FL_DUP_RTX_M]].copy(),
    )


#: Columns of ``SimulationResult.flow_reordering``.
REORDERING_COLUMNS = ("ooo_packets", "retransmissions", "spurious_retransmissions")


def reordering_totals(result: SimulationResult) -> dict[str, int]:
    """Every flow's reordering counts summed, and how many flows saw out-of-order packets."""
    per_flow = result.flow_reordering
    if per_flow is None:
        return {}
    totals = {name: int(per_flow[:, i].sum()) for i, name in enumerate(REORDERING_COLUMNS)}
    return {**totals, "flows_with_ooo": int(np.count_nonzero(per_flow[:, 0]))}


__all__ = ["REORDERING_COLUMNS", "QueueDepth", "SimulationResult", "collect",
           "histogram_percentile", "pause_seconds", "reordering_totals"]



#: What each throughput of a report counts (the ``throughput_basis`` field of every JSON report).
THROUGHPUT_BASIS = {
    "goodput_gbps": "application payload delivered "
                    "(each packet once; IP, TCP/UDP/BTH headers removed)",
    "ip_gbps": "the same packets as IP datagrams (headers counted, Ethernet framing not)",
    "wire_gbps": "L1 line time of the same packets: Ethernet frame (MAC header, FCS, "
                 "802.1Q tag if tagged, padding to 64 B) + preamble/SFD 8 B + inter-frame gap 12 B "
                 "(IEEE 802.3 clauses 3, 4.4.2)",
}


@dataclass(frozen=True)
class ClassQueue:
    """A traffic class as one port carries it: its name, whether it is lossless, and the egress
    queue its TC maps to on that port (the port's TC_TO_QUEUE map)."""

    name: str
    lossless: bool
    queue: int


def lossless_causes(result: SimulationResult) -> dict[str, int]:
    """The causes a lossless class's packets were dropped for, only those that occurred."""
    return {name: n for name, n in result.lossless_drops_by_reason.items() if n}


def class_drops(drops: np.ndarray, ports: Iterable[tuple[int, Sequence[ClassQueue]]],
                reasons: Sequence[str] = _REASONS) -> dict[str, dict[str, object]]:
    """Drops per class over the given switch ports: ``drops`` is the run's [port, queue, reason]
    array, ``ports`` each port index with its classes. Every class is listed (0 drops too), with
    ``lossless``, its total and each non-zero cause; classes sharing a queue are reported
    together under their joined names (a queue's drops cannot be told apart by class). Packets on
    a queue no class maps to are listed as ``queue N``."""
    totals: dict[str, np.ndarray] = {}
    lossless: dict[str, bool] = {}
    for port, classes in ports:
        by_queue: dict[int, list[ClassQueue]] = {}
        for cls in classes:
            by_queue.setdefault(cls.queue, []).append(cls)
        for queue in range(drops.shape[1]):
            members = by_queue.get(queue)
            counts = drops[port, queue, :len(reasons)]
            if members is None:
                if not counts.any():
                    continue
                name, is_lossless = f"queue {queue}", False
            else:
                name = "+".join(c.name for c in members)
                is_lossless = any(c.lossless for c in members)
            totals[name] = totals.get(name, np.zeros(len(reasons), dtype=np.int64)) + counts
            lossless[name] = lossless.get(name, False) or is_lossless
    return {name: {"lossless": lossless[name], "drops": int(counts.sum()),
                   **{reason: int(n) for reason, n in zip(reasons, counts, strict=True) if n}}
            for name, counts in totals.items()}


def summary(result: SimulationResult, monitor: int = 0) -> dict[str, object]:
    """The stable ``qosforge simulate --format json`` fields for the monitored queue ``monitor``.

    ``mark_fraction`` = CE-marked / enqueued packets of that queue after the warm-up; ``drops``
    counts every packet the switch dropped after the warm-up; ``goodput_gbps`` is the application
    payload of data packets arriving at receivers for the first time (no duplicates, headers
    removed) per second measured, ``ip_gbps`` the same packets as IP datagrams and ``wire_gbps``
    the line time they took on the receiver's link (``THROUGHPUT_BASIS``). ``fct_p99_s`` is
    the nearest-rank 99th percentile of the finished flows' completion times (an FCT some flow had).
    """
    depth = result.monitors[monitor]
    port, queue = depth.port, depth.queue
    enqueued = int(result.enqueued[port, queue])
    marked = int(result.marks[port, queue].sum())
    dropped_here = int(result.drops[port, queue].sum())
    arrivals = enqueued + dropped_here
    # One FCT definition (nearest-rank percentiles) for this and the fabric's flow_completion.
    fct = result.flow_completion.as_json()
    out: dict[str, object] = {
        "queue_mean_packets": depth.mean_packets,
        "queue_p50_packets": depth.p50_packets,
        "queue_p99_packets": depth.p99_packets,
        "queue_max_packets": depth.max_packets,
        "queue_samples": depth.samples,
        "goodput_gbps": result.goodput_bps / 1e9,
        "ip_gbps": result.ip_bps / 1e9,
        "wire_gbps": result.wire_bps / 1e9,
        "throughput_basis": THROUGHPUT_BASIS,
        "mark_fraction": marked / enqueued if enqueued else 0.0,
        "drop_fraction": dropped_here / arrivals if arrivals else 0.0,
        "drops": result.counters["drops"],
        "drops_by_reason": {name: int(result.drops[:, :, i].sum()) for i, name in enumerate(_REASONS)},
        "packets_forwarded": result.counters["packets_forwarded"],
        "timeouts": result.counters["timeouts"],
        "fast_retransmits": result.counters["fast_retransmits"],
        "important_drops": result.counters["important_drops"],
        "lossless_drops": result.counters["lossless_drops"],
        # Lossless-class losses by cause (any cause: headroom overflow, WRED on a lossless class's
        # non-ECT packets, a full chip, the PFC watchdog), only the causes that occurred.
        "lossless_drops_by_reason": lossless_causes(result),
        "pfc_xoff_sent": result.counters["pfc_xoff_sent"],
        "cnps_sent": result.counters["cnps"],
        "host_drops": result.counters["host_drops"],
        "flows_finished": fct["count"],
        "fct_mean_s": fct["mean_s"],
        "fct_p99_s": fct["p99_s"],
        "packet_events": result.packet_events,
        "packet_events_per_second": result.packet_events_per_second,
        "wall_seconds": result.wall_seconds,
        "loop_cpu_seconds": result.cpu_seconds,
    }
    return out


__all__ += ["REASONS_WITH_WATCHDOG", "THROUGHPUT_BASIS", "ClassQueue", "class_drops",
            "lossless_causes", "summary"]
