"""Scenario 3: PFC headroom — no lossless drop with the computed headroom at the longest cable,
drops when the headroom is cut by 30 %.

One lossless sender on the port with the longest cable sends at line rate to a receiver whose
host pauses the switch (PFC on the lossless priority) for long enough that the sender's lossless
priority group reaches its limit and sends XOFF; the receiver then resumes, the PG drains and
sends XON; this repeats. Each XOFF is one sample of what the headroom must absorb, in the design's
worst case (models/pfc_headroom.py): the intent's traffic mix (a fraction of minimum-size frames
by count, the rest lossless-MTU frames) at line rate, and the switch busy sending port-MTU frames
back to the sender, so the PFC frame waits for a whole frame; the peer reacts after the IEEE 802.3
Annex 31B pause-quanta time. Only this PG grows while the receiver is paused, so its limit is
steady during an XOFF (with several lossless PGs in one dynamic pool, a PG's limit keeps
shrinking while it is paused — a different question than the headroom's size).

Deterministic criteria (no statistics): zero lossless drops with the program as compiled, with
XOFF sent and headroom used; with every XOFF_TH scaled by 0.7, lossless drops occur.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.helper.compiled import CompiledSwitch
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import FlowSpec, PauseSpec, RunSpec

EXAMPLES = ["roce-pod", "mixed-fabric"]
MIN_FRAME_BYTES = 64  # IEEE 802.3 clause 4.4.2 minFrameSize (models/pfc_headroom.py)
HEADROOM_CUT = 0.7
CYCLES = 3


def _scenario(switch: CompiledSwitch, config: SwitchConfig) -> tuple[tuple[FlowSpec, ...], RunSpec]:
    lossless = next(c for c in switch.ir.classes if c.lossless)
    claimed = {d for c in switch.ir.classes for d in (*c.dscp, *c.important_dscp)}
    lossy_dscp = next(d for d in range(64) if d not in claimed)
    sender = max(range(len(config.ports)), key=lambda i: config.ports[i].cable_m)
    receiver, helper = [i for i in range(len(config.ports)) if i != sender][:2]
    design = switch.design
    small = design.small_packet_fraction
    rate = config.ports[sender].speed_bps / 8.0
    line_pps = rate / (small * MIN_FRAME_BYTES + (1 - small) * design.lossless_mtu_bytes)
    # RoCEv2 is ECT (DCQCN §3); non-ECT packets would meet the enabled green WRED curve SONiC uses.
    flows = [FlowSpec("cbr", sender, receiver, lossless.dscp[0], packet_bytes=int(design.lossless_mtu_bytes), ect=True, rate_pps=(1 - small) * line_pps)]
    if small > 0:
        flows.append(FlowSpec("cbr", sender, receiver, lossless.dscp[0], packet_bytes=MIN_FRAME_BYTES, ect=True, rate_pps=small * line_pps))
    # Keep the switch's egress towards the sender busy with port-MTU frames (lossy class).
    flows.append(FlowSpec("cbr", helper, sender, lossy_dscp, packet_bytes=int(design.port_mtu_bytes), ect=False,
                          rate_pps=config.ports[helper].speed_bps / 8.0 / design.port_mtu_bytes))
    # Pause long enough to fill the PG to its dynamic limit (alpha x free <= the pool's shared size).
    pool = config.pool(config.profile(config.ports[sender].pgs[lossless.priority_group or 0].buffer_profile or "").pool or "")
    period = 1.2 * pool.size_bytes / rate
    priority = 1 << lossless.traffic_class
    pauses = tuple(PauseSpec(k * 2 * period + offset, receiver, priority, on) for k in range(CYCLES) for offset, on in ((0.0, True), (period, False)))
    return tuple(flows), RunSpec(duration_s=2 * period * CYCLES, host_queue_packets=64, pauses=pauses)


@pytest.mark.parametrize("example", EXAMPLES)
def test_computed_headroom_absorbs_in_flight_data(example: str, load_example: Callable[[str], CompiledSwitch]) -> None:
    switch = load_example(example)
    flows, run = _scenario(switch, switch.config)
    result = simulate(switch.config, flows, run)
    assert result.counters["pfc_xoff_sent"] >= 2, "the lossless PG never reached its limit"
    assert result.pg_max_cells[:, :, 1].max() > 0, "no frame ever landed in headroom"
    assert result.counters["lossless_drops"] == 0


@pytest.mark.parametrize("example", EXAMPLES)
def test_headroom_cut_by_30_percent_drops(example: str, load_example: Callable[[str], CompiledSwitch], scaled_program: Callable[..., SwitchConfig]) -> None:
    switch = load_example(example)
    config = scaled_program(switch.program, "SAI_BUFFER_PROFILE_ATTR_XOFF_TH", HEADROOM_CUT, assume=switch.config_assumptions)
    flows, run = _scenario(switch, config)
    result = simulate(config, flows, run)
    assert result.counters["pfc_xoff_sent"] >= 2
    assert result.counters["lossless_drops"] > 0
