"""Run a scenario on a configured software switch: build the state, run the kernel, collect.

A run can also advance in segments of simulated time (:class:`SegmentedRun`), so its counters can
be read while it runs (``simulate --serve-gnmi``, softswitch/device/). The kernel stops after the
last event due by the segment's end (``PRM_STOP``) and resumes from the next one; every event still
sees the run's own end (``PRM_END``), so a segmented run produces exactly the numbers of the same
run in one piece (tests/softswitch/test_simulation.py compares every result field).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from qosforge.errors import QosforgeError
from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import Topology, build_fabric_world, single_switch
from qosforge.softswitch.metrics import SimulationResult, collect
from qosforge.softswitch.traffic.spec import MAX_SEED, FlowSpec, RunSpec

T = TypeVar("T")
World = tuple[np.ndarray, ...]


class SegmentedRun:
    """One run of the kernel that advances to any simulated time on request.

    The engine's random generator is numba's, which keeps one state per thread: the run is
    seeded in the thread that first advances it and must be advanced only there (an error
    otherwise), and a thread runs one unfinished run at a time (two would draw from the same
    generator and lose their reproducibility). ``wall_seconds``/``cpu_seconds`` add up the event
    loop's time over all segments."""

    def __init__(self, configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec) -> None:
        from qosforge.softswitch.engine.build import schedule_initial_events
        from qosforge.softswitch.engine.core import kernel

        if not 0 <= run.seed <= MAX_SEED:
            raise QosforgeError(f"seed {run.seed} is outside 0..{MAX_SEED}", place="seed", hint="the generator takes a 32-bit seed")
        core = kernel()
        self._run_kernel = core.run_kernel
        self._seed_kernel = core.seed_kernel
        self._seed = run.seed
        self._thread: int | None = None
        self.world = build_fabric_world(configs, topology, flows, run)
        schedule_initial_events(self.world, flows, run)
        self.duration_s = float(run.duration_s)
        self.now_s = 0.0
        """Simulated time every event due by has been processed (the segment reached)."""
        self.wall_seconds = 0.0
        self.cpu_seconds = 0.0
        # Compile (or load from cache) outside the timed region: a segment that ends before time
        # 0 processes nothing.
        self._advance(-1.0)

    def _advance(self, stop_s: float) -> None:
        self.world[L.W_PRMF][L.PRM_STOP] = stop_s
        self._run_kernel(self.world)

    @property
    def done(self) -> bool:
        return self.now_s >= self.duration_s

    def advance(self, to_s: float, *, timed: bool = True) -> None:
        """Process every event due by ``to_s`` (capped at the run's end); samples due by then
        are taken. Time never goes back: an earlier ``to_s`` does nothing. ``timed=False``: the
        caller times a batch of short segments itself (:meth:`add_loop_time`): reading the
        process CPU clock is a system call (~1-3 us), as long as a 100 us sample step's events."""
        stop = min(float(to_s), self.duration_s)
        if stop < self.now_s or (stop == self.now_s and self._thread is not None):
            return  # nothing new is due (a repeat of the last stop processes nothing)
        thread = threading.get_ident()
        if self._thread is None:
            # numba's generator state is per thread: seed the one that runs the events.
            self._seed_kernel(self._seed)
            self._thread = thread
        elif thread != self._thread:
            raise RuntimeError("a run must be advanced in the thread that started it (the engine's random generator is per thread)")
        if timed:
            start, start_cpu = time.perf_counter(), time.process_time()
            self._advance(stop)
            self.add_loop_time(time.perf_counter() - start, time.process_time() - start_cpu)
        else:
            self._advance(stop)
        self.now_s = stop

    def next_event_s(self) -> float:
        """When the next event is due (inf: none): the earliest of the next flow start, the event
        heap's top and the lanes' heads, as the kernel's ``pop_until`` (engine/heap.py) takes it.
        A segment that ends before it processes nothing."""
        w = self.world
        st = w[L.W_ST]
        times = [math.inf]
        start = int(st[L.ST_NEXT_START])
        if start < w[L.W_START_S].shape[0]:
            times.append(float(w[L.W_START_S][start]))
        if st[L.ST_HSIZE] > 0:
            times.append(float(w[L.W_HT][0]))
        for lane in range(L.LANES):
            head, length = w[L.W_LANE_N][lane]
            if length > 0:
                times.append(float(w[L.W_LANE_T][lane, head]))
        return min(times)

    def add_loop_time(self, wall_s: float, cpu_s: float) -> None:
        """Count a batch of untimed segments (``advance(timed=False)``) as event-loop time."""
        self.wall_seconds += wall_s
        self.cpu_seconds += cpu_s

    def result(self) -> SimulationResult:
        """The run's results; runs it to its end first."""
        self.advance(self.duration_s)
        return collect(self.world, self.wall_seconds, self.cpu_seconds)


def simulate(config: SwitchConfig, flows: tuple[FlowSpec, ...], run: RunSpec) -> SimulationResult:
    """Simulate ``flows`` through the switch for ``run.duration_s`` of simulated time.

    The event core is the ahead-of-time module built at install, else the numba JIT
    (engine/core.py); ``wall_seconds`` covers only the event loop.
    """
    return simulate_fabric((config,), single_switch(len(config.ports)), flows, run)


def simulate_fabric(configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec) -> SimulationResult:
    """Simulate ``flows`` between the hosts of switches ``configs`` linked as ``topology``."""
    return SegmentedRun(configs, topology, flows, run).result()


def simulate_fabric_observed(configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec,
                             interval_s: float, observe: Callable[[World, float], T]) -> tuple[SimulationResult, list[T]]:
    """As :func:`simulate_fabric`, stopping every ``interval_s`` of simulated time (and at the
    end) to call ``observe(world, time)`` on the live state; its results come back in order. A
    :class:`SegmentedRun`, so the run is the same event for event as one without stops;
    ``wall_seconds`` covers only the event loop, not the observations."""
    segmented = SegmentedRun(configs, topology, flows, run)
    observations: list[T] = []
    step = 0
    while not segmented.done:
        step += 1
        # Stops at whole multiples of the interval (no drift from summing it), the last at the end.
        stop = min(segmented.duration_s, step * interval_s) if math.isfinite(interval_s) else segmented.duration_s
        segmented.advance(stop)
        observations.append(observe(segmented.world, stop))
    return segmented.result(), observations



__all__ = ["SegmentedRun", "World", "simulate", "simulate_fabric", "simulate_fabric_observed"]
