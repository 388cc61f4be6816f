"""Physical PFC headroom model: each term against hand arithmetic, cell rounding, vectorisation,
monotonicity in cable length and speed, and input errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import ModelInputError
from qosforge.models.pfc_headroom import (
    PAUSE_QUANTA_BY_RATE_BPS,
    cell_occupancy,
    pause_quanta_for_rate,
    pfc_headroom,
)
from qosforge.models.sonic_headroom import SonicAsicTable, sonic_headroom

G = 1e9
SPECTRUM_2_CELL = 144.0  # sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2 ASIC_TABLE cell_size
BASE = {
    "cell_bytes": SPECTRUM_2_CELL,
    "port_mtu_bytes": 9100.0,
    "lossless_mtu_bytes": 1024.0,
    "small_packet_fraction": 0.5,
}


def _source(result: Any, name: str) -> str:
    derivation = result.provenance.derivation_of(name)
    assert derivation is not None, name
    return str(derivation.source)


def test_worked_example_100g_40m_term_by_term() -> None:
    result = pfc_headroom(100 * G, 40.0, **BASE)
    # cable: 2*40 m / 2e8 m/s = 400 ns at 100 Gb/s = 40000 bits = 5000 B
    assert result.cable_bytes == pytest.approx(5000.0)
    # Each 9100 B frame takes 9100 + 14 (MAC header) + 4 (FCS) + 8 (preamble/SFD) + 12 (IFG) B of
    # line time, the 64 B PFC frame 64 + 20 (IEEE 802.3 clauses 3.1.1, 4.4.2).
    assert result.frames_in_flight_bytes == 2 * (9100 + 38)
    assert result.pfc_frame_bytes == 64 + 20
    # IEEE 802.3 Annex 31B.3.7: 394 quanta at 100G, 512 bit times each
    assert result.peer_response_bytes == 394 * 512 / 8 == 25216
    assert result.mac_phy_delay_bytes == pytest.approx(819.2)
    assert result.in_flight_bytes == pytest.approx(1024 + 18276 + 84 + 5000 + 25216 + 819.2)
    # 64 B -> 1 cell (144 B); 1024 B -> 8 cells (1152 B): (0.5*144 + 0.5*1152)/(0.5*64 + 0.5*1024)
    assert result.cell_occupancy == pytest.approx(648 / 544)
    # 50419.2 * 648/544 = 60058.6 B -> 418 cells
    assert result.xoff_bytes == 418 * 144 == 60192
    # without the 1024 B trigger frame: 49395.2 * 648/544 = 58838.8 B -> 409 cells
    assert result.xon_bytes == 409 * 144
    assert result.size_bytes == result.xoff_bytes + result.xon_bytes


def test_every_output_has_a_derivation_with_a_source() -> None:
    result = pfc_headroom(100 * G, 40.0, **BASE)
    for name in (
        "cable_bytes",
        "peer_response_bytes",
        "cell_occupancy",
        "xoff_bytes",
        "xon_bytes",
        "size_bytes",
    ):
        derivation = result.provenance.derivation_of(name)
        assert derivation is not None and derivation.source
    assert "31B" in _source(result, "peer_response_bytes")


def test_pause_quanta_table_and_unknown_rate() -> None:
    assert pause_quanta_for_rate(100 * G) == 394
    assert pause_quanta_for_rate(25 * G) == 80
    np.testing.assert_array_equal(pause_quanta_for_rate(np.array([1 * G, 400 * G])), [2, 905])
    quanta = [PAUSE_QUANTA_BY_RATE_BPS[rate] for rate in sorted(PAUSE_QUANTA_BY_RATE_BPS)]
    assert quanta == sorted(quanta)  # reaction time never shrinks with speed
    with pytest.raises(ModelInputError) as caught:
        pfc_headroom(150 * G, 40.0, **BASE)
    assert caught.value.place == "rate_bps"
    assert "100G" in (caught.value.hint or "")


def test_peer_response_override_allows_rates_outside_the_table() -> None:
    result = pfc_headroom(150 * G, 40.0, peer_response_bits=600 * 512, **BASE)
    assert result.peer_response_bytes == 600 * 512 / 8
    assert _source(result, "peer_response_bytes") == "input"


def test_cable_term_matches_sonic_lua_at_its_propagation_speed() -> None:
    # SONiC's Mellanox Lua uses 1.98e8 m/s and 2*L*R/(8*v) bytes on the cable (sonic-swss cfgmgr/buffer_headroom_mellanox.lua).
    asic = SonicAsicTable("MELLANOX-SPECTRUM-2", "mellanox", 144, 19, 0.8, 3.8)
    for rate, cable in ((100 * G, 40.0), (400 * G, 300.0), (25 * G, 5.0)):
        physical = pfc_headroom(rate, cable, propagation_speed_mps=1.98e8, **BASE)
        sonic = sonic_headroom(asic, rate, cable, lossless_mtu_bytes=1024, small_packet_percent=50)
        assert physical.cable_bytes == pytest.approx(sonic.cable_bytes, rel=1e-12)
        assert physical.peer_response_bytes == sonic.peer_response_bytes


def test_cell_occupancy_limits() -> None:
    assert cell_occupancy(1.0, 0.5, 1024.0, 64.0) == 1.0  # byte-granular buffer wastes nothing
    assert cell_occupancy(128.0, 0.0, 1024.0, 64.0) == 1.0  # only whole-cell frames
    assert cell_occupancy(144.0, 1.0, 1024.0, 64.0) == pytest.approx(144 / 64)  # all minimum frames
    np.testing.assert_allclose(
        cell_occupancy(144.0, np.array([0.0, 0.5, 1.0]), 1024.0, 64.0),
        [1152 / 1024, 648 / 544, 144 / 64],
    )


def test_vectorised_over_cable_and_speed() -> None:
    rates = np.array([[10 * G], [100 * G], [400 * G]])
    cables = np.array([[1.0, 5.0, 40.0, 300.0]])
    result = pfc_headroom(rates, cables, **BASE)
    assert result.xoff_bytes.shape == (3, 4)
    assert result.rate_bps.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            single = pfc_headroom(float(rates[i, 0]), float(cables[0, j]), **BASE)
            assert single.xoff_bytes == result.xoff_bytes[i, j]
            assert single.size_bytes == result.size_bytes[i, j]


TABLE_RATES = sorted(PAUSE_QUANTA_BY_RATE_BPS)
cells = st.sampled_from([1.0, 64.0, 80.0, 96.0, 128.0, 144.0, 176.0, 192.0, 256.0])
fractions = st.floats(min_value=0.0, max_value=1.0)
frames = st.integers(min_value=64, max_value=9216)
lengths = st.floats(min_value=0.0, max_value=120_000.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TABLE_RATES), lengths, lengths, cells, frames, frames, fractions)
def test_xoff_non_decreasing_in_cable_length(
    rate: float,
    cable_a: float,
    cable_b: float,
    cell: float,
    mtu: int,
    lossless: int,
    fraction: float,
) -> None:
    short, long = sorted((cable_a, cable_b))
    args = {
        "cell_bytes": cell,
        "port_mtu_bytes": mtu,
        "lossless_mtu_bytes": lossless,
        "small_packet_fraction": fraction,
    }
    low, high = pfc_headroom(rate, short, **args), pfc_headroom(rate, long, **args)
    assert low.xoff_bytes <= high.xoff_bytes
    assert low.size_bytes <= high.size_bytes


@settings(max_examples=200, deadline=None)
@given(lengths, cells, frames, frames, fractions)
def test_xoff_non_decreasing_in_speed(
    cable: float, cell: float, mtu: int, lossless: int, fraction: float
) -> None:
    result = pfc_headroom(
        np.array(TABLE_RATES),
        cable,
        cell_bytes=cell,
        port_mtu_bytes=mtu,
        lossless_mtu_bytes=lossless,
        small_packet_fraction=fraction,
    )
    assert np.all(np.diff(result.xoff_bytes) >= 0)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TABLE_RATES), lengths, cells, frames, frames, fractions)
def test_xoff_is_whole_cells_covering_the_occupied_bytes(
    rate: float, cable: float, cell: float, mtu: int, lossless: int, fraction: float
) -> None:
    result = pfc_headroom(
        rate,
        cable,
        cell_bytes=cell,
        port_mtu_bytes=mtu,
        lossless_mtu_bytes=lossless,
        small_packet_fraction=fraction,
    )
    occupied = result.in_flight_bytes * result.cell_occupancy
    assert result.cell_occupancy >= 1.0
    cells_used = result.xoff_bytes / cell
    assert math.isclose(cells_used, round(cells_used), abs_tol=1e-9)
    assert occupied <= result.xoff_bytes < occupied + cell
    assert result.xon_bytes <= result.xoff_bytes


@pytest.mark.parametrize(
    ("overrides", "place"),
    [
        ({"cell_bytes": 0.0}, "cell_bytes"),
        ({"small_packet_fraction": 1.5}, "small_packet_fraction"),
        ({"propagation_speed_mps": 4e8}, "propagation_speed_mps"),
        ({"port_mtu_bytes": 0.0}, "port_mtu_bytes"),
        ({"lossless_mtu_bytes": -1.0}, "lossless_mtu_bytes"),
        ({"mac_phy_delay_bytes": -1.0}, "mac_phy_delay_bytes"),
        ({"peer_response_bits": -1.0}, "peer_response_bits"),
    ],
)
def test_bad_inputs_name_the_parameter(overrides: dict[str, float], place: str) -> None:
    args: dict[str, float] = dict(BASE)
    args.update(overrides)
    with pytest.raises(ModelInputError) as caught:
        pfc_headroom(100 * G, 40.0, **args)
    assert caught.value.place == place
    assert caught.value.hint


def test_negative_cable_and_zero_rate_rejected() -> None:
    with pytest.raises(ModelInputError) as caught:
        pfc_headroom(100 * G, -1.0, **BASE)
    assert caught.value.place == "cable_m"
    with pytest.raises(ModelInputError) as caught:
        pfc_headroom(0.0, 40.0, **BASE)
    assert caught.value.place == "rate_bps"
