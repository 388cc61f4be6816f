"""A simulation that runs in the background in segments of simulated time, so its counters can
be read while it runs (the software switch as a device, docs/telemetry.md).

Time: simulated time never runs ahead of the wall clock. The run starts at wall time ``T0``; a
snapshot taken when the run has reached simulated time ``t`` is stamped ``T0 + t`` (gNMI
notification timestamps, ns since the Unix epoch), which is never later than the wall time it is
sent at. Where the simulation is slower than real time (the usual case: a 64-port switch at line
rate simulates ~1 ms per wall second), simulated time falls behind and the stamps tell exactly
how far the run has got. When the run reaches its duration the switch goes idle: its counters
stay as they ended (traffic stopped) until the process ends or a Set restarts the run.

Segments: each is sized to take about ``segment_wall_s`` of wall time (the kernel holds the GIL
for a segment, so the gRPC handlers answer within about that long), from the rate the last
segment ran at. Segmenting changes no result (softswitch/simulation.py). A run that keeps up with
the wall clock waits until it is a segment behind before the next, so it publishes one snapshot
per segment rather than one per pass of its loop; a span with no event due (flows that start
later, a lull) is jumped once the wall clock is ``segment_wall_s`` ahead, and leaves the segment
as the last busy one sized it.

Reconfiguration (a gNMI Set): the run restarts from simulated time 0 with the new configuration,
the same traffic and the same seed, and the counters restart from zero, as a SONiC switch's
``config reload`` restarts its ASIC and clears its counters; ``T0`` becomes the restart's wall time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.device.counters import SwitchCounters, switch_counters
from qosforge.softswitch.engine.build import Topology
from qosforge.softswitch.metrics import SimulationResult
from qosforge.softswitch.simulation import SegmentedRun
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

#: Simulated time of the first segment (then sized from the measured rate).
FIRST_SEGMENT_S = 10e-6


@dataclass(frozen=True)
class Scenario:
    """Everything a run needs: the switches, how they are linked, the traffic and the run."""

    configs: tuple[SwitchConfig, ...]
    topology: Topology
    flows: tuple[FlowSpec, ...]
    run: RunSpec


@dataclass(frozen=True)
class Progress:
    generation: int
    """Counts published snapshots (a new one after every segment and every restart)."""
    epoch: int
    """Counts runs: 0 for the first, +1 for each restart after a Set."""
    start_wall_s: float
    time_s: float
    done: bool


class LiveSimulation:
    """Runs a scenario in a background thread and publishes every switch's counters after each
    segment. Thread-safe: gRPC handlers call :meth:`snapshot`, :meth:`wait_for` and
    :meth:`reconfigure` from their own threads."""

    def __init__(self, scenario: Scenario, *, segment_wall_s: float = 0.05, clock: Callable[[], float] = time.time, pace: bool = True) -> None:
        self._scenario = scenario
        self._segment_wall_s = segment_wall_s
        self._clock = clock
        self._pace = pace
        self._condition = threading.Condition()
        self._stopping = False
        self._pending: Scenario | None = None
        self._generation = 0
        self._epoch = 0
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None
        """What stopped the run thread, if anything did (reported by the server)."""
        self._start(scenario, epoch=0)

    # --- the run --------------------------------------------------------------------------
    def _start(self, scenario: Scenario, epoch: int) -> None:
        run = SegmentedRun(scenario.configs, scenario.topology, scenario.flows, scenario.run)
        offsets = [0]
        for config in scenario.configs:
            offsets.append(offsets[-1] + len(config.ports))
        with self._condition:
            self._scenario = scenario
            self._run = run
            self._offsets = tuple(offsets[:-1])
            self._epoch = epoch
            self._start_wall_s = self._clock()
            self._segment_s = FIRST_SEGMENT_S
            self._publish()

    def _publish(self) -> None:
        """Snapshot every switch (called with the condition held)."""
        run = self._run
        self._snapshots = {config.name: switch_counters(run.world, config, offset, run.now_s)
                           for config, offset in zip(self._scenario.configs, self._offsets, strict=True)}
        self._generation += 1
        self._condition.notify_all()

    def start(self) -> None:
        with self._condition:
            # Simulated time 0 is when the run begins, not when it was built (serving sets up
            # its targets in between).
            self._start_wall_s = self._clock()
        self._thread = threading.Thread(target=self._loop, name="qosforge-live-simulation", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        try:
            while self._step():
                pass
        except BaseException as error:  # reported to clients; the thread must not die silently
            with self._condition:
                self.error = error
                self._condition.notify_all()

    def _step(self) -> bool:
        with self._condition:
            if self._stopping:
                return False
            pending, self._pending = self._pending, None
        if pending is not None:
            self._start(pending, self._epoch + 1)
            return True
        run = self._run
        if run.done:
            self._idle(0.5)
            return True
        if self._pace:
            behind_s = (self._clock() - self._start_wall_s) - run.now_s
            next_event_s = run.next_event_s()
            if next_event_s > run.now_s + behind_s:
                # Nothing is due before the wall clock (flows that start later, a lull): wait until
                # the wall clock is a segment of wall time ahead, then jump to it. An idle span
                # costs nothing and tells nothing about the run's rate, so the segment is left as
                # the last busy one sized it: the first busy segment after a lull is no longer.
                # (Advancing to "now" on every pass published a snapshot per pass, spinning a
                # core and holding the GIL from the gRPC handlers.)
                if behind_s < self._segment_wall_s:
                    self._idle(min(self._segment_wall_s - behind_s, 0.1))
                    return True
                run.advance(run.now_s + behind_s)
                with self._condition:
                    self._publish()
                return True
            # A run that keeps up with the wall clock waits until it is a segment behind.
            if behind_s < min(self._segment_s, self._segment_wall_s):
                self._idle(min(self._segment_s, self._segment_wall_s) - behind_s)
                return True
            # The segment starts at the next event (a lull before it costs nothing and, jumped
            # in the same call, would make the first busy segment as long as the lull).
            target = min(max(run.now_s, next_event_s) + self._segment_s, run.now_s + behind_s)
        else:
            target = run.now_s + self._segment_s
        began = time.perf_counter()
        run.advance(target)
        spent = time.perf_counter() - began
        # Next segment: the simulated time that takes ~segment_wall_s at this rate, changed at
        # most 2x per step so one quiet or busy segment does not swing it. Paced, a segment is at
        # most segment_wall_s of simulated time (the wall clock allows no more).
        factor = self._segment_wall_s / spent if spent > 0 else 2.0
        self._segment_s = max(1e-7, self._segment_s * min(2.0, max(0.5, factor)))
        if self._pace:
            self._segment_s = min(self._segment_s, self._segment_wall_s)
        with self._condition:
            self._publish()
        return True

    def _idle(self, seconds: float) -> None:
        """Wait up to ``seconds`` in the run thread, unless a stop or a Set is already waiting
        (either wakes the wait too)."""
        with self._condition:
            if not self._stopping and self._pending is None:
                self._condition.wait(seconds)

    def stop(self) -> None:
        with self._condition:
            self._stopping = True
            self._condition.notify_all()
        if self._thread is not None:
            self._thread.join()

    def result(self) -> SimulationResult:
        """The current run's results (call after :meth:`stop`; runs it to its end first)."""
        return self._run.result()

    # --- what handlers use ----------------------------------------------------------------
    @property
    def switches(self) -> tuple[str, ...]:
        return tuple(config.name for config in self._scenario.configs)

    def config(self, switch: str) -> SwitchConfig:
        with self._condition:
            return next(c for c in self._scenario.configs if c.name == switch)

    def progress(self) -> Progress:
        with self._condition:
            return Progress(self._generation, self._epoch, self._start_wall_s, self._run.now_s, self._run.done)

    def snapshot(self, switch: str) -> tuple[SwitchCounters, int, int]:
        """The switch's latest counters, their timestamp in ns since the epoch, and the
        snapshot's generation (it changes whenever the counters may have)."""
        with self._condition:
            counters = self._snapshots[switch]
            return counters, self.timestamp_ns(counters.time_s), self._generation

    def timestamp_ns(self, time_s: float) -> int:
        return round((self._start_wall_s + time_s) * 1e9)

    def wait_for(self, generation: int, timeout_s: float) -> int:
        """Block until a snapshot newer than ``generation`` is published (or the timeout, or the
        run stopping); returns the current generation."""
        deadline = time.monotonic() + timeout_s
        with self._condition:
            while self._generation <= generation and not self._stopping and self.error is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._condition.wait(left)
            return self._generation

    def wait_until(self, time_s: float, timeout_s: float, epoch: int | None = None) -> bool:
        """Block until the run (of ``epoch``, default the current one) reaches simulated time
        ``time_s`` (or its end); False on timeout. For tests and tools that need traffic to have run."""
        deadline = time.monotonic() + timeout_s
        with self._condition:
            while True:
                if self.error is not None:
                    raise RuntimeError(f"the simulation stopped: {self.error}") from self.error
                current = (epoch is None or self._epoch >= epoch) and self._pending is None
                if current and (self._run.now_s >= time_s or self._run.done):
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._condition.wait(left)

    def reconfigure(self, switch: str, config: SwitchConfig) -> int:
        """Restart the run with ``switch`` configured as ``config``; returns the new run's epoch."""
        with self._condition:
            base = self._pending or self._scenario
            configs = tuple(config if c.name == switch else c for c in base.configs)
            self._pending = replace(base, configs=configs)
            self._condition.notify_all()
            return self._epoch + 1


__all__ = ["LiveSimulation", "Progress", "Scenario"]
