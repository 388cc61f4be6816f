"""Frames carry their Ethernet framing on every link (models/ethernet.py): no run delivers more
payload than the wire carries, for TCP's 1500 B packets, RoCE's 1024 B MTU and 64 B frames. The
bounds are computed here from IEEE 802.3's frame format, not read from the engine."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from qosforge.softswitch.metrics import summary
from qosforge.softswitch.scenarios import DumbbellSpec, dumbbell
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import HEADER_BYTES, FlowSpec

PREAMBLE_SFD, MAC_HEADER, FCS, GAP, MIN_FRAME = 8, 14, 4, 12, 64  # IEEE 802.3 clauses 3.1.1, 4.4.2


def _payload_bound_gbps(rate_gbps: float, datagram: int, header: int) -> float:
    """The most payload a link carries in back-to-back datagrams, written out from the standard."""
    line_time = max(datagram + MAC_HEADER + FCS, MIN_FRAME) + PREAMBLE_SFD + GAP
    return rate_gbps * (datagram - header) / line_time


def _boundary_gbps(payload: int, measured_s: float) -> float:
    """One packet that began serialising before the warm-up ended counts whole after it."""
    return payload * 8 / measured_s / 1e9


def _dumbbell(**fields: Any) -> tuple[dict[str, Any], float]:
    spec = DumbbellSpec(
        **{
            "flows": 4,
            "bandwidth_bps": 100e9,
            "rtt_s": 10e-6,
            "buffer_bytes": 2000 * 1500,
            "duration_s": 0.004,
            "warmup_s": 0.002,
            **fields,
        }
    )
    config, flows, run = dumbbell(spec)
    return summary(simulate(config, flows, run)), spec.duration_s - spec.warmup_s


def test_four_dctcp_flows_into_100g_carry_at_most_1448_of_every_1538_bytes() -> None:
    report, measured_s = _dumbbell(transport="dctcp", ecn_threshold_bytes=60 * 1500)
    bound = _payload_bound_gbps(100.0, 1500, 52)  # 94.15 Gb/s
    goodput = float(report["goodput_gbps"])
    assert goodput <= bound + _boundary_gbps(1448, measured_s)
    assert goodput >= 0.98 * bound  # and DCTCP does fill the link
    # The L1 rate of a full link is its line rate; the datagrams alone are 1500/1538 of it.
    assert float(report["wire_gbps"]) == pytest.approx(100.0 * goodput / bound, rel=1e-3)
    assert float(report["ip_gbps"]) == pytest.approx(
        float(report["wire_gbps"]) * 1500 / 1538, rel=1e-9
    )
    assert set(report["throughput_basis"]) == {"goodput_gbps", "ip_gbps", "wire_gbps"}


def test_roce_at_a_1024_byte_mtu_stays_under_its_bound() -> None:
    report, measured_s = _dumbbell(
        transport="dcqcn",
        packet_bytes=1024,
        red_min_bytes=5 * 1024,
        red_max_bytes=200 * 1024,
        red_pmax=0.01,
        flows=1,
    )
    header = HEADER_BYTES["dcqcn"]  # IPv4 20 + UDP 8 + BTH 12 + ICRC 4
    bound = _payload_bound_gbps(100.0, 1024, header)  # 100 x 980/1062 = 92.28 Gb/s
    goodput = float(report["goodput_gbps"])
    assert goodput <= bound + _boundary_gbps(1024 - header, measured_s)
    assert goodput >= 0.97 * bound


@pytest.mark.parametrize("datagram", [46, 30])
def test_64_byte_frames_carry_their_small_payload_at_most(datagram: int) -> None:
    # Open-loop senders far above the line rate into one port: the port sends back to back. A
    # 46 B datagram fills a 64 B frame exactly; a 30 B one is padded to it (the same line time).
    spec = DumbbellSpec(
        flows=2,
        transport="dctcp",
        bandwidth_bps=10e9,
        rtt_s=10e-6,
        buffer_bytes=200 * 1500,
        duration_s=0.002,
        warmup_s=0.001,
    )
    config, _, run = dumbbell(spec)
    bottleneck = len(config.ports) - 1
    flows = tuple(
        FlowSpec(
            kind="cbr",
            src_port=p,
            dst_port=bottleneck,
            dscp=0,
            packet_bytes=datagram,
            rate_pps=20e6,
            ect=False,
        )
        for p in range(2)
    )
    report: dict[str, Any] = summary(
        simulate(config, flows, replace(run, monitors=((bottleneck, 0),)))
    )
    header = HEADER_BYTES["cbr"]
    bound = _payload_bound_gbps(10.0, datagram, header)  # 10 x (datagram - 28)/84
    goodput = float(report["goodput_gbps"])
    assert goodput <= bound + _boundary_gbps(datagram - header, 0.001)
    assert goodput >= 0.99 * bound
    assert float(report["wire_gbps"]) == pytest.approx(10.0, rel=0.01)
