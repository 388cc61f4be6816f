"""SONiC-compatible headroom: every row of sonic-swss cfgmgr/buffer_headroom_mellanox.lua, golden values from
running SONiC's own Lua, vectorisation, and the (non-)monotonicity documented in the module."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import ModelInputError
from qosforge.models.pfc_headroom import SonicAsicTable as ReExportedSonicAsicTable
from qosforge.models.sonic_headroom import (
    BAREFOOT_PAUSE_QUANTA_PER_SPEED_MBPS,
    MELLANOX_PAUSE_QUANTA_PER_SPEED_MBPS,
    SonicAsicTable,
    sonic_headroom,
)

# ASIC_TABLE values, sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2 (platform/mellanox/asic_table.j2,
# platform/barefoot/asic_table.j2, platform/vs/docker-sonic-vs/asic_table.json).
SPECTRUM = SonicAsicTable("MELLANOX-SPECTRUM", "mellanox", 96, 19, 0.8, 3.8)
SPECTRUM_2 = SonicAsicTable("MELLANOX-SPECTRUM-2", "mellanox", 144, 19, 0.8, 3.8)
SPECTRUM_3 = SonicAsicTable("MELLANOX-SPECTRUM-3", "mellanox", 144, 19, 0.8, 3.8)
SPECTRUM_4 = SonicAsicTable("MELLANOX-SPECTRUM-4", "mellanox", 192, 19, 0.8, 3.8)
SPECTRUM_5 = SonicAsicTable("MELLANOX-SPECTRUM-5", "mellanox", 192, 19, 0.8, 3.8)
SPECTRUM_6 = SonicAsicTable("MELLANOX-SPECTRUM-6", "mellanox", 256, 42, 0.8, 3.8)
TOFINO_2 = SonicAsicTable("BAREFOOT-TOFINO-2", "barefoot", 176, 68, 0.8, 9)
VS = SonicAsicTable("VS-ASIC", "mellanox", 128, 18, 0.8, 3.8)

G = 1e9

# sonic-swss cfgmgr/buffer_headroom_mellanox.lua table: port MTU 9100, lossless MTU 1024, spp 50, no gearbox.
SECTION_441_ROWS = [
    # asic, speed, cable, lanes, shp, xon, xoff, size
    (SPECTRUM_2, 100 * G, 5, 4, False, 19456, 48128, 67584),
    (SPECTRUM_2, 100 * G, 40, 4, False, 19456, 53248, 72704),
    (SPECTRUM_2, 100 * G, 300, 4, False, 19456, 94208, 113664),
    (SPECTRUM_2, 400 * G, 40, 4, False, 19456, 112640, 132096),
    (SPECTRUM_2, 100 * G, 40, 4, True, 19456, 51200, 19456),
    (SPECTRUM_2, 100 * G, 40, 8, False, 38912, 53248, 101376),
    (SPECTRUM, 100 * G, 40, 4, False, 19456, 48128, 67584),
    (SPECTRUM_4, 400 * G, 40, 8, False, 38912, 119808, 167936),
    (VS, 100 * G, 40, 4, False, 18432, 48128, 66560),
    (TOFINO_2, 100 * G, 40, 4, False, 69632, 76800, 69632),
    (TOFINO_2, 400 * G, 40, 4, False, 69632, 274432, 69632),
]


@pytest.mark.parametrize(
    ("asic", "rate", "cable", "lanes", "shp", "xon", "xoff", "size"), SECTION_441_ROWS
)
def test_reproduces_every_row_of_the_section_441_table(
    asic: SonicAsicTable,
    rate: float,
    cable: float,
    lanes: int,
    shp: bool,
    xon: int,
    xoff: int,
    size: int,
) -> None:
    result = sonic_headroom(
        asic,
        rate,
        cable,
        port_mtu_bytes=9100,
        lossless_mtu_bytes=1024,
        small_packet_percent=50,
        lanes=lanes,
        shared_headroom_pool=shp,
    )
    assert (result.xon_bytes, result.xoff_bytes, result.size_bytes) == (xon, xoff, size)


# Produced by running sonic-swss cfgmgr/buffer_headroom_{mellanox,barefoot}.lua (commit e6b0c5b5)
# under Lua 5.1 with redis.call stubbed to return these ASIC_TABLE / LOSSLESS_TRAFFIC_PATTERN
# values; they cover the branches the sonic-swss cfgmgr/buffer_headroom_mellanox.lua table does not (Spectrum-3/5/6, gearbox, speeds
# outside the pause-quanta table, spp 0/100, SHP with 8 lanes, Barefoot 800G).
LUA_GOLDEN = [
    # asic, spp, lossless_mtu, shp, speed_mbps, cable_m, port_mtu, gearbox_ns, lanes,
    # xon, xoff, size
    (SPECTRUM_3, 50, 1024, False, 200000, 40, 9100, 0, 4, 19456, 64512, 83968),
    (SPECTRUM_4, 50, 1024, False, 400000, 5, 9100, 0, 8, 38912, 98304, 146432),
    (SPECTRUM_4, 50, 1024, False, 100000, 40, 9100, 0, 4, 19456, 55296, 74752),
    (SPECTRUM_5, 50, 1024, False, 800000, 40, 9100, 0, 8, 38912, 152576, 200704),
    (SPECTRUM_5, 50, 1024, True, 800000, 40, 9100, 0, 8, 38912, 150528, 38912),
    (SPECTRUM_6, 50, 1024, False, 800000, 40, 9100, 0, 8, 86016, 168960, 264192),
    (SPECTRUM_6, 100, 1024, False, 400000, 300, 9100, 0, 4, 43008, 897024, 940032),
    (SPECTRUM_2, 50, 1024, False, 100000, 40, 9100, 305, 4, 19456, 62464, 81920),
    (SPECTRUM_2, 50, 1024, False, 150000, 40, 9100, 0, 4, 19456, 29696, 49152),
    (SPECTRUM_2, 100, 1024, False, 100000, 40, 9100, 0, 4, 19456, 121856, 141312),
    (SPECTRUM_2, 0, 9216, False, 25000, 2000, 1500, 0, 4, 19456, 82944, 102400),
    (SPECTRUM, 30, 1500, False, 10000, 120000, 9216, 0, 2, 19456, 1625088, 1644544),
    (VS, 50, 1024, False, 10000, 5, 9100, 0, 4, 18432, 19456, 37888),
    (TOFINO_2, 50, 1024, False, 800000, 40, 9100, 0, 8, 69632, 111616, 69632),
    (TOFINO_2, 20, 2048, False, 25000, 300, 9100, 450, 4, 69632, 38912, 69632),
    (TOFINO_2, 50, 1024, False, 150000, 40, 9100, 0, 4, 69632, 51200, 69632),
    # the non-monotone cases documented in models/sonic_headroom.py
    (SPECTRUM_2, 93, 128, False, 10000, 143, 9100, 0, 4, 19456, 48128, 67584),
    (SPECTRUM_2, 93, 128, False, 10000, 144, 9100, 0, 4, 19456, 47104, 66560),
    (SPECTRUM_2, 99, 1024, False, 1000, 36, 9100, 0, 4, 19456, 30720, 50176),
    (SPECTRUM_2, 99, 1024, False, 1000, 37, 9100, 0, 4, 19456, 29696, 49152),
]


@pytest.mark.parametrize(
    (
        "asic",
        "spp",
        "lossless",
        "shp",
        "speed_mbps",
        "cable",
        "mtu",
        "gearbox_ns",
        "lanes",
        "xon",
        "xoff",
        "size",
    ),
    LUA_GOLDEN,
)
def test_matches_values_from_running_the_sonic_lua(
    asic: SonicAsicTable,
    spp: int,
    lossless: int,
    shp: bool,
    speed_mbps: int,
    cable: int,
    mtu: int,
    gearbox_ns: int,
    lanes: int,
    xon: int,
    xoff: int,
    size: int,
) -> None:
    result = sonic_headroom(
        asic,
        speed_mbps * 1e6,
        cable,
        port_mtu_bytes=mtu,
        lossless_mtu_bytes=lossless,
        small_packet_percent=spp,
        lanes=lanes,
        gearbox_delay_s=gearbox_ns * 1e-9,
        shared_headroom_pool=shp,
    )
    assert (result.xon_bytes, result.xoff_bytes, result.size_bytes) == (xon, xoff, size)


def _source(result: Any, name: str) -> str:
    derivation = result.provenance.derivation_of(name)
    assert derivation is not None, name
    return str(derivation.source)


def test_vectorised_call_equals_elementwise_calls() -> None:
    rates = np.array([10, 25, 40, 100, 400, 800, 150]) * G
    cables = np.array([0.0, 5.0, 40.0, 300.0, 1000.0, 7.5, 40.0])
    spp = np.array([0, 25, 50, 75, 99, 100, 50])
    for asic in (SPECTRUM_2, SPECTRUM_5, SPECTRUM_6, TOFINO_2):
        batch = sonic_headroom(
            asic, rates, cables, lossless_mtu_bytes=1024, small_packet_percent=spp, lanes=8
        )
        assert batch.xoff_bytes.shape == rates.shape
        for index in range(rates.size):
            single = sonic_headroom(
                asic,
                float(rates[index]),
                float(cables[index]),
                lossless_mtu_bytes=1024,
                small_packet_percent=float(spp[index]),
                lanes=8,
            )
            assert single.xoff_bytes == batch.xoff_bytes[index]
            assert single.size_bytes == batch.size_bytes[index]
            assert single.xon_bytes == batch.xon_bytes[index]


def test_outputs_are_whole_kilobytes_and_provenance_names_the_script() -> None:
    result = sonic_headroom(
        SPECTRUM_2, 100 * G, 40, lossless_mtu_bytes=1024, small_packet_percent=50
    )
    for value in (result.xon_bytes, result.xoff_bytes, result.size_bytes):
        assert value % 1024 == 0
    assert "buffer_headroom_mellanox.lua" in _source(result, "xoff_bytes")
    barefoot = sonic_headroom(
        TOFINO_2, 100 * G, 40, lossless_mtu_bytes=1024, small_packet_percent=50
    )
    assert "buffer_headroom_barefoot.lua" in _source(barefoot, "xoff_bytes")
    assert ReExportedSonicAsicTable is SonicAsicTable


def test_peer_response_uses_pause_quanta_in_table_and_asic_value_otherwise() -> None:
    in_table = sonic_headroom(
        SPECTRUM_2, 100 * G, 40, lossless_mtu_bytes=1024, small_packet_percent=50
    )
    assert in_table.peer_response_bytes == 394 * 512 / 8
    off_table = sonic_headroom(
        SPECTRUM_2, 150 * G, 40, lossless_mtu_bytes=1024, small_packet_percent=50
    )
    assert off_table.peer_response_bytes == 3.8 * 1024
    doubled = sonic_headroom(
        TOFINO_2, 400 * G, 40, lossless_mtu_bytes=1024, small_packet_percent=50
    )
    assert doubled.peer_response_bytes == 2 * 905 * 512 / 8
    assert 800000.0 in MELLANOX_PAUSE_QUANTA_PER_SPEED_MBPS
    assert 800000.0 not in BAREFOOT_PAUSE_QUANTA_PER_SPEED_MBPS


def test_spectrum_generation_branches_follow_the_last_character_of_the_key() -> None:
    # Spectrum-4/5 add speed/1000*120/8 bytes "on tile"; others add nothing.
    assert (
        sonic_headroom(
            SPECTRUM_4, 400 * G, 40, lossless_mtu_bytes=1024, small_packet_percent=50
        ).tile_bytes
        == 6000
    )
    assert (
        sonic_headroom(
            SPECTRUM_3, 400 * G, 40, lossless_mtu_bytes=1024, small_packet_percent=50
        ).tile_bytes
        == 0
    )
    # Spectrum-6 adds 18 KB to xoff relative to an identical table with another name.
    twin = SonicAsicTable("MELLANOX-SPECTRUM-X", "mellanox", 256, 42, 0.8, 3.8)
    args = {"lossless_mtu_bytes": 1024, "small_packet_percent": 100}
    six = sonic_headroom(SPECTRUM_6, 400 * G, 40, **args)
    other = sonic_headroom(twin, 400 * G, 40, **args)
    assert six.xoff_bytes - other.xoff_bytes == 18 * 1024


# ---- monotonicity (documented in models/sonic_headroom.py) ---------------------------------

MELLANOX_SPEEDS_BPS = sorted(speed * 1e6 for speed in MELLANOX_PAUSE_QUANTA_PER_SPEED_MBPS)
BAREFOOT_SPEEDS_BPS = sorted(speed * 1e6 for speed in BAREFOOT_PAUSE_QUANTA_PER_SPEED_MBPS)
MELLANOX_ASICS = (SPECTRUM, SPECTRUM_2, SPECTRUM_4, SPECTRUM_5, SPECTRUM_6, VS)
cables = st.floats(min_value=0, max_value=120_000, allow_nan=False)
port_mtus = st.integers(min_value=1500, max_value=9216)
lossless_mtus = st.integers(min_value=64, max_value=9216)
percents = st.integers(min_value=0, max_value=100)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(BAREFOOT_SPEEDS_BPS), cables, cables, port_mtus, lossless_mtus, percents)
def test_barefoot_xoff_non_decreasing_in_cable(
    rate: float, cable_a: float, cable_b: float, mtu: int, lossless: int, spp: int
) -> None:
    short, long = sorted((cable_a, cable_b))
    args = {"port_mtu_bytes": mtu, "lossless_mtu_bytes": lossless, "small_packet_percent": spp}
    assert (
        sonic_headroom(TOFINO_2, rate, short, **args).xoff_bytes
        <= sonic_headroom(TOFINO_2, rate, long, **args).xoff_bytes
    )


@settings(max_examples=150, deadline=None)
@given(cables, port_mtus, lossless_mtus, percents)
def test_barefoot_xoff_non_decreasing_in_speed_up_to_400g(
    cable: float, mtu: int, lossless: int, spp: int
) -> None:
    result = sonic_headroom(
        TOFINO_2,
        np.array(BAREFOOT_SPEEDS_BPS),
        cable,
        port_mtu_bytes=mtu,
        lossless_mtu_bytes=lossless,
        small_packet_percent=spp,
    )
    assert np.all(np.diff(result.xoff_bytes) >= 0)


def test_barefoot_800g_falls_back_to_asic_peer_response_and_needs_less_than_400g() -> None:
    args = {"port_mtu_bytes": 9100, "lossless_mtu_bytes": 1024, "small_packet_percent": 50}
    at_400 = sonic_headroom(TOFINO_2, 400 * G, 40, **args)
    at_800 = sonic_headroom(TOFINO_2, 800 * G, 40, **args)
    assert at_800.peer_response_bytes == 9 * 1024
    assert at_800.xoff_bytes < at_400.xoff_bytes


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(MELLANOX_ASICS),
    st.sampled_from(MELLANOX_SPEEDS_BPS),
    cables,
    cables,
    port_mtus,
    lossless_mtus,
    percents,
    st.booleans(),
)
def test_mellanox_xoff_monotone_in_cable_when_compensation_cannot_fire(
    asic: SonicAsicTable,
    rate: float,
    cable_a: float,
    cable_b: float,
    mtu: int,
    lossless: int,
    spp: int,
    shp: bool,
) -> None:
    # With SHP on, or spp = 100, the 2 KB "headroom_compensation" branch is skipped.
    spp = spp if shp else 100
    short, long = sorted((cable_a, cable_b))
    args = {
        "port_mtu_bytes": mtu,
        "lossless_mtu_bytes": lossless,
        "small_packet_percent": spp,
        "shared_headroom_pool": shp,
    }
    assert (
        sonic_headroom(asic, rate, short, **args).xoff_bytes
        <= sonic_headroom(asic, rate, long, **args).xoff_bytes
    )


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(MELLANOX_ASICS), cables, port_mtus, lossless_mtus, st.booleans())
def test_mellanox_xoff_monotone_in_speed_when_compensation_cannot_fire(
    asic: SonicAsicTable, cable: float, mtu: int, lossless: int, shp: bool
) -> None:
    spp = 50 if shp else 100
    result = sonic_headroom(
        asic,
        np.array(MELLANOX_SPEEDS_BPS),
        cable,
        port_mtu_bytes=mtu,
        lossless_mtu_bytes=lossless,
        small_packet_percent=spp,
        shared_headroom_pool=shp,
    )
    assert np.all(np.diff(result.xoff_bytes) >= 0)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(MELLANOX_ASICS),
    st.sampled_from(MELLANOX_SPEEDS_BPS),
    cables,
    cables,
    port_mtus,
    lossless_mtus,
    percents,
)
def test_mellanox_xoff_never_drops_by_more_than_one_kilobyte_with_longer_cable(
    asic: SonicAsicTable,
    rate: float,
    cable_a: float,
    cable_b: float,
    mtu: int,
    lossless: int,
    spp: int,
) -> None:
    short, long = sorted((cable_a, cable_b))
    args = {"port_mtu_bytes": mtu, "lossless_mtu_bytes": lossless, "small_packet_percent": spp}
    drop = (
        sonic_headroom(asic, rate, short, **args).xoff_bytes
        - sonic_headroom(asic, rate, long, **args).xoff_bytes
    )
    assert drop <= 1024


def test_mellanox_compensation_makes_xoff_drop_with_a_longer_cable() -> None:
    args = {"port_mtu_bytes": 9100, "lossless_mtu_bytes": 128, "small_packet_percent": 93}
    shorter = sonic_headroom(SPECTRUM_2, 10 * G, 143, **args)
    longer = sonic_headroom(SPECTRUM_2, 10 * G, 144, **args)
    assert longer.propagation_delay_bytes > shorter.propagation_delay_bytes
    assert shorter.xoff_bytes - longer.xoff_bytes == 1024


def test_mellanox_with_sonic_template_traffic_pattern_is_monotone_from_10g() -> None:
    # LOSSLESS_TRAFFIC_PATTERN defaults (mtu 1024, spp 50) and PORT mtu 9100
    # (sonic-yang-models sonic-lossless-traffic-pattern.yang, sonic-port.yang).
    speeds = np.array([s for s in MELLANOX_SPEEDS_BPS if s >= 10 * G])
    cable_grid = np.arange(0.0, 5001.0)
    rate_mesh, cable_mesh = np.meshgrid(speeds, cable_grid, indexing="ij")
    for asic in MELLANOX_ASICS:
        xoff = sonic_headroom(
            asic,
            rate_mesh,
            cable_mesh,
            port_mtu_bytes=9100,
            lossless_mtu_bytes=1024,
            small_packet_percent=50,
        ).xoff_bytes
        assert np.all(np.diff(xoff, axis=1) >= 0), asic.name
        assert np.all(np.diff(xoff, axis=0) >= 0), asic.name


# ---- input errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "place"),
    [
        ({"rate_bps": 0.0}, "rate_bps"),
        ({"cable_m": -1.0}, "cable_m"),
        ({"port_mtu_bytes": 10000}, "port_mtu_bytes"),
        ({"lossless_mtu_bytes": 0}, "lossless_mtu_bytes"),
        ({"small_packet_percent": 101}, "small_packet_percent"),
        ({"lanes": 0}, "lanes"),
        ({"gearbox_delay_s": -1e-9}, "gearbox_delay_s"),
    ],
)
def test_bad_inputs_name_the_parameter(overrides: dict[str, float], place: str) -> None:
    args: dict[str, float] = {
        "rate_bps": 100 * G,
        "cable_m": 40.0,
        "port_mtu_bytes": 9100,
        "lossless_mtu_bytes": 1024,
        "small_packet_percent": 50,
        "lanes": 4,
        "gearbox_delay_s": 0.0,
    }
    args.update(overrides)
    with pytest.raises(ModelInputError) as caught:
        sonic_headroom(SPECTRUM_2, **args)
    assert caught.value.place == place
    assert caught.value.hint


def test_asic_table_rejects_unknown_script_and_bad_cell() -> None:
    with pytest.raises(ModelInputError) as caught:
        SonicAsicTable("X", "broadcom", 144, 19, 0.8, 3.8)  # type: ignore[arg-type]
    assert caught.value.place == "script"
    with pytest.raises(ModelInputError) as caught:
        SonicAsicTable("X", "mellanox", 0, 19, 0.8, 3.8)
    assert caught.value.place == "cell_size_bytes"
