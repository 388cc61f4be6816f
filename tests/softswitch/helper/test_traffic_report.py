"""User traffic on one switch and on a fabric, checked against physics and against the engine's
own counters: a shared bottleneck sums to its line rate times the payload share of each packet,
FCTs are never faster than the wire, every packet sent is delivered or dropped, the queue time
series averages to the reported mean, and PFC pauses in the timeline are those the counters saw."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from qosforge.models.ethernet import payload_rate_bound_bps, wire_bytes
from qosforge.softswitch.helper.fabric import Fabric, compile_fabric, fabric_from_switches
from qosforge.softswitch.helper.traffic_report import (
    Window,
    flows_json,
    groups_json,
    ports_json,
    run_user_traffic,
)
from qosforge.softswitch.helper.user_traffic import user_traffic
from qosforge.softswitch.traffic.spec import HEADER_BYTES, INITIAL_WINDOW, PauseSpec
from qosforge.softswitch.traffic.traffic_file import TrafficFile, load_traffic

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SMALL = Path(__file__).resolve().parents[2] / "validation" / "fabrics" / "lossless-watchdog.yaml"
HEAD = "apiVersion: qosforge/v1\nkind: Traffic\nflows:\n"


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    """3 leaves x 2 hosts, 2 spines, 40G everywhere, 1 us per link; classes rdma (DCQCN,
    lossless, DSCP 26) and tcp (DCTCP, DSCP 0 and 10)."""
    return compile_fabric(SMALL, ())


@pytest.fixture(scope="module")
def one_switch() -> Fabric:
    """TLT §4.2's ToR alone: 32 hosts at 40G, DCTCP (class bulk)."""
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.compiler.topology import resolve_topology
    from qosforge.softswitch.helper.compiled import declared_classes, design_point
    from qosforge.softswitch.helper.fabric import intent_link_latencies_s

    path = EXAMPLES / "tlt-softswitch.yaml"
    intent, source_map = load_intent(path)
    switches = compile_intent(intent, source_map, targets=("sai",)).for_target("sai")
    return fabric_from_switches(tuple(switches), design=design_point(intent), declared_classes=declared_classes(intent),
                                link_latencies_s=intent_link_latencies_s(resolve_topology(intent, source_map)))


def _traffic(tmp_path: Path, entries: str) -> TrafficFile:
    path = tmp_path / "traffic.yaml"
    path.write_text(HEAD + entries)
    return load_traffic(path)


@pytest.mark.parametrize(("which", "entries", "count"), [
    ("fabric", "  - {group: in, src: [leaf1:Ethernet0, leaf2:Ethernet0], dst: leaf3:Ethernet0, class: tcp}\n", 2),
    ("one_switch", "  - {group: in, src: \"tor1:Ethernet[4-16/4]\", dst: tor1:Ethernet0, class: bulk}\n", 4),
])
def test_long_lived_flows_share_one_bottleneck_at_its_line_rate(which: str, entries: str, count: int, tmp_path: Path,
                                                                request: pytest.FixtureRequest) -> None:
    """Symmetric long-lived DCTCP flows into one 40G host port (one switch: 4 senders; the fabric:
    one sender on each of two leaves, each alone on its leaf's uplinks): their payload throughputs
    sum to the line rate times the payload share of a 1500 B packet's line time (1448/1538:
    IPv4 + TCP with timestamps, 52 B, in a 1518 B frame with preamble/SFD and gap, IEEE 802.3),
    within 2 % (DCTCP keeps the queue from running dry, DCTCP §3.4), and split
    evenly (Jain ≥ 0.99). (Two senders behind one leaf's uplinks are not symmetric: their bursts
    meet and are marked there too, so a seed's ECMP choice can give them less.)"""
    fabric: Fabric = request.getfixturevalue(which)
    traffic = user_traffic(fabric, _traffic(tmp_path, entries), seed=1)
    assert len(traffic.flows) == count
    window = Window(5e-3, 15e-3, 50e-6)
    sampled = run_user_traffic(fabric, traffic, window, seed=1)
    flows = flows_json(traffic, sampled, window)
    line_rate_bps = payload_rate_bound_bps(40e9, 1500, HEADER_BYTES["dctcp"])
    total = sum(float(f["throughput_bps"]) for f in flows)  # type: ignore[arg-type]
    assert 0.98 * line_rate_bps <= total <= line_rate_bps * (1 + 1e-3)
    (group,) = groups_json(flows)
    assert group["flows"] == count and group["total_throughput_bps"] == pytest.approx(total)
    assert float(group["jain_index"]) >= 0.99  # type: ignore[arg-type]
    assert float(group["min_throughput_bps"]) <= float(group["mean_throughput_bps"]) <= float(group["max_throughput_bps"])  # type: ignore[arg-type]
    # The per-flow payload adds up to the engine's own delivered-payload counter.
    assert sum(int(f["bytes_delivered"]) for f in flows) == sampled.result.counters["delivered_payload_bytes"]  # type: ignore[call-overload]


