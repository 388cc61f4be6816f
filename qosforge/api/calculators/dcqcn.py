"""``qosforge whatif dcqcn``: DCQCN's RED marking thresholds for a link rate (defaults from the
DCQCN paper at 40 Gbps scaled with the rate; each one overridable)."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.models.dcqcn import DcqcnMarking, dcqcn_marking


def _compute(values: dict[str, Any]) -> DcqcnMarking:
    return dcqcn_marking(
        rate_bps=values["rate_bps"],
        kmin_bytes=values["kmin_bytes"],
        kmax_bytes=values["kmax_bytes"],
        pmax_percent=values["pmax_percent"],
    )


SPEC = WhatIf(
    name="dcqcn",
    summary="DCQCN RED/ECN marking K_min, K_max, P_max for a link rate (lossless class).",
    description=(
        "Defaults: K_min = 5 KB, K_max = 200 KB, P_max = 1% at 40 Gbps (Zhu et al., SIGCOMM 2015), "
        "K_min and K_max scaled in proportion to the link rate (same queueing delays, as the HPCC "
        "ns-3 setup scales them), P_max unchanged. Any of the three can be overridden. DCQCN "
        "needs PFC: the class must be lossless."
    ),
    params=(
        Param("--speed", "rate_bps", "rate", "Link rate C (e.g. 40G, 100G).", required=True, aliases=("--rate",)),
        Param("--kmin", "kmin_bytes", "size", "Override K_min (default: 5kB × rate/40G)."),
        Param("--kmax", "kmax_bytes", "size", "Override K_max (default: 200kB × rate/40G)."),
        Param("--pmax", "pmax_percent", "percent", "Override P_max, a percentage with its % sign (default: 1%)."),
    ),
    compute=_compute,
    headline=("kmin_bytes", "kmax_bytes", "pmax_percent"),
    examples=(
        "qosforge whatif dcqcn --speed 100G",
        "qosforge whatif dcqcn --speed 100G --kmax 1MB --pmax 20%",
        "qosforge whatif dcqcn --sweep rate=10G:400G:40 --format json",
    ),
)
