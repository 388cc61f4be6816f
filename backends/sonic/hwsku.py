"""Which ASIC a SONiC switch has, from its ``DEVICE_METADATA|localhost`` HWSKU, as SONiC's Generic
Config Updater reads it, and which qosforge vendor profile that ASIC is.

The HWSKU lists are GCU's (sonic-utilities ``generic_config_updater/gcu_field_operation_validators.conf.json``
``helper_data.rdma_config_update_validator``, commit 691b1bbc); the lookup is its
``field_operation_validators.py: get_asic_name``: a Mellanox HWSKU matches a list entry exactly
(ignoring case), a Broadcom one contains an entry. ``compile --base`` uses it twice: to refuse a
running config whose switch is not the ASIC the intent compiles for (a Trident2's 12.77 MB patched
with a Spectrum-2's 33 MB pools), and to tell which GCU field operations that switch accepts
(backends/sonic/gcu_validators.py).
"""

from __future__ import annotations

from collections.abc import Mapping

MELLANOX_HWSKUS: Mapping[str, tuple[str, ...]] = {
    "spc1": ("ACS-MSN2700", "ACS-MSN2740", "ACS-MSN2100", "ACS-MSN2410", "ACS-MSN2010", "Mellanox-SN2700",
        "Mellanox-SN2700-C28D8", "Mellanox-SN2700-D40C8S8", "Mellanox-SN2700-D44C10", "Mellanox-SN2700-D48C8",
        "ACS-MSN2700-A1", "Mellanox-SN2700-A1", "Mellanox-SN2700-A1-C28D8", "Mellanox-SN2700-A1-D40C8S8",
        "Mellanox-SN2700-A1-D44C10", "Mellanox-SN2700-A1-D48C8"),
    "spc2": ("ACS-MSN3800", "Mellanox-SN3800-D112C8", "ACS-MSN3420", "ACS-MSN3700C", "ACS-MSN3700",
        "Mellanox-SN3800-C64", "Mellanox-SN3800-D100C12S2", "Mellanox-SN3800-D24C52", "Mellanox-SN3800-D28C49S1",
        "Mellanox-SN3800-D28C50"),
    "spc3": ("ACS-MSN4700", "ACS-MSN4600", "ACS-MSN4600C", "ACS-MSN4410", "ACS-SN4280", "Mellanox-SN4600C-D112C8",
        "Mellanox-SN4600C-C64", "Mellanox-SN4700-O8C48", "Mellanox-SN4600C-D100C12S2", "Mellanox-SN4600C-D48C40",
        "Mellanox-SN4700-O32", "Mellanox-SN4700-V64", "Mellanox-SN4700-A96C8V8", "Mellanox-SN4700-C128",
        "Mellanox-SN4700-O28", "Mellanox-SN4700-O8V48", "Mellanox-SN4700-V48C32", "Mellanox-SN4280-O28",
        "Mellanox-SN4280-O8C80", "Mellanox-SN4280-C48", "Mellanox-SN4280-O8C40", "Mellanox-SN4280-O8V40",
        "Mellanox-SN4280-O4X96"),
    "spc4": ("ACS-SN5600", "Mellanox-SN5600-O128", "Mellanox-SN5600-V256", "Mellanox-SN5600-C256S1", "ACS-SN5400",
        "Mellanox-SN5600-C224O8", "Mellanox-SN5610N-C256S2", "Mellanox-SN5610N-C224O8"),
    "spc5": ("ACS-SN5640", "Mellanox-SN5640-C512S2", "Mellanox-SN5640-C448O16", "Mellanox-SN5640-C512X2",
        "Mellanox-SN5640-C508O1X2", "Mellanox-SN5640-O128X2"),
    "spc6": ("ACS-SN6600_LD", "Mellanox-SN6600_LD-P128C2", "Mellanox-SN6600_LD-P64O128C2", "ACS-SN6810_LD"),
}
BROADCOM_HWSKUS: Mapping[str, tuple[str, ...]] = {
    "th": ("Force10-S6100", "Arista-7060CX-32S-C32", "Arista-7060CX-32S-C32-T1", "Arista-7060CX-32S-D48C8",
        "Celestica-DX010-C32", "Seastone-DX010"),
    "th2": ("Arista-7260CX3-D108C10", "Arista-7260CX3-D108C8", "Arista-7260CX3-C64", "Arista-7260CX3-Q44",
        "Arista-7260CX3-Q64"),
    "th3": ("Nokia-IXR7220-H3",),
    "th4": ("Nokia-IXR7220-H4-64D", "Nokia-IXR7220-H4-32D"),
    "th5": ("Nokia-IXR7220-H5-64D", "Arista-7060X6-64DE", "Arista-7060X6-64PE", "Arista-7060X6-64PE-C224O8",
        "Arista-7060X6-64PE-C256S2", "Nokia-IXR7220-H5-64O", "Nokia-IXR7220-H5-32D", "Arista-7060X6-64PE-B-C512S2",
        "Arista-7060X6-64PE-B-C448O16", "Arista-7060X6-64PE-B-O128", "Arista-7060X6-64PE-B-O128S2",
        "Arista-7060X6-16PE-384C-B-O128S2", "Arista-7060X6-64PE-B-P32O64", "Arista-7060X6-64PE-B-P64",
        "Arista-7060X6-64PE-B-P32V128", "Arista-7060X6-64PE-O128", "Arista-7060X6-64PE-O128S2",
        "Arista-7060X6-64PE-P32O64", "Arista-7060X6-64PE-P64", "Arista-7060X6-64PE-P32V128"),
    "th6": ("Nokia-IXR7220-H6-64", "Nokia-IXR7220-H6-P128", "Nokia-IXR7220-H6-O256"),
    "td2": ("Force10-S6000", "Force10-S6000-Q24S32", "Arista-7050-QX32", "Arista-7050-QX-32S", "Nexus-3164",
        "Arista-7050QX32S-Q32"),
    "td3": ("Arista-7050CX3-32C-C32", "Arista-7050CX3-32S-C32", "Arista-7050CX3-32S-D48C8",
        "Arista-7050CX3-32S-C28S4", "Arista-7050CX3-32C-C28S4"),
    "td4": ("Nokia-IXR7220-D4-36D",),
    "j2c+": ("Nokia-IXR7250E-36x100G", "Nokia-IXR7250E-36x400G", "Nokia-IXR7250-X3B", "Arista-7800R3A-36DM2-D36"),
    "q2c+": ("Nokia-IXR7250-X1B",),
    "jr2": ("Arista-7800R3-48CQ2-C48", "Arista-7800R3-48CQM2-C48", "Arista-7808R3A-FM"),
    "q3d": ("Arista-7280R4-32QF-32DF-64O", "Arista-7280R4K-32QF-32DF-64O"),
}

