"""CUBIC's window (RFC 9438), what ``tcp`` runs on a Linux host (net/ipv4/tcp_cubic.c, the default
``net.ipv4.tcp_congestion_control`` since Linux 2.6.19), in segments and seconds.

Slow start and loss recovery are the window transports' (engine/window.py); CUBIC sets the
window after a congestion event and grows it in congestion avoidance:

* a congestion event (a loss, RFC 9438 §4.6; a timeout, §4.8) remembers W_max = cwnd, or
  cwnd (1 + beta)/2 below the previous W_max (fast convergence, §4.7), and sets
  ssthresh = max(FlightSize beta, 2) (§4.6, eq. 4's floor from RFC 5681);
* in congestion avoidance cwnd follows W_cubic(t) = C (t - K)^3 + W_max (§4.2, eq. 1) with
  K = cbrt((W_max - cwnd_epoch)/C) (eq. 2), t counted from the first ACK of the epoch: each
  ACK of ``acked`` segments adds (target - cwnd)/cwnd per segment toward
  target = W_cubic(t + RTT), clamped to [cwnd, 1.5 cwnd] (§4.4-4.5);
* where Reno would be faster (the Reno-friendly region, §4.3) cwnd is W_est, which grows
  alpha_cubic = 3 (1 - beta)/(1 + beta) segments per window of ACKs (eq. 4), and 1 per window
  once W_est has reached W_max.
"""

from __future__ import annotations

from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import (
    FF_CUBIC_CWND0,
    FF_CUBIC_EPOCH,
    FF_CUBIC_EST,
    FF_CUBIC_K,
    FF_CUBIC_WMAX,
    FF_CWND,
    FF_SRTT,
    FF_SSTHRESH,
    W_FLF,
)

#: RFC 9438 §5: C = 0.4 and beta_cubic = 0.7 (Linux tcp_cubic.c bic_scale 41/1024 * 10 and
#: beta 717/1024).
CUBIC_C = 0.4


CUBIC_BETA = 0.7


#: RFC 9438 §4.3 eq. 4: the Reno-friendly additive increase that matches Reno's average rate.
CUBIC_ALPHA = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)


@compiled
def cubic_window(w_max_segments: float, k_s: float, t_s: float) -> float:
    """W_cubic(t) = C (t - K)^3 + W_max (RFC 9438 §4.2, eq. 1), segments."""
    return CUBIC_C * (t_s - k_s) ** 3 + w_max_segments


@compiled
def cubic_k(w_max_segments: float, cwnd_epoch_segments: float) -> float:
    """K = cbrt((W_max - cwnd_epoch)/C) (RFC 9438 §4.2, eq. 2); 0 when the epoch starts at or
    above W_max."""
    if cwnd_epoch_segments >= w_max_segments:
        return 0.0
    return float(((w_max_segments - cwnd_epoch_segments) / CUBIC_C) ** (1.0 / 3.0))


@compiled
def cubic_congestion(w: World, f: int, flight_packets: int) -> None:
    """A congestion event: W_max with fast convergence (§4.7), ssthresh = max(FlightSize beta, 2)
    (§4.6), and a new epoch starts at the next congestion-avoidance ACK."""
    flf = w[W_FLF]
    cwnd = flf[f, FF_CWND]
    if cwnd < flf[f, FF_CUBIC_WMAX]:
        flf[f, FF_CUBIC_WMAX] = cwnd * (1.0 + CUBIC_BETA) / 2.0
    else:
        flf[f, FF_CUBIC_WMAX] = cwnd
    flf[f, FF_SSTHRESH] = max(flight_packets * CUBIC_BETA, 2.0)
    flf[f, FF_CUBIC_EPOCH] = -1.0


@compiled
def cubic_increase(w: World, now: float, f: int, acked: int) -> float:
    """The congestion window after an ACK of ``acked`` segments in congestion avoidance."""
    flf = w[W_FLF]
    cwnd = flf[f, FF_CWND]
    if flf[f, FF_CUBIC_EPOCH] < 0.0:
        # §4.2: the epoch begins; after slow start without a loss W_max is where it ended.
        flf[f, FF_CUBIC_EPOCH] = now
        if flf[f, FF_CUBIC_WMAX] < cwnd:
            flf[f, FF_CUBIC_WMAX] = cwnd
        flf[f, FF_CUBIC_CWND0] = cwnd
        flf[f, FF_CUBIC_K] = cubic_k(flf[f, FF_CUBIC_WMAX], cwnd)
        flf[f, FF_CUBIC_EST] = cwnd
    w_max = flf[f, FF_CUBIC_WMAX]
    t = now - flf[f, FF_CUBIC_EPOCH]
    # §4.4: the target is where W_cubic will be one RTT from now, within [cwnd, 1.5 cwnd].
    target = cubic_window(w_max, flf[f, FF_CUBIC_K], t + flf[f, FF_SRTT])
    target = min(max(target, cwnd), 1.5 * cwnd)
    alpha = 1.0 if flf[f, FF_CUBIC_EST] >= w_max else CUBIC_ALPHA
    flf[f, FF_CUBIC_EST] += alpha * acked / cwnd
    # §4.3: in the Reno-friendly region (W_cubic(t) below Reno's estimate) cwnd is W_est.
    if cubic_window(w_max, flf[f, FF_CUBIC_K], t) < flf[f, FF_CUBIC_EST]:
        return float(flf[f, FF_CUBIC_EST])
    return float(cwnd + (target - cwnd) * acked / cwnd)


__all__ = [
    "CUBIC_ALPHA",
    "CUBIC_BETA",
    "CUBIC_C",
    "cubic_congestion",
    "cubic_increase",
    "cubic_k",
    "cubic_window",
]
