"""Facts about a config_db that several checks need: its buffer model and its ASIC vendor.

Both are read from the file when it says so (``DEVICE_METADATA|localhost``), else inferred from
signs only one answer produces, and the source of the answer is kept for the messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

BufferModel = Literal["traditional", "dynamic"]


def _table(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    table = config.get(name)
    return table if isinstance(table, Mapping) else {}


def _localhost(config: Mapping[str, Any]) -> Mapping[str, Any]:
    entry = _table(config, "DEVICE_METADATA").get("localhost")
    return entry if isinstance(entry, Mapping) else {}


@dataclass(frozen=True)
class BufferModelFact:
    model: BufferModel
    source: str


def buffer_model(config: Mapping[str, Any]) -> BufferModelFact:
    """The buffer model: ``DEVICE_METADATA|localhost.buffer_model`` when present, traditional for a
    DEVICE_METADATA|localhost without it; for a fragment without DEVICE_METADATA, ``dynamic``
    when the file shows what only the dynamic model writes (sonic-buildimage buffers_config.j2 with
    ``dynamic_mode``; sonic-swss cfgmgr/buffermgrdyn.cpp): a NULL PG profile, a pool without
    ``size`` (buffermgrdyn computes it), or DEFAULT_LOSSLESS_BUFFER_PARAMETER; else traditional."""
    localhost = _localhost(config)
    declared = localhost.get("buffer_model")
    if declared in ("traditional", "dynamic"):
        return BufferModelFact(declared, "DEVICE_METADATA|localhost.buffer_model")
    if localhost:
        # A whole config_db: buffermgrd starts in the traditional model unless buffer_model says
        # dynamic (sonic-buildimage files/build_templates/buffermgrd.sh / buffermgrd.cpp).
        return BufferModelFact("traditional", "DEVICE_METADATA|localhost has no buffer_model (SONiC's default)")
    if _table(config, "DEFAULT_LOSSLESS_BUFFER_PARAMETER"):
        return BufferModelFact("dynamic", "DEFAULT_LOSSLESS_BUFFER_PARAMETER is present")
    if any(isinstance(e, Mapping) and e.get("profile") == "NULL" for e in _table(config, "BUFFER_PG").values()):
        return BufferModelFact("dynamic", "a BUFFER_PG profile is NULL")
    pools = [e for e in _table(config, "BUFFER_POOL").values() if isinstance(e, Mapping)]
    if any("size" not in pool and "percentage" not in pool for pool in pools) and pools:
        return BufferModelFact("dynamic", "a BUFFER_POOL has no size")
    return BufferModelFact("traditional", "default (no sign of the dynamic model)")


#: Substrings of DEVICE_METADATA platform / hwsku naming the ASIC vendor (sonic-buildimage
#: device/<vendor>/<platform>/<hwsku> naming: x86_64-mlnx_msn2700-r0, Mellanox-SN2700, ACS-MSN2700).
_VENDOR_MARKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mellanox", ("mlnx", "mellanox", "nvidia", "acs-msn", "acs-sn")),
    ("broadcom", ("bcm", "broadcom")),
    ("barefoot", ("bfn", "barefoot", "tofino")),
    # Innovium (now Marvell) Teralynx boxes: their platform names do not say the ASIC, so the ones
    # sonic-buildimage ships are listed (device/*/<platform>/platform_asic "marvell-teralynx", and
    # delta_et-c032if, a Teralynx 7 box whose platform_asic file says broadcom although its templates
    # are Innovium's: xon_offset, PG profiles on egress pools).
    ("marvell-teralynx", ("innovium", "teralynx", "cel_midstone", "delta_et-c032if", "delta_agc032",
                          "marvell_d64p512t", "dbmvtx9180", "aurora_715", "sse_t7132s", "wistron_6512_32r",
                          "sw_to3200k")),
)
#: asic_type spellings of one vendor (SONiC renamed innovium to marvell-teralynx in 2023).
_VENDOR_ALIASES = {"innovium": "marvell-teralynx"}
TERALYNX = "marvell-teralynx"


@dataclass(frozen=True)
class VendorFact:
    vendor: str | None
    """Lower-case ASIC vendor (``mellanox``, ``broadcom``, ...), None when nothing says."""
    source: str


def vendor_from_metadata(config: Mapping[str, Any]) -> VendorFact:
    """The ASIC vendor from ``DEVICE_METADATA|localhost`` (``asic_type`` when written by the image,
    else ``platform`` / ``hwsku`` naming), or None with the reason."""
    localhost = _localhost(config)
    asic_type = localhost.get("asic_type")
    if isinstance(asic_type, str) and asic_type:
        lowered = asic_type.lower()
        return VendorFact(_VENDOR_ALIASES.get(lowered, lowered), "DEVICE_METADATA|localhost.asic_type")
    for field in ("platform", "hwsku"):
        value = localhost.get(field)
        if not isinstance(value, str):
            continue
        lowered = value.lower()
        for vendor, marks in _VENDOR_MARKS:
            if any(mark in lowered for mark in marks):
                return VendorFact(vendor, f"DEVICE_METADATA|localhost.{field} {value}")
    if localhost.get("platform") or localhost.get("hwsku"):
        return VendorFact(None, "DEVICE_METADATA platform/hwsku name no ASIC vendor qosforge knows")
    return VendorFact(None, "no --profile and no DEVICE_METADATA platform/hwsku")


__all__ = ["TERALYNX", "BufferModel", "BufferModelFact", "VendorFact", "buffer_model", "vendor_from_metadata"]
