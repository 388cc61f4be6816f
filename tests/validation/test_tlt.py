"""Scenario 1: TLT — zero important-packet drops under incast at M congested ports with as many
flows as the model's capacity (TLT §4.2, ``models.tlt.tlt_headroom``), important drops once well
beyond it.

The model's premise is made exact: every flow keeps one important packet in flight (window-limited
flows whose packets all carry the important DSCP, i.e. GREEN), and unimportant (RED, ECN-capable)
background traffic keeps each congested queue at the color-aware threshold K. M is the design
point where the switch has enough other ports (else the largest M it can congest). The model's
inputs come from the loaded SAI program: B = the egress pool's size, alpha = 2^SHARED_DYNAMIC_TH,
K = the RED curve's threshold, and the important packet's buffer footprint in whole cells.

"Well beyond": at most the fraction d/(d + RTT) of the flows' important packets can sit in a queue
at once (d = the time to drain a full share), so important packets alone overflow the share only
above share / (cell footprint x that fraction) flows per port; the test runs 1.2 x that.

Deterministic criteria (seeded run): zero important drops at capacity; at least one beyond it.
Only ``tlt-softswitch`` renders TLT exactly for SAI (its profile honours the ECT thresholds);
tlt-simulation and tlt-testbed are the same color-aware drop on chips without ECT thresholds.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from qosforge.models.tlt import tlt_headroom
from qosforge.softswitch.engine.build import classify
from qosforge.softswitch.helper.compiled import CompiledSwitch
from qosforge.softswitch.metrics import SimulationResult
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

PACKET_BYTES = 1500
BACKGROUND_LOAD = 0.6  # unimportant load per congested port, a fraction of its line rate
MARGIN = 1.2


def _run(switch: CompiledSwitch, flows_per_port: int) -> SimulationResult:
    config = switch.config
    entry = next(c for c in switch.ir.classes if c.important_dscp)
    n_ports = len(config.ports)
    congested = min(switch.design.congested_ports, (n_ports - 1) // 2)
    receivers, senders = list(range(congested)), list(range(congested, n_ports))
    rtt = entry.rtt_s.value
    forward = 2 * config.ports[0].cable_delay_s
    flows = [FlowSpec("dctcp", senders[(r * flows_per_port + i) % len(senders)], r, entry.important_dscp[0], all_important=True,
                      ack_delay_s=max(rtt - forward, forward), start_s=rtt * i / flows_per_port)
             for r in receivers for i in range(flows_per_port)]
    rate_pps = config.ports[0].speed_bps / 8.0 / PACKET_BYTES
    flows += [FlowSpec("cbr", s, r, entry.dscp[0], ect=True, rate_pps=BACKGROUND_LOAD * rate_pps / len(senders))
              for s in senders for r in receivers]
    # receive_window_packets = 2 caps every window at one packet: one important packet in flight.
    return simulate(config, tuple(flows), RunSpec(duration_s=5e-3, receive_window_packets=2, host_queue_packets=64))


def _model(switch: CompiledSwitch) -> tuple[float, int, float]:
    """(important footprint in bytes, model flows per port, flows per port 'well beyond')."""
    config = switch.config
    entry = next(c for c in switch.ir.classes if c.important_dscp)
    normal = classify(config, len(config.ports) - 1, entry.dscp[0], 0)
    queue = config.ports[0].queues[normal.queue]
    profile = config.profile(queue.buffer_profile or "")
    wred = next(w for w in config.wreds if w.object_id == queue.wred)
    threshold = wred.drop[normal.color].min_bytes
    footprint = math.ceil(PACKET_BYTES / config.asic.cell_bytes) * config.asic.cell_bytes
    congested = min(switch.design.congested_ports, (len(config.ports) - 1) // 2)
    model = tlt_headroom(config.pool(profile.pool or "").size_bytes, profile.alpha, congested, threshold, footprint)
    drain_s = model.per_port_share_bytes * 8.0 / config.ports[0].speed_bps
    queued_fraction = drain_s / (drain_s + entry.rtt_s.value)
    beyond = MARGIN * model.per_port_share_bytes / footprint / queued_fraction
    return footprint, int(model.flows_per_port), beyond


@pytest.mark.parametrize("example", ["tlt-softswitch"])
def test_no_important_drops_at_the_model_capacity(example: str, load_example: Callable[[str], CompiledSwitch]) -> None:
    switch = load_example(example)
    _, capacity, _ = _model(switch)
    result = _run(switch, capacity)
    assert result.counters["important_sent"] > 0
    assert result.drops_by_color[:, :, 2].sum() > 0, "the unimportant (red) traffic was held at K"
    assert result.counters["important_drops"] == 0


@pytest.mark.parametrize("example", ["tlt-softswitch"])
def test_important_drops_well_beyond_the_model_capacity(example: str, load_example: Callable[[str], CompiledSwitch]) -> None:
    switch = load_example(example)
    _, capacity, beyond = _model(switch)
    assert beyond > 2 * capacity
    result = _run(switch, math.ceil(beyond))
    assert result.counters["important_drops"] > 0
