"""The background run behind a served switch (softswitch/device/live.py), paced by the wall clock:
a run that keeps up with the wall clock publishes about one snapshot per segment of wall time, not
one per pass of its loop, and still follows the wall clock; a busy run is not held back."""

from __future__ import annotations

import resource
import time
from dataclasses import replace
from pathlib import Path

from qosforge.softswitch.device.live import LiveSimulation, Scenario
from qosforge.softswitch.engine.build import single_switch

from .conftest import build

WALL_S = 0.6
SEGMENT_WALL_S = 0.05


def _thread_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _scenario(intent_file: Path, start_s: float, duration_s: float) -> Scenario:
    built = build(intent_file, flows=3, duration_s=duration_s)
    config = built.compiled.config
    flows = tuple(replace(flow, start_s=start_s) for flow in built.flows)
    return Scenario((config,), single_switch(len(config.ports)), flows, built.run)


def test_an_idle_run_waits_for_the_wall_clock_instead_of_spinning(intent_file: Path) -> None:
    # Every flow starts at 30 s: for the whole window the run has nothing to simulate, so it
    # keeps up with the wall clock however often it is stepped.
    live = LiveSimulation(_scenario(intent_file, 30.0, 60.0), segment_wall_s=SEGMENT_WALL_S)
    first = live.progress().generation
    cpu_before = _thread_cpu_s()
    live.start()
    time.sleep(WALL_S)
    progress = live.progress()
    live.stop()
    cpu_s = _thread_cpu_s() - cpu_before
    published = progress.generation - first
    # One snapshot per segment of wall time (the first segments are shorter while the segment
    # grows from 10 us, doubling per step): a pass per snapshot without waiting published
    # thousands in this window, and burnt the window's whole wall time in CPU.
    assert published <= 2 * WALL_S / SEGMENT_WALL_S + 20, published
    assert cpu_s < 0.5 * WALL_S, cpu_s
    # Simulated time still follows the wall clock, at most a segment behind.
    assert WALL_S - 3 * SEGMENT_WALL_S <= progress.time_s <= WALL_S + 0.2, progress.time_s


def test_a_busy_run_advances_without_waiting(intent_file: Path) -> None:
    # Three DCTCP flows at line rate from time 0: far slower than real time, so every pass
    # advances and the run is always behind the wall clock.
    live = LiveSimulation(_scenario(intent_file, 0.0, 3e-3), segment_wall_s=SEGMENT_WALL_S)
    live.start()
    assert live.wait_until(1e-4, timeout_s=60.0)
    time.sleep(0.2)
    progress = live.progress()
    live.stop()
    assert 0.0 < progress.time_s < 0.2  # behind the wall clock: it was never made to wait
    assert progress.generation > 2
