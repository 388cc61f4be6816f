"""The window receivers and senders against Linux's and the RFCs' behaviour on scripted cases:
delayed ACKs (RFC 1122 §4.2.3.2, Linux __tcp_ack_snd_check), DCTCP's delayed-ACK ECN-Echo
rule (RFC 8257 §3.2), its whole-packet window (Linux tcp_cong_avoid_ai, dctcp_ssthresh) and
Linux's order of alpha's update and the cut on one ACK (tcp_ack)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.engine.window import _dctcp_ssthresh, _linux_reno_increase, _window_on_ack
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


def _window_world(cwnd: float, ssthresh: float) -> tuple[np.ndarray, ...]:
    """The arrays a DCTCP sender's window update reads, for one flow."""
    world = [np.zeros(1)] * L.W_LEN
    world[L.W_FLI] = np.zeros((1, L.FL_COLS), dtype=np.int64)
    world[L.W_FLI][0, L.FL_KIND] = L.K_DCTCP
    world[L.W_FLF] = np.zeros((1, L.FL_F_COLS))
    world[L.W_FLF][0, L.FF_CWND], world[L.W_FLF][0, L.FF_SSTHRESH] = cwnd, ssthresh
    world[L.W_PRMI] = np.full(L.PRI_COLS, 1 << 20, dtype=np.int64)
    return tuple(world)


def test_dctcp_grows_one_whole_packet_per_window_of_acked_segments() -> None:
    # Linux tcp_cong_avoid_ai: snd_cwnd_cnt counts segments ACKed; cwnd + 1 after cwnd of them.
    world = _window_world(10.0, 5.0)
    for _ in range(4):
        _linux_reno_increase(world, 0, 2)
        assert world[L.W_FLF][0, L.FF_CWND] == 10.0
    _linux_reno_increase(world, 0, 2)
    assert world[L.W_FLF][0, L.FF_CWND] == 11.0 and world[L.W_FLI][0, L.FL_CWND_CNT] == 0
    # Slow start stops at ssthresh; the rest of the ACKed segments count toward avoidance
    # (tcp_slow_start returns them to tcp_reno_cong_avoid).
    world = _window_world(8.0, 9.0)
    _linux_reno_increase(world, 0, 3)
    assert world[L.W_FLF][0, L.FF_CWND] == 9.0 and world[L.W_FLI][0, L.FL_CWND_CNT] == 2


@settings(deadline=None, max_examples=300)  # the first call compiles the engine function
@given(st.integers(1, 4000), st.floats(0.0, 1.0))
def test_dctcp_ssthresh_is_linux_whole_packet_cut(cwnd: int, alpha: float) -> None:
    ssthresh = _dctcp_ssthresh(float(cwnd) + 0.75, alpha)  # a fraction of a packet is no packet
    alpha_1024 = int(alpha * 1024)
    assert ssthresh == max(cwnd - (cwnd * alpha_1024) // 2048, 2)
    # The cut is rounded down: never below the real-valued cwnd (1 - alpha/2) of whole packets.
    assert ssthresh >= min(cwnd * (1 - alpha_1024 / 2048), float(cwnd)) - 1e-9 or ssthresh == 2


def test_dctcp_windows_stay_whole_packets_under_marking() -> None:
    config, flows, run = dumbbell(DumbbellSpec(flows=4, transport="dctcp", bandwidth_bps=1e9, rtt_s=40e-6,
                                               buffer_bytes=1000 * PKT, ecn_threshold_bytes=100 * PKT,
                                               duration_s=0.05, warmup_s=0.0))
    segmented = SegmentedRun((config,), single_switch(len(config.ports)), flows, run)
    reduced = 0
    for step in range(1, 101):
        segmented.advance(step * 0.5e-3)
        flf = segmented.world[L.W_FLF]
        for f in range(4):
            assert flf[f, L.FF_CWND] == int(flf[f, L.FF_CWND])
            assert flf[f, L.FF_SSTHRESH] == int(flf[f, L.FF_SSTHRESH])
            reduced += int(flf[f, L.FF_SSTHRESH] < 1e12)
    assert segmented.world[L.W_CNT][L.C_MARKS] > 0 and reduced > 0


def _ack_closing_an_observation_window(cwnd: float, alpha: float, marked: int,
                                       acked: int) -> tuple[np.ndarray, ...]:
    """A DCTCP sender outside CWR with ``cwnd`` packets in flight whose observation window
    (DCTCP §3.1, Linux's next_seq) ends at the next ACK; ``marked`` of the ``acked`` segments
    ACKed before it carried ECN-Echo."""
    world = list(_window_world(cwnd, 1e12))
    world[L.W_PRMF] = np.zeros(L.PRM_COLS)
    world[L.W_PRMF][L.PRM_DCTCP_G] = 1.0 / 16  # Linux's dctcp_shift_g = 4
    fli, flf = world[L.W_FLI], world[L.W_FLF]
    fli[0, L.FL_SNDUNA], fli[0, L.FL_SNDNXT] = 100, 100 + int(cwnd)
    fli[0, L.FL_WEND] = 102
    fli[0, L.FL_ACKED_W], fli[0, L.FL_MARKED_W] = acked, marked
    flf[0, L.FF_ALPHA] = alpha
    return tuple(world)


@settings(deadline=None, max_examples=200)  # the first call compiles the engine function
@given(st.integers(10, 2000), st.floats(0.0, 1.0), st.integers(0, 40))
def test_dctcp_cuts_with_the_alpha_the_same_ack_produced(cwnd: int, alpha: float,
                                                        marked: int) -> None:
    """Linux's tcp_ack runs tcp_in_ack_event (dctcp_update_alpha) before tcp_fastretrans_alert
    -> tcp_enter_cwr -> dctcp_ssthresh: an ECN-Echo ACK that closes the observation window cuts
    with the alpha that includes it (ns-3's EnterCwr cuts with the alpha before it)."""
    acked_before = 40
    world = _ack_closing_an_observation_window(float(cwnd), alpha, marked, acked_before)
    fli, flf = world[L.W_FLI], world[L.W_FLF]
    fli[0, L.FL_SNDUNA] = 102  # the ACK: two segments, ECN-Echo
    _window_on_ack(world, 0.0, 0, True, 2, cwnd)
    fraction = (marked + 2) / (acked_before + 2)
    updated = (1 - 1 / 16) * alpha + fraction / 16
    assert flf[0, L.FF_ALPHA] == updated
    assert fli[0, L.FL_CWR] == 1
    assert flf[0, L.FF_SSTHRESH] == max(cwnd - (cwnd * int(updated * 1024)) // 2048, 2)
    # The next observation window starts at snd_nxt, as dctcp_reset sets next_seq.
    assert fli[0, L.FL_WEND] == fli[0, L.FL_SNDNXT] and fli[0, L.FL_ACKED_W] == 0


def test_alpha_first_moves_the_cut_where_alpha_changes_its_whole_packets() -> None:
    # alpha 0 before the ACK, every segment of the window marked: alpha becomes 1/16, and a
    # 100-packet window loses (100 * 64) >> 11 = 3 packets, where the alpha before it cut none.
    world = _ack_closing_an_observation_window(100.0, 0.0, 40, 40)
    world[L.W_FLI][0, L.FL_SNDUNA] = 102
    _window_on_ack(world, 0.0, 0, True, 2, 100)
    assert world[L.W_FLF][0, L.FF_SSTHRESH] == 97.0
