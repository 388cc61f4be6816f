"""``qosforge whatif tlt``: TLT color-aware threshold headroom for important packets (TLT §4.2)."""

from __future__ import annotations

from typing import Any

from qosforge.api.calculators._framework import Param, WhatIf
from qosforge.api.calculators._mmus import MMUS_PARAM, per_mmu_buffer_bytes
from qosforge.defaults import (
    DEFAULT_ALPHA,
    DEFAULT_CONGESTED_PORTS,
    DEFAULT_LSO_BURST,
    DEFAULT_MTU,
)
from qosforge.errors import QosforgeError
from qosforge.models.dcqcn import dcqcn_marking
from qosforge.models.dctcp import dctcp_marking_threshold
from qosforge.models.tlt import TRANSPORTS, TltHeadroom, tlt_design, tlt_headroom
from qosforge.ranges import RTT
from qosforge.units import parse_size_bytes


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
    ecn_threshold, kmax = _compile_marking(values)
    return tlt_design(
        transport=values["transport"],
        rate_bps=values["rate_bps"],
        rtt_s=values["rtt_s"],
        ecn_threshold_bytes=ecn_threshold,
        kmax_bytes=kmax,
        **common,
    )


def _compile_marking(values: dict[str, Any]) -> tuple[Any, Any]:
    """K_ECN and K_max as compile derives them when not given (compiler/thresholds.py): the
    DCTCP family's step K at least the LSO burst (DCTCP §3.4, §3.5), DCQCN's K_max scaled with the
    link rate (models/dcqcn.py); so K = max(K_ECN, BDP) or K_max is compile's K for this port."""
    ecn_threshold, kmax = values["ecn_threshold_bytes"], values["kmax_bytes"]
    if ecn_threshold is None and values["transport"] in ("dctcp", "d2tcp", "ear"):
        ecn_threshold = dctcp_marking_threshold(
            values["rate_bps"], values["rtt_s"], values["important_packet_bytes"], parse_size_bytes(DEFAULT_LSO_BURST)
        ).threshold_bytes
    if kmax is None and values["transport"] in ("dcqcn", "irn"):
        kmax = dcqcn_marking(values["rate_bps"], selective_retransmission=values["transport"] == "irn").kmax_bytes
    return ecn_threshold, kmax


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
        Param("--congested-ports", "congested_ports", "integer", "Congested ports M.", default=str(DEFAULT_CONGESTED_PORTS)),
        Param("--alpha", "alpha", "number", "Dynamic-threshold alpha (2^dynamic_th).", default=f"{DEFAULT_ALPHA:g}"),
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
            default=DEFAULT_MTU,
        ),
        Param(
            "--transport",
            "transport",
            "choice",
            "Derive K from this transport's steady-state queue.",
            choices=TRANSPORTS,
        ),
        Param("--speed", "rate_bps", "rate", "Link rate for the BDP (with --transport)."),
        Param("--rtt", "rtt_s", "time", "Base RTT for the BDP (with --transport).", bounds=RTT),
        Param(
            "--ecn-threshold",
            "ecn_threshold_bytes",
            "size",
            "DCTCP-family K_ECN; K = max(K_ECN, BDP) [default: DCTCP's K at least the LSO burst, as compile].",
            packet_size_argument="important_packet_bytes",
        ),
        Param(
            "--kmax",
            "kmax_bytes",
            "size",
            "Deployed DCQCN K_max (dcqcn/irn) [default: DCQCN's K_max at --speed, 200kB x rate/40G, as compile; TLT §7.1 uses 200kB at 40G].",
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
