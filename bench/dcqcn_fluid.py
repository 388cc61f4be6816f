"""DCQCN's fluid model: N synchronised DCQCN senders into one bottleneck, as ODEs with a delay.

An independent referee for the software switch's DCQCN (softswitch/engine/dcqcn.py), written from
the papers, not from the engine: Zhu, Ghobadi, Misra, Padhye, "ECN or Delay: Lessons Learnt from
Analysis of DCQCN and TIMELY", CoNEXT 2016, §3.1 (the DCQCN fluid model), of the
algorithm of Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, §3.1
(CP, NP and RP). The model counts packets: ``p`` is the probability that the congestion point
marks a packet, a function of the queue (RED: 0 up to K_min, rising linearly to P_max at K_max, 1
above); rates are packets/s here internally and bytes/s at the interface. With ``r = R_C / S`` the
sender's packet rate (S its packet's bytes on the wire), and every ``p``, ``r`` taken one feedback
delay ``tau*`` earlier:

* a CNP reaches the sender in a CNP interval ``tau`` when one of its ``tau r`` packets was marked:
  ``1 - (1 - p)^(tau r)`` per ``tau`` (the NP sends at most one CNP per ``tau``);
* ``dalpha/dt = g/tau' ((1 - (1 - p)^(tau' r)) - alpha)``, ``tau'`` the alpha timer (K);
* the byte counter fires every B bytes without a mark, at rate ``r p / ((1 - p)^-B - 1)`` (B in
  packets), the rate timer every T without a mark, at ``r p / ((1 - p)^-(T r) - 1)``; the target
  rate grows by R_AI on those of them past the F fast-recovery stages (weight ``(1 - p)^(F B)``,
  ``(1 - p)^(F T r)``), and each moves R_C half way to R_T;
* ``dR_T/dt = -(R_T - R_C)/tau (1 - (1 - p)^(tau r)) + R_AI (byte events (1 - p)^(F B) + timer
  events (1 - p)^(F T r))``;
* ``dR_C/dt = -R_C alpha / (2 tau) (1 - (1 - p)^(tau r)) + (R_T - R_C)/2 (byte events + timer
  events)``;
* ``dq/dt = N R_C - C`` (never below an empty queue).

As the paper's model, hyper increase is left out (it needs both counters past F: 5 x 10 MB without
a mark at B = 10 MB). Two additions, each off in :class:`FluidParams` unless asked: a rate floor
(the sender's minimum rate, as a NIC has one: ``min_rate_bps``; the command line's default is the
software switch's 100 Mb/s, ``--min-rate 0`` for none) and the queueing delay in the feedback delay
(``queueing_in_feedback``: a switch that marks a packet when it is enqueued delays its mark by the
queue ahead of it; the paper's ``tau*`` is fixed, as for marking at dequeue). Rates start at line
rate with alpha = 1 (SIGCOMM 2015 §3.1: a flow starts at line rate).

Solved with scipy.integrate.solve_ivp by the method of steps: each step spans at most the
smallest feedback delay, so every delayed value lies in an interval already solved, read from its
dense output.

    python bench/dcqcn_fluid.py [--flows 8] [--capacity 100G] [--duration 8ms] [--rtt 8us]
        [--queueing-in-feedback] [--min-rate 100M (the default; 0: no floor)]

prints the aggregate rate, queue and per-flow R_C every 0.5 ms and the mean utilisation; the
parameters default to the software switch's at 100G (models/dcqcn_host.py, models/dcqcn.py: the
DCQCN paper's, with K_min/K_max and the rate steps scaled from 40G to the line rate).
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


@dataclass(frozen=True, kw_only=True)
class FluidParams:
    """The model's inputs, bytes and seconds; the defaults are the DCQCN paper's settings at its
    40 Gb/s (SIGCOMM 2015 §3.1 and its default parameters, as models/dcqcn_host.py and
    models/dcqcn.py cite them: g = 1/256, tau = 50 us, tau' = T = 55 us, B = 10 MB, F = 5,
    R_AI = 40 Mb/s, K_min = 5 KB, K_max = 200 KB, P_max = 1 %)."""

    flows: int = 8
    capacity_bps: float = 40e9
    line_rate_bps: float = 40e9
    #: On the wire: 1,024 B of payload, RoCEv2's 44 B (IPv4 20, UDP 8, BTH 12, ICRC 4) and
    #: Ethernet's 38 (header, FCS, preamble, gap: IEEE 802.3).
    packet_bytes: float = 1106.0
    kmin_bytes: float = 5e3
    kmax_bytes: float = 200e3
    pmax: float = 0.01
    g: float = 1.0 / 256.0
    cnp_interval_s: float = 50e-6  # tau
    alpha_timer_s: float = 55e-6  # tau'
    rate_timer_s: float = 55e-6  # T
    byte_counter_bytes: float = 10e6  # B
    fast_recovery_stages: int = 5  # F
    rai_bps: float = 40e6
    feedback_delay_s: float = 8e-6  # tau*: the loop's round trip without queueing
    queueing_in_feedback: bool = False
    min_rate_bps: float = 0.0


@dataclass
class FluidRun:
    """Samples of the solution: times, and per time the queue, R_C, R_T (bytes/s) and alpha."""

    params: FluidParams
    time_s: np.ndarray
    queue_bytes: np.ndarray
    rate_Bps: np.ndarray
    target_Bps: np.ndarray
    alpha: np.ndarray

    @property
    def aggregate_bps(self) -> np.ndarray:
        """The bottleneck's offered rate N R_C, b/s."""
        return self.rate_Bps * 8.0 * self.params.flows

    def served_bytes(self, start_s: float, end_s: float) -> float:
        """Bytes the bottleneck sent in [start, end]: what arrived minus what the queue gained."""
        mask = (self.time_s >= start_s) & (self.time_s <= end_s)
        t, arrivals = self.time_s[mask], self.rate_Bps[mask] * self.params.flows
        offered = float(np.trapezoid(arrivals, t))
        return offered - (float(self.queue_bytes[mask][-1]) - float(self.queue_bytes[mask][0]))

    def utilisation(self, start_s: float, end_s: float) -> float:
        """The bottleneck's busy share of [start, end]."""
        return (
            self.served_bytes(start_s, end_s) * 8.0 / (self.params.capacity_bps * (end_s - start_s))
        )


