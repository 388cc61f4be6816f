"""A run advanced in segments of simulated time (softswitch/simulation.py SegmentedRun, what
``simulate --serve-gnmi`` uses to read counters live) ends in exactly the state of the same run
in one piece: every array of the kernel's world, bit for bit, over scenarios that exercise ECN
marking, open-loop deliveries at the run's end, PFC, PFC frames scripted at the host, and the
PFC watchdog's detection and recovery."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.helper.fabric import Fabric, compile_fabric
from qosforge.softswitch.helper.fabric_scenarios import (
    all_to_all_run,
    fabric_incast_run,
    fabric_traffic,
    pause_storm_run,
)
from qosforge.softswitch.simulation import SegmentedRun, simulate_fabric
from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH

WATCHDOG = Path(__file__).resolve().parents[1] / "validation" / "fabrics" / "lossless-watchdog.yaml"


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return compile_fabric(WATCHDOG, ())


def _runs(fabric: Fabric) -> dict[str, tuple[object, ...]]:
    storm = pause_storm_run(fabric, fabric_traffic(fabric, None, None, None, lossless=True), stalled=None, stall_s=1.5e-3,
                            stall_start_s=0.5e-3, flows=2, size_bytes=None, duration_s=3e-3, warmup_s=0.2e-3, seed=7)
    mixed = all_to_all_run(fabric, fabric_traffic(fabric, "tcp", "dctcp", None), load=0.4, distribution=WEB_SEARCH, duration_s=2e-3,
                           warmup_s=0.0, seed=3)
    incast = fabric_incast_run(fabric, fabric_traffic(fabric, "tcp", "dctcp", None), receiver=None, flows=8, size_bytes=None,
                               duration_s=2e-3, warmup_s=0.5e-3, seed=1)
    return {"pause-storm": (storm.flows, storm.run), "all-to-all": (mixed.flows, mixed.run), "incast": (incast.flows, incast.run)}


@pytest.mark.parametrize("name", ["pause-storm", "all-to-all", "incast"])
def test_segments_leave_every_array_of_the_world_as_one_run_does(fabric: Fabric, name: str) -> None:
    flows, run = _runs(fabric)[name]
    whole = SegmentedRun(fabric.configs, fabric.topology, flows, run)  # type: ignore[arg-type]
    whole.advance(run.duration_s)  # type: ignore[attr-defined]
    pieces = SegmentedRun(fabric.configs, fabric.topology, flows, run)  # type: ignore[arg-type]
    # Uneven segments, some shorter than a packet's serialisation, some ending exactly on a sample.
    rng = np.random.default_rng(5)
    stops = np.sort(rng.uniform(0.0, run.duration_s, 40))  # type: ignore[attr-defined]
    sample = run.sample_interval_s  # type: ignore[attr-defined]
    for stop in (*stops, 10 * sample, 11 * sample, run.duration_s):  # type: ignore[attr-defined]
        pieces.advance(float(stop))
    assert pieces.done
    for index, (a, b) in enumerate(zip(whole.world, pieces.world, strict=True)):
        if index == L.W_PRMF:
            a, b = np.delete(a, L.PRM_STOP), np.delete(b, L.PRM_STOP)
        assert np.array_equal(a, b), f"world array {index} differs"
    # And the result a run in one call collects is that result (the segments' times aside).
    one_call = simulate_fabric(fabric.configs, fabric.topology, flows, run)  # type: ignore[arg-type]
    segmented = pieces.result()
    assert one_call.counters == segmented.counters
    assert np.array_equal(one_call.drops, segmented.drops) and np.array_equal(one_call.marks, segmented.marks)
    # The scenarios do exercise what segmentation could break.
    stats = pieces.world[L.W_PORTSTAT]
    if name == "pause-storm":
        assert stats[:, :, L.PSC_PFC_TX].sum() > 0 and stats[:, :, L.PSC_PFC_RX].sum() > 0
        assert stats[:, :, L.PSC_DEADLOCKS].sum() == one_call.counters["pfc_deadlocks"] > 0
    elif name == "incast":
        assert one_call.counters["marks"] > 0
    else:
        # Open-loop and finite flows: deliveries counted up to the run's end, not a segment's.
        assert one_call.counters["delivered_bytes"] > 0


def test_time_never_goes_back(fabric: Fabric) -> None:
    flows, run = _runs(fabric)["all-to-all"]
    segmented = SegmentedRun(fabric.configs, fabric.topology, flows, run)  # type: ignore[arg-type]
    segmented.advance(1e-3)
    events = int(segmented.world[L.W_CNT][L.C_EVENTS])
    segmented.advance(0.5e-3)
    assert segmented.now_s == 1e-3 and int(segmented.world[L.W_CNT][L.C_EVENTS]) == events
    segmented.advance(1.0)  # capped at the run's end
    assert segmented.now_s == run.duration_s and segmented.done  # type: ignore[attr-defined]


def test_open_loop_deliveries_after_a_segment_end_still_count() -> None:
    """Open-loop packets are delivered when they leave the last switch, counted if they arrive by
    the run's end (engine/hosts.py open_loop_arrival): a segment's end must not cut them off."""
    from qosforge.softswitch.engine.build import single_switch
    from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

    from .conftest import make_switch

    config = make_switch(ports=4)
    line_pps = config.ports[0].speed_bps / 8.0 / 1500
    flows = tuple(FlowSpec("poisson", src, (src + 1) % 4, 8 * (src % 2), packet_bytes=1500, rate_pps=0.9 * line_pps) for src in range(4))
    run = RunSpec(duration_s=1e-3, warmup_s=0.1e-3, seed=9)
    whole = SegmentedRun((config,), single_switch(4), flows, run)
    whole.advance(run.duration_s)
    pieces = SegmentedRun((config,), single_switch(4), flows, run)
    for stop in np.linspace(0.0, run.duration_s, 97):
        pieces.advance(float(stop))
    assert int(pieces.world[L.W_CNT][L.C_DELIVERED_BYTES]) == int(whole.world[L.W_CNT][L.C_DELIVERED_BYTES]) > 0
    assert np.array_equal(pieces.world[L.W_FLI], whole.world[L.W_FLI]) and np.array_equal(pieces.world[L.W_FLF], whole.world[L.W_FLF])
