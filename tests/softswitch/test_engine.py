"""The event core on hand-built configurations: MMU thresholds, scheduling, shaping, PFC, WRED."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.fitting.red_model import step_marking_probability
from qosforge.models.dynamic_threshold import dynamic_threshold_share
from qosforge.softswitch.config import (
    BufferProfileConfig,
    SchedulerConfig,
    SwitchConfig,
    WredConfig,
)
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import build_world
from qosforge.softswitch.engine.mmu import step_curve
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import FlowSpec, PauseSpec, RunSpec

PKT = 1500


def _line_pps(config: SwitchConfig, port: int = 0) -> float:
    return config.ports[port].speed_bps / 8.0 / PKT


def test_single_congested_port_settles_at_half_the_pool(switch: Callable[..., SwitchConfig]) -> None:
    config = switch(pool_bytes=1_000_000, dynamic_th=0)
    rate = _line_pps(config)
    flows = (FlowSpec("cbr", 1, 0, 0, ect=False, rate_pps=rate), FlowSpec("cbr", 2, 0, 0, ect=False, rate_pps=rate))
    result = simulate(config, flows, RunSpec(duration_s=4e-3, warmup_s=2e-3, monitors=((0, 0),)))
    cell_bytes = config.asic.cell_bytes
    pool_cells = 1_000_000 // cell_bytes
    share = dynamic_threshold_share(pool_cells * cell_bytes, 1.0, 1).per_port_share_bytes
    footprint = math.ceil(PKT / cell_bytes) * cell_bytes
    assert abs(result.queue_max_cells[0, 0] * cell_bytes - share) <= footprint
    assert result.drops[0, 0, L.DR_EGRESS] > 0
    assert result.counters["packets_forwarded"] > 0


def test_static_threshold_caps_the_queue(switch: Callable[..., SwitchConfig]) -> None:
    config = switch(dynamic_th=None, static_th_bytes=200_000)
    rate = _line_pps(config)
    flows = (FlowSpec("cbr", 1, 0, 0, ect=False, rate_pps=rate), FlowSpec("cbr", 2, 0, 0, ect=False, rate_pps=rate))
    result = simulate(config, flows, RunSpec(duration_s=2e-3))
    assert 200_000 - 1664 < result.queue_max_cells[0, 0] * config.asic.cell_bytes <= 200_000


def test_strict_priority_queue_is_served_first(switch: Callable[..., SwitchConfig]) -> None:
    schedulers = (SchedulerConfig("scheduler:strict", "STRICT", 1, 0, 0), SchedulerConfig("scheduler:dwrr", "DWRR", 1, 0, 0))
    config = switch(schedulers=schedulers, queue_schedulers={5: "scheduler:strict", 0: "scheduler:dwrr"})
    rate = _line_pps(config)
    flows = (FlowSpec("cbr", 1, 0, 0, ect=False, rate_pps=rate), FlowSpec("cbr", 2, 0, 40, ect=False, rate_pps=rate))
    result = simulate(config, flows, RunSpec(duration_s=3e-3, warmup_s=1e-3))
    high, low = result.dequeued_bytes[0, 5], result.dequeued_bytes[0, 0]
    assert high > 0.99 * (high + low)


def test_dwrr_shares_bandwidth_by_weight(switch: Callable[..., SwitchConfig]) -> None:
    schedulers = (SchedulerConfig("scheduler:one", "DWRR", 1, 0, 0), SchedulerConfig("scheduler:three", "DWRR", 3, 0, 0))
    config = switch(schedulers=schedulers, queue_schedulers={0: "scheduler:one", 2: "scheduler:three"})
    rate = _line_pps(config)
    flows = (FlowSpec("cbr", 1, 0, 0, ect=False, rate_pps=rate), FlowSpec("cbr", 2, 0, 16, ect=False, rate_pps=rate))
    result = simulate(config, flows, RunSpec(duration_s=3e-3, warmup_s=1e-3))
    ratio = result.dequeued_bytes[0, 2] / result.dequeued_bytes[0, 0]
    assert abs(ratio - 3.0) < 0.05


def test_max_bandwidth_rate_shapes_the_queue(switch: Callable[..., SwitchConfig]) -> None:
    shaped = 250_000_000  # bytes/s = 2 Gb/s (SAI rates are bytes/s, SAI inc/saischeduler.h)
    config = switch(schedulers=(SchedulerConfig("scheduler:shaped", "DWRR", 1, shaped, 0),), queue_schedulers={0: "scheduler:shaped"})
    flows = (FlowSpec("cbr", 1, 0, 0, ect=False, rate_pps=_line_pps(config)),)
    result = simulate(config, flows, RunSpec(duration_s=4e-3, warmup_s=1e-3))
    measured = result.dequeued_bytes[0, 0] / result.measured_s
    assert abs(measured - shaped) / shaped < 0.01


def test_pause_from_the_peer_stops_the_mapped_queue(switch: Callable[..., SwitchConfig]) -> None:
    config = switch(pfc_priorities=1 << 3, pool_bytes=10_000_000)
    rate = _line_pps(config) / 2
    flows = (FlowSpec("cbr", 1, 0, 24, ect=False, rate_pps=rate),)
    pauses = (PauseSpec(1e-3, 0, 1 << 3, True), PauseSpec(2e-3, 0, 1 << 3, False))
    result = simulate(config, flows, RunSpec(duration_s=4e-3, pauses=pauses, monitors=((0, 3),)))
    held = result.monitors[0].max_packets
    assert abs(held - rate * 1e-3) < 0.05 * rate * 1e-3  # everything sent during the pause waited
    assert result.counters["drops"] == 0
    # Another priority is not paused.
    other = simulate(config, (FlowSpec("cbr", 1, 0, 16, ect=False, rate_pps=rate),), RunSpec(duration_s=4e-3, pauses=pauses, monitors=((0, 2),)))
    assert other.monitors[0].max_packets <= 2


def _lossless_run(switch: Callable[..., SwitchConfig], xoff_bytes: int) -> dict[str, int]:
    pg = BufferProfileConfig("buffer_profile:lossless", "buffer_pool:ingress", 0, None, 50_000, xoff_bytes, 0, 3000)
    config = switch(pfc_priorities=1 << 3, pg_profile=pg, pool_bytes=4_000_000)
    rate = _line_pps(config)
    flows = (FlowSpec("cbr", 1, 0, 24, ect=False, rate_pps=rate), FlowSpec("cbr", 2, 0, 24, ect=False, rate_pps=rate))
    return simulate(config, flows, RunSpec(duration_s=3e-3, host_queue_packets=64)).counters


def test_lossless_priority_group_pauses_its_sender(switch: Callable[..., SwitchConfig]) -> None:
    counters = _lossless_run(switch, 40_000)
    assert counters["pfc_xoff_sent"] > 0 and counters["pfc_xon_sent"] > 0
    assert counters["lossless_drops"] == 0


def test_headroom_smaller_than_the_in_flight_data_drops(switch: Callable[..., SwitchConfig]) -> None:
    assert _lossless_run(switch, 2_000)["lossless_drops"] > 0


def test_ecn_marking_instead_of_drop_for_ect_packets(switch: Callable[..., SwitchConfig], wred: Callable[..., WredConfig]) -> None:
    config = switch(wred=wred(30_000, 30_000, 1.0, mark=True))
    rate = _line_pps(config)
    flows = (FlowSpec("cbr", 1, 0, 8, ect=True, rate_pps=rate), FlowSpec("cbr", 2, 0, 8, ect=True, rate_pps=rate * 0.2))
    result = simulate(config, flows, RunSpec(duration_s=2e-3))
    assert result.marks[0, 1, 0] > 0
    assert result.drops[0, 1, L.DR_WRED] == 0


@settings(max_examples=40, deadline=None)
@given(
    low=st.integers(1_000, 200_000),
    span=st.integers(0, 400_000),
    probability=st.integers(1, 100),
    depth=st.floats(0, 700_000, allow_nan=False),
)
def test_engine_step_curve_is_the_reference_curve(low: int, span: int, probability: int, depth: float) -> None:
    """The kernel's RED step lookup equals fitting.red_model.step_marking_probability (TBTCP §6.2)
    with the profile's quantisation, at any depth (min = max: 0 at or below, 1 above)."""
    world = _WORLD_CACHE.setdefault("w", _world())
    wrf, wrp = world[L.W_WRF], world[L.W_WRP]
    config: SwitchConfig = _WORLD_CACHE["config"]  # type: ignore[assignment]
    steps = config.asic.step_probabilities(probability / 100.0)
    wrf[0, 0, 0, 0], wrf[0, 0, 0, 1] = low, low + span
    wrp[0, 0, 0, :] = steps
    engine = step_curve(world, 0, 0, 0, depth)
    if span == 0:
        reference = 1.0 if depth > low else 0.0
    else:
        reference = float(step_marking_probability(depth, low, low + span, steps))
    assert engine == reference


