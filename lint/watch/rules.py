"""The checks of ``qosforge watch``'s rules (definitions and rationale: lint/rules/telemetry.py).

Each check reads one switch's :class:`~qosforge.lint.watch.expectations.SwitchExpectation` and
:class:`~qosforge.lint.watch.observation.Observation` and yields lint findings located at
``switch|port.object`` (``leaf1|Ethernet8.queue 3 (rdma)``), with ``values`` holding the observed
number, the predicted one and the prediction's provenance (model quantity, formula, source).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from qosforge.backends.counters import SPECS, Counter, CounterKey
from qosforge.lint.findings import Finding
from qosforge.lint.rules.base import Rule
from qosforge.lint.rules.telemetry import (
    COUNTER_UNAVAILABLE,
    ECN_OFF,
    HEADROOM_EXCEEDED,
    LOSSLESS_PG_DROP,
    LOSSLESS_QUEUE_DROP,
    PFC_PAUSE,
    PFC_STORM,
    PFCWD_TRIGGERED,
    TLT_THRESHOLD,
    UNPLANNED_QUEUE,
)
from qosforge.lint.watch.expectations import ClassExpectation, Predicted, SwitchExpectation
from qosforge.lint.watch.observation import Observation

MAX_FRAME_BYTES = 9216
"""The largest frame a SONiC port carries (sonic-buildimage sonic-port.yang: mtu range 68..9216):
the fewest packets that can raise a queue by a given number of bytes."""

CERTAIN_MARKS = math.log(1e6)
"""Expected marks above which seeing none has probability below 10^-6 (Poisson: P(0) = e^-E)."""

STORM_RATE = 0.9
"""A sample interval counts as 'paused throughout' when pause time grew by at least this share of
it (the rest is sampling jitter: SONiC polls the pause counter with the PFC watchdog's period)."""

DEFAULT_STORM_MS = 200
"""SONiC's default PFC watchdog detection time (sonic-utilities pfcwd/main.py DEFAULT_DETECTION_TIME),
the storm limit when the design has no watchdog."""

TLT_PACKET_BYTES = 1500


@dataclass(frozen=True)
class Thresholds:
    """The operator's thresholds (command-line flags)."""

    max_pause_fraction: float = 0.5
    """--max-pause: share of the watched time a priority may spend paused."""


@dataclass(frozen=True)
class WatchContext:
    expectation: SwitchExpectation
    observation: Observation
    thresholds: Thresholds

    def finding(self, rule: Rule, key: CounterKey, what: str, message: str, values: dict[str, float | str]) -> Finding:
        return Finding(rule.id, rule.severity, self.expectation.report, self.expectation.name, key.port, what, message,
                       rule.fix, values={"switch": self.expectation.name, "port": key.port, **values})


def _zero(source: str, quantity: str) -> Predicted:
    return Predicted(0.0, "packets", quantity, "0", source)


def _observed(counter: Counter, value: float, path: str, at_ns: int) -> dict[str, float | str]:
    return {"observed": value, "observed_unit": SPECS[counter].unit, "observed_counter": counter.value,
            "observed_path": path, "observed_at_ns": at_ns}


def _class_values(cls: ClassExpectation | None) -> dict[str, float | str]:
    return {"class": cls.name} if cls is not None else {}


def lossless_pg_drop(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    for key in obs.keys(Counter.PG_DROPPED_PACKETS):
        cls = exp.class_of_pg(key.index or 0) if key.index is not None else None
        if cls is None or not cls.lossless or (exp.headroom and key.port not in exp.headroom):
            continue
        drops = obs.change(Counter.PG_DROPPED_PACKETS, key)
        if not drops:
            continue
        series = obs.get(Counter.PG_DROPPED_PACKETS, key)
        assert series is not None
        headroom = exp.headroom.get(key.port)
        source = "IEEE 802.1Qbb: a PFC priority group does not drop"
        if headroom is not None:
            source += f"; headroom {headroom.profile}: xoff {headroom.xoff.value:,.0f} B ({headroom.xoff.formula}; {headroom.xoff.source})"
        yield ctx.finding(LOSSLESS_PG_DROP, key, f"pg {key.index} ({cls.name})",
                          f"lossless priority group {key.index} of class {cls.name} dropped {drops:,} packets; predicted 0",
                          {**_class_values(cls), **_observed(Counter.PG_DROPPED_PACKETS, drops, series.last.path, series.last.timestamp_ns),
                           **_zero(source, "lossless_drops").values()})


def _watchdog_dropped(ctx: WatchContext, key: CounterKey) -> bool:
    detected = ctx.observation.change(Counter.PFCWD_DEADLOCK_DETECTED, key)
    status = ctx.observation.get(Counter.PFCWD_STATUS, key)
    stormed = bool(detected) or (status is not None and status.last.value == "stormed")
    return stormed and (ctx.expectation.watchdog is None or ctx.expectation.watchdog.action == "drop")


def lossless_queue_drop(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    for key in obs.keys(Counter.QUEUE_DROPPED_PACKETS):
        cls = exp.class_of_queue(key.index) if key.index is not None else None
        if cls is None or not cls.lossless or (exp.headroom and key.port not in exp.headroom):
            continue
        drops = obs.change(Counter.QUEUE_DROPPED_PACKETS, key)
        if not drops or _watchdog_dropped(ctx, key):
            continue
        series = obs.get(Counter.QUEUE_DROPPED_PACKETS, key)
        assert series is not None
        yield ctx.finding(LOSSLESS_QUEUE_DROP, key, f"queue {key.index} ({cls.name})",
                          f"queue {key.index} of lossless class {cls.name} dropped {drops:,} packets; predicted 0",
                          {**_class_values(cls), **_observed(Counter.QUEUE_DROPPED_PACKETS, drops, series.last.path, series.last.timestamp_ns),
                           **_zero("IEEE 802.1Qbb: PFC pauses the sender instead of dropping", "lossless_drops").values()})


def headroom_exceeded(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    for key in obs.keys(Counter.PG_HEADROOM_WATERMARK_BYTES):
        cls = exp.class_of_pg(key.index) if key.index is not None else None
        headroom = exp.headroom.get(key.port)
        series = obs.get(Counter.PG_HEADROOM_WATERMARK_BYTES, key)
        if cls is None or not cls.lossless or headroom is None or series is None:
            continue
        if series.peak <= headroom.xoff.value:
            continue
        yield ctx.finding(HEADROOM_EXCEEDED, key, f"pg {key.index} ({cls.name})",
                          f"headroom watermark {series.peak:,} B above the predicted xoff {headroom.xoff.value:,.0f} B "
                          f"({series.peak / headroom.xoff.value:.0%}) of profile {headroom.profile}",
                          {**_class_values(cls), **_observed(Counter.PG_HEADROOM_WATERMARK_BYTES, series.peak, series.last.path, series.last.timestamp_ns),
                           **headroom.xoff.values()})


def _lossless_priority(exp: SwitchExpectation, priority: int) -> ClassExpectation | None:
    """The lossless class paused on ``priority``: qosforge plans PFC priority = traffic class
    (report.json classes traffic_class/priority_group; MAP_PFC_PRIORITY_TO_QUEUE identity)."""
    return next((c for c in exp.classes if c.lossless and c.priority_group == priority), None)


def pfc_pause(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    if obs.once:
        return
    for key in obs.keys(Counter.PFC_RX_PAUSE_US):
        elapsed = obs.elapsed_s(Counter.PFC_RX_PAUSE_US, key)
        paused_us = obs.change(Counter.PFC_RX_PAUSE_US, key)
        series = obs.get(Counter.PFC_RX_PAUSE_US, key)
        if not elapsed or not paused_us or series is None:
            continue
        fraction = paused_us / 1e6 / elapsed
        if fraction <= ctx.thresholds.max_pause_fraction:
            continue
        cls = _lossless_priority(exp, key.index or 0)
        limit = Predicted(ctx.thresholds.max_pause_fraction * 100, "%", "max_pause_percent", "--max-pause", "operator threshold (qosforge watch --max-pause)")
        yield ctx.finding(PFC_PAUSE, key, f"priority {key.index}" + (f" ({cls.name})" if cls else ""),
                          f"paused {fraction:.0%} of {elapsed:.3g} s on priority {key.index} (received PFC), above {limit.value:g} %",
                          {**_class_values(cls), **_observed(Counter.PFC_RX_PAUSE_US, fraction * 100, series.last.path, series.last.timestamp_ns),
                           "observed_unit": "%", **limit.values()})


def _longest_paused_s(history: list[tuple[int, int]]) -> float:
    """The longest run of consecutive sample intervals in which pause time grew by at least
    STORM_RATE of the interval, in seconds."""
    best = run = 0.0
    for (t0, v0), (t1, v1) in itertools.pairwise(history):
        dt_s = (t1 - t0) / 1e9
        if dt_s <= 0:
            continue  # the same device time sampled again (a target slower than the client): no evidence either way
        if (v1 - v0) / 1e6 >= STORM_RATE * dt_s:
            run += dt_s
            best = max(best, run)
        else:
            run = 0.0
    return best


def pfc_storm(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    if obs.once:
        return
    wd = exp.watchdog
    limit = Predicted(float(wd.detection_ms if wd else DEFAULT_STORM_MS), "ms", "pfc_watchdog_detection_ms", "PFC_WD detection_time",
                      wd.source if wd else "SONiC default PFC watchdog detection time (sonic-utilities pfcwd/main.py)")
    for key in obs.keys(Counter.PFC_RX_PAUSE_US):
        series = obs.get(Counter.PFC_RX_PAUSE_US, key)
        if series is None:
            continue
        paused_s = _longest_paused_s(series.history)
        if paused_s * 1e3 < limit.value:
            continue
        cls = _lossless_priority(exp, key.index or 0)
        yield ctx.finding(PFC_STORM, key, f"priority {key.index}" + (f" ({cls.name})" if cls else ""),
                          f"priority {key.index} paused without a break for {paused_s * 1e3:,.0f} ms, longer than the "
                          f"watchdog's detection time {limit.value:,.0f} ms",
                          {**_class_values(cls), **_observed(Counter.PFC_RX_PAUSE_US, paused_s * 1e3, series.last.path, series.last.timestamp_ns),
                           "observed_unit": "ms", **limit.values()})


def pfcwd_triggered(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    keys = set(obs.keys(Counter.PFCWD_DEADLOCK_DETECTED)) | set(obs.keys(Counter.PFCWD_STATUS))
    for key in sorted(keys, key=lambda k: (k.port, k.index or 0)):
        detected = obs.change(Counter.PFCWD_DEADLOCK_DETECTED, key) or 0
        status = obs.get(Counter.PFCWD_STATUS, key)
        stormed = status is not None and status.last.value == "stormed"
        if not detected and not stormed:
            continue
        cls = exp.class_of_queue(key.index) if key.index is not None else None
        series = obs.get(Counter.PFCWD_DEADLOCK_DETECTED, key) or status
        assert series is not None
        action = exp.watchdog.action if exp.watchdog else "?"
        state = f"status {status.last.value}" if status is not None else "status unavailable"
        yield ctx.finding(PFCWD_TRIGGERED, key, f"queue {key.index}" + (f" ({cls.name})" if cls else ""),
                          f"PFC watchdog detected {detected} storm(s) on queue {key.index} ({state}; action {action})",
                          {**_class_values(cls), **_observed(Counter.PFCWD_DEADLOCK_DETECTED, detected, series.last.path, series.last.timestamp_ns),
                           **_zero("design: lossless queues drain within the headroom's reaction time (no storm)", "pfc_storms").values(),
                           "predicted_unit": "events"})


def expected_marks(watermark_bytes: float, k_min: float, k_max: float, pmax_percent: float) -> float:
    """Expected ECN marks among the packets that raised a queue from ``k_min`` to the watermark,
    each at most a MAX_FRAME_BYTES frame (the fewest packets): sum of the RED marking probability
    at each one's arrival, P_max * (q - K_min) / (K_max - K_min) below K_max and 1 above (RFC 2309 /
    Floyd & Jacobson RED; SAI WRED ECN marking). Step marking (K_min = K_max or P_max = 100 %) marks
    every packet above K."""
    count = int((watermark_bytes - k_min) // MAX_FRAME_BYTES)
    if count <= 0:
        return 0.0
    step = k_max <= k_min or pmax_percent >= 100
    total = 0.0
    for i in range(1, count + 1):
        q = k_min + i * MAX_FRAME_BYTES
        if step or q >= k_max:
            total += 1.0
        else:
            total += pmax_percent / 100 * (q - k_min) / (k_max - k_min)
    return total


def ecn_off(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    for key in obs.keys(Counter.QUEUE_WATERMARK_BYTES):
        classes = [c for c in exp.classes if c.queue == key.index and c.marking is not None]
        series = obs.get(Counter.QUEUE_WATERMARK_BYTES, key)
        marks = obs.change(Counter.QUEUE_ECN_MARKED_PACKETS, key)
        peak = obs.peak_during(Counter.QUEUE_WATERMARK_BYTES, key)
        if not classes or series is None or peak is None or marks is None or marks > 0:
            continue
        # Several speeds give one class entry each: judge against the highest K (fewest findings).
        cls = max(classes, key=lambda c: c.marking.max.value if c.marking else 0.0)
        curve = cls.marking
        assert curve is not None
        expected = expected_marks(peak, curve.min.value, curve.max.value, curve.probability.value)
        step = curve.max.value <= curve.min.value or curve.probability.value >= 100
        if (step and expected < 1) or (not step and expected < CERTAIN_MARKS):
            continue
        yield ctx.finding(ECN_OFF, key, f"queue {key.index} ({cls.name})",
                          f"queue {key.index} of marking class {cls.name} ({cls.transport}) reached {peak:,} B, "
                          f"above K {curve.min.value:,.0f} B, with 0 packets ECN-marked (expected at least {expected:,.1f})",
                          {**_class_values(cls), **_observed(Counter.QUEUE_WATERMARK_BYTES, peak, series.last.path, series.last.timestamp_ns),
                           **curve.min.values(), "ecn_marked_packets": 0, "expected_marks_at_least": round(expected, 3)})


def tlt_threshold(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    for key in obs.keys(Counter.QUEUE_WATERMARK_BYTES):
        classes = [c for c in exp.classes if c.queue == key.index and c.tlt_threshold is not None]
        series = obs.get(Counter.QUEUE_WATERMARK_BYTES, key)
        if not classes or series is None:
            continue
        cls = max(classes, key=lambda c: c.tlt_threshold.value if c.tlt_threshold else 0.0)
        k = cls.tlt_threshold
        assert k is not None
        if series.peak <= k.value + MAX_FRAME_BYTES:
            continue
        excess = series.peak - k.value
        yield ctx.finding(TLT_THRESHOLD, key, f"queue {key.index} ({cls.name})",
                          f"queue {key.index} of TLT class {cls.name} reached {series.peak:,} B, {excess:,.0f} B above its color "
                          f"threshold K {k.value:,.0f} B (= {excess / TLT_PACKET_BYTES:,.0f} important packets of {TLT_PACKET_BYTES} B)",
                          {**_class_values(cls), **_observed(Counter.QUEUE_WATERMARK_BYTES, series.peak, series.last.path, series.last.timestamp_ns),
                           **k.values()})


def unplanned_queue(ctx: WatchContext) -> Iterator[Finding]:
    exp, obs = ctx.expectation, ctx.observation
    planned = exp.planned_queues()
    plan = ", ".join(f"{name} -> queue {q}" for q, name in sorted(planned.items()))
    for key in obs.keys(Counter.QUEUE_TRANSMIT_PACKETS):
        if key.index is None or key.index in planned:
            continue
        packets = obs.change(Counter.QUEUE_TRANSMIT_PACKETS, key)
        series = obs.get(Counter.QUEUE_TRANSMIT_PACKETS, key)
        if not packets or series is None:
            continue
        yield ctx.finding(UNPLANNED_QUEUE, key, f"queue {key.index}",
                          f"queue {key.index} transmitted {packets:,} packets but the design gives it no class ({plan})",
                          {**_observed(Counter.QUEUE_TRANSMIT_PACKETS, packets, series.last.path, series.last.timestamp_ns),
                           **_zero(f"the compiled DSCP -> TC -> queue maps ({exp.report}: classes, control_classes)", "unplanned_packets").values()})


CheckFunction = Callable[[WatchContext], Iterator[Finding]]

#: Each check and the counters it cannot run without (any one of them for a tuple).
CHECKS: tuple[tuple[Rule, CheckFunction, tuple[Counter, ...]], ...] = (
    (LOSSLESS_PG_DROP, lossless_pg_drop, (Counter.PG_DROPPED_PACKETS,)),
    (LOSSLESS_QUEUE_DROP, lossless_queue_drop, (Counter.QUEUE_DROPPED_PACKETS,)),
    (HEADROOM_EXCEEDED, headroom_exceeded, (Counter.PG_HEADROOM_WATERMARK_BYTES,)),
    (PFC_PAUSE, pfc_pause, (Counter.PFC_RX_PAUSE_US,)),
    (PFC_STORM, pfc_storm, (Counter.PFC_RX_PAUSE_US,)),
    (PFCWD_TRIGGERED, pfcwd_triggered, (Counter.PFCWD_DEADLOCK_DETECTED, Counter.PFCWD_STATUS)),
    (ECN_OFF, ecn_off, (Counter.QUEUE_WATERMARK_BYTES, Counter.QUEUE_ECN_MARKED_PACKETS)),
    (TLT_THRESHOLD, tlt_threshold, (Counter.QUEUE_WATERMARK_BYTES,)),
    (UNPLANNED_QUEUE, unplanned_queue, (Counter.QUEUE_TRANSMIT_PACKETS,)),
)

#: ECN-off needs both: the watermark and the marks.
_ALL_NEEDED = {ECN_OFF.id}


def _relevant(rule: Rule, exp: SwitchExpectation) -> bool:
    """Whether the design gives the rule anything to check on this switch."""
    lossless = any(c.lossless for c in exp.classes)
    if rule.id in (LOSSLESS_PG_DROP.id, LOSSLESS_QUEUE_DROP.id, HEADROOM_EXCEEDED.id, PFC_PAUSE.id, PFC_STORM.id, PFCWD_TRIGGERED.id):
        return lossless
    if rule.id == ECN_OFF.id:
        return any(c.marking is not None for c in exp.classes)
    if rule.id == TLT_THRESHOLD.id:
        return any(c.tlt_threshold is not None for c in exp.classes)
    return True


def unavailable(expectation: SwitchExpectation, observation: Observation) -> dict[Counter, list[str]]:
    """Counter -> the rules that cannot run on this switch because it does not publish it."""
    missing: dict[Counter, list[str]] = {}
    for rule, _, needs in CHECKS:
        if not _relevant(rule, expectation):
            continue
        absent = [c for c in needs if not observation.available(c)]
        if (rule.id in _ALL_NEEDED and absent) or len(absent) == len(needs):
            for counter in absent:
                missing.setdefault(counter, []).append(rule.id)
    return missing


def evaluate(expectation: SwitchExpectation, observation: Observation, thresholds: Thresholds,
             disabled: frozenset[str] = frozenset(), where: Callable[[Counter], str] | None = None) -> list[Finding]:
    """Every finding for one switch; ``where`` says where a missing counter would be published
    (for the unavailable-counter message)."""
    ctx = WatchContext(expectation, observation, thresholds)
    missing = unavailable(expectation, observation)
    findings: list[Finding] = []
    for rule, check, needs in CHECKS:
        if rule.id in disabled or not _relevant(rule, expectation):
            continue
        if any(rule.id in missing.get(c, ()) for c in needs):
            continue
        findings.extend(check(ctx))
    if COUNTER_UNAVAILABLE.id not in disabled:
        for counter, rules in sorted(missing.items(), key=lambda item: item[0].value):
            hint = where(counter) if where is not None else ""
            findings.append(Finding(
                COUNTER_UNAVAILABLE.id, COUNTER_UNAVAILABLE.severity, expectation.report, expectation.name, "", counter.value,
                f"{expectation.name} does not publish {counter.value} ({SPECS[counter].meaning}); not run: {', '.join(rules)}"
                + (f"; looked for it at {hint}" if hint else ""),
                COUNTER_UNAVAILABLE.fix, values={"switch": expectation.name, "counter": counter.value, "rules": ", ".join(rules)}))
    return findings


__all__ = ["CHECKS", "MAX_FRAME_BYTES", "Thresholds", "WatchContext", "evaluate", "expected_marks", "unavailable"]
