"""``qosforge whatif tlt``: TLT color-aware threshold headroom for important packets (TLT §4.2)."""

from __future__ import annotations

from typing import Any

from qosforge.cli.whatif._framework import Param, WhatIf
from qosforge.cli.whatif._mmus import MMUS_PARAM, per_mmu_buffer_bytes
from qosforge.errors import QosforgeError
from qosforge.models.tlt import TRANSPORTS, TltHeadroom, tlt_design, tlt_headroom


def _compute(values: dict[str, Any]) -> TltHeadroom:
    common = {
        "buffer_bytes": per_mmu_buffer_bytes(values),
        "alpha": values["alpha"],
        "congested_ports": values["congested_ports"],
        "important_packet_bytes": values["important_packet_bytes"],
        "allow_infeasible": values["allow_infeasible"],
    }
    derive_flags = ("transport", "rate_bps", "rtt_s", "ecn_threshold_bytes", "kmax_bytes")
    given = [name for name in derive_flags if values[name] is not None]
    if values["threshold_bytes"] is not None:
        if given:
            raise QosforgeError(
                "give either the threshold or the transport to derive it from, not both",
                place="--threshold",
                hint="drop --threshold to derive K from --transport/--speed/--rtt, or drop those",
            )
        return tlt_headroom(threshold_bytes=values["threshold_bytes"], **common)
    if values["transport"] is None:
        raise QosforgeError(
            "is required unless K is derived from a transport",
            place="--threshold",
            hint="e.g. --threshold 400kB, or --transport dctcp --speed 40G --rtt 80us",
        )
    for name, flag, example in (("rate_bps", "--speed", "40G"), ("rtt_s", "--rtt", "80us")):
        if values[name] is None:
            raise QosforgeError(
                f"is required to derive K (BDP) for --transport {values['transport']}",
                place=flag,
                hint=f"e.g. {flag} {example}",
            )
    return tlt_design(
        transport=values["transport"],
        rate_bps=values["rate_bps"],
        rtt_s=values["rtt_s"],
        ecn_threshold_bytes=values["ecn_threshold_bytes"],
        kmax_bytes=values["kmax_bytes"],
        **common,
    )


SPEC = WhatIf(
    name="tlt",
    summary="TLT important-packet headroom and flows without important loss (TLT §4.2).",
    description=(
        "Each of M congested ports gets alpha·B/(1+M·alpha) of the shared buffer; unimportant "
        "packets stop at the color-aware threshold K, so alpha·B/(1+M·alpha) − K is left for "
        "important packets. A TLT flow has at most one important packet in flight, so each port "
        "carries floor(headroom / packet) flows, M times that in total. Give K with --threshold, "
        "or derive it from --transport with --speed and --rtt (TCP/DCTCP: K >= BDP; DCQCN/IRN: "
        "K >= K_max; HPCC: TLT's 200 kB RoCE setting)."
    ),
    params=(
        Param("--buffer", "buffer_bytes", "size", "Shared buffer B (e.g. 12MB).", required=True),
        MMUS_PARAM,
        Param("--congested-ports", "congested_ports", "integer", "Congested ports M.", default="1"),
        Param("--alpha", "alpha", "number", "Dynamic-threshold alpha (2^dynamic_th).", default="1"),
        Param(
            "--threshold",
            "threshold_bytes",
            "size",
            "Color-aware (unimportant) dropping threshold K.",
            packet_size_argument="important_packet_bytes",
        ),
        Param(
            "--packet",
            "important_packet_bytes",
            "size",
            "Important packet size (Ethernet MTU in TLT §4.2).",
            default="1500B",
        ),
        Param(
            "--transport",
            "transport",
            "choice",
            "Derive K from this transport's steady-state queue.",
            choices=TRANSPORTS,
        ),
        Param("--speed", "rate_bps", "rate", "Link rate for the BDP (with --transport)."),
        Param("--rtt", "rtt_s", "time", "Base RTT for the BDP (with --transport)."),
        Param(
            "--ecn-threshold",
            "ecn_threshold_bytes",
            "size",
            "DCTCP-family K_ECN; K = max(K_ECN, BDP).",
            packet_size_argument="important_packet_bytes",
        ),
        Param(
            "--kmax",
            "kmax_bytes",
            "size",
            "Deployed DCQCN K_max (dcqcn/irn; default 200kB as in TLT §7.1).",
        ),
        Param(
            "--allow-infeasible",
            "allow_infeasible",
            "flag",
            "Report points without headroom (0 flows) instead of failing (for sweeps).",
        ),
    ),
    compute=_compute,
    headline=(
        "threshold_bytes",
        "per_port_share_bytes",
        "important_headroom_bytes",
        "flows_per_port",
        "total_flows",
    ),
    examples=(
        "qosforge whatif tlt --buffer 12MB --congested-ports 16 --threshold 400kB",
        "qosforge whatif tlt --buffer 12MB --congested-ports 16 --transport dctcp --speed 40G "
        "--rtt 80us",
        "qosforge whatif tlt --buffer 12MB --threshold 400kB --sweep congested-ports=1:32:32 "
        "--allow-infeasible --plot tlt.png",
    ),
)