def marking_probability(queue_bytes: float, p: FluidParams) -> float:
    """RED on the instantaneous queue (SIGCOMM 2015 §3.1 CP; CoNEXT 2016 §3.1)."""
    if queue_bytes <= p.kmin_bytes:
        return 0.0
    if queue_bytes <= p.kmax_bytes:
        return p.pmax * (queue_bytes - p.kmin_bytes) / (p.kmax_bytes - p.kmin_bytes)
    return 1.0


def _any_marked(mark: float, packets: float) -> float:
    """1 - (1 - p)^n: at least one of n packets marked."""
    if mark >= 1.0:
        return 1.0 if packets > 0 else 0.0
    return float(-np.expm1(packets * np.log1p(-mark)))


def _event_rate(mark: float, packets_per_s: float, packets: float) -> float:
    """r p / ((1 - p)^-n - 1): how often n packets in a row go unmarked (a counter's event),
    r / n without marks."""
    if packets <= 0.0:
        return 0.0
    if mark <= 0.0:
        return packets_per_s / packets
    if mark >= 1.0:
        return 0.0
    with np.errstate(over="ignore"):
        denominator = float(np.expm1(-packets * np.log1p(-mark)))
    return (
        packets_per_s * mark / denominator if np.isfinite(denominator) and denominator > 0 else 0.0
    )


class _History:
    """The solution so far, piece by piece, for the delayed terms."""

    def __init__(self, initial: np.ndarray) -> None:
        self.initial = initial
        self.starts: list[float] = []
        self.pieces: list[Any] = []

    def add(self, start: float, solution: Any) -> None:
        self.starts.append(start)
        self.pieces.append(solution)

    def at(self, t: float) -> np.ndarray:
        if t <= 0.0 or not self.pieces:
            return self.initial
        index = max(0, bisect_right(self.starts, t) - 1)
        return np.asarray(self.pieces[index](t))


