"""The background run behind a served switch (softswitch/device/live.py), paced by the wall clock:
a run that keeps up with the wall clock publishes about one snapshot per segment of wall time, not
one per pass of its loop, and still follows the wall clock; a lull leaves the segment as the last
busy one sized it; a busy run is not held back."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from qosforge.softswitch.device.live import FIRST_SEGMENT_S, LiveSimulation, Scenario
from qosforge.softswitch.engine.build import single_switch

from .conftest import build

SEGMENT_WALL_S = 0.05


def _scenario(intent_file: Path, start_s: float, duration_s: float) -> Scenario:
    built = build(intent_file, flows=3, duration_s=duration_s)
    config = built.compiled.config
    flows = tuple(replace(flow, start_s=start_s) for flow in built.flows)
    return Scenario((config,), single_switch(len(config.ports)), flows, built.run)


def _run_thread_cpu(live: LiveSimulation) -> Callable[[], float]:
    """The CPU seconds of the run's own thread (not the process's: other tests' threads)."""
    thread = live._thread
    assert thread is not None and thread.ident is not None
    clock = time.pthread_getcpuclockid(thread.ident)
    return lambda: time.clock_gettime(clock)


def test_an_idle_run_waits_for_the_wall_clock_instead_of_spinning(intent_file: Path) -> None:
    # Every flow starts at 30 s: for the whole window the run has nothing to simulate, so it
    # keeps up with the wall clock however often it is stepped.
    wall_s = 0.6
    live = LiveSimulation(_scenario(intent_file, 30.0, 60.0), segment_wall_s=SEGMENT_WALL_S)
    first = live.progress().generation
    live.start()
    cpu = _run_thread_cpu(live)
    time.sleep(wall_s)
    progress, cpu_s = live.progress(), cpu()
    live.stop()
    published = progress.generation - first
    # One snapshot per segment of wall time: a pass per snapshot without waiting published
    # thousands in this window (20,554 in 0.6 s), and burnt its whole wall time in CPU.
    assert published <= 2 * wall_s / SEGMENT_WALL_S + 5, published
    assert cpu_s < 0.25 * wall_s, cpu_s
    # Simulated time still follows the wall clock, a segment or so behind.
    assert wall_s / 2 <= progress.time_s <= wall_s + 0.2, progress.time_s


def test_a_lull_leaves_the_first_busy_segments_short(intent_file: Path) -> None:
    # Idle until 0.3 s, then three line-rate flows. The idle span must not size the busy
    # segments after it: they start at the run's first segment (10 us of simulated time) and
    # grow at most 2x a step, where they once started at 50 ms (on a 64-port switch at line
    # rate, tens of seconds of one kernel call holding the GIL).
    live = LiveSimulation(_scenario(intent_file, 0.3, 60.0), segment_wall_s=SEGMENT_WALL_S)
    busy_spans_s: list[float] = []
    run = live._run
    advance = run.advance

    def recorded_advance(to_s: float, *, timed: bool = True) -> None:
        first_event_s = max(run.now_s, run.next_event_s())
        if first_event_s <= to_s:
            busy_spans_s.append(to_s - first_event_s)
        advance(to_s, timed=timed)

    run.advance = recorded_advance  # type: ignore[method-assign]
    live.start()
    assert live.wait_until(0.3 + 1e-4, timeout_s=60.0)
    time.sleep(0.2)
    live.stop()
    assert len(busy_spans_s) >= 5, busy_spans_s
    assert max(busy_spans_s[:5]) <= 2**5 * FIRST_SEGMENT_S, busy_spans_s[:5]


def test_a_busy_run_advances_without_waiting(intent_file: Path) -> None:
    # Three DCTCP flows at line rate from time 0 for a minute of simulated time: far slower than
    # real time, so the run is always behind the wall clock and its thread never waits.
    window_s = 0.4
    live = LiveSimulation(_scenario(intent_file, 0.0, 60.0), segment_wall_s=SEGMENT_WALL_S)
    live.start()
    assert live.wait_until(1e-5, timeout_s=60.0)
    cpu = _run_thread_cpu(live)
    cpu_before, before = cpu(), live.progress()
    time.sleep(window_s)
    cpu_s, after = cpu() - cpu_before, live.progress()
    live.stop()
    assert not after.done and after.time_s < window_s  # behind the wall clock all along
    assert after.generation - before.generation >= 3
    # Never made to wait: the thread ran for most of the window (a shared 2-core machine and the
    # gRPC-free test leave it a core).
    assert cpu_s > 0.4 * window_s, cpu_s
