"""SACK loss recovery (RFC 2018, RFC 6675) with RACK-TLP (RFC 8985) on scripted losses, and the
bounded scoreboard's bookkeeping against a set of sequence numbers.

The losses are made by the switch: a 100G sender bursts its initial window into a 10G port whose
queue holds ``limit`` packets, so the burst's last packets are dropped and nothing else is (the
runs check it). The minimum RTO is Linux's 200 ms, so a repair in microseconds is no timeout."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.engine.sack import next_lost, pipe, sack_merge, sacked_between
from qosforge.softswitch.simulation import SegmentedRun
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec, TransportParams

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import make_switch

CELL_PACKET = 1664  # a 1500-byte packet in the softswitch profile's 208-byte cells
STEP_S = 10e-6


def _burst(limit_packets: int, size: int, *, sack: bool = True) -> tuple[SegmentedRun, float | None]:
    """A flow of ``size`` segments, all in its initial window, from a 100G host into a 10G port
    whose queue holds ``limit_packets``; returns the run and when the sender saw the last ACK."""
    switch = make_switch(ports=2, dynamic_th=None, static_th_bytes=limit_packets * CELL_PACKET)
    switch = replace(switch, ports=(replace(switch.ports[0], speed_bps=100e9), switch.ports[1]))
    flow = FlowSpec(kind="newreno", src_port=0, dst_port=1, dscp=0, size_packets=size, ack_delay_s=50e-6)
    run = RunSpec(duration_s=0.05, transport=TransportParams(initial_window=12, rto_min_s=0.2, sack=sack))
    segmented = SegmentedRun((switch,), single_switch(2), (flow,), run)
    for step in range(1, 5000):
        segmented.advance(step * STEP_S)
        if segmented.world[L.W_FLI][0, L.FL_DONE] == 1:
            return segmented, step * STEP_S
    return segmented, None


def test_a_single_loss_is_repaired_by_sack_fast_retransmit_in_about_one_rtt() -> None:
    clean, clean_done = _burst(10, 11)
    lossy, lossy_done = _burst(8, 11)
    assert clean.world[L.W_CNT][L.C_DROP] == 0 and clean_done is not None
    cnt = lossy.world[L.W_CNT]
    # Segment 9 of 0..10 is dropped and segment 10 arrives: one duplicate ACK, which NewReno
    # cannot act on (it waits for three); its SACK block and RACK's reordering window can.
    assert cnt[L.C_DROP] == 1
    assert lossy_done is not None, "the loss was not repaired within 50 ms"
    assert cnt[L.C_FAST_RETX] == 1 and cnt[L.C_TIMEOUTS] == 0
    min_rtt = lossy.world[L.W_FLF][0, L.FF_MIN_RTT]
    assert lossy_done - clean_done <= 1.5 * min_rtt + 2 * STEP_S


def test_newreno_without_sack_needs_the_timeout_for_the_same_loss() -> None:
    run, done = _burst(8, 11, sack=False)
    assert run.world[L.W_CNT][L.C_DROP] == 1 and done is None


def test_a_tail_loss_is_repaired_by_the_loss_probe_not_the_timeout() -> None:
    clean, clean_done = _burst(10, 10)
    lossy, lossy_done = _burst(7, 10)
    cnt = lossy.world[L.W_CNT]
    # The last two segments are dropped: nothing after them makes an ACK, so only a probe
    # (2 SRTT after the last ACK, RFC 8985 §7.2) or the RTO can find them.
    assert cnt[L.C_DROP] == 2 and clean.world[L.W_CNT][L.C_DROP] == 0 and clean_done is not None
    assert lossy_done is not None, "the tail was not repaired within 50 ms"
    assert cnt[L.C_TIMEOUTS] == 0 and cnt[L.C_FAST_RETX] == 1
    min_rtt = lossy.world[L.W_FLF][0, L.FF_MIN_RTT]
    assert lossy_done - clean_done <= 6 * min_rtt


def _scoreboard(una: int, nxt: int) -> tuple[np.ndarray, ...]:
    fli = np.zeros((1, L.FL_COLS), dtype=np.int64)
    fli[0, L.FL_SNDUNA], fli[0, L.FL_SNDNXT] = una, nxt
    fli[0, L.FL_HIGH_RXT], fli[0, L.FL_LOST_BELOW] = una, una
    world = [np.zeros(1)] * L.W_LEN
    world[L.W_FLI] = fli
    return tuple(world)


@settings(deadline=None, max_examples=200)  # the first call compiles the engine functions
@given(st.lists(st.tuples(st.integers(1, 60), st.integers(1, 6)), max_size=8), st.integers(0, 70))
def test_the_scoreboard_is_the_set_of_sacked_segments_up_to_its_bound(blocks: list[tuple[int, int]], lost_below: int) -> None:
    world = _scoreboard(0, 70)
    fli = world[L.W_FLI]
    reported: set[int] = set()
    bound_reached = False
    for start, length in blocks:
        sack_merge(world, 0, start, start + length)
        reported |= set(range(start, start + length))
        bound_reached |= fli[0, L.FL_SB_N] == L.SACK_BLOCKS
    held = {s for i in range(fli[0, L.FL_SB_N]) for s in range(fli[0, L.FL_SB_START + i], fli[0, L.FL_SB_END + i])}
    # It holds only what was reported, all of it below its bound; beyond the bound it forgets
    # the highest block, never the lowest (where the repair goes next).
    assert held <= reported and fli[0, L.FL_SB_N] <= L.SACK_BLOCKS
    if not bound_reached:
        assert held == reported
    if reported:
        assert min(reported) in held
    assert sacked_between(world, 0, 0, 70) == len(held)
    fli[0, L.FL_LOST_BELOW] = lost_below
    lost = [s for s in range(min(lost_below, 70)) if s not in held]
    assert next_lost(world, 0) == (lost[0] if lost else -1)
    assert pipe(world, 0) == 70 - len(held) - len(lost)


def _lost_retransmission(burst_at_s: float | None, step_s: float = 1e-6
                         ) -> tuple[SegmentedRun, float | None, float]:
    """The single loss of test_a_single_loss... (11 segments into a queue of 8: segment 9 is
    dropped) in a 40-segment flow; a second 100G host (port 2) sends a burst of 12 packets
    into the same queue from ``burst_at_s``, so that the queue is full when the fast
    retransmission arrives and drops it too. Returns the run, when the flow finished (None: not
    within 50 ms) and when the first fast retransmission was sent."""
    switch = make_switch(ports=3, dynamic_th=None, static_th_bytes=8 * CELL_PACKET)
    fast = (replace(switch.ports[0], speed_bps=100e9), switch.ports[1],
            replace(switch.ports[2], speed_bps=100e9))
    switch = replace(switch, ports=fast)
    flows = [FlowSpec(kind="newreno", src_port=0, dst_port=1, dscp=0, size_packets=40,
                      ack_delay_s=50e-6)]
    if burst_at_s is not None:
        flows.append(FlowSpec(kind="cbr", src_port=2, dst_port=1, dscp=0, size_packets=12,
                              start_s=burst_at_s, rate_pps=100e9 / 8 / 1538, ect=False))
    run = RunSpec(duration_s=0.05, transport=TransportParams(initial_window=11, rto_min_s=0.2))
    segmented = SegmentedRun((switch,), single_switch(3), tuple(flows), run)
    first_rtx = -1.0
    for step in range(1, int(0.05 / step_s) + 1):
        segmented.advance(step * step_s)
        world = segmented.world
        if first_rtx < 0 and world[L.W_CNT][L.C_FAST_RETX] >= 1:
            first_rtx = float(world[L.W_FLF][0, L.FF_RTX_TIME])
        if world[L.W_FLI][0, L.FL_DONE] == 1:
            return segmented, step * step_s, first_rtx
    return segmented, None, first_rtx


def test_a_lost_retransmission_is_found_by_rack_not_the_timeout() -> None:
    """RFC 8985 §6.2: RACK applies to retransmissions too. Once a segment sent after the
    retransmission is SACKed, the retransmission is lost and is sent again at once; without
    that rule only the retransmission timer (200 ms here) repairs it."""
    alone, alone_done, rtx_at = _lost_retransmission(None)
    assert alone_done is not None and rtx_at > 0 and alone.world[L.W_CNT][L.C_TIMEOUTS] == 0
    run, done, _ = _lost_retransmission(rtx_at - 1e-6)
    fli = run.world[L.W_FLI]
    # The burst's packets fill the queue as the retransmission arrives: it is dropped too.
    assert fli[0, L.FL_DROPPED_M] >= 2 and fli[0, L.FL_RESENT_M] >= 2
    assert done is not None, "the lost retransmission waited for the retransmission timer"
    assert run.world[L.W_CNT][L.C_TIMEOUTS] == 0
    assert done - alone_done <= 1e-3
