"""Run a scenario on a configured software switch: build the state, run the kernel, collect."""

from __future__ import annotations

import math
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


def simulate(config: SwitchConfig, flows: tuple[FlowSpec, ...], run: RunSpec) -> SimulationResult:
    """Simulate ``flows`` through the switch for ``run.duration_s`` of simulated time.

    The event core is the ahead-of-time module built at install, else the numba JIT
    (engine/core.py); ``wall_seconds`` covers only the event loop.
    """
    return simulate_fabric((config,), single_switch(len(config.ports)), flows, run)


def simulate_fabric(configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec) -> SimulationResult:
    """Simulate ``flows`` between the hosts of switches ``configs`` linked as ``topology``."""
    result, _ = simulate_fabric_observed(configs, topology, flows, run, math.inf, lambda world, time_s: None)
    return result


def simulate_fabric_observed(configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec,
                             interval_s: float, observe: Callable[[World, float], T]) -> tuple[SimulationResult, list[T]]:
    """As :func:`simulate_fabric`, stopping the kernel every ``interval_s`` of simulated time (and
    at the end) to call ``observe(world, time)`` on the live state; its results come back in order.
    The kernel keeps every event after the stop time queued (engine/kernel.py ``run_kernel``), so
    the run is the same event for event as one without stops; ``wall_seconds`` covers only the
    event loop, not the observations."""
    from qosforge.softswitch.engine.build import schedule_initial_events
    from qosforge.softswitch.engine.core import kernel

    if not 0 <= run.seed <= MAX_SEED:
        raise QosforgeError(f"seed {run.seed} is outside 0..{MAX_SEED}", place="seed", hint="the generator takes a 32-bit seed")
    core = kernel()
    run_kernel = core.run_kernel
    world = build_fabric_world(configs, topology, flows, run)
    schedule_initial_events(world, flows, run)
    core.seed_kernel(run.seed)
    # Compile (or load from cache) outside the timed region: a run that stops before time 0
    # processes nothing.
    parameters = world[L.W_PRMF]
    end = float(parameters[L.PRM_END])
    parameters[L.PRM_STOP] = -1.0
    run_kernel(world)
    observations: list[T] = []
    wall = cpu = 0.0
    step = 0
    stop = -1.0
    while stop < end:
        step += 1
        # Stops at whole multiples of the interval (no drift from summing it), the last at the end.
        stop = min(end, step * interval_s) if math.isfinite(interval_s) else end
        parameters[L.PRM_STOP] = stop
        start, start_cpu = time.perf_counter(), time.process_time()
        run_kernel(world)
        wall += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        observations.append(observe(world, stop))
    return collect(world, wall, cpu), observations


__all__ = ["World", "simulate", "simulate_fabric", "simulate_fabric_observed"]