def test_fct_is_never_faster_than_the_wire(fabric: Fabric, tmp_path: Path) -> None:
    """A flow that fits in the initial window arrives one serialisation per link plus the path's
    latency after it starts (FCT ≥ and within one packet time of it); a 1 MB flow needs at least
    its bytes at line rate plus a base RTT (it waits for ACKs beyond its initial window)."""
    from qosforge.compiler.loader import load_intent
    from qosforge.compiler.topology import resolve_topology

    traffic = user_traffic(fabric, _traffic(tmp_path, "  - {src: leaf1:Ethernet0, dst: leaf3:Ethernet0, class: tcp, size: 100B}\n"
                                                      "  - {src: leaf1:Ethernet4, dst: leaf3:Ethernet4, class: tcp, size: 1MB}\n"), seed=1)
    window = Window(0.0, 2e-3, 100e-6)
    flows = flows_json(traffic, run_user_traffic(fabric, traffic, window, seed=1), window)
    topology = resolve_topology(*load_intent(SMALL))
    one_way_s = sum(topology.path_link_latencies_s)
    small_bits = wire_bytes(HEADER_BYTES["dctcp"] + 100) * 8.0  # its frame's line time on each link
    small_floor = one_way_s + sum(small_bits / speed for speed in topology.path_link_speeds_bps)
    assert small_floor <= float(flows[0]["fct_s"]) < small_floor + small_bits / 40e9  # type: ignore[arg-type]
    assert flows[0]["bytes_delivered"] == 100
    packets = -(-1_000_000 // (1500 - HEADER_BYTES["dctcp"]))
    assert packets > INITIAL_WINDOW
    base_rtt_s = 2 * one_way_s
    assert float(flows[1]["fct_s"]) >= packets * 1500 * 8 / 40e9 + base_rtt_s  # type: ignore[arg-type]
    assert flows[1]["bytes_delivered"] == 1_000_000


def test_every_packet_sent_is_delivered_or_dropped_on_a_lossy_class(fabric: Fabric, tmp_path: Path) -> None:
    """Loss-based TCP (NewReno, no ECN) incast of 2 MB flows overflows the receiver's queue: each
    flow's packets sent = packets arriving + packets dropped (none left in flight long after the
    last finished), its payload delivered is exactly its size, every retransmission is one of the
    packets beyond its size, and the flows' drops are the switches' drop counter."""
    traffic = user_traffic(fabric, _traffic(tmp_path, "  - {src: [leaf1, leaf2], dst: leaf3:Ethernet0, class: tcp, transport: tcp, size: 2MB, count: 3}\n"), seed=1)
    window = Window(0.0, 30e-3, 1e-3)
    sampled = run_user_traffic(fabric, traffic, window, seed=1)
    flows = flows_json(traffic, sampled, window)
    packets = -(-2_000_000 // (1500 - HEADER_BYTES["newreno"]))
    dropped = 0
    for flow in flows:
        assert flow["fct_s"] is not None and flow["bytes_delivered"] == 2_000_000
        assert flow["packets_sent"] == int(flow["packets_arrived"]) + int(flow["packets_dropped"])  # type: ignore[call-overload]
        assert flow["packets_sent"] == packets + int(flow["retransmissions"])  # type: ignore[call-overload]
        dropped += int(flow["packets_dropped"])  # type: ignore[call-overload]
    assert dropped > 0, "the incast must overflow for this test to mean anything"
    assert dropped == sampled.result.counters["drops"]
    assert sum(int(f["retransmissions"]) for f in flows) >= dropped  # type: ignore[call-overload]


def test_the_time_series_averages_to_the_reported_queue(fabric: Fabric, tmp_path: Path) -> None:
    traffic = user_traffic(fabric, _traffic(tmp_path, "  - {src: [leaf1, leaf2], dst: leaf3:Ethernet0, class: tcp, start_window: 200us}\n"), seed=1)
    window = Window(1e-3, 4e-3, 20e-6)
    sampled = run_user_traffic(fabric, traffic, window, seed=1)
    ports = ports_json(fabric, traffic, sampled)
    series = sampled.series
    assert series.time_s[0] == pytest.approx(window.start_s) and series.time_s[-1] <= window.end_s
    assert len(series.time_s) == round(window.length_s / window.sample_s) + 1 or len(series.time_s) == round(window.length_s / window.sample_s)
    assert np.allclose(np.diff(series.time_s), window.sample_s)
    busiest = max(range(len(ports)), key=lambda m: float(ports[m]["mean_queue_bytes"]))  # type: ignore[arg-type]
    assert (ports[busiest]["switch"], ports[busiest]["port"]) == ("leaf3", "Ethernet0")
    assert float(ports[busiest]["mean_queue_bytes"]) > 10_000  # type: ignore[arg-type]
    for m, port in enumerate(ports):
        assert port["samples"] == len(series.time_s)
        assert float(series.queue_bytes[:, m].mean()) == pytest.approx(port["mean_queue_bytes"], rel=1e-9, abs=1e-9)
        assert float(series.queue_packets[:, m].mean()) == pytest.approx(port["mean_queue_packets"], rel=1e-9, abs=1e-9)
        assert float(series.queue_packets[:, m].max()) == port["max_queue_packets"]
        assert float(series.queue_bytes[:, m].max()) == port["max_queue_bytes"]
        assert port["mean_queue_delay_s"] == pytest.approx(float(port["mean_queue_bytes"]) * 8 / 40e9)  # type: ignore[arg-type]


def test_a_run_without_a_time_series_reports_the_same_numbers(fabric: Fabric, tmp_path: Path) -> None:
    """``series=False`` (no --timeseries, no --plot) runs in one go instead of one event-core
    call per sample: every flow, group and port figure is the stepped run's, and no series is kept."""
    traffic = user_traffic(fabric, _traffic(tmp_path, "  - {src: [leaf1, leaf2], dst: leaf3:Ethernet0, class: tcp, start_window: 200us}\n"
                                                      "  - {src: leaf3:Ethernet4, dst: leaf1:Ethernet4, class: rdma, size: 300kB}\n"), seed=1)
    window = Window(1e-3, 3e-3, 20e-6)
    stepped = run_user_traffic(fabric, traffic, window, seed=1)
    at_once = run_user_traffic(fabric, traffic, window, seed=1, series=False)
    assert at_once.series.time_s.size == 0 and at_once.series.queue_bytes.shape == (0, len(traffic.monitors))
    assert stepped.series.time_s.size > 50
    stepped_flows, at_once_flows = flows_json(traffic, stepped, window), flows_json(traffic, at_once, window)
    assert at_once_flows == stepped_flows
    assert groups_json(at_once_flows) == groups_json(stepped_flows)
    ports = ports_json(fabric, traffic, at_once)
    assert ports == ports_json(fabric, traffic, stepped)
    assert max(float(port["max_queue_bytes"]) for port in ports) > 10_000  # type: ignore[arg-type]
    assert at_once.result.packet_events == stepped.result.packet_events


def test_a_stall_shows_in_the_pause_timeline_as_the_pfc_counters_saw_it(fabric: Fabric, tmp_path: Path, saved_figures: Any) -> None:
    """The receiver's NIC pauses the lossless class on its edge port from 1.0 ms to 1.5 ms (XOFF,
    XON, as the pause-storm scenario injects it): the timeline shows exactly those 0.5 ms on that
    port — whole sample intervals inside, none outside — and on every port the paused seconds of
    the timeline add up to the engine's PFC seconds received."""
    traffic = user_traffic(fabric, _traffic(tmp_path, "  - {src: [leaf1, leaf2], dst: leaf3:Ethernet0, class: rdma}\n"), seed=1)
    receiver = fabric.host_ports[4]
    assert str(fabric.port_ref(receiver)) == "leaf3:Ethernet0"
    rdma = next(c for c in fabric.switches[0].ir.classes if c.name == "rdma")
    priority = 1 << rdma.traffic_class
    stall = (1.0e-3, 1.5e-3)
    pauses = (PauseSpec(stall[0], receiver, priority, True), PauseSpec(stall[1], receiver, priority, False))
    window = Window(0.5e-3, 2.5e-3, 25e-6)
    sampled = run_user_traffic(fabric, traffic, window, seed=1, pauses=pauses)
    ports = ports_json(fabric, traffic, sampled)
    series = sampled.series
    m = next(i for i, p in enumerate(ports) if (p["switch"], p["port"]) == ("leaf3", "Ethernet0"))
    assert float(series.paused_s[:, m].sum()) == pytest.approx(stall[1] - stall[0], rel=1e-9)
    assert ports[m]["paused_s"] == pytest.approx(stall[1] - stall[0], rel=1e-9)
    # The PAUSE takes effect a wire delay and the peer's response time after it is sent, so the
    # stall's edges fall within the sample intervals after 1.0 ms and after 1.5 ms.
    half = window.sample_s / 2
    inside = (series.time_s > stall[0] + window.sample_s + half) & (series.time_s < stall[1] + half)
    outside = (series.time_s < stall[0] + half) | (series.time_s > stall[1] + window.sample_s + half)
    assert np.allclose(series.paused_s[inside, m], window.sample_s)
    assert not series.paused_s[outside, m].any()
    # The stall backs the queue up: its deepest sample after DCQCN's start-up queue has drained
    # (by 0.6 ms: both senders start at line rate) is inside the stall.
    settled = series.time_s > 0.75e-3
    deepest = int(np.argmax(series.queue_bytes[settled, m]))
    assert stall[0] < float(series.time_s[settled][deepest]) <= stall[1] + window.sample_s
    assert float(series.queue_bytes[settled, m].max()) > 0
    assert sampled.result.pfc_seconds is not None
    leftover_s = window.end_s - float(series.time_s[-1])
    for index, port in enumerate(ports):
        assert float(series.paused_s[:, index].sum()) <= float(port["paused_s"]) + 1e-12  # type: ignore[arg-type]
        assert float(port["paused_s"]) - float(series.paused_s[:, index].sum()) <= leftover_s + 1e-12  # type: ignore[arg-type]
    # The picture: the queues and the pause timeline, readable (tests/cli/test_plots_readable.py's checks).
    from qosforge.cli.simulate_plots import plot_traffic

    plot_traffic(tmp_path / "stall.png", {"ports": ports, "sample_s": window.sample_s}, series, "stall")
    saved_figures.assert_readable()
    queues, timeline = saved_figures.only().axes
    assert queues.get_lines()
    assert [label.get_text() for label in timeline.get_yticklabels()] == ["leaf3:Ethernet0"]
