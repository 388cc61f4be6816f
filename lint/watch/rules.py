"""``qosforge watch``'s rules: each check declared with its rule (``@watch_rule``: id, severity,
documentation and the counters it cannot run without). The rules live in the lint registry
(category ``telemetry``) so they share its ids, severities, formats, exit codes and docs/rules.md;
their checks run on counters, not on a config file, so ``qosforge lint`` never runs them.

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
from qosforge.lint.context import Needs
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.rules.base import Rule, declare, register
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

_NEEDS: Needs = "counters"


@dataclass(frozen=True)
class WatchCheck:
    """A watch rule with its check and the counters it needs (any one of them, or all with
    ``all_needed``)."""

    rule: Rule
    function: Callable[[WatchContext], Iterator[Finding]]
    counters: tuple[Counter, ...]
    all_needed: bool = False

    def __call__(self, ctx: WatchContext) -> Iterator[Finding]:
        return self.function(ctx)


#: Every watch check, in declaration order (the order they run and are listed in).
CHECKS: list[WatchCheck] = []


def watch_rule(id: str, severity: Severity, title: str, *, rationale: str, fix: str, counters: tuple[Counter, ...],
               all_needed: bool = False) -> Callable[[Callable[[WatchContext], Iterator[Finding]]], WatchCheck]:
    """Declare a watch rule with its check: registers the rule (category telemetry) in the lint
    registry and the check in :data:`CHECKS`."""

    def decorate(function: Callable[[WatchContext], Iterator[Finding]]) -> WatchCheck:
        declared = register(Rule(id, severity, "telemetry", title, rationale, fix, _NEEDS))
        check = WatchCheck(declared, function, counters, all_needed)
        CHECKS.append(check)
        return check

    return decorate


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


@watch_rule(
    "watch-lossless-pg-drop", Severity.ERROR, "a lossless priority group dropped packets",
    rationale="A priority group with PFC is lossless by design: before its headroom fills the switch sends XOFF and "
    "the peer stops (IEEE 802.1Qbb); the compiler sized the headroom for every byte still in flight "
    "(report.json pfc_headroom, the physical model of IEEE 802.3 Annex 31B or SONiC's "
    "buffer_headroom_*.lua). Drops there (SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS, the "
    "PG_DROP flex-counter group) mean the headroom is short of what arrives after XOFF: a cut "
    "headroom profile, a cable longer than the intent says, or a peer slower to react than 802.3 "
    "allows. The finding names the port and priority group, the drops seen and the headroom the "
    "compiler predicted with its provenance.",
    fix="compare the port's BUFFER_PG/BUFFER_PROFILE with the compiled config_db (qosforge diff, lint "
    "--profile) and the cable length in the intent; restore the compiled headroom",
    counters=(Counter.PG_DROPPED_PACKETS,),
)
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
        yield ctx.finding(lossless_pg_drop.rule, key, f"pg {key.index} ({cls.name})",
                          f"lossless priority group {key.index} of class {cls.name} dropped {drops:,} packets; predicted 0",
                          {**_class_values(cls), **_observed(Counter.PG_DROPPED_PACKETS, drops, series.last.path, series.last.timestamp_ns),
                           **_zero(source, "lossless_drops").values()})


def _watchdog_dropped(ctx: WatchContext, key: CounterKey) -> bool:
    detected = ctx.observation.change(Counter.PFCWD_DEADLOCK_DETECTED, key)
    status = ctx.observation.get(Counter.PFCWD_STATUS, key)
    stormed = bool(detected) or (status is not None and status.last.value == "stormed")
    return stormed and (ctx.expectation.watchdog is None or ctx.expectation.watchdog.action == "drop")


@watch_rule(
    "watch-lossless-queue-drop", Severity.ERROR, "a lossless class's queue dropped packets",
    rationale="A lossless class's egress queue must not drop: PFC pauses the senders instead. Drops counted "
    "on its queue (SONiC's SAI_QUEUE_STAT_DROPPED_PACKETS; openconfig-qos dropped-pkts) mean the PFC chain "
    "is broken somewhere: PFC not enabled on the priority, DSCP classified to another priority "
    "group, or an egress limit below what PFC needs. Drops the PFC watchdog made on a queue it "
    "found stormed (action drop) are the watchdog's doing and reported by "
    "watch-pfcwd-triggered instead.",
    fix="check PORT_QOS_MAP pfc_enable and the DSCP/TC/PG maps of the port against the compiled config",
    counters=(Counter.QUEUE_DROPPED_PACKETS,),
)
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
        yield ctx.finding(lossless_queue_drop.rule, key, f"queue {key.index} ({cls.name})",
                          f"queue {key.index} of lossless class {cls.name} dropped {drops:,} packets; predicted 0",
                          {**_class_values(cls), **_observed(Counter.QUEUE_DROPPED_PACKETS, drops, series.last.path, series.last.timestamp_ns),
                           **_zero("IEEE 802.1Qbb: PFC pauses the sender instead of dropping", "lossless_drops").values()})


@watch_rule(
    "watch-headroom-exceeded", Severity.ERROR, "a priority group used more headroom than its XOFF margin",
    rationale="The headroom watermark of a lossless priority group "
    "(SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES, SONiC's PG_WATERMARK group) is the "
    "most it ever held after sending XOFF. The compiler's xoff is its prediction of exactly that: the "
    "bytes still in flight when the peer reacts (IEEE 802.3 Annex 31B pause quanta, cable round "
    "trip, frames on both ends; or sonic-swss cfgmgr/buffer_headroom_*.lua in SONiC mode). More than xoff means the model's inputs are wrong for this link (cable, PHY delay, peer "
    "response), and the lossless guarantee rests on the rest of the profile's size.",
    fix="measure the link (cable length, gearbox/retimer delay: intent phy_delay) and recompile; "
    "until then raise the port's headroom",
    counters=(Counter.PG_HEADROOM_WATERMARK_BYTES,),
)
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
        yield ctx.finding(headroom_exceeded.rule, key, f"pg {key.index} ({cls.name})",
                          f"headroom watermark {series.peak:,} B above the predicted xoff {headroom.xoff.value:,.0f} B "
                          f"({series.peak / headroom.xoff.value:.0%}) of profile {headroom.profile}",
                          {**_class_values(cls), **_observed(Counter.PG_HEADROOM_WATERMARK_BYTES, series.peak, series.last.path, series.last.timestamp_ns),
                           **headroom.xoff.values()})


def _lossless_priority(exp: SwitchExpectation, priority: int) -> ClassExpectation | None:
    """The lossless class paused on ``priority``: qosforge plans PFC priority = traffic class
    (report.json classes traffic_class/priority_group; MAP_PFC_PRIORITY_TO_QUEUE identity)."""
    return next((c for c in exp.classes if c.lossless and c.priority_group == priority), None)


@watch_rule(
    "watch-pfc-pause", Severity.WARNING, "a priority spent more time paused than the threshold",
    rationale="PFC pause duration (SAI_PORT_STAT_PFC_n_RX_PAUSE_DURATION_US, collected by SONiC's PFC "
    "watchdog on Mellanox and VS platforms, sonic-swss orchagent/orchdaemon.cpp) grew by more than "
    "--max-pause of the time watched: the port's egress on that priority sat idle that long, and "
    "so did everything queued behind it upstream (head-of-line blocking, Zhu et al., DCQCN "
    "SIGCOMM 2015 §2). Needs two samples (streaming); --once cannot tell a rate.",
    fix="find the congested receiver behind the port (qosforge simulate the same incast); the DCQCN/"
    "DCTCP marking thresholds should keep queues below XOFF most of the time",
    counters=(Counter.PFC_RX_PAUSE_US,),
)
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
        yield ctx.finding(pfc_pause.rule, key, f"priority {key.index}" + (f" ({cls.name})" if cls else ""),
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


@watch_rule(
    "watch-pfc-storm", Severity.ERROR, "a priority was paused without end (PFC storm)",
    rationale="A priority whose pause time grows as fast as wall time across consecutive samples for longer "
    "than the PFC watchdog's detection time is in a pause storm: a receiver that stopped draining "
    "(a stalled NIC) keeps its peer paused, and the pause spreads hop by hop (Guo et al., RDMA over "
    "Commodity Ethernet at Scale, SIGCOMM 2016 §4.3). The predicted limit is the compiled watchdog "
    "detection time (PFC_WD).",
    fix="find the host or port sending the pauses (pfcstat on the peer); the PFC watchdog should "
    "isolate the queue (check PFC_WD and FLEX_COUNTER_TABLE|PFCWD)",
    counters=(Counter.PFC_RX_PAUSE_US,),
)
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
        yield ctx.finding(pfc_storm.rule, key, f"priority {key.index}" + (f" ({cls.name})" if cls else ""),
                          f"priority {key.index} paused without a break for {paused_s * 1e3:,.0f} ms, longer than the "
                          f"watchdog's detection time {limit.value:,.0f} ms",
                          {**_class_values(cls), **_observed(Counter.PFC_RX_PAUSE_US, paused_s * 1e3, series.last.path, series.last.timestamp_ns),
                           "observed_unit": "ms", **limit.values()})


@watch_rule(
    "watch-pfcwd-triggered", Severity.ERROR, "the PFC watchdog detected a storm",
    rationale="The PFC watchdog (sonic-swss orchagent/pfcwdorch.cpp) found a lossless queue paused for its "
    "whole detection time and acted on it (drop, forward or alert): "
    "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED grew, or PFC_WD_STATUS is 'stormed'. The design "
    "predicts no storm: lossless queues drain within the headroom's reaction time.",
    fix="find the stalled receiver behind the port; pfcwd show stats lists the stormed queues",
    counters=(Counter.PFCWD_DEADLOCK_DETECTED, Counter.PFCWD_STATUS),
)
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
        yield ctx.finding(pfcwd_triggered.rule, key, f"queue {key.index}" + (f" ({cls.name})" if cls else ""),
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


@watch_rule(
    "watch-ecn-off", Severity.ERROR, "a marking class's queue passed K but nothing was ECN-marked",
    rationale="A class whose transport needs ECN (DCTCP, D2TCP, EAR, TBTCP, DCQCN) has a WRED profile that "
    "marks above K. When its queue watermark went far enough above K that marks were certain "
    "(step marking: any packet above K is marked, DCTCP §3.1; RED: expected marks of the packets "
    "that raised the queue from K_min to the watermark, each at least a 9216 B jumbo frame, above "
    "ln(10^6), so zero marks has probability below 10^-6) while the ECN-marked counter "
    "(SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS; openconfig-qos ecn-marked-pkts) stayed 0, the "
    "profile does not mark: WRED_PROFILE ecn (ecn_green) or wred_green_enable unset, or the queue "
    "has no WRED profile. Senders then see no congestion signal and the queue fills to drops or "
    "PFC. (Traffic that is not ECN-capable is not marked either; check the hosts first if only one "
    "flow runs.)",
    fix="compare QUEUE|…|wred_profile and WRED_PROFILE with the compiled config (qosforge diff)",
    counters=(Counter.QUEUE_WATERMARK_BYTES, Counter.QUEUE_ECN_MARKED_PACKETS),
    all_needed=True,  # the watermark and the marks
)
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
        yield ctx.finding(ecn_off.rule, key, f"queue {key.index} ({cls.name})",
                          f"queue {key.index} of marking class {cls.name} ({cls.transport}) reached {peak:,} B, "
                          f"above K {curve.min.value:,.0f} B, with 0 packets ECN-marked (expected at least {expected:,.1f})",
                          {**_class_values(cls), **_observed(Counter.QUEUE_WATERMARK_BYTES, peak, series.last.path, series.last.timestamp_ns),
                           **curve.min.values(), "ecn_marked_packets": 0, "expected_marks_at_least": round(expected, 3)})


@watch_rule(
    "watch-tlt-threshold", Severity.WARNING, "a TLT queue rose above its color threshold",
    rationale="TLT drops unimportant (red/yellow) packets above the color-aware threshold K (TLT §4.2), so "
    "only important (green) packets, at most one per flow in flight, may take the queue above K. "
    "A watermark more than one jumbo frame above K means either the color drop is not programmed "
    "(no red/yellow WRED drop thresholds, DSCP_TO_COLOR missing) or many flows hold an important "
    "packet at once; the finding gives the excess in 1500 B packets to tell the two apart.",
    fix="check the WRED_PROFILE yellow/red thresholds and the DSCP-to-color map against the compiled config",
    counters=(Counter.QUEUE_WATERMARK_BYTES,),
)
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
        yield ctx.finding(tlt_threshold.rule, key, f"queue {key.index} ({cls.name})",
                          f"queue {key.index} of TLT class {cls.name} reached {series.peak:,} B, {excess:,.0f} B above its color "
                          f"threshold K {k.value:,.0f} B (= {excess / TLT_PACKET_BYTES:,.0f} important packets of {TLT_PACKET_BYTES} B)",
                          {**_class_values(cls), **_observed(Counter.QUEUE_WATERMARK_BYTES, series.peak, series.last.path, series.last.timestamp_ns),
                           **k.values()})


@watch_rule(
    "watch-unplanned-queue", Severity.WARNING, "traffic on a queue the design gave no class",
    rationale="The compiler maps every class's DSCPs to one traffic class and queue (report.json classes, "
    "control_classes; SONiC's DSCP_TO_TC_MAP and TC_TO_QUEUE_MAP). Packets transmitted from a queue no class was given "
    "(SAI_QUEUE_STAT_PACKETS; openconfig-qos transmit-pkts) mean some DSCP lands where the design "
    "did not put it: a DSCP_TO_TC_MAP or classifier entry mapped to the wrong traffic class, or "
    "traffic with DSCPs the intent does not list (default class). Counters cannot tell which DSCP "
    "it is; a DSCP moved onto another class's queue looks like that class's traffic and is not "
    "found by this rule.",
    fix="compare DSCP_TO_TC_MAP / TC_TO_QUEUE_MAP (or the openconfig classifier) with the compiled config",
    counters=(Counter.QUEUE_TRANSMIT_PACKETS,),
)
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
        yield ctx.finding(unplanned_queue.rule, key, f"queue {key.index}",
                          f"queue {key.index} transmitted {packets:,} packets but the design gives it no class ({plan})",
                          {**_observed(Counter.QUEUE_TRANSMIT_PACKETS, packets, series.last.path, series.last.timestamp_ns),
                           **_zero(f"the compiled DSCP -> TC -> queue maps ({exp.report}: classes, control_classes)", "unplanned_packets").values()})


#: Reported once per switch by :func:`evaluate` for each counter a relevant check lacks.
COUNTER_UNAVAILABLE = declare(
    "watch-counter-unavailable", Severity.INFO, "telemetry", "the switch does not publish a counter a rule needs",
    rationale="A rule needs a counter the target did not publish on any path of the catalogue "
    "(docs/telemetry.md): not in its models, or its SONiC flex-counter group disabled. It is "
    "reported once per switch and the rules that need it do not run there; watch never derives a "
    "missing counter from another one.",
    fix="enable the flex-counter group named in the message (compile emits FLEX_COUNTER_TABLE for "
    "the sonic target), or accept that the check does not run on this device",
    needs=_NEEDS,
)


def _relevant(check: WatchCheck, exp: SwitchExpectation) -> bool:
    """Whether the design gives the check anything to check on this switch."""
    lossless = any(c.lossless for c in exp.classes)
    if check in (lossless_pg_drop, lossless_queue_drop, headroom_exceeded, pfc_pause, pfc_storm, pfcwd_triggered):
        return lossless
    if check is ecn_off:
        return any(c.marking is not None for c in exp.classes)
    if check is tlt_threshold:
        return any(c.tlt_threshold is not None for c in exp.classes)
    return True


def unavailable(expectation: SwitchExpectation, observation: Observation) -> dict[Counter, list[str]]:
    """Counter -> the rules that cannot run on this switch because it does not publish it."""
    missing: dict[Counter, list[str]] = {}
    for check in CHECKS:
        if not _relevant(check, expectation):
            continue
        absent = [c for c in check.counters if not observation.available(c)]
        if (check.all_needed and absent) or len(absent) == len(check.counters):
            for counter in absent:
                missing.setdefault(counter, []).append(check.rule.id)
    return missing


def evaluate(expectation: SwitchExpectation, observation: Observation, thresholds: Thresholds,
             disabled: frozenset[str] = frozenset(), where: Callable[[Counter], str] | None = None) -> list[Finding]:
    """Every finding for one switch; ``where`` says where a missing counter would be published
    (for the unavailable-counter message)."""
    ctx = WatchContext(expectation, observation, thresholds)
    missing = unavailable(expectation, observation)
    findings: list[Finding] = []
    for check in CHECKS:
        if check.rule.id in disabled or not _relevant(check, expectation):
            continue
        if any(check.rule.id in missing.get(c, ()) for c in check.counters):
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


#: Every watch rule, in registry order.
RULES: tuple[Rule, ...] = (*(check.rule for check in CHECKS), COUNTER_UNAVAILABLE)

__all__ = ["CHECKS", "COUNTER_UNAVAILABLE", "MAX_FRAME_BYTES", "RULES", "Thresholds", "WatchCheck", "WatchContext", "evaluate",
           "expected_marks", "unavailable", "watch_rule"]
