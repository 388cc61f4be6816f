"""The deadlock finder of softswitch/pfc_deadlock.py on runs that pause a lot but cannot deadlock."""

from __future__ import annotations

from pathlib import Path

from qosforge.softswitch.helper.fabric import compile_fabric
from qosforge.softswitch.helper.fabric_scenarios import fabric_traffic, pause_storm_run
from qosforge.softswitch.pfc_deadlock import DeadlockObserver
from qosforge.softswitch.simulation import simulate_fabric_observed

SMALL = Path(__file__).resolve().parents[1] / "validation" / "fabrics" / "lossless-watchdog.yaml"


def test_a_pause_storm_from_a_host_is_no_deadlock() -> None:
    """A stalled host pauses its leaf for 2.5 ms and the pauses spread upstream through the
    fabric, but every chain of paused buffers ends at the host, not in a cycle: no buffer is
    stuck for good, and the pauses end with the stall."""
    fabric = compile_fabric(SMALL, ())
    traffic = fabric_traffic(fabric, None, None, None, lossless=True)
    built = pause_storm_run(fabric, traffic, stalled=None, stall_s=2.5e-3, stall_start_s=1e-3, flows=16, size_bytes=None,
                            duration_s=4.5e-3, warmup_s=0.0, seed=1)
    observer = DeadlockObserver(fabric.topology)
    result, observations = simulate_fabric_observed(fabric.configs, fabric.topology, built.flows, built.run, 50e-6, observer)
    paused_upstream = result.pfc_seconds[: fabric.topology.n_ports, :, 1].sum(axis=1) > 0  # type: ignore[index]
    assert paused_upstream.sum() >= 2  # the storm did spread into the fabric
    assert all(o.stuck is None for o in observations)
    assert observations[-1].time_s == 4.5e-3 and len(observations) == 90
