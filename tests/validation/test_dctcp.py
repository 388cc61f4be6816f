"""Scenario 4: DCTCP closed loop — the queue oscillates around K as DCTCP's analysis predicts, at
full link utilisation.

N long-lived DCTCP flows (the class's transport, with TLT clocking where the class has TLT) share
one receiver port; the base RTT is the class's RTT. Predictions, DCTCP §3.3 (Alizadeh et al.
2010), in packets with K as the switch sees it (the threshold over the packet's cell footprint) and
the BDP C·RTT: Q_max = K + N (eq. 9); oscillation amplitude A = N·D with
D = (W* + 1)·alpha/2, W* = (C·RTT + K)/N and alpha = sqrt(2/W*) (eqs. 6-8), i.e.
A ≈ sqrt(2·N·(C·RTT + K))/2.

Tolerances (deterministic, seeded): the 99th percentile of the sampled queue lies within
max(3 packets, 15 %) of K + N; the measured amplitude (99th minus 1st percentile of the trace) lies
within a factor 2 of A — the analysis assumes synchronised sawtooth flows, which N desynchronised
flows only approximate; the port's utilisation after the warm-up is at least 99 %.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from qosforge.models.dctcp import dctcp_queue_sawtooth
from qosforge.models.ethernet import wire_bytes
from qosforge.softswitch.compiled import CompiledSwitch
from qosforge.softswitch.engine.build import classify
from qosforge.softswitch.scenarios import incast_flows
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import RunSpec

FLOWS = 10
PACKET_BYTES = 1500
UNMARKED_RED = (
    "the example accepts the named approximation tlt-unmarked-red for SAI (its ASIC has no ECT "
    "thresholds): unimportant (red) packets are dropped at the TLT threshold without ECN marks, so "
    "DCTCP's marking analysis does not apply; strict xfail proves the report's stated loss is real"
)
EXAMPLES = [
    "tlt-softswitch",
    "roce-pod",
    "mixed-fabric",
    pytest.param("tlt-simulation", marks=pytest.mark.xfail(strict=True, reason=UNMARKED_RED)),
    pytest.param("tlt-testbed", marks=pytest.mark.xfail(strict=True, reason=UNMARKED_RED)),
]


def dctcp_prediction(threshold_packets: float, bdp_packets: float, flows: int) -> tuple[float, float]:
    """(Q_max, amplitude) of DCTCP §3.3 eqs. 6-9 (models/dctcp.py)."""
    sawtooth = dctcp_queue_sawtooth(threshold_packets, bdp_packets, flows)
    return sawtooth.max_packets, sawtooth.amplitude_packets


@pytest.mark.parametrize("example", EXAMPLES)
def test_queue_oscillates_around_k_at_full_utilisation(example: str, load_example: Callable[[str], CompiledSwitch]) -> None:
    switch = load_example(example)
    config = switch.config
    entry = next(c for c in switch.ir.classes if c.transport == "dctcp")
    receiver = 0
    classification = classify(config, 1, entry.dscp[0], receiver)
    queue = config.ports[receiver].queues[classification.queue]
    wred = next(w for w in config.wreds if w.object_id == queue.wred)
    mark_curve = wred.ect_mark[classification.color] if config.ect_thresholds_effective else wred.drop[classification.color]
    footprint = math.ceil(PACKET_BYTES / config.asic.cell_bytes) * config.asic.cell_bytes
    threshold = mark_curve.min_bytes / footprint
    rate_bps = config.ports[receiver].speed_bps
    rtt = entry.rtt_s.value
    bdp = rate_bps * rtt / 8.0 / PACKET_BYTES
    forward = 2 * config.ports[receiver].cable_delay_s
    flows = incast_flows(config, receiver=receiver, flows=FLOWS, transport="dctcp", dscp=entry.dscp[0],
                         important_dscp=entry.important_dscp[0] if entry.important_dscp else None,
                         ack_delay_s=max(rtt - forward, forward), start_spread_s=rtt)
    # 2000 RTTs, the second half measured.
    duration = max(2000 * rtt, 20e-3)
    result = simulate(config, flows, RunSpec(duration_s=duration, warmup_s=duration / 2, monitors=((receiver, classification.queue),)))
    depth = result.monitors[0]
    q_max, amplitude = dctcp_prediction(threshold, bdp, FLOWS)
    # Line time: each datagram leaves as a frame with preamble and gap (models/ethernet.py).
    datagram_bytes = result.dequeued_bytes[receiver, classification.queue]
    line_bytes = datagram_bytes * wire_bytes(PACKET_BYTES) / PACKET_BYTES
    utilisation = line_bytes * 8.0 / rate_bps / result.measured_s
    assert utilisation >= 0.99, utilisation
    assert abs(depth.p99_packets - q_max) <= max(3.0, 0.15 * q_max), (depth.p99_packets, q_max)
    measured = float(np.percentile(depth.trace_packets, 99) - np.percentile(depth.trace_packets, 1))
    assert amplitude / 2 <= measured <= 2 * amplitude, (measured, amplitude)
