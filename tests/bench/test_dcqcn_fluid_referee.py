"""The software switch's DCQCN against DCQCN's fluid model (bench/dcqcn_fluid.py: Zhu et al.,
"ECN or Delay", CoNEXT 2016, §3.1), written from the papers, not from the engine.

N DCQCN senders at 100G into one 100G port (the flag-configured dumbbell, a 10 us base RTT, a
buffer deep enough that nothing drops: the model has no loss), both with the same inputs: the
RP/NP parameters of models/dcqcn_host.py and the port's K_min/K_max/P_max of models/dcqcn.py.

* Start-up (what `compare`'s lossless-dcqcn row shows on examples/victims.traffic.yaml): eight
  senders at line rate overrun the port, the queue passes K_max, every packet is marked and each
  flow is cut every 50 us until the queue has drained; then only additive increase, R_AI per
  timer period, refills the port. Over the first 8 ms the model's port is busy 56.9 % of the time
  and peaks at 7.16 MB of queue; the engine's 53.8-54.2 % and 6.64-7.40 MB over seeds 1-4.
  Tolerances: 0.05 of utilisation (the model cuts continuously where the engine halves at each
  CNP, a deeper trough) and 10 % of the peak.
* Steady state (from 50 ms, once alpha has settled: its time constant is tau'/g = 14 ms): the
  model's fixed point. The engine keeps the port busy (>= 99.5 %: a queue between K_min and K_max
  never empties in the model), and its mean queue and CNP rate sit above the fixed point's: over
  seeds 1-4 and N = 2, 4, 8 the queue 1.14-1.41x, the CNPs 1.14-1.20x. The mean-field model
  replaces each flow's discrete CNPs and cuts, and the queue's swings (p99 2-3x its mean), by
  their averages. The bounds, 0.95-1.7x and 0.95-1.4x, hold that bias with room; R_AI at
  ConnectX's 5 Mb/s scaled from 25G (20 Mb/s at 100G) gives 0.74-0.86x and 0.71-0.79x, a
  300 us rate timer (ConnectX's rpg_time_reset) 0.18-0.23x and 0.14-0.22x.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from qosforge.models.dcqcn import dcqcn_marking
from qosforge.models.dcqcn_host import dcqcn_host
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.metrics import summary
from qosforge.softswitch.simulation import simulate

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from dcqcn_fluid import FluidParams, FluidRun, fixed_point, marking_probability, solve  # noqa: E402

CAPACITY_BPS = 100e9
RTT_S = 10e-6
PACKET_BYTES = 1500
#: The dumbbell's 1,500 B IP packet on the wire (Ethernet header, FCS, preamble, gap: IEEE 802.3).
WIRE_BYTES = PACKET_BYTES + 38


def _params(flows: int) -> FluidParams:
    host, marking = dcqcn_host(CAPACITY_BPS), dcqcn_marking(CAPACITY_BPS)
    return FluidParams(
        flows=flows,
        capacity_bps=CAPACITY_BPS,
        line_rate_bps=CAPACITY_BPS,
        packet_bytes=WIRE_BYTES,
        kmin_bytes=float(marking.kmin_bytes),
        kmax_bytes=float(marking.kmax_bytes),
        pmax=float(marking.pmax_percent) / 100.0,
        g=host.g,
        cnp_interval_s=host.cnp_interval_s,
        alpha_timer_s=host.timer_s,
        rate_timer_s=host.timer_s,
        byte_counter_bytes=host.byte_counter_bytes,
        fast_recovery_stages=int(host.fast_recovery_stages),
        rai_bps=host.rai_bps,
        feedback_delay_s=RTT_S,
        min_rate_bps=host.min_rate_bps,
    )


def _engine(flows: int, duration_s: float, warmup_s: float) -> dict[str, float]:
    marking = dcqcn_marking(CAPACITY_BPS)
    spec = DumbbellSpec(
        flows=flows,
        transport="dcqcn",
        bandwidth_bps=CAPACITY_BPS,
        rtt_s=RTT_S,
        buffer_bytes=20000 * PACKET_BYTES,
        red_min_bytes=float(marking.kmin_bytes),
        red_max_bytes=float(marking.kmax_bytes),
        red_pmax=float(marking.pmax_percent) / 100.0,
        duration_s=duration_s,
        warmup_s=warmup_s,
    )
    config, specs, run = dumbbell(spec)
    report = summary(simulate(config, specs, run))
    assert report["drops"] == 0 and report["timeouts"] == 0
    return {key: float(value) for key, value in report.items() if isinstance(value, (int, float))}


START_UP_S = 8e-3


@pytest.fixture(scope="module")
def start_up() -> FluidRun:
    return solve(_params(8), START_UP_S)


def test_start_up_cut_and_slow_recovery_match_the_fluid_model(start_up: FluidRun) -> None:
    duration, fluid = START_UP_S, start_up
    engine = _engine(8, duration, 0.0)
    fluid_utilisation = fluid.utilisation(0.0, duration)
    engine_utilisation = engine["wire_gbps"] * 1e9 / CAPACITY_BPS
    # Physics first: the port is far from full (the deep cuts), yet not idle throughout.
    assert 0.45 < fluid_utilisation < 0.65
    assert engine_utilisation == pytest.approx(fluid_utilisation, abs=0.05)
    assert engine["queue_max_packets"] * PACKET_BYTES == pytest.approx(
        float(fluid.queue_bytes.max()), rel=0.10
    )


def test_the_fluid_model_recovers_by_r_ai_per_timer_period(start_up: FluidRun) -> None:
    """Once the queue has drained, a flow's rate climbs by R_AI per rate-increase timer period
    (additive increase, SIGCOMM 2015 §3.1): 100 Mb/s per 55 us at 100G, 1.82 Gb/s per ms."""
    params, run = start_up.params, start_up
    at = [round(t / 1e-6) for t in (3e-3, 5e-3)]
    slope_bps_per_s = (run.rate_Bps[at[1]] - run.rate_Bps[at[0]]) * 8.0 / 2e-3
    assert run.queue_bytes[at[0] : at[1]].max() < params.kmin_bytes
    assert slope_bps_per_s == pytest.approx(params.rai_bps / params.rate_timer_s, rel=0.01)


def test_the_fixed_point_is_at_rest() -> None:
    params = _params(8)
    point = fixed_point(params)
    assert point.rate_Bps * params.flows * 8.0 == pytest.approx(CAPACITY_BPS)
    assert params.kmin_bytes < point.queue_bytes < params.kmax_bytes
    assert marking_probability(point.queue_bytes, params) == pytest.approx(
        point.mark_probability, rel=1e-9
    )
    # Started at the fixed point, the model stays there.
    from dcqcn_fluid import _History, _rhs

    state = np.array([point.rate_Bps, point.target_Bps, point.alpha, point.queue_bytes])
    derivative = _rhs(params, _History(state))(1e-3, state)
    scale = np.array([point.rate_Bps, point.rate_Bps, 1.0, point.rate_Bps]) / 1e-3
    assert np.all(np.abs(derivative / scale) < 1e-6)


@pytest.mark.parametrize("flows", [2, 8])
def test_steady_state_holds_the_port_near_the_fluid_fixed_point(flows: int) -> None:
    engine = _engine(flows, 0.1, 0.05)
    point = fixed_point(_params(flows))
    assert engine["wire_gbps"] * 1e9 >= 0.995 * CAPACITY_BPS
    queue_ratio = engine["queue_mean_packets"] * PACKET_BYTES / point.queue_bytes
    assert 0.95 <= queue_ratio <= 1.7
    cnp_ratio = engine["cnps_sent"] / 0.05 / flows / point.cnps_per_s
    assert 0.95 <= cnp_ratio <= 1.4