#: GCU's ASIC name of each qosforge vendor profile that is one of them (the profile's ``asic``:
#: Trident II is td2, Tomahawk th, Tomahawk 3 th3, Spectrum spc1, Spectrum-2 spc2, Spectrum-4 spc4).
GCU_ASIC_OF_PROFILE: Mapping[str, str] = {
    "broadcom-trident2": "td2",
    "broadcom-tomahawk": "th",
    "broadcom-tomahawk3": "th3",
    "mellanox-spectrum": "spc1",
    "mellanox-spectrum-2": "spc2",
    "mellanox-spectrum-4": "spc4",
}
_NAMES = {"td2": "Trident2", "td3": "Trident3", "td4": "Trident4", "th": "Tomahawk", "th2": "Tomahawk2", "th3": "Tomahawk3",
          "th4": "Tomahawk4", "th5": "Tomahawk5", "th6": "Tomahawk6", "spc1": "Spectrum", "spc2": "Spectrum-2", "spc3": "Spectrum-3",
          "spc4": "Spectrum-4", "spc5": "Spectrum-5", "spc6": "Spectrum-6"}


def gcu_asic_of_hwsku(hwsku: str) -> str | None:
    """GCU's ASIC name for ``hwsku`` (``td2``, ``spc2``, ...), or None where GCU would say ``unknown``."""
    lowered = hwsku.lower()
    for asic, hwskus in MELLANOX_HWSKUS.items():
        if lowered in (name.lower() for name in hwskus):
            return asic
    for asic, hwskus in BROADCOM_HWSKUS.items():
        if any(name.lower() in lowered for name in hwskus):
            return asic
    return None


def asic_name(gcu_asic: str) -> str:
    """``td2`` -> ``Trident2`` for messages."""
    return _NAMES.get(gcu_asic, gcu_asic)


__all__ = ["BROADCOM_HWSKUS", "GCU_ASIC_OF_PROFILE", "MELLANOX_HWSKUS", "asic_name", "gcu_asic_of_hwsku"]
