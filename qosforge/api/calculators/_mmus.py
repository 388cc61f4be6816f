"""``--mmus N`` for the dynamic-threshold calculators: a multi-MMU chip applies dynamic thresholds
per MMU, so a port competes for B/N (as compile does, compiler/buffers.py mmu_shared_bytes;
Tomahawk's 16 MB is 4 MMUs of 4 MB, the TLT §6 testbed)."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param
from qosforge.models._checks import require_at_least

MMUS_PARAM = Param(
    "--mmus", "mmus", "integer",
    "MMUs the buffer is split into; B is divided by N (the vendor profile's mmu_count, e.g. 4 on broadcom-tomahawk).",
    default="1",
)


def per_mmu_buffer_bytes(values: dict[str, Any]) -> Any:
    """The B a port competes in: the switch buffer over its MMUs. N is checked here, before the
    division, so a bad --mmus is reported at --mmus (not as a bad --buffer, or a division by 0)."""
    require_at_least("mmus", values["mmus"], 1, hint="a chip has one MMU or more: use the vendor profile's mmu_count")
    return values["buffer_bytes"] / values["mmus"]
