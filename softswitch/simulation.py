"""Run a scenario on a configured software switch: build the state, run the kernel, collect.

A run can also advance in segments of simulated time (:class:`SegmentedRun`), so its counters can
be read while it runs (``simulate --serve-gnmi``, softswitch/device/). The kernel stops after the
last event due by the segment's end (``PRM_STOP``) and resumes from the next one; every event still
sees the run's own end (``PRM_END``), so a segmented run produces exactly the numbers of the same
run in one piece (tests/softswitch/test_simulation.py compares every result field).
"""

from __future__ import annotations

import time

from qosforge.errors import QosforgeError
from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import Topology, build_fabric_world, single_switch
from qosforge.softswitch.metrics import SimulationResult, collect
from qosforge.softswitch.traffic.spec import MAX_SEED, FlowSpec, RunSpec


class SegmentedRun:
    """One run of the kernel that advances to any simulated time on request.

    The engine's random generator is per process (numba's, seeded here), so a process runs one
    kernel at a time: a second run started while one is unfinished would draw from the same
    generator and both would lose their reproducibility. ``wall_seconds``/``cpu_seconds`` add up
    the event loop's time over all segments."""

    def __init__(self, configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec) -> None:
        from qosforge.softswitch.engine.build import schedule_initial_events
        from qosforge.softswitch.engine.core import kernel

        if not 0 <= run.seed <= MAX_SEED:
            raise QosforgeError(f"seed {run.seed} is outside 0..{MAX_SEED}", place="seed", hint="the generator takes a 32-bit seed")
        core = kernel()
        self._run_kernel = core.run_kernel
        self.world = build_fabric_world(configs, topology, flows, run)
        schedule_initial_events(self.world, flows, run)
        core.seed_kernel(run.seed)
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

    def advance(self, to_s: float) -> None:
        """Process every event due by ``to_s`` (capped at the run's end); samples due by then
        are taken. Time never goes back: an earlier ``to_s`` does nothing."""
        stop = min(float(to_s), self.duration_s)
        if stop < self.now_s:
            return
        start, start_cpu = time.perf_counter(), time.process_time()
        self._advance(stop)
        self.wall_seconds += time.perf_counter() - start
        self.cpu_seconds += time.process_time() - start_cpu
        self.now_s = stop

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


__all__ = ["SegmentedRun", "simulate", "simulate_fabric"]