_WORLD_CACHE: dict[str, object] = {}


def _world() -> tuple[np.ndarray, ...]:
    from tests.softswitch.conftest import make_switch, step_wred

    config = make_switch(wred=step_wred(1000, 2000, 0.5, mark=False))
    _WORLD_CACHE["config"] = config
    return build_world(config, (), RunSpec(duration_s=1e-3))


def _run_world(config: SwitchConfig, flows: tuple[FlowSpec, ...], run: RunSpec) -> tuple[np.ndarray, ...]:
    from qosforge.softswitch.engine.core import kernel

    world = build_world(config, flows, run)
    core = kernel()
    core.seed_kernel(run.seed)
    core.run_kernel(world)
    return world


def test_the_scheduler_masks_follow_the_queues(switch: Callable[..., SwitchConfig]) -> None:
    """TXI_NONEMPTY (engine/ports.py) must say exactly which queues hold packets, or the scheduler
    would skip a queue with data or walk an empty one."""
    config = switch(schedulers=(SchedulerConfig("scheduler:s", "DWRR", 1, 0, 0), SchedulerConfig("scheduler:p", "STRICT", 0, 0, 0)),
                    queue_schedulers={0: "scheduler:s", 2: "scheduler:s", 5: "scheduler:p"})
    rate = _line_pps(config)
    flows = tuple(FlowSpec("cbr", src, 0, dscp, ect=False, rate_pps=rate) for src, dscp in ((1, 0), (2, 16), (3, 40)))
    world = _run_world(config, flows, RunSpec(duration_s=2e-3))
    qi, txi = world[L.W_QI], world[L.W_TXI]
    for port in range(txi.shape[0]):
        holding = sum(1 << q for q in range(txi[port, L.TXI_NQ]) if qi[port, q, L.QI_PKTS] > 0)
        assert txi[port, L.TXI_NONEMPTY] == holding, port
    assert txi[0, L.TXI_NONEMPTY] != 0, "the congested port should still hold packets at the end"
    assert txi[0, L.TXI_STRICT] == 1 << 5  # queues without a scheduler are DWRR (engine/build.py)


