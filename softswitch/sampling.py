"""A run with a measurement window and a time series: queues and PFC pauses sampled over time,
and every flow's own counters.

The event loop stops at any time and continues where it stopped (a
:class:`~qosforge.softswitch.simulation.SegmentedRun`: ``run_kernel`` processes the events up to
``PRM_STOP`` and leaves the rest queued), so the run is stepped from one queue
sample to the next — exactly the sample times the engine takes for its own queue statistics
(``RunSpec.sample_interval_s`` from the warm-up on, softswitch/engine/kernel.py ``_sample``) —
and the state is read between steps. Stepping changes no result: the same events run in the
same order (bench/engine_fingerprint.py holds the built-in scenarios identical). The window is
the run's measured window: warm-up = its start, end = the run's end.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from qosforge.errors import QosforgeError
from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import Topology
from qosforge.softswitch.metrics import SimulationResult
from qosforge.softswitch.simulation import SegmentedRun
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

#: Samples x monitored queues a time series may hold (three float64 columns each: ~1.2 GB at
#: the limit); beyond it the run asks for a coarser --sample.
MAX_SERIES_CELLS = 50_000_000


@dataclass(frozen=True)
class QueueSeries:
    """The monitored queues (``RunSpec.monitors`` order) at each sample time of the window."""

    time_s: np.ndarray
    """[samples] sample times (the engine's own, from the window's start every sample interval)."""
    queue_bytes: np.ndarray
    """[samples, monitors] bytes queued at the sample time."""
    queue_packets: np.ndarray
    """[samples, monitors] packets queued."""
    paused_s: np.ndarray
    """[samples, monitors] seconds of the interval ending at the sample (from the previous
    sample; zero-length for the first) during which PFC from the peer paused the queue."""


@dataclass(frozen=True)
class FlowCounters:
    """Per flow, over the measured window (softswitch/engine/layout.py FL_*_M)."""

    sent_packets: np.ndarray
    retransmitted_packets: np.ndarray
    dropped_packets: np.ndarray
    arrived_packets: np.ndarray
    delivered_payload_bytes: np.ndarray
    ooo_packets: np.ndarray
    """Data packets that reached the receiver out of order (FL_OOO_PKTS)."""
    trimmed_packets: np.ndarray
    """Its data packets a switch trimmed (FL_TRIMMED_M)."""
    timeouts: np.ndarray
    """Its retransmission timeouts (FL_RTO_M)."""


@dataclass(frozen=True)
class SampledRun:
    result: SimulationResult
    series: QueueSeries
    """Empty (no samples) when the run was asked for none (``simulate_sampled(series=False)``)."""
    flows: FlowCounters
    max_queue_bytes: np.ndarray
    """[monitors] the largest sample of each monitored queue in bytes (the engine's, layout.MS_MAX_BYTES)."""


@dataclass(frozen=True)
class _PausedQueues:
    """The (transmit port, priority) pairs whose PFC pause stops each monitored queue."""

    monitor: np.ndarray
    port: np.ndarray
    priority: np.ndarray

    @classmethod
    def of(cls, monitors: tuple[tuple[int, int], ...], prio_queue: np.ndarray) -> _PausedQueues:
        rows = [(m, port, int(p)) for m, (port, queue) in enumerate(monitors) for p in np.flatnonzero(prio_queue[port] == queue)]
        columns = np.array(rows, dtype=np.int64).reshape(-1, 3)
        return cls(columns[:, 0], columns[:, 1], columns[:, 2])

    def cells(self, pfct: np.ndarray) -> np.ndarray:
        """Flat indices into ``pfct`` of each pair's running pause start, then its closed
        paused seconds (softswitch/engine/pfc_time.py): what :meth:`so_far` reads at a sample."""
        pairs = (self.port, self.priority)
        fields = (L.PT_RECEIVED_SINCE, L.PT_RECEIVED_S)
        return np.concatenate([np.ravel_multi_index((*pairs, np.full_like(self.port, field)),
                                                    pfct.shape) for field in fields])

    def so_far(self, read: np.ndarray, monitors: int, now: np.ndarray, warmup: float) -> np.ndarray:
        """[samples, monitors] seconds each monitored queue has been paused by its peer since
        the warm-up, up to each sample time ``now``, from the ``cells`` ``read`` at the samples:
        the closed pauses plus the one running, the most over the priorities that pause it."""
        out = np.zeros((len(now), monitors))
        pairs = self.monitor.size
        if pairs:
            since, closed = read[:, :pairs], read[:, pairs:]
            started = np.maximum(since, warmup)
            running = np.where(since >= 0.0, np.maximum(now[:, None] - started, 0.0), 0.0)
            paused = closed + running
            for pair, monitor in enumerate(self.monitor.tolist()):
                np.maximum(out[:, monitor], paused[:, pair], out=out[:, monitor])
        return out


def _flat(array: np.ndarray) -> np.ndarray:
    """A 1-D view of a world array (the engine allocates them C-contiguous), for ``np.take``."""
    flat = array.reshape(-1)
    if not np.shares_memory(flat, array):
        raise AssertionError("world arrays are C-contiguous: a flat view must share their memory")
    return flat


def simulate_sampled(configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec, *,
                     series: bool = True) -> SampledRun:
    """Simulate as :func:`softswitch.simulation.simulate_fabric` does, stepping from sample to
    sample over the measured window [``run.warmup_s``, ``run.duration_s``]; ``series=False``: no
    time series, the run in one go (a step costs the event core's call, ~50 µs: 0.5 CPU s for
    the 10,000 samples of a 1 s window at 100 µs; the engine's own sample statistics are the same)."""
    step = run.sample_interval_s
    samples = math.floor((run.duration_s - run.warmup_s) / step * (1 + 1e-12)) + 1
    if samples * max(len(run.monitors), 1) > MAX_SERIES_CELLS:
        raise QosforgeError(f"{samples:,} samples of {len(run.monitors)} queues is more than a time series holds ({MAX_SERIES_CELLS:,})",
                            place="--sample", hint="sample less often or measure a shorter window")
    segmented = SegmentedRun(configs, topology, flows, run)
    world = segmented.world
    if not series:
        none = np.zeros((0, len(run.monitors)))
        return SampledRun(segmented.result(), QueueSeries(np.zeros(0), none, none, none), _flow_counters(world), world[L.W_MONS][:, L.MS_MAX_BYTES].copy())
    stf, qi, pfct, prio_queue = world[L.W_STF], world[L.W_QI], world[L.W_PFCT], world[L.W_PFCPRIO]
    end, warmup = run.duration_s, run.warmup_s
    ports = np.array([port for port, _ in run.monitors], dtype=np.int64)
    queues = np.array([queue for _, queue in run.monitors], dtype=np.int64)
    paused_queues = _PausedQueues.of(run.monitors, prio_queue)
    # Each sample is two gathers of flat cells (bytes then packets of every monitored queue; the
    # PFC times _PausedQueues reads); the series are derived from them after the run.
    fields = (L.QI_BYTES, L.QI_PKTS)
    queue_cells = np.concatenate([np.ravel_multi_index((ports, queues, np.full_like(ports, field)),
                                                       qi.shape) for field in fields])
    pause_cells = paused_queues.cells(pfct)
    qi_flat, pfct_flat = _flat(qi), _flat(pfct)
    times: list[float] = []
    # The engine adds the interval to its next sample time: rounding may give one sample more.
    rows = samples + 1
    queue_read = np.zeros((rows, queue_cells.size), dtype=qi.dtype)
    pause_read = np.zeros((rows, pause_cells.size), dtype=pfct.dtype)
    # Up to just before the window: the engine takes no sample there (kernel _sample).
    segmented.advance(math.nextafter(warmup, -math.inf))
    start, start_cpu = time.perf_counter(), time.process_time()
    while stf[L.STF_NEXT_SAMPLE] <= end and len(times) < rows:
        at = float(stf[L.STF_NEXT_SAMPLE])
        segmented.advance(at, timed=False)
        row = len(times)
        times.append(at)
        np.take(qi_flat, queue_cells, out=queue_read[row])
        np.take(pfct_flat, pause_cells, out=pause_read[row])
    segmented.add_loop_time(time.perf_counter() - start, time.process_time() - start_cpu)
    result = segmented.result()
    n, monitors = len(times), len(ports)
    # The engine's sample times are sums of the interval (0.03 is 0.02999999999999988 after 300
    # additions of 100 us); to the picosecond they are the interval's multiples again.
    time_s = np.round(np.array(times), 12)
    so_far = paused_queues.so_far(pause_read[:n], monitors, time_s, warmup)
    queue_values = queue_read[:n].astype(np.float64)
    paused = np.diff(so_far, axis=0, prepend=np.zeros((1, monitors)))
    queue_bytes = np.ascontiguousarray(queue_values[:, :monitors])
    queue_packets = np.ascontiguousarray(queue_values[:, monitors:])
    sampled = QueueSeries(time_s, queue_bytes, queue_packets, paused)
    return SampledRun(result, sampled, _flow_counters(world), world[L.W_MONS][:, L.MS_MAX_BYTES].copy())


def _flow_counters(world: tuple[np.ndarray, ...]) -> FlowCounters:
    fli = world[L.W_FLI]
    return FlowCounters(fli[:, L.FL_SENT_M].copy(), fli[:, L.FL_RESENT_M].copy(), fli[:, L.FL_DROPPED_M].copy(),
                        fli[:, L.FL_ARRIVED_M].copy(), fli[:, L.FL_PAYLOAD_M].copy(), fli[:, L.FL_OOO_PKTS].copy(),
                        fli[:, L.FL_TRIMMED_M].copy(), fli[:, L.FL_RTO_M].copy())


__all__ = ["FlowCounters", "QueueSeries", "SampledRun", "simulate_sampled"]
