"""``qosforge whatif pfc-headroom``: lossless PG headroom (xon/xoff/size) per speed and cable.

Two models (qosforge's physical headroom model, docs/architecture.md §3): ``--mode physical`` (default) sums the bytes in
flight after XOFF term by term (models/pfc_headroom.py); ``--mode sonic`` reproduces SONiC's
dynamic-buffer Lua for the ASIC's ``ASIC_TABLE`` from its vendor profile
(models/sonic_headroom.py, sonic-swss cfgmgr/buffer_headroom_mellanox.lua-4.4.2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.defaults import (
    DEFAULT_LOSSLESS_MTU,
    DEFAULT_PORT_MTU,
    DEFAULT_SMALL_PACKET_PERCENT,
)
from qosforge.errors import ModelInputError, ProfileError, QosforgeError
from qosforge.models.pfc_headroom import (
    BIT_TIMES_PER_PAUSE_QUANTUM,
    DEFAULT_MAC_PHY_DELAY_BYTES,
    DEFAULT_PROPAGATION_SPEED_MPS,
    MIN_FRAME_BYTES,
    PfcHeadroom,
    pfc_headroom,
)
from qosforge.models.sonic_headroom import SonicAsicTable, SonicHeadroom, sonic_headroom
from qosforge.ranges import CABLE
from qosforge.units import parse_size_bytes
from qosforge.vendor_profiles import load_vendor_profile, vendor_profile_names

# Physical-model parameter -> CLI argument, so model errors point at the flag the user typed.
_PHYSICAL_PLACES = {
    "small_packet_fraction": "small_packet_percent",
    "peer_response_bits": "peer_response_quanta",
}


def _sonic_profiles() -> list[str]:
    names = []
    for name in vendor_profile_names():
        headroom = load_vendor_profile(name).pfc_headroom
        if headroom is not None and headroom.sonic is not None:
            names.append(name)
    return names


def _load_profile(asic: str) -> Any:
    try:
        return load_vendor_profile(asic)
    except ProfileError as error:
        raise error.with_place("--asic") from None


def _sonic_table(asic: str | None) -> SonicAsicTable:
    if asic is None:
        raise QosforgeError(
            "is required with --mode sonic",
            place="--asic",
            hint=f"name a profile with a SONiC ASIC_TABLE: {', '.join(_sonic_profiles())}",
        )
    profile = _load_profile(asic)
    table = profile.pfc_headroom.sonic if profile.pfc_headroom is not None else None
    if table is None:
        raise QosforgeError(
            f"vendor profile {profile.name!r} has no SONiC ASIC_TABLE "
            "(SONiC's dynamic buffer model "
            "covers Mellanox, Barefoot and VS only)",
            place="--asic",
            hint=f"use --mode physical, or one of: {', '.join(_sonic_profiles())}",
        )
    return SonicAsicTable(
        name=table.name,
        script=table.script,
        cell_size_bytes=float(table.cell_size_bytes),
        pipeline_latency_kb=float(table.pipeline_latency_kb),
        mac_phy_delay_kb=float(table.mac_phy_delay_kb),
        peer_response_time_kb=float(table.peer_response_time_kb),
    )


def _physical_cell_bytes(values: dict[str, Any]) -> Any:
    if values["cell_bytes"] is not None:
        return values["cell_bytes"]
    if values["asic"] is not None:
        return float(_load_profile(values["asic"]).cell_bytes.known("cell_bytes"))
    return 1.0  # no --cell and no --asic: a byte-granular buffer (no cell rounding), as documented


def _check_frames(values: dict[str, Any]) -> None:
    """As the intent's design.lossless_mtu/port_mtu: a frame is at least 64 B, and no lossless
    frame is larger than the port MTU (a 10 B lossless MTU tripled xoff)."""
    for argument in ("lossless_mtu_bytes", "port_mtu_bytes"):
        if float(np.min(values[argument])) < MIN_FRAME_BYTES:
            raise ModelInputError(f"{float(np.min(values[argument])):g} B is below {MIN_FRAME_BYTES:g} B, the smallest Ethernet frame "
                                  "(IEEE 802.3 clause 4.4.2 minFrameSize)", place=argument, hint="a frame size in bytes, e.g. 1024")
    if np.any(np.asarray(values["lossless_mtu_bytes"]) > np.asarray(values["port_mtu_bytes"])):
        raise ModelInputError("is above --port-mtu: no frame on the port is larger than the port MTU", place="lossless_mtu_bytes",
                              hint="lower --lossless-mtu (SONiC's default 1024) or raise --port-mtu")


def _compute(values: dict[str, Any]) -> PfcHeadroom | SonicHeadroom:
    _check_frames(values)
    if values["mode"] == "sonic":
        return sonic_headroom(
            _sonic_table(values["asic"]),
            values["rate_bps"],
            values["cable_m"],
            port_mtu_bytes=values["port_mtu_bytes"],
            lossless_mtu_bytes=values["lossless_mtu_bytes"],
            small_packet_percent=values["small_packet_percent"],
            lanes=values["lanes"],
            gearbox_delay_s=values["gearbox_delay_s"],
            shared_headroom_pool=values["shared_headroom_pool"],
        )
    if (
        not 0.0
        <= float(np.min(values["small_packet_percent"]))
        <= float(np.max(values["small_packet_percent"]))
        <= 100.0
    ):
        raise ModelInputError(
            "must be within 0..100", place="small_packet_percent", hint="a percentage such as 50"
        )
    quanta = values["peer_response_quanta"]
    try:
        return pfc_headroom(
            values["rate_bps"],
            values["cable_m"],
            cell_bytes=_physical_cell_bytes(values),
            port_mtu_bytes=values["port_mtu_bytes"],
            lossless_mtu_bytes=values["lossless_mtu_bytes"],
            small_packet_fraction=values["small_packet_percent"] / 100.0,
            propagation_speed_mps=values["propagation_speed_mps"],
            mac_phy_delay_bytes=values["mac_phy_delay_bytes"],
            peer_response_bits=None if quanta is None else quanta * BIT_TIMES_PER_PAUSE_QUANTUM,
            phy_delay_s=values["gearbox_delay_s"],
        )
    except ModelInputError as error:
        if error.place == "rate_bps" and quanta is None and "pause-quanta" in error.message:
            raise ModelInputError(
                error.message,
                place="rate_bps",
                hint=f"{error.hint}: pass --peer-response-quanta N for this speed",
            ) from None
        if error.place in _PHYSICAL_PLACES:
            raise error.with_place(_PHYSICAL_PLACES[error.place]) from None
        raise


SPEC = WhatIf(
    name="pfc-headroom",
    summary="Lossless PG headroom (xon/xoff/size) for a port speed and cable length.",
    description=(
        "physical: bytes arriving after XOFF = lossless trigger frame + a max frame at each end + "
        "PFC frame + cable round trip (2·L/v) + peer reaction "
        "(IEEE 802.3 Annex 31B pause quanta) + "
        "MAC/PHY delay, times the small-packet cell occupancy, rounded up to cells; xon covers the "
        "resume path; size = xoff + xon. sonic: SONiC's buffer_headroom_<vendor>.lua bit for bit, "
        "with the ASIC_TABLE of --asic (sonic-swss cfgmgr/buffer_headroom_mellanox.lua)."
    ),
    params=(
        Param(
            "--mode",
            "mode",
            "choice",
            "Model to use.",
            default="physical",
            choices=("physical", "sonic"),
        ),
        Param("--speed", "rate_bps", "rate", "Port speed (e.g. 100G).", required=True),
        Param("--cable", "cable_m", "length", "Cable length (e.g. 40m).", required=True, bounds=CABLE),
        Param(
            "--asic",
            "asic",
            "text",
            "Vendor profile (e.g. mellanox-spectrum-2). Required for sonic; in physical mode it "
            "supplies the cell size.",
        ),
        Param(
            "--port-mtu",
            "port_mtu_bytes",
            "integer",
            "Port MTU in bytes, the largest frame either end sends (SONiC default 9100).",
            default=f"{parse_size_bytes(DEFAULT_PORT_MTU):g}",
        ),
        Param(
            "--lossless-mtu",
            "lossless_mtu_bytes",
            "integer",
            "Largest lossless frame in bytes (SONiC LOSSLESS_TRAFFIC_PATTERN default 1024).",
            default=f"{parse_size_bytes(DEFAULT_LOSSLESS_MTU):g}",
        ),
        Param(
            "--small-packet-percent",
            "small_packet_percent",
            "number",
            "Percentage of lossless packets that are minimum size (SONiC default 50).",
            default=f"{DEFAULT_SMALL_PACKET_PERCENT:g}",
        ),
        Param(
            "--cell",
            "cell_bytes",
            "size",
            "Buffer cell (physical). Default: the cell size of --asic, else 1B (no cell rounding).",
        ),
        Param(
            "--propagation-speed",
            "propagation_speed_mps",
            "number",
            "Signal speed in the cable in m/s (physical; 5 ns/m, IEEE 802.3 Table 29-3).",
            default=f"{DEFAULT_PROPAGATION_SPEED_MPS:g}",
        ),
        Param(
            "--mac-phy-delay",
            "mac_phy_delay_bytes",
            "size",
            "MAC/PHY delay in bytes (physical; SONiC ASIC_TABLE uses 0.8 KiB).",
            default=f"{DEFAULT_MAC_PHY_DELAY_BYTES:g}B",
        ),
        Param(
            "--peer-response-quanta",
            "peer_response_quanta",
            "number",
            "Peer PAUSE reaction in pause quanta (physical). "
            "Default: IEEE 802.3 Annex 31B value for --speed.",
        ),
        Param(
            "--lanes",
            "lanes",
            "integer",
            "Lanes of the port (sonic; 8 selects the 8-lane branch).",
            default="4",
        ),
        Param(
            "--phy-delay",
            "gearbox_delay_s",
            "time",
            "One-way delay of the link's PHY stages (gearbox, retimer, FEC; e.g. 305ns): wire, counted both ways "
            "(the intent's phy_delay; SONiC's gearbox_delay in sonic mode).",
            default="0ns",
            aliases=("--gearbox-delay",),
        ),
        Param(
            "--shp",
            "shared_headroom_pool",
            "flag",
            "Shared headroom pool on "
            "(sonic; ingress_lossless_pool xoff or over_subscribe_ratio set).",
        ),
    ),
    compute=_compute,
    headline=("xon_bytes", "xoff_bytes", "size_bytes"),
    examples=(
        "qosforge whatif pfc-headroom --speed 100G --cable 40m --asic mellanox-spectrum-2",
        "qosforge whatif pfc-headroom --mode sonic --asic mellanox-spectrum-2 --speed 100G "
        "--cable 40m "
        "--port-mtu 9100 --lossless-mtu 1024 --small-packet-percent 50 --lanes 4 --format json",
        "qosforge whatif pfc-headroom --mode sonic --asic mellanox-spectrum-2 --speed 100G "
        "--sweep cable=5m:300m:60 --plot headroom.png",
    ),
)
