"""``qosforge whatif buffer``: the dynamic-threshold share of a shared buffer (the worked example
of a what-if spec; see ``_framework.py``)."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.api.calculators._mmus import MMUS_PARAM, per_mmu_buffer_bytes
from qosforge.defaults import DEFAULT_ALPHA, DEFAULT_CONGESTED_PORTS
from qosforge.models.dynamic_threshold import DynamicThresholdShare, dynamic_threshold_share


def _compute(values: dict[str, Any]) -> DynamicThresholdShare:
    return dynamic_threshold_share(
        buffer_bytes=per_mmu_buffer_bytes(values),
        alpha=values["alpha"],
        congested_ports=values["congested_ports"],
    )


SPEC = WhatIf(
    name="buffer",
    summary="Per-port queue limit under dynamic thresholds: alpha·B/(1+M·alpha).",
    description=(
        "With M ports congested, each queue settles where q = alpha·(B − M·q) "
        "(Choudhury & Hahne 1998; TLT §4.2). alpha = 2^dynamic_th in SONiC/SAI."
    ),
    params=(
        Param("--buffer", "buffer_bytes", "size", "Shared buffer B (e.g. 12MB, 16MiB).", required=True),
        MMUS_PARAM,
        Param("--alpha", "alpha", "number", "Dynamic-threshold alpha (2^dynamic_th).", default=f"{DEFAULT_ALPHA:g}"),
        Param("--congested-ports", "congested_ports", "integer", "Congested ports M.", default=str(DEFAULT_CONGESTED_PORTS)),
    ),
    compute=_compute,
    headline=("per_port_share_bytes", "free_buffer_bytes"),
    examples=(
        "qosforge whatif buffer --buffer 12MB --congested-ports 16",
        "qosforge whatif buffer --buffer 12MB --sweep congested-ports=1:32:32 --plot share.png",
    ),
)
