"""TLT (Timeout-Less Transport) color-aware dropping: threshold, headroom and host-side marking.

TLT colors a flow's *important* packets green and the rest red/yellow in the same FIFO queue;
the color-aware threshold K drops only unimportant packets, so the queue above K is "reserved"
for important ones (TLT §4.1). This module answers the three sizing questions of TLT §4.2/§5:

* :func:`tlt_min_threshold` — the smallest K that does not interfere with the transport at steady
  state (K above the transport's maximum steady-state queue, §4.2 bullets; §7.1 for RoCE);
* :func:`tlt_headroom` — the room left for important packets under the dynamic threshold,
  alpha·B/(1+M·alpha) − K per congested port, and how many flows that carries without important
  loss (at most one important packet in flight per flow, §4.2 and §5.1);
* :func:`tlt_periodic_marking` — for rate-based transports, the optional "one important packet
  every N packets" interval with N larger than the maximum fan-in (§5.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

import numpy as np

from qosforge.errors import InfeasibleDesignError, ModelInputError
from qosforge.models._checks import (
    as_float_array,
    require_at_least,
    require_non_negative,
    require_positive,
    scalar_or_array,
)
from qosforge.models.dynamic_threshold import DynamicThresholdShare, dynamic_threshold_share
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_TLT_THRESHOLD = (
    "Lim et al., 'Towards Timeout-less Transport in Commodity Datacenter Networks' (TLT), "
    "EuroSys 2021, §4.2 (choice of the dropping threshold)"
)
SOURCE_TLT_ROCE = "TLT §7.1 (RoCE threshold 200 kB, citing DCQCN's recommended K_max = 200 KB [58])"
SOURCE_TLT_HEADROOM = "TLT §4.2 (shared-buffer model, worked Arista 7050QX-32 example)"
SOURCE_TLT_ONE_IMPORTANT = "TLT §4.2 and §5.1 (at most one important packet in flight per flow)"
SOURCE_TLT_PERIODIC = "TLT §5.2 and footnote 2 (N larger than the fan-out degree); §7.1 (N = 96)"

BITS_PER_BYTE: Final = 8.0

#: DCQCN's recommended K_max (200 KB), as quoted by TLT §7.1 ("the recommended K_max of DCQCN is
#: 200KB [58]") and used there as the color-aware threshold of every RoCE transport (DCQCN, IRN,
#: HPCC). Used only when the caller does not give the deployed K_max.
DCQCN_RECOMMENDED_KMAX_BYTES: Final = 200e3

#: Transports whose congestion control falls back to TCP's loss reaction, so the threshold must
#: not drop below the BDP (large-buffer rule): TCP and DCTCP by TLT §4.2; D2TCP, EAR and TBTCP keep
#: TCP's loss recovery unchanged (D2TCP §3.2.5, EAR §4.1, TBTCP §5 "remain the same as DCTCP"),
#: so TLT's DCTCP argument applies to them unchanged.
WINDOW_TRANSPORTS_BDP: Final = ("tcp", "dctcp", "d2tcp", "ear", "tbtcp")
#: Why each window transport's K is at least the BDP, as the derivation states it.
_BDP_REASON: Final = {
    "tcp": "TCP's loss reaction needs K >= BDP (TLT §4.2)",
    "dctcp": "DCTCP keeps TCP's loss reaction: K >= BDP (TLT §4.2)",
    "d2tcp": "D2TCP keeps TCP's loss reaction (D2TCP §3.2.5): K >= BDP",
    "ear": "EAR keeps TCP's loss reaction (EAR §4.1): K >= BDP",
    "tbtcp": "TBTCP keeps DCTCP's loss reaction (TBTCP §5): K >= BDP",
}
#: DCQCN (also under IRN, which TLT always runs over DCQCN): fixed point between K_min and K_max
#: (TLT §4.2, citing Zhu et al.), so K >= K_max.
KMAX_TRANSPORTS: Final = ("dcqcn", "irn")
#: HPCC has near-zero steady queue (TLT §7.1); TLT gives no bound in §4.2 and uses the RoCE value.
ROCE_VALUE_TRANSPORTS: Final = ("hpcc",)
TRANSPORTS: Final = WINDOW_TRANSPORTS_BDP + KMAX_TRANSPORTS + ROCE_VALUE_TRANSPORTS


@dataclass(frozen=True)
class TltSteadyQueue:
    """Where a transport holds the queue at steady state, which TLT's threshold K must clear
    (TLT §4.2): ``bdp`` (a window transport with TCP's loss reaction: K >= BDP, and K >= its ECN
    step K_ECN where it has one, ``ecn_step``), ``kmax`` (DCQCN's fixed point: K >= K_max) or
    ``roce`` (TLT's RoCE value, 200 kB, §7.1). ``reason`` is the derivation's why."""

    kind: Literal["bdp", "kmax", "roce"]
    reason: str = ""
    ecn_step: bool = False


def tlt_steady_queue(transport: str) -> TltSteadyQueue:
    """The steady queue of one of this module's :data:`TRANSPORTS` (TLT §4.2)."""
    if transport in WINDOW_TRANSPORTS_BDP:
        return TltSteadyQueue("bdp", _BDP_REASON[transport], ecn_step=transport != "tcp")
    if transport in KMAX_TRANSPORTS:
        return TltSteadyQueue("kmax")
    return TltSteadyQueue("roce")


@dataclass(frozen=True, kw_only=True)
class TltThreshold:
    transport: str
    rate_bps: Any = quantity("bps", "bottleneck link rate C")
    rtt_s: Any = quantity("s", "base round-trip time")
    bdp_bytes: Any = quantity("B", "bandwidth-delay product C·RTT/8")
    threshold_bytes: Any = quantity("B", "minimum color-aware (unimportant) dropping threshold K")
    provenance: Provenance


def tlt_min_threshold(
    transport: str,
    rate_bps: Any,
    rtt_s: Any,
    *,
    ecn_threshold_bytes: Any = None,
    kmax_bytes: Any = None,
    steady_queue: TltSteadyQueue | None = None,
) -> TltThreshold:
    """Minimum color-aware dropping threshold K for ``transport`` (TLT §4.2), vectorised.

    ``ecn_threshold_bytes`` is DCTCP's K_ECN (only used for the ECN window transports: K =
    max(K_ECN, BDP)); ``kmax_bytes`` is DCQCN's deployed K_max (default: DCQCN's recommended
    200 KB as quoted in TLT §7.1).
    """
    name = transport.strip().lower()
    if steady_queue is None and name not in TRANSPORTS:
        raise ModelInputError(
            f"unknown transport {transport!r}",
            place="transport",
            hint=f"use one of {', '.join(TRANSPORTS)}",
        )
    rate_bps = as_float_array(rate_bps)
    rtt_s = as_float_array(rtt_s)
    require_positive("rate_bps", rate_bps, hint="give the bottleneck link rate, e.g. 40G")
    require_positive("rtt_s", rtt_s, hint="give the base round-trip time, e.g. 80us")
    bdp_bytes = rate_bps * rtt_s / BITS_PER_BYTE
    inputs = [
        input_value("transport", name, "-"),
        input_value("rate_bps", rate_bps, "bps"),
        input_value("rtt_s", rtt_s, "s"),
    ]
    derivations = [Derivation("bdp_bytes", "rate_bps*rtt_s/8", SOURCE_TLT_THRESHOLD)]
    steady = steady_queue if steady_queue is not None else tlt_steady_queue(name)
    if ecn_threshold_bytes is not None and not steady.ecn_step:
        raise ModelInputError(
            f"K_ECN does not apply to {name}: it has no ECN step threshold",
            place="ecn_threshold_bytes",
            hint="K_ECN is for dctcp, d2tcp, ear and tbtcp (dcqcn and irn take K_max)",
        )
    if kmax_bytes is not None and steady.kind != "kmax":
        raise ModelInputError(
            f"K_max does not apply to {name}: only DCQCN's RED curve has one",
            place="kmax_bytes",
            hint="drop it, or use transport dcqcn or irn",
        )
    if steady.kind == "bdp":
        if ecn_threshold_bytes is None:
            threshold = bdp_bytes
            formula = f"bdp_bytes ({steady.reason})"
        else:
            ecn = as_float_array(ecn_threshold_bytes)
            require_non_negative("ecn_threshold_bytes", ecn, hint="K_ECN is a queue depth in bytes")
            threshold = np.maximum(ecn, bdp_bytes)
            inputs.append(input_value("ecn_threshold_bytes", ecn, "B"))
            if np.all(ecn <= bdp_bytes):
                formula = f"max(ecn_threshold_bytes, bdp_bytes) = bdp_bytes ({steady.reason})"
            elif np.all(ecn > bdp_bytes):
                formula = f"max(ecn_threshold_bytes, bdp_bytes) = ecn_threshold_bytes ({name}'s K_ECN lies above the BDP)"
            else:
                formula = f"max(ecn_threshold_bytes, bdp_bytes) ({steady.reason}, and K >= K_ECN)"
        derivations.append(Derivation("threshold_bytes", formula, SOURCE_TLT_THRESHOLD))
    elif steady.kind == "kmax":
        if kmax_bytes is None:
            kmax = DCQCN_RECOMMENDED_KMAX_BYTES
            source = f"{SOURCE_TLT_THRESHOLD}; {SOURCE_TLT_ROCE}"
        else:
            kmax = as_float_array(kmax_bytes)
            require_positive("kmax_bytes", kmax, hint="give DCQCN's K_max in bytes, e.g. 200kB")
            source = SOURCE_TLT_THRESHOLD
        inputs.append(input_value("kmax_bytes", kmax, "B"))
        threshold = kmax + 0.0 * bdp_bytes  # broadcast to the sweep's shape
        derivations.append(
            Derivation("threshold_bytes", "kmax_bytes (DCQCN fixed point <= K_max)", source)
        )
    else:
        threshold = DCQCN_RECOMMENDED_KMAX_BYTES + 0.0 * bdp_bytes
        derivations.append(
            Derivation(
                "threshold_bytes",
                "200 kB: TLT's RoCE setting, above HPCC's near-zero steady queue (no §4.2 bound)",
                SOURCE_TLT_ROCE,
            )
        )
    return TltThreshold(
        transport=name,
        rate_bps=rate_bps,
        rtt_s=rtt_s,
        bdp_bytes=bdp_bytes,
        threshold_bytes=threshold,
        provenance=Provenance("tlt_min_threshold", tuple(inputs), tuple(derivations)),
    )


@dataclass(frozen=True, kw_only=True)
class TltHeadroom:
    buffer_bytes: Any = quantity("B", "shared buffer B")
    alpha: Any = quantity("1", "dynamic-threshold alpha")
    congested_ports: Any = quantity("ports", "congested ports M")
    threshold_bytes: Any = quantity("B", "color-aware (unimportant) dropping threshold K")
    important_packet_bytes: Any = quantity("B", "size of one important packet")
    per_port_share_bytes: Any = quantity("B", "dynamic-threshold share per congested port")
    important_headroom_bytes: Any = quantity("B", "per-port room above K for important packets")
    flows_per_port: Any = quantity("flows", "flows per congested port without important loss")
    total_flows: Any = quantity("flows", "flows on all M congested ports without important loss")
    single_port_headroom_bytes: Any = quantity("B", "headroom when only one port is congested")
    single_port_flows: Any = quantity("flows", "flows without important loss, one port congested")
    provenance: Provenance


def tlt_headroom(
    buffer_bytes: Any,
    alpha: Any,
    congested_ports: Any,
    threshold_bytes: Any,
    important_packet_bytes: Any,
    *,
    allow_infeasible: bool = False,
) -> TltHeadroom:
    """Important-packet headroom alpha·B/(1+M·alpha) − K and flows carried (TLT §4.2), vectorised.

    Raises :class:`InfeasibleDesignError` (place ``threshold_bytes``) when some point leaves less
    than one important packet of headroom per port, unless ``allow_infeasible`` (for sweeps and
    plots: such points then report 0 headroom and 0 flows: K above the share is never reached, so
    there is no room above it, not a negative one; per_port_share_bytes < threshold_bytes shows why).
    """
    threshold_bytes = as_float_array(threshold_bytes)
    important_packet_bytes = as_float_array(important_packet_bytes)
    require_non_negative(
        "threshold_bytes", threshold_bytes, hint="K is a queue depth in bytes, e.g. 400kB"
    )
    require_positive(
        "important_packet_bytes", important_packet_bytes, hint="use the MTU-size packet, e.g. 1500B"
    )
    share = dynamic_threshold_share(buffer_bytes, alpha, congested_ports)
    single = dynamic_threshold_share(share.buffer_bytes, share.alpha, 1.0)
    headroom = np.maximum(share.per_port_share_bytes - threshold_bytes, 0.0)
    single_headroom = np.maximum(single.per_port_share_bytes - threshold_bytes, 0.0)
    # One important packet in flight per flow (§5.1), so each whole packet of headroom is a flow.
    flows_per_port = np.floor(headroom / important_packet_bytes)
    single_flows = np.floor(single_headroom / important_packet_bytes)
    if not allow_infeasible and np.any(flows_per_port < 1):
        _raise_no_headroom(share, threshold_bytes, important_packet_bytes)
    # Every congested port holds the same share (§4.2), so the switch carries M times one port.
    total_flows = flows_per_port * share.congested_ports
    return TltHeadroom(
        buffer_bytes=share.buffer_bytes,
        alpha=share.alpha,
        congested_ports=share.congested_ports,
        threshold_bytes=threshold_bytes,
        important_packet_bytes=important_packet_bytes,
        per_port_share_bytes=share.per_port_share_bytes,
        important_headroom_bytes=scalar_or_array(headroom),
        flows_per_port=scalar_or_array(flows_per_port),
        total_flows=scalar_or_array(total_flows),
        single_port_headroom_bytes=scalar_or_array(single_headroom),
        single_port_flows=scalar_or_array(single_flows),
        provenance=Provenance(
            model="tlt_headroom",
            inputs=(
                *share.provenance.inputs,
                input_value("threshold_bytes", threshold_bytes, "B"),
                input_value("important_packet_bytes", important_packet_bytes, "B"),
            ),
            derivations=(
                *share.provenance.derivations[:1],
                Derivation(
                    "important_headroom_bytes",
                    "max(per_port_share_bytes - threshold_bytes, 0)",
                    SOURCE_TLT_HEADROOM,
                ),
                Derivation(
                    "flows_per_port",
                    "floor(important_headroom_bytes / important_packet_bytes)",
                    SOURCE_TLT_ONE_IMPORTANT,
                ),
                Derivation("total_flows", "flows_per_port * congested_ports", SOURCE_TLT_HEADROOM),
                Derivation(
                    "single_port_headroom_bytes",
                    "max(alpha*B/(1+alpha) - threshold_bytes, 0)",
                    SOURCE_TLT_HEADROOM,
                ),
                Derivation(
                    "single_port_flows",
                    "floor(single_port_headroom_bytes / important_packet_bytes)",
                    SOURCE_TLT_ONE_IMPORTANT,
                ),
            ),
        ),
    )


def _raise_no_headroom(
    share: DynamicThresholdShare, threshold_bytes: Any, packet_bytes: Any
) -> None:
    """Name the worst point: its share, threshold and the largest threshold that would fit."""
    per_port = share.per_port_share_bytes
    shape = np.broadcast(per_port, threshold_bytes, packet_bytes).shape
    per_port_b = np.broadcast_to(per_port, shape)
    threshold_b = np.broadcast_to(threshold_bytes, shape)
    packet_b = np.broadcast_to(packet_bytes, shape)
    slack = per_port_b - threshold_b - packet_b
    worst = np.unravel_index(int(np.argmin(slack)), shape) if shape else ()
    ports = np.broadcast_to(share.congested_ports, shape)[worst]
    alpha = np.broadcast_to(share.alpha, shape)[worst]
    buffer = np.broadcast_to(share.buffer_bytes, shape)[worst]
    share_w = float(per_port_b[worst])
    k_w = float(threshold_b[worst])
    pkt_w = float(packet_b[worst])
    raise InfeasibleDesignError(
        f"threshold {_fmt_bytes(k_w)} leaves {_fmt_bytes(share_w - k_w)} for important packets, "
        f"less than one {_fmt_bytes(pkt_w)} packet: each of M={float(ports):g} congested ports "
        f"gets alpha*B/(1+M*alpha) = {_fmt_bytes(share_w)} (B={_fmt_bytes(float(buffer))}, "
        f"alpha={float(alpha):g})",
        place="threshold_bytes",
        hint=f"lower the threshold to at most {_fmt_bytes(share_w - pkt_w)}, raise alpha, "
        "or plan for fewer congested ports",
    )


def _fmt_bytes(value: float) -> str:
    magnitude = abs(value)
    if magnitude >= 1e6:
        return f"{value / 1e6:.2f} MB"
    if magnitude >= 1e3:
        return f"{value / 1e3:.2f} kB"
    return f"{value:.0f} B"




@dataclass(frozen=True, kw_only=True)
class TltDesign(TltHeadroom):
    """Headroom with K derived from the transport (TLT §4.2): the headroom fields plus the BDP."""

    transport: str
    rate_bps: Any = quantity("bps", "bottleneck link rate C")
    rtt_s: Any = quantity("s", "base round-trip time")
    bdp_bytes: Any = quantity("B", "bandwidth-delay product C·RTT/8")


def tlt_design(
    buffer_bytes: Any,
    alpha: Any,
    congested_ports: Any,
    important_packet_bytes: Any,
    *,
    transport: str,
    rate_bps: Any,
    rtt_s: Any,
    ecn_threshold_bytes: Any = None,
    kmax_bytes: Any = None,
    allow_infeasible: bool = False,
) -> TltDesign:
    """:func:`tlt_headroom` with K = :func:`tlt_min_threshold` of ``transport`` (vectorised).

    When no headroom is left the error names ``transport`` (K was derived, not given).
    """
    threshold = tlt_min_threshold(
        transport, rate_bps, rtt_s, ecn_threshold_bytes=ecn_threshold_bytes, kmax_bytes=kmax_bytes
    )
    try:
        headroom = tlt_headroom(
            buffer_bytes,
            alpha,
            congested_ports,
            threshold.threshold_bytes,
            important_packet_bytes,
            allow_infeasible=allow_infeasible,
        )
    except InfeasibleDesignError as error:
        raise InfeasibleDesignError(
            f"{error.message}; the threshold is the {threshold.transport} minimum (TLT §4.2)",
            place="transport",
            hint="the transport needs this threshold, so give the port more share instead: "
            "raise alpha, use a larger buffer or plan for fewer congested ports",
        ) from None
    fields = {name: getattr(headroom, name) for name in headroom.__dataclass_fields__}
    fields["provenance"] = Provenance(
        model="tlt_design",
        inputs=(
            *threshold.provenance.inputs,
            *(item for item in headroom.provenance.inputs if item.name != "threshold_bytes"),
        ),
        derivations=(*threshold.provenance.derivations, *headroom.provenance.derivations),
    )
    return TltDesign(
        **fields,
        transport=threshold.transport,
        rate_bps=threshold.rate_bps,
        rtt_s=threshold.rtt_s,
        bdp_bytes=threshold.bdp_bytes,
    )


@dataclass(frozen=True, kw_only=True)
class TltPeriodicMarking:
    max_fan_in: Any = quantity("hosts", "maximum senders to one receiver at once")
    interval_packets: Any = quantity("packets", "mark one important packet every N packets")
    important_load_ratio: Any = quantity(
        "1", "important load on the receiver link if all senders run at its line rate (< 1)"
    )
    provenance: Provenance


def tlt_periodic_marking(max_fan_in: Any) -> TltPeriodicMarking:
    """Smallest interval N > max fan-in for rate-based transports' periodic marking (TLT §5.2).

    With F senders each sending at the receiver's line rate C, periodic important packets take
    F·C/N; N > F keeps that below C, which is the §5.2 condition. §7.1 uses N = 96 for a fan-in
    of 95; §5.2 fn. 2 notes N may be set larger (TLT is insensitive between 96 and 384).
    """
    max_fan_in = as_float_array(max_fan_in)
    require_at_least("max_fan_in", max_fan_in, 1, hint="count the hosts sending to one receiver")
    interval = np.floor(max_fan_in) + 1.0
    return TltPeriodicMarking(
        max_fan_in=max_fan_in,
        interval_packets=scalar_or_array(interval),
        important_load_ratio=scalar_or_array(np.floor(max_fan_in) / interval),
        provenance=Provenance(
            model="tlt_periodic_marking",
            inputs=(input_value("max_fan_in", max_fan_in, "hosts"),),
            derivations=(
                Derivation(
                    "interval_packets",
                    "floor(max_fan_in) + 1 (smallest N > fan-in)",
                    SOURCE_TLT_PERIODIC,
                ),
                Derivation(
                    "important_load_ratio", "max_fan_in / interval_packets", SOURCE_TLT_PERIODIC
                ),
            ),
        ),
    )


__all__ = [
    "DCQCN_RECOMMENDED_KMAX_BYTES",
    "TRANSPORTS",
    "TltDesign",
    "TltHeadroom",
    "TltPeriodicMarking",
    "TltSteadyQueue",
    "TltThreshold",
    "tlt_design",
    "tlt_headroom",
    "tlt_min_threshold",
    "tlt_periodic_marking",
    "tlt_steady_queue",
]
