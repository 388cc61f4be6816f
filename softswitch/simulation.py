"""Run a scenario on a configured software switch: build the state, run the kernel, collect."""

from __future__ import annotations

import time

from qosforge.errors import QosforgeError
from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import Topology, build_fabric_world, single_switch
from qosforge.softswitch.metrics import SimulationResult, collect
from qosforge.softswitch.traffic.spec import MAX_SEED, FlowSpec, RunSpec


def simulate(config: SwitchConfig, flows: tuple[FlowSpec, ...], run: RunSpec) -> SimulationResult:
    """Simulate ``flows`` through the switch for ``run.duration_s`` of simulated time.

    The event core is the ahead-of-time module built at install, else the numba JIT
    (engine/core.py); ``wall_seconds`` covers only the event loop.
    """
    return simulate_fabric((config,), single_switch(len(config.ports)), flows, run)


def simulate_fabric(configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec) -> SimulationResult:
    """Simulate ``flows`` between the hosts of switches ``configs`` linked as ``topology``."""
    from qosforge.softswitch.engine.build import schedule_initial_events
    from qosforge.softswitch.engine.core import kernel

    if not 0 <= run.seed <= MAX_SEED:
        raise QosforgeError(f"seed {run.seed} is outside 0..{MAX_SEED}", place="seed", hint="the generator takes a 32-bit seed")
    core = kernel()
    run_kernel = core.run_kernel
    world = build_fabric_world(configs, topology, flows, run)
    schedule_initial_events(world, flows, run)
    core.seed_kernel(run.seed)
    # Compile (or load from cache) outside the timed region: a run that ends before time 0
    # processes nothing.
    parameters = world[L.W_PRMF]
    end = parameters[L.PRM_END]
    parameters[L.PRM_END] = -1.0
    run_kernel(world)
    parameters[L.PRM_END] = end
    start, start_cpu = time.perf_counter(), time.process_time()
    run_kernel(world)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return collect(world, wall, cpu)


__all__ = ["simulate", "simulate_fabric"]