def _rhs(p: FluidParams, history: _History):  # type: ignore[no-untyped-def]
    capacity = p.capacity_bps / 8.0
    line = p.line_rate_bps / 8.0
    floor = p.min_rate_bps / 8.0
    rai = p.rai_bps / 8.0
    byte_packets = p.byte_counter_bytes / p.packet_bytes

    def rhs(t: float, y: np.ndarray) -> np.ndarray:
        rate, target, alpha, queue = y
        queue = max(queue, 0.0)
        delay = p.feedback_delay_s
        if p.queueing_in_feedback:
            # The mark seen now was decided at enqueue, behind the queue then: one fixed-point
            # step of s = t - tau* - q(s)/C from the queue now.
            guess = t - delay - queue / capacity
            delay += max(float(history.at(guess)[3]), 0.0) / capacity
        past = history.at(t - delay)
        past_rate = max(float(past[0]), 0.0)
        mark = marking_probability(max(float(past[3]), 0.0), p)
        packets_per_s = past_rate / p.packet_bytes
        cnp = _any_marked(mark, p.cnp_interval_s * packets_per_s)
        alpha_marked = _any_marked(mark, p.alpha_timer_s * packets_per_s)
        timer_packets = p.rate_timer_s * packets_per_s
        byte_events = _event_rate(mark, packets_per_s, byte_packets)
        timer_events = (
            _event_rate(mark, packets_per_s, timer_packets)
            if timer_packets > 0
            else 1.0 / p.rate_timer_s
        )
        unmarked = 1.0 - mark
        stages = p.fast_recovery_stages
        additive = byte_events * unmarked ** (stages * byte_packets) + timer_events * unmarked ** (
            stages * timer_packets
        )
        d_alpha = p.g / p.alpha_timer_s * (alpha_marked - alpha)
        d_target = -(target - rate) / p.cnp_interval_s * cnp + rai * additive
        d_rate = -rate * alpha / (2.0 * p.cnp_interval_s) * cnp + (target - rate) / 2.0 * (
            byte_events + timer_events
        )
        if (rate >= line and d_rate > 0.0) or (rate <= floor and d_rate < 0.0):
            d_rate = 0.0
        if (target >= line and d_target > 0.0) or (target <= floor and d_target < 0.0):
            d_target = 0.0
        d_queue = p.flows * rate - capacity
        if queue <= 0.0 and d_queue < 0.0:
            d_queue = 0.0
        return np.array([d_rate, d_target, d_alpha, d_queue])

    return rhs


def solve(p: FluidParams, duration_s: float, sample_s: float = 1e-6) -> FluidRun:
    """Integrate from line rate, alpha = 1 and an empty queue for ``duration_s``."""
    # Imported here: scipy's integrators take ~0.3 CPU s to import, and the fixed point and the
    # marking curve (which the tests also import this module for) do not need them.
    from scipy.integrate import solve_ivp

    if p.flows < 1 or p.capacity_bps <= 0 or p.feedback_delay_s <= 0 or duration_s <= 0:
        raise ValueError("flows, capacity, feedback delay and duration must be positive")
    line = p.line_rate_bps / 8.0
    initial = np.array([line, line, 1.0, 0.0])
    history = _History(initial)
    rhs = _rhs(p, history)
    # Every delayed time lies at least tau* back: steps of tau* only read solved intervals.
    step = min(p.feedback_delay_s, 50e-6)
    start, state = 0.0, initial
    while start < duration_s - 1e-15:
        end = min(start + step, duration_s)
        solution = solve_ivp(
            rhs,
            (start, end),
            state,
            method="RK23",
            dense_output=True,
            max_step=step / 4.0,
            rtol=1e-5,
            atol=[1.0, 1.0, 1e-7, 1e-3],
        )
        if not solution.success:
            raise RuntimeError(f"the integration stopped at {start:g} s: {solution.message}")
        history.add(start, solution.sol)
        state = solution.y[:, -1].copy()
        state[3] = max(state[3], 0.0)
        start = end
    times = np.arange(0.0, duration_s + sample_s / 2.0, sample_s)
    values = np.array([history.at(t) if t > 0 else initial for t in times])
    return FluidRun(
        p,
        times,
        np.maximum(values[:, 3], 0.0),
        values[:, 0],
        values[:, 1],
        values[:, 2],
    )


@dataclass(frozen=True)
class FixedPoint:
    """The model's equilibrium: every derivative zero (the delays then do not matter)."""

    rate_Bps: float  # R_C = C / N
    target_Bps: float
    alpha: float
    mark_probability: float
    queue_bytes: float
    cnps_per_s: float  # per flow


def fixed_point(p: FluidParams) -> FixedPoint:
    """Solve the model at rest: dq/dt = 0 gives R_C = C/N; dalpha/dt = 0 gives alpha; dR_C/dt = 0
    gives R_T - R_C = R_C alpha a / (tau (byte + timer events)), a the CNP probability per tau;
    dR_T/dt = 0 then leaves one equation in p, solved by bracketing (brentq) on (0, P_max]."""
    from scipy.optimize import brentq

    rate = p.capacity_bps / 8.0 / p.flows
    packets_per_s = rate / p.packet_bytes
    byte_packets = p.byte_counter_bytes / p.packet_bytes
    timer_packets = p.rate_timer_s * packets_per_s
    rai = p.rai_bps / 8.0

    def parts(mark: float) -> tuple[float, float, float, float]:
        cnp = _any_marked(mark, p.cnp_interval_s * packets_per_s)
        alpha = _any_marked(mark, p.alpha_timer_s * packets_per_s)
        events = _event_rate(mark, packets_per_s, byte_packets) + _event_rate(
            mark, packets_per_s, timer_packets
        )
        unmarked = 1.0 - mark
        additive = _event_rate(mark, packets_per_s, byte_packets) * unmarked ** (
            p.fast_recovery_stages * byte_packets
        ) + _event_rate(mark, packets_per_s, timer_packets) * unmarked ** (
            p.fast_recovery_stages * timer_packets
        )
        gap = rate * alpha * cnp / (p.cnp_interval_s * events)
        return gap * cnp / p.cnp_interval_s - rai * additive, gap, alpha, cnp

    low, high = 1e-9, p.pmax
    if parts(high)[0] < 0.0:
        raise ValueError(
            "no equilibrium with the queue between K_min and K_max: "
            "the marks at P_max do not hold the rate"
        )
    mark = float(brentq(lambda m: parts(m)[0], low, high, xtol=1e-14, rtol=1e-12))
    _, gap, alpha, cnp = parts(mark)
    queue = p.kmin_bytes + mark / p.pmax * (p.kmax_bytes - p.kmin_bytes)
    return FixedPoint(rate, rate + gap, alpha, mark, queue, cnp / p.cnp_interval_s)