def test_the_deficit_mask_covers_every_non_zero_deficit(
    switch: Callable[..., SwitchConfig],
) -> None:
    """TXI_DEFICIT (engine/ports.py select_queue) must have the bit of every queue whose DWRR
    deficit is not zero, or the walk past an empty queue would skip zeroing it and the next
    round would give that queue more than its weight."""
    schedulers = (SchedulerConfig("scheduler:one", "DWRR", 1, 0, 0),
                  SchedulerConfig("scheduler:three", "DWRR", 3, 0, 0))
    config = switch(schedulers=schedulers,
                    queue_schedulers={0: "scheduler:one", 2: "scheduler:three"})
    rate = _line_pps(config)
    # Two queues of unequal weights, one of frames shorter than the quantum's MTU (so deficits
    # are left over), and a third queue that comes and goes (a short burst).
    flows = (FlowSpec("cbr", 1, 0, 0, ect=False, rate_pps=rate),
             FlowSpec("cbr", 2, 0, 16, ect=False, rate_pps=rate, packet_bytes=1000),
             FlowSpec("cbr", 3, 0, 8, ect=False, rate_pps=rate, size_packets=40, start_s=5e-4))
    world = _run_world(config, flows, RunSpec(duration_s=2e-3))
    qf, txi = world[L.W_QF], world[L.W_TXI]
    credited = 0
    for port in range(txi.shape[0]):
        for queue in range(txi[port, L.TXI_NQ]):
            if qf[port, queue, L.QF_DEFICIT] != 0.0:
                credited += 1
                assert (txi[port, L.TXI_DEFICIT] >> queue) & 1, (port, queue)
    assert credited > 0, "the congested port's DWRR queues should hold a deficit"


def test_ports_with_the_same_maps_share_one_classification_row(
    switch: Callable[..., SwitchConfig],
) -> None:
    """The classification maps are stored once per distinct set (W_CLS), each switch port naming
    its set (LK_CLS); host NICs name none."""
    config = switch()
    flow = FlowSpec("cbr", 1, 0, 0, ect=False, rate_pps=1.0)
    world = build_world(config, (flow,), RunSpec(duration_s=1e-3))
    n_ports = len(config.ports)
    link, cls = world[L.W_LINK], world[L.W_CLS]
    assert cls.shape[0] == 1
    assert (link[:n_ports, L.LK_CLS] == 0).all() and (link[n_ports:, L.LK_CLS] == -1).all()
    port = config.ports[0]
    np.testing.assert_array_equal(cls[0, L.CL_DSCP_TC], port.dscp_to_tc)
    np.testing.assert_array_equal(cls[0, L.CL_TC_QUEUE, : len(port.tc_to_queue)], port.tc_to_queue)


def test_open_loop_packets_count_when_they_arrive_within_the_run(switch: Callable[..., SwitchConfig]) -> None:
    """Open-loop data is delivered without an arrival event (engine/hosts.open_loop_arrival) but
    with the arrival's time: all of it when the run outlasts the flow, none before warm-up, and
    not the packets still on the wire at the end."""
    config = switch()
    packets = 40
    flow = FlowSpec("cbr", 1, 0, 0, ect=False, rate_pps=_line_pps(config) / 2, size_packets=packets)
    done = simulate(config, (flow,), RunSpec(duration_s=1e-3))
    assert done.counters["delivered_bytes"] == packets * PKT
    assert simulate(config, (flow,), RunSpec(duration_s=1e-3, warmup_s=0.5e-3)).counters["delivered_bytes"] == 0
    # Cut the run while the flow sends: what left the switch minus what is still on the cable.
    cut = 20 / (_line_pps(config) / 2)
    world = _run_world(config, (flow,), RunSpec(duration_s=cut))
    sent_bytes = int(world[L.W_DEQB][0].sum())
    delivered = int(world[L.W_CNT][L.C_DELIVERED_BYTES])
    serialisation_s = PKT / world[L.W_TXF][0, L.TXF_RATE]
    on_the_wire = math.ceil((world[L.W_TXF][0, L.TXF_PROP] + serialisation_s) / (2 * serialisation_s))
    assert 0 < delivered < sent_bytes
    assert sent_bytes - delivered <= on_the_wire * PKT
