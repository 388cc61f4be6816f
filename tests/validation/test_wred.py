"""Scenario 2: WRED/ECN — measured mark and drop probability per queue-depth band match the
programmed step curve.

Bursts of ECN-capable traffic from three ports at line rate into one receiver's queue of each
class that has WRED: the queue climbs through every depth up to its limit each burst, and every
arrival meets the WRED decision at the depth it sees (weight 0: instantaneous depth, in whole
cells). Both colors a class uses are tested (TLT's important and unimportant DSCPs). What the
programmed curve is follows SAI (SAI inc/saiwred.h-1.3) and the vendor profile: ECT packets
of a color in ECN_MARK_MODE are marked with the ECN_<C>_* curve when the switch enables ECT
thresholds and the chip honours them, else with the <C>_ curve, and are also subject to the <C>_
drop curve only when the chip applies color drop to ECT packets; ECT packets of a color not in
ECN_MARK_MODE are dropped by its curve if enabled. The reference curve is
``fitting.red_model.step_marking_probability`` with the vendor's step quantisation
(``red_model_from_profile``): 0 at or below min, step i's value on its interval, 1 above max.

Statistics: arrivals are grouped by step interval (a band is one cell, so every band lies in one
interval). Per interval with n arrivals and expected probability p, the count of marks (drops) is
tested two-sided against Binomial(n, p) at family-wise confidence 99.9 % (Bonferroni over all
intervals of all curves of the example), so a correct switch fails this test with probability
below 0.1 %; probabilities 0 and 1 must hold exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from qosforge.fitting.red_model import step_marking_probability
from qosforge.softswitch.config import Curve, SwitchConfig
from qosforge.softswitch.engine.build import classify
from qosforge.softswitch.engine.layout import BD_ARRIVALS, BD_DROPS, BD_MARKS
from qosforge.softswitch.helper.compiled import CompiledSwitch
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

#: Examples whose vendor profile states the RED quantisation (Spectrum-2 does not: roce-pod and
#: mixed-fabric cannot be checked against a step curve nobody has published).
EXAMPLES = ["tlt-softswitch", "tlt-simulation", "tlt-testbed", "tbtcp-testbed"]
PACKET_BYTES = 1500
SENDERS = 3
BURSTS = 40
FAMILY_CONFIDENCE = 0.999


def _curves(config: SwitchConfig, wred_id: str, color: int) -> tuple[Curve | None, Curve | None]:
    """(mark curve, drop curve) that apply to ECT packets of ``color`` (None = never)."""
    wred = next(w for w in config.wreds if w.object_id == wred_id)
    drop = wred.drop[color] if wred.drop[color].enabled else None
    if not wred.mark[color]:
        return None, drop
    mark = wred.ect_mark[color] if config.ect_thresholds_effective else wred.drop[color]
    ect_drop = drop if config.ect_thresholds_effective and config.color_drop_applies_to_ect else None
    return mark, ect_drop


def _expected(config: SwitchConfig, curve: Curve | None, depth_bytes: np.ndarray) -> np.ndarray:
    if curve is None:
        return np.zeros_like(depth_bytes)
    if curve.min_bytes == curve.max_bytes:  # a single threshold: nothing at or below, all above
        return (depth_bytes > curve.max_bytes).astype(np.float64)
    steps = config.asic.step_probabilities(curve.probability)
    return np.asarray(step_marking_probability(depth_bytes, curve.min_bytes, curve.max_bytes, steps), dtype=np.float64)


def _cases(switch: CompiledSwitch) -> list[tuple[int, int, str]]:
    """(dscp, receiver queue, WRED id) for every class DSCP whose queue has WRED."""
    config = switch.config
    cases = []
    for entry in switch.ir.classes:
        for dscp in (*entry.dscp[:1], *entry.important_dscp[:1]):
            queue = classify(config, 1, dscp, 0).queue
            wred = config.ports[0].queues[queue].wred
            if wred is not None:
                cases.append((dscp, queue, wred))
    return cases


@pytest.mark.parametrize("example", EXAMPLES)
def test_marks_and_drops_follow_the_programmed_step_curve(example: str, load_example: Callable[[str], CompiledSwitch]) -> None:
    switch = load_example(example)
    config = switch.config
    cases = _cases(switch)
    assert cases, f"{example} has no WRED queue"
    cell = config.asic.cell_bytes
    checks: list[tuple[str, int, int, float]] = []
    for dscp, queue, wred_id in cases:
        color = classify(config, 1, dscp, 0).color
        mark, drop = _curves(config, wred_id, color)
        top = max(c.max_bytes for c in (mark, drop) if c is not None) if (mark or drop) else 0
        bands = math.ceil(1.2 * top / cell) + 2
        rate = config.ports[1].speed_bps / 8.0 / PACKET_BYTES
        burst_packets = math.ceil(1.5 * top / PACKET_BYTES / (SENDERS - 1)) + 8
        period = 4 * burst_packets / rate
        flows = tuple(FlowSpec("cbr", 1 + s, 0, dscp, packet_bytes=PACKET_BYTES, ect=True, rate_pps=rate, size_packets=burst_packets,
                               start_s=b * period + s * 1e-7) for b in range(BURSTS) for s in range(SENDERS))
        run = RunSpec(duration_s=BURSTS * period, monitors=((0, queue),), band_bytes=cell, band_count=bands)
        result = simulate(config, flows, run)
        table = result.monitors[0].bands[color, 1]  # ECT arrivals by depth band
        depth = np.arange(bands) * cell
        drop_expected = _expected(config, drop, depth)
        # A packet the drop curve takes is not marked: P(mark) = (1 - p_drop) p_mark.
        mark_expected = (1.0 - drop_expected) * _expected(config, mark, depth)
        for name, expected, column in (("mark", mark_expected, BD_MARKS), ("drop", drop_expected, BD_DROPS)):
            arrivals, events = table[:, BD_ARRIVALS], table[:, column]
            certain = (expected == 0.0) | (expected == 1.0)
            assert np.array_equal(events[certain], (arrivals * expected)[certain].astype(np.int64)), (example, dscp, name)
            for value in np.unique(expected[~certain]):
                at = expected == value
                checks.append((f"{example} dscp {dscp} {name} p={value:.4f}", int(arrivals[at].sum()), int(events[at].sum()), float(value)))
    from scipy.stats import binomtest  # here, not at collection: ~0.7 CPU s in every worker

    alpha = (1.0 - FAMILY_CONFIDENCE) / max(len(checks), 1)
    for label, n, k, p in checks:
        assert n >= 50, f"{label}: only {n} arrivals in this interval"
        assert binomtest(k, n, p).pvalue > alpha, f"{label}: {k}/{n} events"
