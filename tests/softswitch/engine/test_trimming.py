"""Packet trimming at the switch and the RoCE senders' answer to it, and IRN's selective repeat,
on scripted losses.

The losses are made by the switch: a 100G RoCE sender starts at line rate into a 10G port whose
queue holds ``limit`` packets, so the queue overflows within microseconds and keeps overflowing
until DCQCN slows the sender down. The transport timer is 1 ms, far longer than the 100 us RTT,
so a repair within a few RTTs is no timeout."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from qosforge.softswitch.config import SchedulerConfig, SwitchConfig, TrimmingConfig
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import bdp_packets, single_switch
from qosforge.softswitch.simulation import SegmentedRun
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec, TransportParams

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import make_switch, step_wred

CELL_PACKET = 1664  # a 1500-byte packet in the softswitch profile's 208-byte cells
TRIM_BYTES = 256
TRIM_QUEUE = 7
TRIM_DSCP = 56  # TC 7 in the test switch's DSCP map
STEP_S = 20e-6
FLOW_PACKETS = 300


def _switch(limit_packets: int, *, trim: bool, trim_queue_cells: int = 100_000) -> SwitchConfig:
    switch = make_switch(ports=2, dynamic_th=None, static_th_bytes=limit_packets * CELL_PACKET)
    switch = replace(switch, ports=(replace(switch.ports[0], speed_bps=100e9), switch.ports[1]))
    if not trim:
        return switch
    return _trimming(switch, trim_queue_cells)


def _trimming(switch: SwitchConfig, trim_queue_cells: int) -> SwitchConfig:
    """The switch with its queue profile trimming and the trim queue on a profile of its own."""
    profile = replace(switch.profiles[0], trims=True)
    # The trim queue's own profile (a 256 B header takes two 208 B cells).
    trim_profile = replace(
        profile,
        object_id="buffer_profile:trim",
        trims=False,
        static_th_bytes=trim_queue_cells * 208,
    )
    ports = []
    for port in switch.ports:
        queues = tuple(
            replace(q, buffer_profile=trim_profile.object_id) if q.index == TRIM_QUEUE else q
            for q in port.queues
        )
        ports.append(replace(port, queues=queues))
    trimming = TrimmingConfig(TRIM_BYTES, TRIM_DSCP, TRIM_QUEUE)
    return replace(switch, ports=tuple(ports), profiles=(profile, trim_profile), trimming=trimming)


def _run(switch: SwitchConfig, *, selective_repeat: bool) -> tuple[SegmentedRun, float | None]:
    flow = FlowSpec(
        kind="dcqcn",
        src_port=0,
        dst_port=1,
        dscp=0,
        size_packets=FLOW_PACKETS,
        ack_delay_s=50e-6,
        selective_repeat=selective_repeat,
    )
    run = RunSpec(duration_s=0.05, transport=TransportParams(rto_min_s=1e-3))
    segmented = SegmentedRun((switch,), single_switch(2), (flow,), run)
    for step in range(1, 2500):
        segmented.advance(step * STEP_S)
        if segmented.world[L.W_FLI][0, L.FL_DONE] == 1:
            return segmented, step * STEP_S
    return segmented, None


def test_a_trimmed_packet_is_nacked_and_selective_repeat_resends_it_alone_without_a_timeout() -> (
    None
):
    run, done = _run(_switch(20, trim=True), selective_repeat=True)
    cnt, fli = run.world[L.W_CNT], run.world[L.W_FLI]
    assert done is not None, "the flow did not finish"
    assert cnt[L.C_TRIMMED] > 0 and cnt[L.C_TRIM_DROPS] == 0
    # Every loss was a trim, and each trimmed packet was resent once, on its NACK, not a timeout.
    assert cnt[L.C_DROP] == 0 and cnt[L.C_TIMEOUTS] == 0 and fli[0, L.FL_RTO_M] == 0
    assert fli[0, L.FL_TRIMMED_M] == cnt[L.C_TRIMMED]
    # Each trimmed packet is resent once. When a header waits behind others in the trim queue, a
    # later packet's selective ACK can overtake it and IRN's rule resends the packet first
    # (IRN §3.1); the NACK for the first copy, which arrives after, resends nothing again.
    assert fli[0, L.FL_RESENT_M] == cnt[L.C_TRIMMED]
    # SAI_QUEUE_STAT_TRIM_PACKETS of the receiver's port, the data queue (TC 0).
    assert run.world[L.W_PORTSTAT][1, 0, L.PSC_TRIM] == cnt[L.C_TRIMMED]


def test_without_trimming_the_same_losses_are_drops_and_the_tail_needs_the_timer() -> None:
    run, done = _run(_switch(20, trim=False), selective_repeat=True)
    cnt = run.world[L.W_CNT]
    assert cnt[L.C_TRIMMED] == 0 and cnt[L.C_DROP] > 0
    _, trimmed_done = _run(_switch(20, trim=True), selective_repeat=True)
    assert done is not None and trimmed_done is not None
    assert trimmed_done < done


def test_go_back_n_goes_back_on_a_trim_nack_once_per_round() -> None:
    run, done = _run(_switch(20, trim=True), selective_repeat=False)
    cnt, fli = run.world[L.W_CNT], run.world[L.W_FLI]
    assert done is not None and cnt[L.C_TRIMMED] > 0
    assert cnt[L.C_TIMEOUTS] == 0
    # Go-back-N resends the trimmed packets and what followed them: more than selective repeat.
    sr, _ = _run(_switch(20, trim=True), selective_repeat=True)
    assert fli[0, L.FL_RESENT_M] > sr.world[L.W_FLI][0, L.FL_RESENT_M]


def test_a_header_the_trim_queue_cannot_admit_is_a_trim_drop() -> None:
    run, done = _run(_switch(20, trim=True, trim_queue_cells=4), selective_repeat=True)
    cnt = run.world[L.W_CNT]
    assert cnt[L.C_TRIM_DROPS] > 0
    assert cnt[L.C_TRIM_DROPS] == run.world[L.W_PORTSTAT][1, 0, L.PSC_TRIM_DROPS]
    assert cnt[L.C_DROP] >= cnt[L.C_TRIM_DROPS]
    assert done is not None, (
        "a lost header leaves the loss to the OOO NACKs or the timer, which still repair it"
    )


def test_selective_repeat_resends_only_lost_packets_and_a_loss_is_not_a_reordering() -> None:
    sr, sr_done = _run(_switch(20, trim=False), selective_repeat=True)
    gbn, gbn_done = _run(_switch(20, trim=False), selective_repeat=False)
    assert sr_done is not None and gbn_done is not None
    sr_fli, gbn_fli = sr.world[L.W_FLI], gbn.world[L.W_FLI]
    # One path reorders nothing: the packets after a loss arrive above it in order, and the
    # resend is a retransmission, so neither is out of order (RFC 4737 §3.3).
    assert sr_fli[0, L.FL_OOO_PKTS] == 0 and gbn_fli[0, L.FL_OOO_PKTS] == 0
    assert sr.world[L.W_CNT][L.C_DROP] > 0
    # Selective repeat resends no more than the drops (each lost packet once, barring a lost
    # resend); go-back-N resends what followed each loss as well.
    assert sr_fli[0, L.FL_RESENT_M] <= sr.world[L.W_CNT][L.C_DROP]
    assert gbn_fli[0, L.FL_RESENT_M] > gbn.world[L.W_CNT][L.C_DROP]


def test_bdp_fc_caps_outstanding_packets_at_the_path_bdp() -> None:
    # 100 Gb/s x 2 x 5 us = 125 kB: 84 packets of 1500 B (rounded up); the ring bounds it.
    assert bdp_packets(100e9 / 8, 5e-6, 1500, 2048) == 84
    assert bdp_packets(100e9 / 8, 1.0, 1500, 2048) == 2047
    assert bdp_packets(1e3, 1e-9, 1500, 2048) == 1


def _incast(trim: bool) -> SegmentedRun:
    """64 selective-repeat RoCE flows of 100 packets from 10G hosts into one 10G port whose queue
    holds 100 packets and marks ECN above 20. The class's queue (TC 1) and the trim queue share
    the port by DWRR at one weight, unshaped, as compile plans them (compiler/trimming.py)."""
    dwrr = SchedulerConfig("scheduler:rdma", "DWRR", 1, 0, 0)
    switch = make_switch(
        ports=65,
        dynamic_th=None,
        static_th_bytes=100 * CELL_PACKET,
        wred=step_wred(20 * 1500, 20 * 1500, 1.0, mark=True),
        schedulers=(dwrr,),
        queue_schedulers={1: dwrr.object_id, TRIM_QUEUE: dwrr.object_id},
    )
    if trim:
        switch = _trimming(switch, 100_000)
    flows = tuple(
        FlowSpec(
            kind="dcqcn",
            src_port=i,
            dst_port=64,
            dscp=8,
            size_packets=100,
            ack_delay_s=10e-6,
            selective_repeat=True,
        )
        for i in range(64)
    )
    run = SegmentedRun((switch,), single_switch(65), flows, RunSpec(duration_s=0.2))
    run.advance(0.2)
    return run


def test_an_incast_of_64_flows_with_trimming_has_no_timeout_and_a_lower_fct_p99() -> None:
    trimmed, dropped = _incast(True), _incast(False)
    finish = {
        name: run.world[L.W_FLF][:, L.FF_FINISH]
        for name, run in (("trim", trimmed), ("drop", dropped))
    }
    assert all((f > 0).all() for f in finish.values()), "a flow did not finish"
    assert trimmed.world[L.W_CNT][L.C_TRIMMED] > 0 and trimmed.world[L.W_CNT][L.C_DROP] == 0
    # Without trimming the tail waits for the NIC's timer; with it no flow does: every NACK
    # comes back within the timer, and the senders slow down on it (FastLane §3.1).
    assert dropped.world[L.W_CNT][L.C_DROP] > 0 and dropped.world[L.W_CNT][L.C_TIMEOUTS] > 0
    assert trimmed.world[L.W_CNT][L.C_TIMEOUTS] == 0
    assert (trimmed.world[L.W_FLI][:, L.FL_RTO_M] == 0).all()
    # 6,400 packets of 1,500 B take 7.7 ms at 10G: the last flow cannot finish sooner.
    p99 = {name: np.percentile(f, 99) for name, f in finish.items()}
    assert 7.7e-3 < p99["trim"] < 0.5 * p99["drop"]


def test_a_trim_nack_cuts_the_senders_rate_as_a_cnp_would() -> None:
    # No ECN marking here: the only congestion signal the sender gets is the trim NACK.
    trimmed, _ = _run(_switch(20, trim=True), selective_repeat=True)
    dropped, _ = _run(_switch(20, trim=False), selective_repeat=True)
    flf = {name: run.world[L.W_FLF][0] for name, run in (("trim", trimmed), ("drop", dropped))}
    assert flf["drop"][L.FF_RATE] == flf["drop"][L.FF_LINE]
    assert flf["trim"][L.FF_RATE] < flf["trim"][L.FF_LINE]
