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

Slow start ends early by HyStart (Ha and Rhee, "Taming the elephants: new TCP slow start",
Computer Networks 2011), as Linux's tcp_cubic.c runs it (``hystart=1``, both detectors, its
default) and ns-3's TcpCubic (HyStart attribute, default true) ports it: in a round (from the ACK
that passes the sequence sent when the last round began, bictcp_hystart_reset), with cwnd at
least ``hystart_low_window`` = 16 segments, slow start ends (ssthresh = cwnd) when

* the ACK train, ACKs spaced at most ``hystart_ack_delta_us`` = 2 ms apart since the round
  began, has lasted more than half the smallest RTT (the window fills the path: hystart_update,
  HYSTART_ACK_TRAIN, without fq pacing), or
* the smallest of the round's first eight RTT samples exceeds the flow's smallest RTT by
  clamp(delay_min/8, 4 ms, 16 ms) (HYSTART_DELAY; a queue is building).

Linux's HyStart, not HyStart++ (RFC 9406): HyStart++ is what the RFC recommends, but the hosts
modelled are Linux's, whose CUBIC runs HyStart, and so does the ns-3 referee (bench/ns3_compare.py).
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
    FF_HS_CURR_RTT,
    FF_HS_DELAY_MIN,
    FF_HS_LAST_ACK,
    FF_HS_ROUND_START,
    FF_SRTT,
    FF_SSTHRESH,
    FL_HIGH,
    FL_HS_END,
    FL_HS_FOUND,
    FL_HS_SAMPLES,
    FL_SNDNXT,
    FL_SNDUNA,
    HYSTART_OFF,
    W_FLF,
    W_FLI,
)

#: RFC 9438 §5: C = 0.4 and beta_cubic = 0.7 (Linux tcp_cubic.c bic_scale 41/1024 * 10 and
#: beta 717/1024).
CUBIC_C = 0.4


CUBIC_BETA = 0.7


#: RFC 9438 §4.3 eq. 4: the Reno-friendly additive increase that matches Reno's average rate.
CUBIC_ALPHA = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)


#: tcp_cubic.c module parameters and constants (Linux 6.x): hystart_low_window,
#: hystart_ack_delta_us, HYSTART_MIN_SAMPLES, HYSTART_DELAY_MIN and HYSTART_DELAY_MAX.
HYSTART_LOW_WINDOW = 16.0


HYSTART_ACK_DELTA_S = 2e-3


HYSTART_MIN_SAMPLES = 8


HYSTART_DELAY_MIN_S = 4e-3


HYSTART_DELAY_MAX_S = 16e-3


#: FL_HS_FOUND: HyStart ended this slow start (layout.HYSTART_OFF: it does not run for the flow).
HYSTART_FOUND = 1


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


@compiled
def _hystart_reset(w: World, now: float, f: int, end_seq: int) -> None:
    """A new round begins (tcp_cubic.c bictcp_hystart_reset)."""
    flf = w[W_FLF]
    flf[f, FF_HS_ROUND_START] = now
    flf[f, FF_HS_LAST_ACK] = now
    flf[f, FF_HS_CURR_RTT] = 1e9
    w[W_FLI][f, FL_HS_END] = end_seq
    w[W_FLI][f, FL_HS_SAMPLES] = 0


@compiled
def cubic_acked(w: World, now: float, f: int, rtt_s: float) -> None:
    """An ACK with an RTT sample (tcp_cubic.c cubictcp_acked, called before the window grows):
    the smallest RTT, then HyStart while in slow start above the low window (hystart_update)."""
    fli, flf = w[W_FLI], w[W_FLF]
    if flf[f, FF_HS_DELAY_MIN] <= 0.0 or rtt_s < flf[f, FF_HS_DELAY_MIN]:
        flf[f, FF_HS_DELAY_MIN] = rtt_s
    cwnd = flf[f, FF_CWND]
    if fli[f, FL_HS_FOUND] != 0 or cwnd >= flf[f, FF_SSTHRESH] or cwnd < HYSTART_LOW_WINDOW:
        return
    if fli[f, FL_SNDUNA] > fli[f, FL_HS_END]:
        _hystart_reset(w, now, f, fli[f, FL_SNDNXT])
    delay_min = flf[f, FF_HS_DELAY_MIN]
    if now - flf[f, FF_HS_LAST_ACK] <= HYSTART_ACK_DELTA_S:
        flf[f, FF_HS_LAST_ACK] = now
        if now - flf[f, FF_HS_ROUND_START] > delay_min / 2.0:
            fli[f, FL_HS_FOUND] = HYSTART_FOUND
    flf[f, FF_HS_CURR_RTT] = min(flf[f, FF_HS_CURR_RTT], rtt_s)
    if fli[f, FL_HS_SAMPLES] < HYSTART_MIN_SAMPLES:
        fli[f, FL_HS_SAMPLES] += 1
    elif flf[f, FF_HS_CURR_RTT] > delay_min + min(max(delay_min / 8.0, HYSTART_DELAY_MIN_S),
                                                   HYSTART_DELAY_MAX_S):
        fli[f, FL_HS_FOUND] = HYSTART_FOUND
    if fli[f, FL_HS_FOUND] == HYSTART_FOUND:
        flf[f, FF_SSTHRESH] = cwnd


@compiled
def cubic_timeout(w: World, now: float, f: int) -> None:
    """A retransmission timeout (the Loss state, tcp_cubic.c cubictcp_state: bictcp_reset and
    bictcp_hystart_reset): HyStart may end the next slow start again, its round ending with the
    data sent before the timeout."""
    fli = w[W_FLI]
    if fli[f, FL_HS_FOUND] != HYSTART_OFF:
        fli[f, FL_HS_FOUND] = 0
        _hystart_reset(w, now, f, fli[f, FL_HIGH])


__all__ = [
    "CUBIC_ALPHA",
    "CUBIC_BETA",
    "CUBIC_C",
    "cubic_acked",
    "cubic_congestion",
    "cubic_increase",
    "cubic_k",
    "cubic_timeout",
    "cubic_window",
]
