"""Scenario 5: TBTCP closed loop with the fitted WRED — the steady queue is beta·n above the
marking start (TBTCP §4.4 Eq. 8, via ``models.tbtcp.tbtcp_steady_state`` on the §6.2 curve).

n long-lived TBTCP flows (QCD with the compiled r, RAI with the compiled beta; TBTCP §4.3, §6.2)
share one receiver port through the class's fitted step RED curve (P_max, t_min = l, t_max). The
model's queue solves beta = w·p(Q) on the ideal curve; the chip's curve is a step function that is
flat across each of its intervals, so the equilibrium can sit anywhere inside the interval whose
value balances RAI — the tolerance is one interval width (t_max - t_min)/steps. Queue depth is
compared the way the switch compares it, in whole cells. Also: no loss, utilisation >= 99 %.
Deterministic (seeded); n = 100 as in TBTCP §7's testbed runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from qosforge.models.ethernet import wire_bytes
from qosforge.models.tbtcp import tbtcp_steady_state
from qosforge.softswitch.compiled import CompiledSwitch, tbtcp_host_settings
from qosforge.softswitch.engine.build import classify
from qosforge.softswitch.scenarios import incast_flows
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import RunSpec

FLOWS = 100
PACKET_BYTES = 1500


def test_steady_queue_is_beta_n_above_the_marking_start(load_example: Callable[[str], CompiledSwitch]) -> None:
    switch = load_example("tbtcp-testbed")
    config = switch.config
    entry = next(c for c in switch.ir.classes if c.transport == "tbtcp")
    beta, window_r = tbtcp_host_settings(entry)
    receiver = 0
    classification = classify(config, 1, entry.dscp[0], receiver)
    queue = config.ports[receiver].queues[classification.queue]
    wred = next(w for w in config.wreds if w.object_id == queue.wred)
    curve = wred.drop[classification.color]
    rate_bps = config.ports[receiver].speed_bps
    rtt = entry.rtt_s.value
    forward = 2 * config.ports[receiver].cable_delay_s
    flows = incast_flows(config, receiver=receiver, flows=FLOWS, transport="tbtcp", dscp=entry.dscp[0],
                         ack_delay_s=max(rtt - forward, forward), start_spread_s=rtt, beta=beta, window_reduction_r=window_r)
    result = simulate(config, flows, RunSpec(duration_s=0.2, warmup_s=0.1, monitors=((receiver, classification.queue),)))
    model = tbtcp_steady_state(rate_bps, rtt, FLOWS, beta, PACKET_BYTES, lso_burst_bytes=curve.min_bytes, window_reduction_r=window_r)
    footprint = math.ceil(PACKET_BYTES / config.asic.cell_bytes) * config.asic.cell_bytes
    measured = result.monitors[0].mean_packets * footprint
    interval = (curve.max_bytes - curve.min_bytes) / config.asic.steps
    assert abs((measured - curve.min_bytes) - (model.queue_bytes - curve.min_bytes)) <= interval, (measured, model.queue_bytes, interval)
    assert result.counters["drops"] == 0 and result.counters["timeouts"] == 0
    # Line time: each datagram leaves as a frame with preamble and gap (models/ethernet.py).
    datagram_bytes = result.dequeued_bytes[receiver, classification.queue]
    line_bytes = datagram_bytes * wire_bytes(PACKET_BYTES) / PACKET_BYTES
    utilisation = line_bytes * 8.0 / rate_bps / result.measured_s
    assert utilisation >= 0.99
