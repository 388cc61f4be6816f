"""Physical PFC headroom: the bytes a lossless priority group must absorb after it sends XOFF.

Once a PG's occupancy crosses its XOFF threshold, traffic keeps arriving until the peer has
seen the PFC frame and stopped (qosforge's physical headroom model, docs/architecture.md §3). All terms are upper bounds in
bytes at line rate R, each with its source:

* trigger frame: the lossless frame whose admission crossed XOFF is stored whole (SONiC adds
  the lossless MTU the same way, sonic-swss cfgmgr/buffer_headroom_mellanox.lua);
* local frame: the PFC frame cannot pre-empt the frame the port is already transmitting on the
  reverse link (IEEE 802.3 Clause 31 MAC Control frames wait for the current frame), so up to
  one maximum frame time passes before it leaves;
* PFC frame: the peer acts only after receiving the whole 64-byte MAC Control frame
  (minFrameSize, IEEE 802.3 clause 4.4.2);
* cable: the PFC frame travels the cable while the traffic already on it keeps arriving, a
  round trip of 2·L/v at propagation speed v;
* peer response: IEEE 802.3 Annex 31B.3.7 bounds the time from receiving PAUSE to stopping
  transmission in pause quanta per speed (1 quantum = 512 bit times, so quanta·512/8 bytes at
  line rate);
* peer frame: the peer completes the frame it has started (up to one maximum frame);
* MAC/PHY delay: bytes held in the MAC/PHY pipelines of both ends.

Frames delay the PFC frame by their line time, not their size: each frame (and the PFC frame)
takes its Ethernet framing, preamble/SFD and inter-frame gap on the wire (models/ethernet.py,
IEEE 802.3 clauses 3.1.1 and 4.4.2), so a frame of MTU m counts wire_bytes(m) = m + 38 B and the
PFC frame 64 + 20 B, as the software switch serialises them. The MTUs are IP MTUs (SONiC's PORT
``mtu`` is the interface MTU; LOSSLESS_TRAFFIC_PATTERN ``mtu`` the lossless packet).

Buffers are allocated in cells, so small packets waste most of a cell: the in-flight bytes are
scaled by the cell occupancy of the traffic mix (a fraction p of minimum-size packets by count,
the rest lossless-MTU frames) and rounded up to whole cells. XON is sized so the egress does not
idle after resume: the resume path (XON frame) has the same delays as the pause path except the
trigger frame. ``size = xoff + xon`` is SONiC's private-headroom convention (sonic-swss cfgmgr/buffer_headroom_mellanox.lua, no SHP).

:func:`qosforge.models.sonic_headroom.sonic_headroom` reproduces SONiC's own (vendor) formula
bit for bit; this module is the physical model it approximates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qosforge.errors import ModelInputError
from qosforge.models._checks import (
    as_float_array,
    require_in_range,
    require_non_negative,
    require_positive,
)
from qosforge.models.ethernet import PER_FRAME_GAP_BYTES, wire_bytes
from qosforge.models.sonic_headroom import SonicAsicTable, SonicHeadroom, sonic_headroom
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_PAUSE_TIMING = (
    "IEEE Std 802.3 Annex 31B.3.7 (PAUSE reaction timing, pause_quanta per speed; "
    "values as transcribed in SONiC buffer_headroom_mellanox.lua, sonic-swss cfgmgr/buffer_headroom_mellanox.lua)"
)
SOURCE_FRAME = "IEEE Std 802.3 clause 4.4.2 (minFrameSize 64 B) and Clause 31 (MAC Control frames)"
SOURCE_CABLE = (
    "IEEE Std 802.3 Table 29-3 (fibre round-trip delay 1.0 bit time/m at 100 Mb/s = 5 ns/m)"
)
SOURCE_CELLS = (
    "qosforge's physical headroom model, docs/architecture.md §3; cell accounting as in SONiC's Lua (sonic-swss cfgmgr/buffer_headroom_mellanox.lua)"
)
SOURCE_SONIC_SIZE = "sonic-swss cfgmgr/buffer_headroom_mellanox.lua (size = xoff + xon without shared headroom)"

#: Bit times per pause quantum (IEEE 802.3 clause 31B.2: "pause_quanta ... 512 bit times").
BIT_TIMES_PER_PAUSE_QUANTUM = 512.0
#: Maximum PAUSE reaction time in pause quanta per line rate (b/s), IEEE 802.3 Annex 31B.3.7,
#: as transcribed in SONiC's sonic-swss cfgmgr/buffer_headroom_mellanox.lua. The 800G entry
#: is SONiC's and was not checked against the standard text.
PAUSE_QUANTA_BY_RATE_BPS: dict[float, float] = {
    100e6: 1.0,
    1e9: 2.0,
    10e9: 67.0,
    25e9: 80.0,
    40e9: 118.0,
    50e9: 147.0,
    100e9: 394.0,
    200e9: 453.0,
    400e9: 905.0,
    800e9: 905.0,
}
#: Signal speed in fibre and twinax, 5 ns/m: IEEE 802.3 Table 29-3 gives 1.0 bit time (10 ns at
#: 100 Mb/s) per metre of fibre round trip. SONiC's Lua uses 1.98e8 m/s (sonic-swss cfgmgr/buffer_headroom_mellanox.lua).
DEFAULT_PROPAGATION_SPEED_MPS = 2.0e8
#: Speed of light in vacuum (upper bound for any medium).
SPEED_OF_LIGHT_MPS = 299_792_458.0
#: A PFC frame is a minimum-size MAC Control frame (IEEE 802.3 clause 4.4.2 minFrameSize).
PFC_FRAME_BYTES = 64.0
#: The smallest Ethernet frame (IEEE 802.3 clause 4.4.2 minFrameSize), the worst case for cells.
MIN_FRAME_BYTES = 64.0
#: MAC/PHY delay of every ASIC_TABLE entry in SONiC (0.8 KB; sonic-swss cfgmgr/buffermgrdyn.cpp).
DEFAULT_MAC_PHY_DELAY_BYTES = 0.8 * 1024.0


@dataclass(frozen=True, kw_only=True)
class PfcHeadroom:
    rate_bps: Any = quantity("bps", "line rate R")
    cable_m: Any = quantity("m", "cable length L")
    trigger_frame_bytes: Any = quantity("B", "lossless frame that crossed XOFF")
    frames_in_flight_bytes: Any = quantity(
        "B", "line time of a max frame at each end (local + peer)"
    )
    pfc_frame_bytes: Any = quantity("B", "PFC frame line time (frame + preamble/SFD + gap)")
    cable_bytes: Any = quantity("B", "cable round trip at line rate")
    peer_response_bytes: Any = quantity("B", "peer PAUSE reaction time at line rate")
    mac_phy_delay_bytes: Any = quantity("B", "MAC/PHY delay")
    in_flight_bytes: Any = quantity("B", "bytes arriving after XOFF (before cells)")
    cell_occupancy: Any = quantity("1", "buffer bytes per wire byte for the packet mix")
    xoff_bytes: Any = quantity("B", "headroom above XOFF (cell-rounded)")
    xon_bytes: Any = quantity("B", "XON offset so the link does not idle after resume")
    size_bytes: Any = quantity("B", "private headroom xoff + xon")
    provenance: Provenance


def pause_quanta_for_rate(rate_bps: Any) -> Any:
    """IEEE 802.3 Annex 31B.3.7 pause quanta for each line rate; ModelInputError if unknown."""
    rates = np.asarray(rate_bps, dtype=np.float64)
    quanta = np.full(rates.shape, np.nan)
    for table_rate, table_quanta in PAUSE_QUANTA_BY_RATE_BPS.items():  # ≤10 rows, not elements
        quanta = np.where(np.isclose(rates, table_rate, rtol=1e-9, atol=0.0), table_quanta, quanta)
    if np.any(np.isnan(quanta)):
        unknown = float(rates[np.isnan(quanta)].ravel()[0])
        known = ", ".join(f"{rate / 1e9:g}G" for rate in PAUSE_QUANTA_BY_RATE_BPS)
        raise ModelInputError(
            f"no IEEE 802.3 pause-quanta entry for {unknown / 1e9:g} Gb/s",
            place="rate_bps",
            hint=f"use one of {known}, or give the peer response time explicitly",
        )
    return quanta if quanta.ndim else float(quanta)


def cell_occupancy(
    cell_bytes: Any, small_packet_fraction: Any, lossless_mtu_bytes: Any, small_packet_bytes: Any
) -> Any:
    """Buffer bytes held per wire byte when a fraction p (by count) of frames are small.

    A frame of s bytes occupies ceil(s/cell) cells; averaging over the mix gives
    (p·ceil(s/c)·c + (1−p)·ceil(M/c)·c) / (p·s + (1−p)·M).
    """
    small_cells = np.ceil(small_packet_bytes / cell_bytes) * cell_bytes
    large_cells = np.ceil(lossless_mtu_bytes / cell_bytes) * cell_bytes
    held = small_packet_fraction * small_cells + (1.0 - small_packet_fraction) * large_cells
    carried = (
        small_packet_fraction * small_packet_bytes
        + (1.0 - small_packet_fraction) * lossless_mtu_bytes
    )
    return held / carried


def pfc_headroom(
    rate_bps: Any,
    cable_m: Any,
    *,
    cell_bytes: Any,
    port_mtu_bytes: Any,
    lossless_mtu_bytes: Any,
    small_packet_fraction: Any,
    propagation_speed_mps: Any = DEFAULT_PROPAGATION_SPEED_MPS,
    mac_phy_delay_bytes: Any = DEFAULT_MAC_PHY_DELAY_BYTES,
    pfc_frame_bytes: Any = PFC_FRAME_BYTES,
    small_packet_bytes: Any = MIN_FRAME_BYTES,
    peer_response_bits: Any = None,
    phy_delay_s: Any = 0.0,
) -> PfcHeadroom:
    """Physical xoff/xon/size headroom of one lossless PG (vectorised over all inputs).

    ``port_mtu_bytes`` is the largest frame either end may be transmitting (the port MTU),
    ``lossless_mtu_bytes`` the largest lossless frame, ``small_packet_fraction`` the share of
    minimum-size frames by count. ``peer_response_bits`` overrides the Annex 31B pause-quanta
    table (needed for rates that table does not list).
    ``phy_delay_s`` is the link's one-way PHY delay (gearbox, retimer, FEC): part of the wire,
    so it counts both ways like the cable (SONiC's gearbox term, sonic-swss
    cfgmgr/buffer_headroom_mellanox.lua).
    """
    rate_bps = as_float_array(rate_bps)
    cable_m = as_float_array(cable_m)
    cell_bytes = as_float_array(cell_bytes)
    port_mtu_bytes = as_float_array(port_mtu_bytes)
    lossless_mtu_bytes = as_float_array(lossless_mtu_bytes)
    small_packet_fraction = as_float_array(small_packet_fraction)
    propagation_speed_mps = as_float_array(propagation_speed_mps)
    mac_phy_delay_bytes = as_float_array(mac_phy_delay_bytes)
    pfc_frame_bytes = as_float_array(pfc_frame_bytes)
    small_packet_bytes = as_float_array(small_packet_bytes)
    phy_delay_s = as_float_array(phy_delay_s)
    require_non_negative("phy_delay_s", phy_delay_s, hint="the PHY's one-way delay, e.g. 300ns (0 without gearbox)")
    require_positive("rate_bps", rate_bps, hint="the port speed, e.g. 100G")
    require_non_negative("cable_m", cable_m, hint="the cable length, e.g. 40m")
    require_positive(
        "cell_bytes", cell_bytes, hint="the ASIC's buffer cell, e.g. 144B (1B for none)"
    )
    require_positive("port_mtu_bytes", port_mtu_bytes, hint="the port MTU in bytes, e.g. 9100")
    require_positive(
        "lossless_mtu_bytes", lossless_mtu_bytes, hint="the lossless MTU, e.g. 1024"
    )
    require_in_range(
        "small_packet_fraction", small_packet_fraction, 0.0, 1.0, hint="a share such as 50%"
    )
    require_in_range(
        "propagation_speed_mps",
        propagation_speed_mps,
        1.0,
        SPEED_OF_LIGHT_MPS,
        hint="about 2e8 m/s for fibre and copper",
    )
    require_non_negative("mac_phy_delay_bytes", mac_phy_delay_bytes, hint="e.g. 819.2 (0.8 KB)")
    require_non_negative("pfc_frame_bytes", pfc_frame_bytes, hint="64 bytes for a PFC frame")
    require_positive("small_packet_bytes", small_packet_bytes, hint="64 bytes (minimum frame)")

    if peer_response_bits is None:
        peer_response = pause_quanta_for_rate(rate_bps) * BIT_TIMES_PER_PAUSE_QUANTUM / 8.0
        peer_formula = "pause_quanta(R)*512/8"
        peer_source = SOURCE_PAUSE_TIMING
    else:
        peer_response_bits = as_float_array(peer_response_bits)
        require_non_negative(
            "peer_response_bits", peer_response_bits, hint="e.g. 201728 (394 quanta)"
        )
        peer_response = peer_response_bits / 8.0
        peer_formula = "peer_response_bits/8 (given)"
        peer_source = "input"

    cable = 2.0 * (cable_m / propagation_speed_mps + phy_delay_s) * rate_bps / 8.0
    frames = 2.0 * wire_bytes(port_mtu_bytes)
    pfc_frame_line = pfc_frame_bytes + PER_FRAME_GAP_BYTES
    resume_path = frames + pfc_frame_line + cable + peer_response + mac_phy_delay_bytes
    in_flight = lossless_mtu_bytes + resume_path
    occupancy = cell_occupancy(
        cell_bytes, small_packet_fraction, lossless_mtu_bytes, small_packet_bytes
    )
    xoff = np.ceil(in_flight * occupancy / cell_bytes) * cell_bytes
    xon = np.ceil(resume_path * occupancy / cell_bytes) * cell_bytes
    size = xoff + xon

    shape = np.broadcast_shapes(
        *(
            np.shape(v)
            for v in (
                rate_bps,
                cable_m,
                cell_bytes,
                port_mtu_bytes,
                lossless_mtu_bytes,
                small_packet_fraction,
                propagation_speed_mps,
                mac_phy_delay_bytes,
                pfc_frame_bytes,
                small_packet_bytes,
                peer_response,
                phy_delay_s,
            )
        )
    )

    def shaped(value: Any) -> Any:
        full = np.broadcast_to(np.asarray(value, dtype=np.float64), shape)
        return float(full) if full.ndim == 0 else np.array(full)

    inputs = [
        input_value("rate_bps", rate_bps, "bps"),
        input_value("cable_m", cable_m, "m"),
        input_value("cell_bytes", cell_bytes, "B"),
        input_value("port_mtu_bytes", port_mtu_bytes, "B"),
        input_value("lossless_mtu_bytes", lossless_mtu_bytes, "B"),
        input_value("small_packet_fraction", small_packet_fraction, "1"),
        input_value("propagation_speed_mps", propagation_speed_mps, "m/s"),
        input_value("mac_phy_delay_bytes", mac_phy_delay_bytes, "B"),
        input_value("pfc_frame_bytes", pfc_frame_bytes, "B"),
        input_value("small_packet_bytes", small_packet_bytes, "B"),
    ]
    if np.any(phy_delay_s):
        inputs.append(input_value("phy_delay_s", phy_delay_s, "s"))
    if peer_response_bits is not None:
        inputs.append(input_value("peer_response_bits", peer_response_bits, "bit"))
    return PfcHeadroom(
        rate_bps=shaped(rate_bps),
        cable_m=shaped(cable_m),
        trigger_frame_bytes=shaped(lossless_mtu_bytes),
        frames_in_flight_bytes=shaped(frames),
        pfc_frame_bytes=shaped(pfc_frame_line),
        cable_bytes=shaped(cable),
        peer_response_bytes=shaped(peer_response),
        mac_phy_delay_bytes=shaped(mac_phy_delay_bytes),
        in_flight_bytes=shaped(in_flight),
        cell_occupancy=shaped(occupancy),
        xoff_bytes=shaped(xoff),
        xon_bytes=shaped(xon),
        size_bytes=shaped(size),
        provenance=Provenance(
            model="pfc_headroom",
            inputs=tuple(inputs),
            derivations=(
                Derivation("trigger_frame_bytes", "lossless_mtu_bytes", SOURCE_CELLS),
                Derivation(
                    "frames_in_flight_bytes",
                    "2*wire_bytes(port_mtu_bytes) (local frame delays the PFC frame; peer finishes"
                    " its frame; each with MAC header, FCS, preamble/SFD and IFG,"
                    " models/ethernet.py)",
                    SOURCE_FRAME,
                ),
                Derivation(
                    "pfc_frame_bytes", "64 B PFC frame + 20 B preamble/SFD and IFG", SOURCE_FRAME
                ),
                Derivation("cable_bytes", "2*(L/v+phy_delay)*R/8", SOURCE_CABLE),
                Derivation("peer_response_bytes", peer_formula, peer_source),
                Derivation(
                    "mac_phy_delay_bytes",
                    "input (default 0.8 KB as in SONiC ASIC_TABLE)",
                    "sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2",
                ),
                Derivation(
                    "in_flight_bytes",
                    "trigger+frames_in_flight+pfc_frame+cable+peer_response+mac_phy_delay",
                    "qosforge's physical headroom model, docs/architecture.md §3",
                ),
                Derivation(
                    "cell_occupancy",
                    "(p*ceil(64/c)*c+(1-p)*ceil(M/c)*c)/(p*64+(1-p)*M)",
                    SOURCE_CELLS,
                ),
                Derivation("xoff_bytes", "ceil(in_flight*cell_occupancy/c)*c", SOURCE_CELLS),
                Derivation(
                    "xon_bytes", "ceil((in_flight-trigger_frame)*cell_occupancy/c)*c", SOURCE_CELLS
                ),
                Derivation("size_bytes", "xoff+xon", SOURCE_SONIC_SIZE),
            ),
        ),
    )


__all__ = [
    "BIT_TIMES_PER_PAUSE_QUANTUM",
    "DEFAULT_MAC_PHY_DELAY_BYTES",
    "DEFAULT_PROPAGATION_SPEED_MPS",
    "MIN_FRAME_BYTES",
    "PAUSE_QUANTA_BY_RATE_BPS",
    "PFC_FRAME_BYTES",
    "PfcHeadroom",
    "SonicAsicTable",
    "SonicHeadroom",
    "cell_occupancy",
    "pause_quanta_for_rate",
    "pfc_headroom",
    "sonic_headroom",
]
