"""Each flow's Linux host settings in the engine (its minimum RTO, initial window and ECN
negotiation) and CUBIC's HyStart, on scripted cases.

As in test_sack.py, losses are made by the switch: a 100G sender bursts its initial window into a
10G port whose queue holds ``limit`` packets, so the burst's last packets are dropped."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.engine.cubic import HYSTART_LOW_WINDOW
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.simulation import SegmentedRun
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec, TransportParams

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import make_switch, step_wred

CELL_PACKET = 1664  # a 1500-byte packet in the softswitch profile's 208-byte cells
PKT = 1500


def _tail_loss(
    flow_rto_min_s: float | None, *, step_s: float = 1e-3, end_s: float = 0.5
) -> tuple[SegmentedRun, float | None]:
    """Ten segments in one initial window into a queue of seven: the last two are dropped and
    nothing after them makes an ACK. NewReno without SACK has no loss probe, so only the
    retransmission timer repairs the tail. The run's own minimum RTO is 4 ms; the flow's host
    may set another. Returns the run and when the flow finished (None: not within ``end_s``)."""
    switch = make_switch(ports=2, dynamic_th=None, static_th_bytes=7 * CELL_PACKET)
    switch = replace(switch, ports=(replace(switch.ports[0], speed_bps=100e9), switch.ports[1]))
    flow = FlowSpec(
        kind="newreno",
        src_port=0,
        dst_port=1,
        dscp=0,
        size_packets=10,
        ack_delay_s=50e-6,
        rto_min_s=flow_rto_min_s,
    )
    run = RunSpec(
        duration_s=end_s, transport=TransportParams(initial_window=12, rto_min_s=4e-3, sack=False)
    )
    segmented = SegmentedRun((switch,), single_switch(2), (flow,), run)
    for step in range(1, int(end_s / step_s) + 1):
        segmented.advance(step * step_s)
        if segmented.world[L.W_FLI][0, L.FL_DONE] == 1:
            return segmented, step * step_s
    return segmented, None


def test_linux_s_200_ms_minimum_rto_makes_a_tail_loss_wait_200_ms() -> None:
    """RFC 6298 §2.4 rounds the RTO up to the minimum: with a ~0.1 ms RTT the timer is the
    minimum itself, Linux's TCP_RTO_MIN of 200 ms for this flow's host against the run's 4 ms."""
    datacenter, datacenter_done = _tail_loss(None)
    linux, linux_done = _tail_loss(0.2)
    for run in (datacenter, linux):
        assert run.world[L.W_CNT][L.C_DROP] == 2 and run.world[L.W_CNT][L.C_TIMEOUTS] >= 1
    assert datacenter_done is not None and linux_done is not None
    assert 0.004 <= datacenter_done <= 0.012
    assert 0.200 <= linux_done <= 0.210
    assert linux.world[L.W_FLF][0, L.FF_RTO_MIN] == 0.2


def test_the_initial_window_is_the_flow_s() -> None:
    """A route's initcwnd sets how many segments leave before the first ACK (RFC 6928's IW10 by
    default): the flow with initcwnd 4 has sent 4 segments before its first ACK can be back."""
    switch = make_switch(ports=2)
    flows = (
        FlowSpec(kind="cubic", src_port=0, dst_port=1, dscp=0, ack_delay_s=50e-6, initial_window=4),
        FlowSpec(kind="cubic", src_port=0, dst_port=1, dscp=0, ack_delay_s=50e-6),
    )
    segmented = SegmentedRun((switch,), single_switch(2), flows, RunSpec(duration_s=0.01))
    segmented.advance(20e-6)
    sent = segmented.world[L.W_FLI][:, L.FL_SNDNXT]
    assert list(sent) == [4, 10]