def main(argv: list[str] | None = None) -> int:
    from _usage import OneLineParser, fail, positive_int

    from qosforge.errors import QosforgeError
    from qosforge.models.dcqcn_host import DCQCN_MIN_RATE_BPS
    from qosforge.units import parse_flag, parse_rate_bps, parse_time_s

    parser = OneLineParser(__doc__)
    parser.add_argument("--flows", type=positive_int, default=8, metavar="N",
                        help="synchronised senders into the bottleneck (default: %(default)s)")
    parser.add_argument("--capacity", default="100G", metavar="RATE",
                        help="bottleneck and sender line rate, e.g. 40G (default: %(default)s)")
    parser.add_argument("--duration", default="8ms", metavar="TIME",
                        help="simulated time (default: %(default)s)")
    parser.add_argument("--rtt", default="8us", metavar="TIME",
                        help="the feedback delay tau* without queueing (default: %(default)s)")
    parser.add_argument("--queueing-in-feedback", action="store_true",
                        help="add the queue ahead of a marked packet to its feedback delay")
    # The software switch's floor (models/dcqcn_host.py DCQCN_MIN_RATE_BPS, HPCC's rdma-hw.cc
    # MinRate), as the docstring says the defaults are the software switch's; 0: no floor, as
    # the paper's model.
    parser.add_argument("--min-rate", default=f"{DCQCN_MIN_RATE_BPS / 1e6:g}M", metavar="RATE",
                        help="the senders' rate floor, or 0 for none (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        capacity = parse_flag("--capacity", parse_rate_bps, args.capacity)
        rtt = parse_flag("--rtt", parse_time_s, args.rtt)
        duration = parse_flag("--duration", parse_time_s, args.duration)
        min_rate = (parse_flag("--min-rate", parse_rate_bps, args.min_rate)
                    if args.min_rate != "0" else 0.0)
    except QosforgeError as error:
        fail(str(error))
    if min_rate > capacity:
        # A sender never runs below its floor, so a floor above the line rate would hold every
        # sender above what its own link carries.
        fail(f"--min-rate: {args.min_rate} is above --capacity {args.capacity}: a rate floor is "
             "at most the line rate (e.g. 100M)")
    scale = capacity / 40e9
    # The DCQCN paper's values at 40G; K_min, K_max and R_AI scaled with the line rate as
    # models/dcqcn.py and models/dcqcn_host.py scale them.
    params = FluidParams(
        flows=args.flows,
        capacity_bps=capacity,
        line_rate_bps=capacity,
        kmin_bytes=5e3 * scale,
        kmax_bytes=200e3 * scale,
        rai_bps=40e6 * scale,
        feedback_delay_s=rtt,
        queueing_in_feedback=args.queueing_in_feedback,
        min_rate_bps=min_rate,
    )
    run = solve(params, duration)
    print("t_ms  offered_Gbps  queue_kB  alpha  R_C_Gbps  R_T_Gbps")
    for t in np.arange(0.5e-3, duration + 1e-9, 0.5e-3):
        i = round(t / 1e-6)
        print(
            f"{t * 1e3:4.1f}  {run.aggregate_bps[i] / 1e9:7.1f}  "
            f"{run.queue_bytes[i] / 1e3:8.1f}  {run.alpha[i]:.3f}  "
            f"{run.rate_Bps[i] * 8 / 1e9:6.2f}  {run.target_Bps[i] * 8 / 1e9:6.2f}"
        )
    print(
        f"utilisation over 0..{duration * 1e3:g} ms: {run.utilisation(0.0, duration):.3f}; "
        f"peak queue {run.queue_bytes.max() / 1e3:.0f} kB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
