"""PFC headroom against physics: the bytes that arrive after XOFF, computed by hand, against the
headroom watermark the software switch records (softswitch/helper/headroom_incast.py on
examples/roce-pod.yaml's leaf1: 100G host links on 3 m cables, Spectrum-2 144 B cells, 1024 B
lossless frames, port MTU 9100 B, 8 line-rate lossless senders into Ethernet0).

By hand, at R = 100 Gb/s = 12.5 GB/s, after the frame whose arrival crossed XOFF, every frame
taking its line time: the datagram + MAC header 14 B + FCS 4 B + preamble/SFD 8 B + inter-frame
gap 12 B (IEEE 802.3 clauses 3.1.1, 4.4.2):
- the PFC frame waits for the frame the switch port is sending to the sender (IEEE 802.3
  Clause 31: MAC Control frames do not pre-empt): 0 .. (9100 + 38) B / R = 0 .. 731.04 ns;
- it is serialised, (64 + 20) B / R = 6.72 ns (IEEE 802.3 clause 4.4.2 minFrameSize, plus
  preamble and gap), crosses the cable, 3 m at 5 ns/m = 15 ns (IEEE 802.3 Table 29-3), and the
  sender stops starting frames after 394 pause quanta = 394 x 512 bit / R = 2017.28 ns (IEEE
  802.3 Annex 31B.3.7, 100G);
- the frame it is sending completes, (1024 + 38) B / R = 84.96 ns, and crosses the cable back,
  15 ns.
Frames of 84.96 ns arriving back to back in that span: at most floor(span / 84.96 ns) + 1, plus
the trigger frame itself where it was admitted to headroom, each ceil(1024 / 144) = 8 cells.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from qosforge.softswitch.config import SwitchConfig
from qosforge.softswitch.helper.headroom_incast import HeadroomIncast, headroom_incast
from qosforge.softswitch.metrics import SimulationResult
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import FlowSpec

INTENT = Path(__file__).resolve().parents[2] / "examples" / "roce-pod.yaml"
RATE_BYTES_PER_S = 100e9 / 8
CABLE_S = 3 / 2e8
FRAME_S = (1024 + 38) / RATE_BYTES_PER_S
PFC_FRAME_S = (64 + 20) / RATE_BYTES_PER_S
RESPONSE_S = 394 * 512 / 100e9
PORT_MTU_WAIT_S = (9100 + 38) / RATE_BYTES_PER_S
FRAME_CELL_BYTES = math.ceil(1024 / 144) * 144


def arriving_after_xoff_bytes(wait_s: float) -> int:
    """Upper bound on the buffer bytes a sender's PG receives after XOFF (module docstring)."""
    span_s = wait_s + PFC_FRAME_S + CABLE_S + RESPONSE_S + FRAME_S + CABLE_S
    frames = math.floor(span_s / FRAME_S + 1e-9) + 1 + 1  # + the frame in service, + the trigger frame
    return frames * FRAME_CELL_BYTES


@pytest.fixture(scope="module")
def built() -> HeadroomIncast:
    return headroom_incast(INTENT, "leaf1", "rdma", "Ethernet0", duration_s=2e-3)


def _headroom_watermarks(built: HeadroomIncast, config: SwitchConfig, flows: tuple[FlowSpec, ...]) -> tuple[SimulationResult, list[int]]:
    result = simulate(config, flows, built.run)
    cell = config.asic.cell_bytes
    pg = built.entry.priority_group
    assert pg is not None
    return result, [int(result.pg_max_cells[s, pg, 1] * cell) for s in built.senders]


def test_the_scenario_matches_the_hand_calculation_inputs(built: HeadroomIncast) -> None:
    config = built.compiled.config
    for s in built.senders:
        port = config.ports[s]
        assert port.speed_bps == 100e9 and port.cable_delay_s == pytest.approx(CABLE_S)
    assert config.asic.cell_bytes == 144 and built.lossless_frame_bytes == 1024 and built.reverse_frame_bytes == 9100
    # SONiC's Mellanox plugin for 100G on 3 m (host ports) and 40 m (fabric ports), report.json pfc_headroom
    assert {p.xoff_bytes for p in config.profiles if p.xoff_bytes > 0} == {47104, 53248}


def test_headroom_watermark_is_the_in_flight_bytes_and_fits_the_compiled_xoff(built: HeadroomIncast) -> None:
    config = built.compiled.config
    result, watermarks = _headroom_watermarks(built, config, built.flows)
    assert result.counters["pfc_xoff_sent"] > 100 and result.counters["lossless_drops"] == 0
    bound = arriving_after_xoff_bytes(PORT_MTU_WAIT_S)
    without_wait = arriving_after_xoff_bytes(0.0)
    assert (bound, without_wait) == (40320, 31104)
    # Within the physical bound, and above what arrives without the wait behind a port-MTU frame:
    # the XOFF did queue behind the reverse jumbo frames.
    assert all(without_wait < w <= bound for w in watermarks), watermarks
    assert bound <= 47104  # the compiled xoff holds the worst case: no drop, as measured


def test_without_traffic_towards_the_senders_the_pause_leaves_at_once(built: HeadroomIncast) -> None:
    config = built.compiled.config
    lossless_only = tuple(f for f in built.flows if f.dst_port == built.receiver)
    result, watermarks = _headroom_watermarks(built, config, lossless_only)
    # Drained meanwhile: the receiver serves the 8 PGs in turn, >= 3 of this PG's frames over the span.
    low = (math.floor((PFC_FRAME_S + 2 * CABLE_S + RESPONSE_S) / FRAME_S) - 4) * FRAME_CELL_BYTES
    assert all(low <= w <= arriving_after_xoff_bytes(0.0) for w in watermarks), (low, watermarks)
    assert result.counters["lossless_drops"] == 0


def test_headroom_cut_by_30_percent_drops_at_the_senders_pgs(built: HeadroomIncast) -> None:
    config = built.compiled.config
    cut = replace(config, profiles=tuple(replace(p, xoff_bytes=int(p.xoff_bytes * 0.7)) if p.xoff_bytes > 0 else p for p in config.profiles))
    result, watermarks = _headroom_watermarks(built, cut, built.flows)
    cut_xoff = math.ceil(int(47104 * 0.7) / 144) * 144
    assert cut_xoff < arriving_after_xoff_bytes(PORT_MTU_WAIT_S)
    assert result.counters["lossless_drops"] > 0
    assert all(w <= cut_xoff for w in watermarks)
