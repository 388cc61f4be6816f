"""The flag-configured dumbbell's second group of flows (softswitch/helper/single_switch.py
``flows2``/``rtt2_s``): its flows see their own base round trip, the others theirs, and a second
group that cannot exist is refused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from qosforge.errors import QosforgeError
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.simulation import SegmentedRun

PKT = 1500


def _spec(**overrides: object) -> DumbbellSpec:
    fields: dict[str, object] = dict(
        flows=2, transport="dctcp", bandwidth_bps=10e9, rtt_s=60e-6, buffer_bytes=1000 * PKT,
        ecn_threshold_bytes=65 * PKT, duration_s=0.005, warmup_s=0.0, flows2=1, rtt2_s=300e-6)
    fields.update(overrides)
    return DumbbellSpec(**fields)  # type: ignore[arg-type]


def test_each_group_sees_its_own_base_rtt() -> None:
    config, flows, run = dumbbell(_spec())
    # One short flow per group: the second starts after the first's window has left the
    # switch, so each one's smallest sample has nothing queued ahead of it.
    flows = tuple(replace(flow, size_packets=4) for flow in flows)
    segmented = SegmentedRun((config,), single_switch(len(config.ports)), flows, run)
    segmented.advance(0.005)
    min_rtt = segmented.world[L.W_FLF][:, L.FF_MIN_RTT]
    # The smallest sample is the base RTT plus one frame's serialisation at each of the two
    # data hops (1,538 B at 10G: 1.2 us each) and nothing queued ahead of it.
    serialisation_s = 2 * 1538 * 8 / 10e9
    for flow, base_s in enumerate((60e-6, 300e-6)):
        assert base_s <= min_rtt[flow] <= base_s + serialisation_s + 1e-6, (flow, min_rtt[flow])


@pytest.mark.parametrize("overrides",
                         [dict(flows2=5), dict(rtt2_s=20e-6), dict(flows=20, flows2=2)])
def test_an_impossible_second_group_is_refused(overrides: dict[str, object]) -> None:
    with pytest.raises(QosforgeError, match="second RTT group"):
        dumbbell(_spec(**overrides))
