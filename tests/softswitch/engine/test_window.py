"""The window receivers and senders against Linux's and the RFCs' behaviour on scripted cases:
delayed ACKs (RFC 1122 §4.2.3.2, Linux __tcp_ack_snd_check) and DCTCP's delayed-ACK ECN-Echo
rule (RFC 8257 §3.2)."""

from __future__ import annotations

from dataclasses import replace

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.simulation import SegmentedRun
from qosforge.softswitch.traffic.spec import (
    DELAYED_ACK_TIMEOUT_S,
    QUICKACK_SEGMENTS,
    TransportParams,
)

PKT = 1500
RTT_S = 100e-6


def _one_flow(transport: str, size_packets: int, *, rto_min_s: float = 0.2, duration_s: float = 0.1) -> SegmentedRun:
    """One finite flow across an idle 10G dumbbell (RTT 100 us); the minimum RTO is Linux's
    default (200 ms, TCP_RTO_MIN), so no timer fires before a 40 ms delayed ACK."""
    config, flows, run = dumbbell(DumbbellSpec(flows=1, transport=transport, bandwidth_bps=10e9, rtt_s=RTT_S,  # type: ignore[arg-type]
                                               buffer_bytes=1000 * PKT, duration_s=duration_s, warmup_s=0.0))
    flows = (replace(flows[0], size_packets=size_packets),)
    run = replace(run, transport=TransportParams(rto_min_s=rto_min_s))
    return SegmentedRun((config,), single_switch(len(config.ports)), flows, run)


def test_every_second_segment_is_acked_and_a_lone_one_after_the_delayed_ack_timeout() -> None:
    pairs = 10
    size = QUICKACK_SEGMENTS + 2 * pairs + 1
    run = _one_flow("newreno", size)
    run.advance(DELAYED_ACK_TIMEOUT_S - 5e-3)
    fli, cnt = run.world[L.W_FLI], run.world[L.W_CNT]
    # Quick-ack mode ACKs the first 16 segments one by one, then one ACK per two segments; the
    # last segment waits for the timer.
    assert cnt[L.C_ACKS] == QUICKACK_SEGMENTS + pairs
    assert fli[0, L.FL_SNDUNA] == size - 1 and fli[0, L.FL_DONE] == 0
    run.advance(DELAYED_ACK_TIMEOUT_S + 1e-3)
    assert cnt[L.C_ACKS] == QUICKACK_SEGMENTS + pairs + 1
    assert fli[0, L.FL_DONE] == 1 and cnt[L.C_TIMEOUTS] == 0
    # The lone segment's ACK echoes its send time: the RTT sample holds the 40 ms wait.
    assert run.world[L.W_FLF][0, L.FF_SRTT] > 0.1 * DELAYED_ACK_TIMEOUT_S


def test_delayed_acks_can_be_turned_off() -> None:
    config, flows, run = dumbbell(DumbbellSpec(flows=1, transport="newreno", bandwidth_bps=10e9, rtt_s=RTT_S, buffer_bytes=1000 * PKT,
                                               duration_s=0.01, warmup_s=0.0))
    flows = (replace(flows[0], size_packets=41),)
    run = replace(run, transport=TransportParams(delayed_ack_segments=1))
    segmented = SegmentedRun((config,), single_switch(len(config.ports)), flows, run)
    segmented.advance(0.01)
    assert segmented.world[L.W_CNT][L.C_ACKS] == 41
