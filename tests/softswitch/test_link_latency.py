"""A link's latency beyond its wire is spent inside the receiving switch (docs/softswitch.md
"Link model"): the packet is charged to its ingress PG at once (PFC counts it) but joins its
egress queue, and the depth WRED/ECN and the dynamic threshold read, only after it. DCTCP behind
a 1 ms link with a small ECN step then fills the link, and every mark is taken at a depth the
queue really had."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from qosforge.softswitch.metrics import summary
from qosforge.softswitch.scenarios import DumbbellSpec, dumbbell
from qosforge.softswitch.simulation import simulate

PKT = 1500
STEP_PACKETS = (
    20  # K: above BDP/7 (DCTCP, Alizadeh et al. 2010 §3.3) for 1 Gb/s x 1 ms, ~12 packets
)


def test_dctcp_behind_a_1ms_link_with_a_small_step_reaches_line_rate() -> None:
    spec = DumbbellSpec(
        flows=2,
        transport="dctcp",
        bandwidth_bps=1e9,
        rtt_s=10e-6,
        buffer_bytes=1000 * PKT,
        ecn_threshold_bytes=STEP_PACKETS * PKT,
        duration_s=0.3,
        warmup_s=0.1,
    )
    config, flows, run = dumbbell(spec)
    bottleneck = len(config.ports) - 1
    # The senders' links take 1 ms beyond their wire (the intent's link_latency); the
    # receiver's none.
    forwarding = tuple(0.0 if port == bottleneck else 1e-3 for port in range(len(config.ports)))
    result = simulate(config, flows, replace(run, forwarding_delays_s=forwarding))
    report: dict[str, Any] = summary(result)
    bound_gbps = (
        1.0 * (PKT - 52) / (PKT + 38)
    )  # payload per line time of a 1500 B datagram (IEEE 802.3 framing)
    assert float(report["goodput_gbps"]) >= 0.95 * bound_gbps
    assert report["drops"] == 0 and float(report["mark_fraction"]) > 0
    # The marks agree with the queue: it was sampled above K, and no packet was marked at a
    # depth at or below K (the step marks above K only; the bands are K/16 wide).
    assert float(report["queue_max_packets"]) > STEP_PACKETS
    bands = result.monitors[0].bands  # [color, ect, band, (arrivals, marks, drops)]
    marks_by_band = bands[:, :, :, 1].sum(axis=(0, 1))
    assert marks_by_band[:16].sum() == 0 and marks_by_band.sum() > 0
    # The deepest band marked starts no deeper than the queue ever was (its exact maximum).
    deepest_queue_bytes = result.queue_max_cells[bottleneck, 0] * result.cell_bytes
    assert int(np.flatnonzero(marks_by_band)[-1]) * run.band_bytes <= deepest_queue_bytes
