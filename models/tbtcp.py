"""Tiny Buffer TCP (TBTCP, Xiong, Li & Song): the switch's ideal ECN marking curve and the
steady state the hosts' QCD/RAI congestion control settles into.

* Ideal marking (§4.1 Eq. 6, shifted right by l and capped in §6.2 Eq. 9):
  p(Q) = 0 for Q <= l; (Q − l)/(BDP − l + Q) for l < Q <= BDP + l; 0.5 for Q > BDP + l.
  The curve reaches exactly 0.5 at Q = BDP + l, so the cap joins it continuously. The paper's
  piecewise formula writes "BDQ + l" for the breakpoints; the text before it says "when
  Q >= BDP + l ... p(Q) is saturated at 0.5", so BDQ is read as a typo for BDP.
* l must be at least the NIC's LSO burst (§6.2: a 128 KB segment is an 86-packet burst; the
  paper sets l = 138 KB).
* Hosts (§4.3, §6.2): RAI raises each flow's window by beta MSS per RTT; QCD lowers it by r MSS
  per ECN mark, never below half: CWND <- max(CWND − r, CWND/2), while the switch marks with the
  scaled curve p(Q)/r, so the expected reduction per packet stays p(Q).
* Steady state (§4.4): W = BDP + Q, w = W/n, and RAI balances QCD when beta = w·p(Q); with the
  unshifted curve of Eq. 6 this gives Eq. 8, Q = beta·n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from qosforge.errors import ModelInputError
from qosforge.models._checks import (
    as_float_array,
    describe_values,
    require_at_least,
    require_non_negative,
    require_positive,
)
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_CURVE = (
    "Xiong, Li & Song, 'Tiny Buffer TCP for Data Center Networks', §4.1 Eq. 6 and §6.2 Eq. 9"
)
SOURCE_CAP = "TBTCP §6.2 (marking probability limited to 0.5, like TCP/DCTCP's 50% window cut)"
SOURCE_STEADY = "TBTCP §4.4 Eq. 7-8 (W = BDP + Q, w = W/n, beta = w·p(Q))"
SOURCE_QCD = "TBTCP §6.2 (curve scaled by 1/r; QCD: CWND <- max(CWND − r, CWND/2))"
SOURCE_RAI = "TBTCP §4.3 (RAI: cwnd grows beta MSS per RTT, i.e. one MSS every 1/beta RTTs)"
#: beta lies in (0, BETA_MAX): beta = 1/m < 1 (§3.2), and at 0.5 or more RAI undoes a QCD cut
#: within two RTTs so the queue does not settle (§5). The intent schema, the calculators and the
#: simulator all take this range.
BETA_MAX = 0.5
SOURCE_LSO = "TBTCP §6.2 (l covers the NIC's LSO burst: 128 KB segment = 86 packets, l = 138 KB)"

#: §6.2: "our implementation limits the ECN marking probability to a maximum of 0.5".
TBTCP_MAX_MARKING_PROBABILITY = 0.5

_HINT_BDP = "BDP = link rate × RTT / 8, e.g. 10G × 150us = 187.5kB"
_HINT_L = (
    "l is where marking starts; use at least the NIC's LSO burst, "
    "e.g. 138kB for a 128 KB LSO segment (TBTCP §6.2)"
)


def tbtcp_ideal_marking_probability(queue_bytes: Any, bdp_bytes: Any, lso_burst_bytes: Any) -> Any:
    """TBTCP's ideal ECN marking probability p(Q) (§6.2 Eq. 9 with the 0.5 cap), vectorised.

    ``lso_burst_bytes`` is the paper's l, the queue depth where marking starts (at least the
    NIC's LSO burst). With l = 0 this is Eq. 6, Q/(BDP + Q), capped at 0.5 above Q = BDP.
    Returns a float for scalar inputs, otherwise an ndarray of the broadcast shape.
    """
    queue_bytes = as_float_array(queue_bytes)
    bdp_bytes = as_float_array(bdp_bytes)
    lso_burst_bytes = as_float_array(lso_burst_bytes)
    require_non_negative("queue_bytes", queue_bytes, hint="a queue depth is 0 or more bytes")
    require_positive("bdp_bytes", bdp_bytes, hint=_HINT_BDP)
    require_non_negative("lso_burst_bytes", lso_burst_bytes, hint=_HINT_L)
    return _marking_probability(queue_bytes, bdp_bytes, lso_burst_bytes)


def _marking_probability(queue_bytes: Any, bdp_bytes: Any, lso_burst_bytes: Any) -> Any:
    # Eq. 9 is Eq. 6 evaluated at the shifted depth Q − l (§6.2: "shift the ideal curve to the
    # right"); the denominator BDP + (Q − l) stays > 0: BDP > 0 and the excess is clipped at 0.
    excess = np.maximum(np.asarray(queue_bytes) - lso_burst_bytes, 0.0)
    probability = excess / (bdp_bytes + excess)
    # §6.2: saturated at 0.5 for Q > BDP + l (where Eq. 9 itself equals 0.5).
    capped = np.minimum(probability, TBTCP_MAX_MARKING_PROBABILITY)
    if np.ndim(capped) == 0 and not any(
        isinstance(v, np.ndarray) for v in (queue_bytes, bdp_bytes, lso_burst_bytes)
    ):
        return float(capped)
    return np.asarray(capped, dtype=np.float64)


def qcd_window_after_mark(cwnd_packets: Any, window_reduction_r: Any) -> Any:
    """Window after one ECN mark under QCD: max(CWND − r, CWND/2) (§6.2), vectorised."""
    cwnd_packets = as_float_array(cwnd_packets)
    window_reduction_r = as_float_array(window_reduction_r)
    require_positive(
        "cwnd_packets", cwnd_packets, hint="a congestion window is at least one packet"
    )
    require_at_least(
        "window_reduction_r",
        window_reduction_r,
        1,
        hint="r is the curve scaling factor, 1..4 in TBTCP Table 1",
    )
    return np.maximum(cwnd_packets - window_reduction_r, cwnd_packets / 2.0)


def lso_burst_packets(lso_segment_bytes: float, mtu_bytes: float) -> int:
    """Packets in one LSO burst: a segment cut into MTU-sized packets, rounded up (§6.2).

    The paper's "128KB segment ... burst size of 86 packets" matches 128 000 B / 1 500 B rounded
    up; with 2^17 bytes it would be 88, so the paper's KB is read as 10^3 bytes.
    """
    require_positive(
        "lso_segment_bytes", lso_segment_bytes, hint="the NIC's LSO/TSO segment size, e.g. 64kB"
    )
    require_positive("mtu_bytes", mtu_bytes, hint="the MTU-sized packet, e.g. 1500B")
    return math.ceil(lso_segment_bytes / mtu_bytes - 1e-12)


@dataclass(frozen=True, kw_only=True)
class TbtcpSteadyState:
    bdp_bytes: Any = quantity("B", "bandwidth-delay product C·RTT")
    flows: Any = quantity("flows", "long-lived synchronized flows n")
    beta: Any = quantity("MSS/RTT", "RAI window increase per flow per RTT")
    window_reduction_r: Any = quantity(
        "MSS", "QCD window reduction per mark r (curve scaled by 1/r)"
    )
    lso_burst_bytes: Any = quantity("B", "marking start l (>= the NIC's LSO burst)")
    queue_eq8_bytes: Any = quantity("B", "queue beta·n·MSS of Eq. 8 (ideal curve Eq. 6, l = 0)")
    queue_bytes: Any = quantity("B", "steady-state queue solving beta = w·p(Q) on the Eq. 9 curve")
    queue_delay_s: Any = quantity("s", "queueing delay of the steady-state queue")
    total_window_bytes: Any = quantity("B", "aggregate window W = BDP + Q")
    per_flow_window_packets: Any = quantity("MSS", "per-flow window w = W/n")
    marking_probability: Any = quantity("1", "ideal marking probability p(Q) at the steady state")
    programmed_marking_probability: Any = quantity("1", "probability the switch marks with, p(Q)/r")
    marks_per_rtt: Any = quantity("packets", "marked packets per RTT over all flows")
    qcd_reduction_per_mark_packets: Any = quantity(
        "MSS", "actual QCD cut at the per-flow window, min(r, w/2)"
    )
    rtts_per_mss_increase: Any = quantity("RTT", "RTTs for RAI to add one MSS, 1/beta")
    provenance: Provenance


def tbtcp_steady_state(
    rate_bps: Any,
    rtt_s: Any,
    flows: Any,
    beta: Any,
    mss_bytes: Any,
    lso_burst_bytes: Any = 0.0,
    window_reduction_r: Any = 1.0,
) -> TbtcpSteadyState:
    """Steady state of n synchronized TBTCP flows on one bottleneck (§4.4), vectorised.

    Solves beta = w·p(Q) with w = (BDP + Q)/(n·MSS) on the §6.2 curve. Below the cap, with
    x = Q − l and S = beta·n·MSS (Eq. 8's queue), (BDP + l + x)·x = S·(BDP + x); for l = 0 the
    root is exactly x = S (Eq. 8). Above Q = BDP + l, p = 0.5 and W/2 = S, i.e. Q = 2S − BDP.
    The 1/r curve scaling with an r-MSS cut keeps the expected cut per packet at p(Q), so r does
    not move the steady state as long as the per-flow window is at least 2r (else CWND/2 binds).
    """
    rate_bps = as_float_array(rate_bps)
    rtt_s = as_float_array(rtt_s)
    flows = as_float_array(flows)
    beta = as_float_array(beta)
    mss_bytes = as_float_array(mss_bytes)
    lso_burst_bytes = as_float_array(lso_burst_bytes)
    window_reduction_r = as_float_array(window_reduction_r)
    require_positive("rate_bps", rate_bps, hint="the bottleneck link rate, e.g. 10G")
    require_positive("rtt_s", rtt_s, hint="the base round-trip time, e.g. 150us")
    require_at_least(
        "flows", flows, 1, hint="n counts long-lived flows on the bottleneck: use 1 or more"
    )
    if not np.all((beta > 0) & (beta < BETA_MAX)):
        raise ModelInputError(
            f"must be in (0, {BETA_MAX:g}) (got {describe_values(beta)})", place="beta",
            hint="beta is RAI's window increase per RTT in MSS, 0.1 in TBTCP §5.1 (beta = 1/m, §3.2)",
        )
    require_positive("mss_bytes", mss_bytes, hint="the segment size, e.g. 1500B")
    require_non_negative("lso_burst_bytes", lso_burst_bytes, hint=_HINT_L)
    require_at_least(
        "window_reduction_r",
        window_reduction_r,
        1,
        hint="r is the curve scaling factor, 1..4 in TBTCP Table 1",
    )

    bdp = rate_bps * rtt_s / 8.0
    eq8_queue = beta * flows * mss_bytes
    # Quadratic x^2 + b·x − S·BDP = 0 with b = BDP + l − S; the form 2c/(b + sqrt(b^2 + 4c))
    # avoids cancellation and its denominator is > 0 because S·BDP > 0.
    b = bdp + lso_burst_bytes - eq8_queue
    excess = 2.0 * eq8_queue * bdp / (b + np.sqrt(b * b + 4.0 * eq8_queue * bdp))
    uncapped_queue = lso_burst_bytes + excess
    queue = np.where(excess > bdp, 2.0 * eq8_queue - bdp, uncapped_queue)
    probability = _marking_probability(queue, bdp, lso_burst_bytes)
    total_window = bdp + queue
    per_flow_window = total_window / (flows * mss_bytes)
    shape_source = (rate_bps, rtt_s, flows, beta, mss_bytes, lso_burst_bytes, window_reduction_r)
    scalar = not any(isinstance(v, np.ndarray) for v in shape_source)

    def out(value: Any) -> Any:
        return (
            float(np.asarray(value).reshape(())) if scalar else np.asarray(value, dtype=np.float64)
        )

    return TbtcpSteadyState(
        bdp_bytes=out(bdp),
        flows=flows,
        beta=beta,
        window_reduction_r=window_reduction_r,
        lso_burst_bytes=lso_burst_bytes,
        queue_eq8_bytes=out(eq8_queue),
        queue_bytes=out(queue),
        queue_delay_s=out(queue * 8.0 / rate_bps),
        total_window_bytes=out(total_window),
        per_flow_window_packets=out(per_flow_window),
        marking_probability=out(probability),
        programmed_marking_probability=out(probability / window_reduction_r),
        marks_per_rtt=out(total_window / mss_bytes * probability / window_reduction_r),
        qcd_reduction_per_mark_packets=out(np.minimum(window_reduction_r, per_flow_window / 2.0)),
        rtts_per_mss_increase=out(1.0 / beta),
        provenance=Provenance(
            model="tbtcp_steady_state",
            inputs=(
                input_value("rate_bps", rate_bps, "bps"),
                input_value("rtt_s", rtt_s, "s"),
                input_value("flows", flows, "flows"),
                input_value("beta", beta, "MSS/RTT"),
                input_value("mss_bytes", mss_bytes, "B"),
                input_value("lso_burst_bytes", lso_burst_bytes, "B"),
                input_value("window_reduction_r", window_reduction_r, "MSS"),
            ),
            derivations=(
                Derivation("bdp_bytes", "rate_bps*rtt_s/8", "TBTCP §3.1 (BDP = 2·Tp·C)"),
                Derivation("queue_eq8_bytes", "beta*flows*mss_bytes", SOURCE_STEADY),
                Derivation(
                    "queue_bytes",
                    "l + x, x = 2·S·BDP/(b + sqrt(b^2 + 4·S·BDP)), b = BDP + l − S, "
                    "S = queue_eq8_bytes; "
                    "2·S − BDP where x > BDP (p capped at 0.5)",
                    f"{SOURCE_STEADY} solved on the {SOURCE_CURVE} curve; cap {SOURCE_CAP}",
                ),
                Derivation(
                    "queue_delay_s", "queue_bytes*8/rate_bps", "queue drains at the link rate"
                ),
                Derivation("total_window_bytes", "bdp_bytes + queue_bytes", SOURCE_STEADY),
                Derivation(
                    "per_flow_window_packets", "total_window_bytes/(flows*mss_bytes)", SOURCE_STEADY
                ),
                Derivation("marking_probability", "p(Q) of Eq. 9, capped at 0.5", SOURCE_CURVE),
                Derivation(
                    "programmed_marking_probability",
                    "marking_probability/window_reduction_r",
                    SOURCE_QCD,
                ),
                Derivation(
                    "marks_per_rtt",
                    "total_window_bytes/mss_bytes*programmed_marking_probability",
                    "TBTCP §4.1 (BDP + Q packets cross the bottleneck per RTT)",
                ),
                Derivation(
                    "qcd_reduction_per_mark_packets",
                    "min(r, per_flow_window_packets/2)",
                    SOURCE_QCD,
                ),
                Derivation("rtts_per_mss_increase", "1/beta", SOURCE_RAI),
            ),
        ),
    )


__all__ = [
    "BETA_MAX",
    "TBTCP_MAX_MARKING_PROBABILITY",
    "TbtcpSteadyState",
    "lso_burst_packets",
    "qcd_window_after_mark",
    "tbtcp_ideal_marking_probability",
    "tbtcp_steady_state",
]
