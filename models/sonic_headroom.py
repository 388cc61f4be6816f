"""SONiC-compatible lossless PG headroom: SONiC's dynamic-buffer Lua plugins, transcribed.

SONiC's dynamic buffer model (buffermgrd) computes the ``xon``/``xoff``/``size`` of every
generated ``pg_lossless_<speed>_<cable>_profile`` by running a vendor Lua plugin
(sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2): ``sonic-swss:cfgmgr/buffer_headroom_mellanox.lua`` (Mellanox
Spectrum, and the VS platform through a symlink) and ``buffer_headroom_barefoot.lua``
(Tofino-2). :func:`sonic_headroom` reproduces those scripts bit for bit so a compiler can emit
the same profiles buffermgrd would, or predict them (sonic-swss cfgmgr/buffer_headroom_mellanox.lua, sonic-swss cfgmgr/buffer_headroom_barefoot.lua).

Bit-for-bit notes (Lua 5.1 inside Redis has one number type, the IEEE double):

* every ``/`` is a float division, there is no integer division, and Python float / NumPy
  float64 arithmetic is the same IEEE double arithmetic, so each expression below keeps the
  script's operand order (``a*b/c/d`` is ``((a*b)/c)/d``), which matters for rounding;
* ``math.ceil`` is :func:`numpy.ceil`; ``ceil1024(x) = ceil(x/1024)*1024`` as in the scripts;
* ASIC_TABLE values are parsed with ``tonumber`` and multiplied by 1024 (KB -> bytes), so
  ``mac_phy_delay_kb=0.8`` gives ``0.8*1024`` exactly as Lua does;
* the pause-quanta lookup ``pause_quanta_per_speed[port_speed]`` is an exact-equality table
  lookup on the speed in Mb/s; a speed missing from the table falls back to the ASIC_TABLE
  ``peer_response_time``;
* the Spectrum-4/5 ("kB on tile") and Spectrum-6 branches test the *last character* of the
  ASIC_TABLE key (``MELLANOX-SPECTRUM-N``), so they are derived from :attr:`SonicAsicTable.name`
  the same way; the 8-lane branch tests ``ARGV[5] == "8"``.

Monotonicity (checked by property tests, tests/models/test_sonic_headroom.py):

* barefoot script: ``xoff`` is non-decreasing in cable length at every speed, and in speed
  over 100M..400G. It has **no 800G entry** in its pause-quanta table, so at 800G it falls
  back to ASIC_TABLE ``peer_response_time`` (9 KB) and, losing the doubled 400G peer response,
  yields *less* xoff than at 400G (40 m, spp 50, lossless MTU 1024: 800G 111616 B < 400G
  274432 B).
* mellanox script: ``xoff`` is non-decreasing in cable length and speed whenever the
  "headroom_compensation" branch cannot fire (SHP on, or small-packet percentage 100). With the
  branch active it is *not* monotone: the script adds 2048 B when
  ``ceil1024(mtu+pd*occupancy) + 2048 < ceil1024(mtu+pd*worst_case_factor)``; when a longer
  cable raises the first term by one 1024-B step while the second does not rise past it, the
  bonus is lost and ``xoff`` drops by exactly 1024 B. It never drops by more than 1024 B (the
  bonus is only lost when the base rose by at least 1024 B). It needs occupancy close to the
  worst case (small lossless MTU or small_packet_percentage near 100) and a short propagation
  delay, e.g. SPECTRUM-2, port MTU 9100, SHP off: 10G, lossless MTU 128, spp 93: 143 m gives
  xoff 48128 B, 144 m gives 47104 B; 1G, lossless MTU 1024, spp 99: 36 m 30720 B, 37 m 29696 B
  (both confirmed by running the Lua script). The same branch makes xoff drop by 1024 B
  between neighbouring table speeds for some inputs. With SONiC's template defaults (lossless
  MTU 1024, spp 50, port MTU 9100) no decrease occurs at 10G and above.
* any speed that is not in the script's table (e.g. 150G) uses the ASIC_TABLE fallback peer
  response (3.8 KB on Mellanox), far below the 394-quanta (25216 B) of 100G, so ``xoff`` is not
  monotone in speed over arbitrary speeds; it is over the speeds in the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from qosforge.errors import ModelInputError
from qosforge.models._checks import (
    as_float_array,
    require_at_least,
    require_in_range,
    require_non_negative,
    require_positive,
)
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_MELLANOX_LUA = (
    "sonic-swss cfgmgr/buffer_headroom_mellanox.lua (commit e6b0c5b5; "
    "sonic-swss cfgmgr/buffer_headroom_mellanox.lua)"
)
SOURCE_BAREFOOT_LUA = (
    "sonic-swss cfgmgr/buffer_headroom_barefoot.lua (commit e6b0c5b5; "
    "sonic-swss cfgmgr/buffer_headroom_barefoot.lua)"
)
SOURCE_ASIC_TABLE = (
    "sonic-buildimage platform/{mellanox,barefoot}/asic_table.j2, platform/vs asic_table.json "
    "(sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2)"
)

SonicScript = Literal["mellanox", "barefoot"]
SONIC_SCRIPTS: tuple[SonicScript, ...] = ("mellanox", "barefoot")

#: ``pause_quanta_per_speed`` of buffer_headroom_mellanox.lua (Mb/s -> quanta; the script cites
#: IEEE 802.3 31B.3.7). Kept per script because the two scripts' tables differ (no 800G below).
MELLANOX_PAUSE_QUANTA_PER_SPEED_MBPS: dict[float, float] = {
    800000.0: 905.0,
    400000.0: 905.0,
    200000.0: 453.0,
    100000.0: 394.0,
    50000.0: 147.0,
    40000.0: 118.0,
    25000.0: 80.0,
    10000.0: 67.0,
    1000.0: 2.0,
    100.0: 1.0,
}
#: ``pause_quanta_per_speed`` of buffer_headroom_barefoot.lua: the same without 800G.
BAREFOOT_PAUSE_QUANTA_PER_SPEED_MBPS: dict[float, float] = {
    speed: quanta
    for speed, quanta in MELLANOX_PAUSE_QUANTA_PER_SPEED_MBPS.items()
    if speed != 800000.0
}

# Constants of both scripts (``local speed_of_light = 198000000``, ``minimal_packet_size = 64``).
_SPEED_OF_LIGHT_MPS = 198000000.0
_MINIMAL_PACKET_SIZE_BYTES = 64.0
# Mellanox script: ``headroom_compensation = 2 * 1024`` and
# ``spectrum6_headroom_compensation = 18 * 1024``.
_HEADROOM_COMPENSATION_BYTES = 2.0 * 1024.0
_SPECTRUM6_COMPENSATION_BYTES = 18.0 * 1024.0
#: Port MTU buffermgrdyn assumes when PORT.mtu is absent (``DEFAULT_MTU_STR``, sonic-swss cfgmgr/buffermgrdyn.cpp).
SONIC_DEFAULT_PORT_MTU_BYTES = 9100.0


@dataclass(frozen=True)
class SonicAsicTable:
    """One STATE_DB ``ASIC_TABLE|<name>`` entry as the headroom plugin reads it (sonic-swss cfgmgr/buffermgrdyn.cpp).

    ``script`` selects the plugin: ``mellanox`` (Spectrum and the VS platform, whose
    ``buffer_headroom_vs.lua`` is a symlink to the Mellanox one) or ``barefoot``.
    """

    name: str
    script: SonicScript
    cell_size_bytes: float
    pipeline_latency_kb: float
    mac_phy_delay_kb: float
    peer_response_time_kb: float

    def __post_init__(self) -> None:
        if self.script not in SONIC_SCRIPTS:
            raise ModelInputError(
                f"unknown headroom script {self.script!r}",
                place="script",
                hint=f"use one of {', '.join(SONIC_SCRIPTS)} (VS uses mellanox)",
            )
        if not self.name:
            raise ModelInputError(
                "is empty", place="name", hint="use the ASIC_TABLE key, e.g. MELLANOX-SPECTRUM-2"
            )
        require_positive(
            "cell_size_bytes", self.cell_size_bytes, hint="ASIC_TABLE cell_size, e.g. 144"
        )
        for field_name in ("pipeline_latency_kb", "mac_phy_delay_kb", "peer_response_time_kb"):
            require_non_negative(
                field_name, getattr(self, field_name), hint="ASIC_TABLE value in KB, e.g. 19"
            )

    @property
    def generation_digit(self) -> str:
        """Last character of the ASIC_TABLE key; the Mellanox script branches on it."""
        return self.name[-1]


@dataclass(frozen=True, kw_only=True)
class SonicHeadroom:
    rate_bps: Any = quantity("bps", "port speed")
    cable_m: Any = quantity("m", "cable length")
    worst_case_factor: Any = quantity("1", "cells per minimal packet (worst case)")
    cell_occupancy: Any = quantity("1", "cell occupancy factor for the small-packet mix")
    peer_response_bytes: Any = quantity("B", "peer response time (pause quanta or ASIC_TABLE)")
    cable_bytes: Any = quantity("B", "bytes on cable (round trip)")
    gearbox_bytes: Any = quantity("B", "bytes on gearbox (one direction)")
    tile_bytes: Any = quantity("B", "kB on tile (Spectrum-4/5)")
    propagation_delay_bytes: Any = quantity("B", "propagation delay in bytes")
    xon_bytes: Any = quantity("B", "BUFFER_PROFILE xon")
    xoff_bytes: Any = quantity("B", "BUFFER_PROFILE xoff")
    size_bytes: Any = quantity("B", "BUFFER_PROFILE size")
    provenance: Provenance


def _ceil1024(value: Any) -> Any:
    # Both scripts round with ``math.ceil(x / 1024) * 1024``.
    return np.ceil(value / 1024.0) * 1024.0


def _pause_quanta(speed_mbps: Any, table: dict[float, float]) -> tuple[Any, Any]:
    """Vectorised ``pause_quanta_per_speed[port_speed]``: (quanta, found) with exact lookup."""
    speeds = np.asarray(speed_mbps, dtype=np.float64)
    quanta = np.zeros_like(speeds)
    found = np.zeros(speeds.shape, dtype=bool)
    for table_speed, table_quanta in table.items():  # loop over the ≤10 table rows, not elements
        hit = speeds == table_speed
        quanta = np.where(hit, table_quanta, quanta)
        found |= hit
    return quanta, found


def sonic_headroom(
    asic: SonicAsicTable,
    rate_bps: Any,
    cable_m: Any,
    *,
    port_mtu_bytes: Any = SONIC_DEFAULT_PORT_MTU_BYTES,
    lossless_mtu_bytes: Any,
    small_packet_percent: Any,
    lanes: Any = 4,
    gearbox_delay_s: Any = 0.0,
    shared_headroom_pool: bool = False,
) -> SonicHeadroom:
    """xon/xoff/size exactly as SONiC's headroom plugin for ``asic.script`` computes them.

    ``rate_bps`` is PORT.speed (SONiC stores Mb/s; converted exactly), ``cable_m`` the
    CABLE_LENGTH value, ``port_mtu_bytes`` PORT.mtu, ``lossless_mtu_bytes`` and
    ``small_packet_percent`` LOSSLESS_TRAFFIC_PATTERN ``mtu``/``small_packet_percentage``,
    ``lanes`` the port's lane count, ``gearbox_delay_s`` PERIPHERAL_TABLE ``gearbox_delay``
    (SONiC stores ns), ``shared_headroom_pool`` whether SHP is on (ingress_lossless_pool
    ``xoff`` ≠ 0 or ``over_subscribe_ratio`` ≠ 0). Note buffermgrd never calls the plugin for a
    ``0m`` cable (it removes the lossless PGs instead, sonic-yang-models sonic-cable-length.yang; sonic-swss cfgmgr/buffermgr.cpp).
    """
    rate_bps = as_float_array(rate_bps)
    cable_m = as_float_array(cable_m)
    port_mtu = as_float_array(port_mtu_bytes)
    lossless_mtu = as_float_array(lossless_mtu_bytes)
    spp = as_float_array(small_packet_percent)
    lanes = as_float_array(lanes)
    gearbox_delay_s = as_float_array(gearbox_delay_s)
    require_positive("rate_bps", rate_bps, hint="PORT speed, e.g. 100G")
    require_non_negative("cable_m", cable_m, hint="CABLE_LENGTH, e.g. 40m")
    # YANG ranges: PORT.mtu uint16 68..9216 (sonic-yang-models sonic-port.yang), LOSSLESS_TRAFFIC_PATTERN mtu 1..9216 and
    # small_packet_percentage 0..100 (sonic-yang-models sonic-lossless-traffic-pattern.yang).
    require_in_range("port_mtu_bytes", port_mtu, 68, 9216, hint="PORT.mtu in bytes, e.g. 9100")
    require_in_range(
        "lossless_mtu_bytes", lossless_mtu, 1, 9216, hint="lossless MTU in bytes, e.g. 1024"
    )
    require_in_range("small_packet_percent", spp, 0, 100, hint="a percentage such as 50")
    require_at_least("lanes", lanes, 1, hint="the port's lane count, e.g. 4 or 8")
    require_non_negative(
        "gearbox_delay_s", gearbox_delay_s, hint="gearbox delay, e.g. 0ns or 305ns"
    )

    # SONiC keeps speed in Mb/s and the gearbox delay in ns; recover those numbers exactly.
    speed = rate_bps / 1e6
    gearbox_delay_ns = np.round(gearbox_delay_s * 1e9, 6)
    if asic.script == "mellanox":
        quanta_table = MELLANOX_PAUSE_QUANTA_PER_SPEED_MBPS
        source = SOURCE_MELLANOX_LUA
    else:
        quanta_table = BAREFOOT_PAUSE_QUANTA_PER_SPEED_MBPS
        source = SOURCE_BAREFOOT_LUA
    pause_quanta, quanta_found = _pause_quanta(speed, quanta_table)

    cell_size = float(asic.cell_size_bytes)
    pipeline_latency = float(asic.pipeline_latency_kb) * 1024.0
    mac_phy_delay = float(asic.mac_phy_delay_kb) * 1024.0
    asic_peer_response = float(asic.peer_response_time_kb) * 1024.0
    peer_response = np.where(quanta_found, pause_quanta * 512.0 / 8.0, asic_peer_response)

    if cell_size > 2.0 * _MINIMAL_PACKET_SIZE_BYTES:
        worst_case_factor = cell_size / _MINIMAL_PACKET_SIZE_BYTES
    else:
        worst_case_factor = (2.0 * cell_size) / (1.0 + cell_size)
    bytes_on_gearbox = np.where(
        gearbox_delay_ns == 0, 0.0, speed * gearbox_delay_ns / (8.0 * 1024.0)
    )

    if asic.script == "mellanox":
        worst_case_factor = float(np.ceil(worst_case_factor))
        by_byte = (
            100.0
            * _MINIMAL_PACKET_SIZE_BYTES
            / ((spp * _MINIMAL_PACKET_SIZE_BYTES + (100.0 - spp) * lossless_mtu) / 100.0)
        )
        cell_occupancy = (100.0 - by_byte + by_byte * worst_case_factor) / 100.0
        is_8lane = lanes == 8
        pipeline = np.where(is_8lane, pipeline_latency * 2.0, pipeline_latency)
        speed_overhead = np.where(is_8lane, port_mtu, 0.0)
        digit = asic.generation_digit
        tile = speed / 1000.0 * 120.0 / 8.0 if digit in ("4", "5") else speed * 0.0
        bytes_on_cable = 2.0 * cable_m * speed * 1000000000.0 / _SPEED_OF_LIGHT_MPS / (8.0 * 1000.0)
        propagation = (
            port_mtu
            + bytes_on_cable
            + 2.0 * bytes_on_gearbox
            + mac_phy_delay
            + peer_response
            + tile
        )
        xoff = _ceil1024(lossless_mtu + propagation * cell_occupancy)
        if digit == "6":
            xoff = xoff + _SPECTRUM6_COMPENSATION_BYTES
        if not shared_headroom_pool:
            full_small_packet_xoff = _ceil1024(lossless_mtu + propagation * worst_case_factor)
            compensate = (spp != 100.0) & (
                xoff + _HEADROOM_COMPENSATION_BYTES < full_small_packet_xoff
            )
            xoff = np.where(compensate, xoff + _HEADROOM_COMPENSATION_BYTES, xoff)
        xon = _ceil1024(pipeline)
        size = _ceil1024(xon if shared_headroom_pool else xoff + xon + speed_overhead)
        occupancy_formula = (
            "spp_by_byte=100*64/((spp*64+(100-spp)*lossless_mtu)/100); "
            "(100-spp_by_byte+spp_by_byte*worst_case_factor)/100"
        )
        wcf_formula = "ceil(cell>128 ? cell/64 : 2*cell/(1+cell))"
        cable_formula = "2*cable*speed_mbps*1e9/198e6/(8*1000)"
        propagation_formula = (
            "port_mtu+cable_bytes+2*gearbox_bytes+mac_phy_delay+peer_response_bytes+tile_bytes"
        )
        xoff_formula = (
            "ceil1024(lossless_mtu+propagation_delay_bytes*cell_occupancy) [+18432 on Spectrum-6]"
            " [+2048 if no SHP, spp!=100 and that stays below"
            " ceil1024(lossless_mtu+pd*worst_case_factor)]"
        )
        xon_formula = "ceil1024(pipeline_latency_kb*1024 [*2 on 8-lane ports])"
        size_formula = "ceil1024(SHP ? xon : xoff+xon [+port_mtu on 8-lane ports])"
        tile_formula = "speed_mbps/1000*120/8 on Spectrum-4/5 (ASIC key ends in 4 or 5), else 0"
        peer_formula = "pause_quanta[speed]*512/8, else peer_response_time_kb*1024"
    else:
        cell_occupancy = (100.0 - spp + spp * worst_case_factor) / 100.0
        peer_response = np.where(speed == 400000.0, 2.0 * peer_response, peer_response)
        tile = speed * 0.0
        bytes_on_cable = 2.0 * cable_m * speed * 1000000000.0 / _SPEED_OF_LIGHT_MPS / (8.0 * 1024.0)
        propagation = (
            port_mtu + bytes_on_cable + 2.0 * bytes_on_gearbox + mac_phy_delay + peer_response
        )
        xoff = _ceil1024(lossless_mtu + propagation * cell_occupancy)
        xon = _ceil1024(pipeline_latency)
        size = _ceil1024(xon)
        occupancy_formula = "(100-spp+spp*worst_case_factor)/100"
        wcf_formula = "cell>128 ? cell/64 : 2*cell/(1+cell) (not rounded)"
        cable_formula = "2*cable*speed_mbps*1e9/198e6/(8*1024)"
        propagation_formula = (
            "port_mtu+cable_bytes+2*gearbox_bytes+mac_phy_delay+peer_response_bytes"
        )
        xoff_formula = "ceil1024(lossless_mtu+propagation_delay_bytes*cell_occupancy)"
        xon_formula = "ceil1024(pipeline_latency_kb*1024)"
        size_formula = "ceil1024(xon) (script assumes shared headroom)"
        tile_formula = "0 (barefoot script has no tile term)"
        peer_formula = "pause_quanta[speed]*512/8 (x2 at 400G), else peer_response_time_kb*1024"

    broadcast = np.broadcast_arrays(
        rate_bps, cable_m, port_mtu, lossless_mtu, spp, lanes, gearbox_delay_s
    )
    shape = broadcast[0].shape

    def shaped(value: Any) -> Any:
        # Scalar inputs give scalar outputs; any array input gives arrays of the common shape.
        full = np.broadcast_to(np.asarray(value, dtype=np.float64), shape)
        return float(full) if full.ndim == 0 else np.array(full)

    return SonicHeadroom(
        rate_bps=shaped(rate_bps),
        cable_m=shaped(cable_m),
        worst_case_factor=shaped(worst_case_factor),
        cell_occupancy=shaped(cell_occupancy),
        peer_response_bytes=shaped(peer_response),
        cable_bytes=shaped(bytes_on_cable),
        gearbox_bytes=shaped(bytes_on_gearbox),
        tile_bytes=shaped(tile),
        propagation_delay_bytes=shaped(propagation),
        xon_bytes=shaped(xon),
        xoff_bytes=shaped(xoff),
        size_bytes=shaped(size),
        provenance=Provenance(
            model=f"sonic_headroom[{asic.script}]",
            inputs=(
                input_value("asic", asic.name, ""),
                input_value("cell_size_bytes", cell_size, "B"),
                input_value("pipeline_latency_kb", float(asic.pipeline_latency_kb), "KiB"),
                input_value("mac_phy_delay_kb", float(asic.mac_phy_delay_kb), "KiB"),
                input_value("peer_response_time_kb", float(asic.peer_response_time_kb), "KiB"),
                input_value("rate_bps", rate_bps, "bps"),
                input_value("cable_m", cable_m, "m"),
                input_value("port_mtu_bytes", port_mtu, "B"),
                input_value("lossless_mtu_bytes", lossless_mtu, "B"),
                input_value("small_packet_percent", spp, "%"),
                input_value("lanes", lanes, "lanes"),
                input_value("gearbox_delay_s", gearbox_delay_s, "s"),
                input_value("shared_headroom_pool", shared_headroom_pool, ""),
            ),
            derivations=(
                Derivation("worst_case_factor", wcf_formula, source),
                Derivation("cell_occupancy", occupancy_formula, source),
                Derivation(
                    "peer_response_bytes", peer_formula, f"{source}; IEEE 802.3 Annex 31B.3.7"
                ),
                Derivation("cable_bytes", cable_formula, source),
                Derivation(
                    "gearbox_bytes", "gearbox_ns==0 ? 0 : speed_mbps*gearbox_ns/(8*1024)", source
                ),
                Derivation("tile_bytes", tile_formula, source),
                Derivation("propagation_delay_bytes", propagation_formula, source),
                Derivation("xoff_bytes", xoff_formula, source),
                Derivation("xon_bytes", xon_formula, source),
                Derivation("size_bytes", size_formula, source),
            ),
        ),
    )


__all__ = [
    "BAREFOOT_PAUSE_QUANTA_PER_SPEED_MBPS",
    "MELLANOX_PAUSE_QUANTA_PER_SPEED_MBPS",
    "SONIC_DEFAULT_PORT_MTU_BYTES",
    "SONIC_SCRIPTS",
    "SonicAsicTable",
    "SonicHeadroom",
    "SonicScript",
    "sonic_headroom",
]