def _marked_cubic(ect: bool) -> SegmentedRun:
    """Four long-lived CUBIC flows through a 10G port whose queue marks ECT packets above 30
    packets and drops others there (WRED with ECN, RFC 3168 §5), with a buffer of 200."""
    wred = step_wred(30 * CELL_PACKET, 30 * CELL_PACKET + 1, 1.0, mark=True)
    switch = make_switch(ports=5, dynamic_th=None, static_th_bytes=200 * CELL_PACKET, wred=wred)
    # DSCP 8 -> TC 1 -> queue 1, the queue with the WRED profile.
    flows = tuple(
        FlowSpec(kind="cubic", src_port=p, dst_port=4, dscp=8, ack_delay_s=20e-6, ect=ect)
        for p in range(4)
    )
    segmented = SegmentedRun((switch,), single_switch(5), flows, RunSpec(duration_s=0.05))
    segmented.advance(0.05)
    return segmented


def test_an_ecn_capable_cubic_class_is_marked_where_a_loss_based_one_is_dropped() -> None:
    """net.ipv4.tcp_ecn = 1 on both ends makes CUBIC's packets ECT (RFC 3168 §6.1.1): the WRED
    queue marks them instead of dropping them, and CUBIC answers the echo with its own reduction
    (RFC 9438 §4.6, beta 0.7) so the queue stays near the marking threshold without loss."""
    loss_based, ecn = _marked_cubic(False), _marked_cubic(True)
    lossy, marked = loss_based.world[L.W_CNT], ecn.world[L.W_CNT]
    assert lossy[L.C_DROP] > 0 and lossy[L.C_MARKS] == 0
    assert marked[L.C_MARKS] > 0 and marked[L.C_DROP] == 0 and marked[L.C_ECN_ACKS] > 0
    assert marked[L.C_TIMEOUTS] == 0
    # Reductions happened: every flow's ssthresh is finite and below the receive window.
    assert all(ecn.world[L.W_FLF][f, L.FF_SSTHRESH] < 2048 for f in range(4))


def _cubic_dumbbell(hystart: bool) -> SegmentedRun:
    """Four CUBIC flows over a 10G bottleneck with a 100 us RTT (BDP 83 packets, 21 per flow)
    and a 1000-packet buffer, 20 ms."""
    config, flows, run = dumbbell(
        DumbbellSpec(flows=4, transport="cubic", bandwidth_bps=10e9, rtt_s=100e-6,  # type: ignore[arg-type]
                     buffer_bytes=1000 * PKT, duration_s=0.02, warmup_s=0.0))
    run = replace(run, transport=replace(run.transport, hystart=hystart))
    segmented = SegmentedRun((config,), single_switch(len(config.ports)), flows, run)
    segmented.advance(0.02)
    return segmented


def test_hystart_ends_slow_start_before_the_buffer_overflows() -> None:
    """Linux's HyStart (tcp_cubic.c hystart_update): a round's ACK train outlasts half the
    smallest RTT once the flow's window fills its share of the path, so slow start ends near
    that share (21 packets) and not at the buffer's end. Without it slow start grows the windows
    until the 1000-packet buffer overflows (ns-3's TcpCubic, HyStart on, drops none on the
    10-flow dumbbell on its own PPP links, bench/ns3_compare.py --stock)."""
    with_hystart, without = _cubic_dumbbell(True), _cubic_dumbbell(False)
    assert without.world[L.W_CNT][L.C_DROP] > 0
    assert with_hystart.world[L.W_CNT][L.C_DROP] == 0
    fli, flf = with_hystart.world[L.W_FLI], with_hystart.world[L.W_FLF]
    assert all(fli[:, L.FL_HS_FOUND] == 1)
    assert all(without.world[L.W_FLI][:, L.FL_HS_FOUND] == L.HYSTART_OFF)
    # Slow start ended at HyStart's low window or above, within a factor of the flow's share.
    assert all(HYSTART_LOW_WINDOW <= flf[:, L.FF_SSTHRESH]) and all(flf[:, L.FF_SSTHRESH] <= 2 * 21)
