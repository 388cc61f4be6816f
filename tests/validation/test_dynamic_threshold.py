"""Scenario 6: dynamic thresholds — M congested ports each settle at alpha*B/(1+M*alpha).

Open-loop traffic that is not ECN-capable, in the catch-all ``default`` class (no WRED), overloads
M egress ports from the remaining ports (each sender spreads its line rate over the M receivers).
B is the egress pool's shared size as the SAI program configures it (SIZE minus the reserved
buffers, SAI inc/saibuffer.h, in whole cells) and alpha = 2^SHARED_DYNAMIC_TH of the
queue's profile (SAI inc/saibuffer.h). M is the intent's design point where the switch can isolate it: each congested
port must receive more than its line rate from the other ports, and the senders' ingress priority
groups (their own dynamic threshold in the ingress pool) must not bind first — else the largest M
for which both hold (mixed-fabric: at its design M = 8 on a 17-port leaf the lossy ingress PG
limit binds before the egress share, so the scenario runs at the largest M where it does not).

Tolerance (deterministic, not statistical): each port's mean shared occupancy over the last
millisecond lies within max(2 packets, 1 % of the share) of the model — admission is a hard test
on whole packets, a queue overshoots its limit by at most one packet, and the M queues take turns
at the limit, so the free space and with it the limit move by a few packets.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from qosforge.models.dynamic_threshold import dynamic_threshold_share
from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.engine.build import classify
from qosforge.softswitch.helper.compiled import CompiledSwitch
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

PACKET_BYTES = 1500
EXAMPLES = ["tlt-softswitch", "tlt-simulation", "tlt-testbed", "tbtcp-testbed", "roce-pod", "mixed-fabric"]


def _shared_cells(config: SwitchConfig, pool_id: str) -> int:
    """SHARED_SIZE of a pool in cells: SIZE minus headroom pool minus every reserved buffer."""
    pool = config.pool(pool_id)
    cell = config.asic.cell_bytes
    reserved = sum(
        math.ceil(config.profile(item.buffer_profile).reserved_bytes / cell - 1e-9)
        for port in config.ports for item in (*port.queues, *port.pgs)
        if item.buffer_profile is not None and config.profile(item.buffer_profile).pool == pool_id
    )
    return int((pool.size_bytes - pool.xoff_size_bytes) // cell - reserved)


def _ingress_binds(config: SwitchConfig, dscp: int, congested: int) -> bool:
    """Whether the senders' PG limit (alpha_in x free ingress space, SAI inc/saibuffer.h SHARED_DYNAMIC_TH) is below what each
    must hold when the M egress queues sit at their shares."""
    n_ports = len(config.ports)
    classification = classify(config, congested, dscp, 0)
    queue_profile = config.profile(config.ports[0].queues[classification.queue].buffer_profile or "")
    pg_profile_id = config.ports[congested].pgs[classification.pg].buffer_profile
    if pg_profile_id is None:
        return False
    pg_profile = config.profile(pg_profile_id)
    cell = config.asic.cell_bytes
    egress = dynamic_threshold_share(_shared_cells(config, queue_profile.pool or "") * cell, queue_profile.alpha or 1.0, congested)
    held = congested * egress.per_port_share_bytes
    per_sender = held / (n_ports - congested)
    free_ingress = _shared_cells(config, pg_profile.pool or "") * cell - held
    limit = (pg_profile.alpha or 0.0) * free_ingress if pg_profile.alpha is not None else float(pg_profile.static_th_bytes or math.inf)
    return per_sender >= limit


def _isolable_congested_ports(switch: CompiledSwitch, dscp: int) -> int:
    n_ports = len(switch.config.ports)
    for congested in range(min(switch.design.congested_ports, (n_ports - 1) // 2), 0, -1):
        if not _ingress_binds(switch.config, dscp, congested):
            return congested
    raise AssertionError("no M isolates the egress dynamic threshold")


@pytest.mark.parametrize("example", EXAMPLES)
def test_congested_ports_settle_at_the_dynamic_threshold_share(example: str, load_example: Callable[[str], CompiledSwitch]) -> None:
    switch = load_example(example)
    config = switch.config
    claimed = {d for c in switch.ir.classes for d in (*c.dscp, *c.important_dscp)}
    dscp = next(d for d in range(64) if d not in claimed)  # falls into the catch-all class
    congested = _isolable_congested_ports(switch, dscp)
    n_ports = len(config.ports)
    receivers = tuple(range(congested))
    senders = tuple(range(congested, n_ports))
    classification = classify(config, senders[0], dscp, receivers[0])
    queue = classification.queue
    assert config.ports[receivers[0]].queues[queue].wred is None
    profile = config.profile(config.ports[receivers[0]].queues[queue].buffer_profile or "")
    assert profile.alpha is not None, "the default class's queue profile is dynamic"
    cell = config.asic.cell_bytes
    model = dynamic_threshold_share(_shared_cells(config, profile.pool or "") * cell, profile.alpha, congested)
    packet_cells = math.ceil(PACKET_BYTES / cell)
    rate_pps = config.ports[senders[0]].speed_bps / 8 / PACKET_BYTES
    flows = tuple(FlowSpec("cbr", s, r, dscp, packet_bytes=PACKET_BYTES, ect=False, rate_pps=rate_pps / congested, start_s=1e-6 * i)
                  for i, (s, r) in enumerate((s, r) for s in senders for r in receivers))
    excess_bytes_per_s = (len(senders) / congested - 1.0) * rate_pps * PACKET_BYTES
    fill_s = model.per_port_share_bytes / excess_bytes_per_s
    run = RunSpec(duration_s=4 * fill_s + 1e-3, warmup_s=4 * fill_s, monitors=tuple((r, queue) for r in receivers))
    result = simulate(config, flows, run)
    reserved = math.ceil(profile.reserved_bytes / cell - 1e-9)
    for depth in result.monitors:
        shared = depth.mean_packets * packet_cells - reserved
        tolerance = max(2 * packet_cells * cell, 0.01 * model.per_port_share_bytes)
        assert abs(shared * cell - model.per_port_share_bytes) <= tolerance, (example, depth.port, shared * cell, model.per_port_share_bytes)
    assert result.counters["drops"] > 0  # the ports really were held at their limit
