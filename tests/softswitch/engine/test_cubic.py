"""CUBIC's window on the software switch against RFC 9438's curve, W(t) = C (t - K)^3 + W_max,
and its pure functions against the RFC's constants."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.engine.cubic import CUBIC_ALPHA, CUBIC_BETA, CUBIC_C, cubic_k, cubic_window
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.simulation import SegmentedRun

PKT = 1500


def test_the_constants_are_rfc_9438s() -> None:
    assert (CUBIC_C, CUBIC_BETA) == (0.4, 0.7)
    assert math.isclose(CUBIC_ALPHA, 3 * 0.3 / 1.7)


@settings(deadline=None)  # the first call compiles the engine function
@given(st.floats(10, 1e5), st.floats(0.1, 0.99))
def test_k_is_where_the_curve_returns_to_w_max(w_max: float, fraction: float) -> None:
    k = cubic_k(w_max, fraction * w_max)
    # W(0) is the window the epoch starts from and W(K) = W_max (RFC 9438 §4.2, eq. 1-2).
    assert math.isclose(cubic_window(w_max, k, 0.0), fraction * w_max, rel_tol=1e-9)
    assert math.isclose(cubic_window(w_max, k, k), w_max, rel_tol=1e-12)


def test_cwnd_follows_the_cubic_curve_after_a_reduction() -> None:
    """Two CUBIC flows share a 100 Mb/s link with a 100 ms RTT (BDP 833 packets, buffer 400
    packets): in flow 0's longest epoch between two losses, sampled every 10 ms, cwnd must be the
    RFC's curve through the epoch's W_max and start window (a long RTT keeps CUBIC out of the
    Reno-friendly region)."""
    config, flows, run = dumbbell(DumbbellSpec(flows=2, transport="cubic", bandwidth_bps=100e6, rtt_s=0.1, buffer_bytes=400 * PKT,  # type: ignore[arg-type]
                                               duration_s=30.0, warmup_s=0.0))
    segmented = SegmentedRun((config,), single_switch(len(config.ports)), flows, run)
    flf = segmented.world[L.W_FLF]
    rows = []
    for step in range(1, 3001):
        segmented.advance(step * 0.01)
        rows.append((step * 0.01, flf[0, L.FF_CWND], flf[0, L.FF_CUBIC_EPOCH], flf[0, L.FF_CUBIC_WMAX], flf[0, L.FF_CUBIC_CWND0]))
    trace = np.array(rows)
    epochs = sorted({e for e in trace[:, 2] if e > 0})
    assert len(epochs) >= 2, "the flow never lost a packet after slow start"
    # The longest loss-free epoch after the first (which starts from slow start's overshoot).
    spans = [(b - a, a) for a, b in zip(epochs[1:], [*epochs[2:], trace[-1, 0]], strict=True)]
    length, start = max(spans)
    assert length > 2.0
    inside = trace[(trace[:, 2] == start) & (trace[:, 0] < start + length - 0.2)]
    w_max, cwnd0 = inside[0, 3], inside[0, 4]
    k = ((w_max - cwnd0) / 0.4) ** (1 / 3)
    expected = 0.4 * (inside[:, 0] - start - k) ** 3 + w_max
    # Per-ACK steps toward W(t + RTT) (RFC 9438 §4.4) keep cwnd within a few segments of W(t).
    assert np.max(np.abs(inside[:, 1] - expected)) < 0.03 * w_max
    # The reduction before the epoch was beta (RFC 9438 §4.6): the window it starts from is 0.7
    # of the flight when the loss was found, which is at most the window before it.
    before = trace[(trace[:, 2] == epochs[epochs.index(start) - 1]), 1].max()
    assert cwnd0 <= CUBIC_BETA * before * 1.02
    assert cwnd0 >= CUBIC_BETA * 0.9 * before
