"""Transport rules (need ``--intent``): does each class's queue suit the transport it carries?

The intent says which DSCPs run which transport, the RTT and the design point (docs/architecture.md §2);
the config's own maps say where those DSCPs land (DSCP→TC→queue per port, sonic-yang-models sonic-dscp-tc-map.yang,
sonic-tc-queue-map.yang) and which
WRED profile the queue has. Every expected value comes from the models the compiler uses:

* DCTCP / D2TCP / EAR: :func:`~qosforge.models.dctcp.dctcp_marking_threshold` (K > C·RTT/7 and
  at least the LSO burst, DCTCP §3.4) and step marking (min = max, 100 %, DCTCP §3.1);
* DCQCN: :func:`~qosforge.models.dcqcn.dcqcn_marking` (K_min, K_max, P_max scaled with the link
  speed, or the intent's overrides);
* TBTCP: :func:`~qosforge.fitting.tbtcp_red.fit_tbtcp_red` gives the best programmable P_max at
  the configured t_min/t_max on the ASIC's RED steps; the configured curve's error is the same
  TBTCP §6.2 integral ∫(p(Q)/r − f(Q))² dQ, evaluated with the fitter's quadrature;
* TLT: :func:`~qosforge.models.tlt.tlt_min_threshold` (K vs BDP / K_max, TLT §4.2) and
  :func:`~qosforge.models.tlt.tlt_headroom` (flows without important loss at the design M).

Without a TC_TO_QUEUE_MAP on a port, TC n is taken to use queue n, SONiC's default AZURE map
(sonic-buildimage src/sonic-yang-models/yang-models/sonic-tc-queue-map.yang).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qosforge.errors import QosforgeError
from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.rules.base import declare, rule
from qosforge.lint.rules.capacity import queue_limit, skipped
from qosforge.lint.rules.helpers import ports_text, rate_text, size_text

if TYPE_CHECKING:  # NumPy, the fitter and the models load when an --intent rule first runs
    from qosforge.backends.sonic.parse import PortConfig, QueueConfig
    from qosforge.compiler.intent import ClassSpec
    from qosforge.fitting.red_model import RedStepModel
    from qosforge.fitting.tbtcp_red import TbtcpRedFit
    from qosforge.ir import ColorCurveIR, WredIR
    from qosforge.lint.intent import IntentClass
    from qosforge.transports.dcqcn import DcqcnSpec



def _checked_model(transport_name: str) -> str | None:
    """The marking model lint checks a transport's queue against (its TransportSpec's
    marking_model, transports/): dctcp-step (DCTCP, and D2TCP §3.1 and EAR §4.2, which reuse
    DCTCP's switch), dcqcn-red, tbtcp-red-fit; None: lint expects no marking."""
    from qosforge.transports import transport

    model = transport(transport_name).marking_model
    return model.name if model is not None else None


#: Relative slack when comparing two evaluations of the same fit error (floating-point noise).
_FIT_TOLERANCE = 1e-9

E, W = Severity.ERROR, Severity.WARNING


@dataclass(frozen=True)
class Placement:
    """Where one intent class lands on one port."""

    klass: IntentClass
    port: PortConfig
    queues: tuple[int, ...]


@dataclass(frozen=True)
class Group:
    """Ports on which a class uses the same queue, WRED profile and speed: checked once."""

    klass: IntentClass
    queue: QueueConfig
    wred: WredIR | None
    rate_bps: float
    ports: tuple[str, ...]


def _rate(ctx: LintContext, port: PortConfig) -> float | None:
    if port.speed_bps is not None:
        return port.speed_bps
    assert ctx.intent is not None
    return ctx.intent.port_speeds_bps.get(port.name)


def placements(ctx: LintContext) -> list[Placement]:
    cached = ctx.memo.get("placements")
    if cached is not None:
        result: list[Placement] = cached
        return result
    assert ctx.intent is not None
    found: list[Placement] = []
    for port in ctx.parsed.ports:
        if not port.maps.dscp_to_tc:
            continue  # nothing classifies traffic on this port (lossless-chain / missing maps say so)
        dscp_to_tc = dict(port.maps.dscp_to_tc)
        tc_to_queue = dict(port.maps.tc_to_queue) if port.map_names.tc_to_queue else None
        for klass in ctx.intent.classes:
            queues = set()
            for dscp in klass.dscps:
                tc = dscp_to_tc.get(dscp)
                if tc is None:
                    continue
                queue = tc if tc_to_queue is None else tc_to_queue.get(tc)
                if queue is not None:
                    queues.add(queue)
            found.append(Placement(klass, port, tuple(sorted(queues))))
    ctx.memo["placements"] = found
    return found


def groups(ctx: LintContext) -> list[Group]:
    from qosforge.backends.sonic.parse import QueueConfig

    cached = ctx.memo.get("groups")
    if cached is not None:
        result: list[Group] = cached
        return result
    grouped: dict[tuple[str, int, str | None, float], list[str]] = defaultdict(list)
    keys: dict[tuple[str, int, str | None, float], tuple[IntentClass, QueueConfig]] = {}
    for placement in placements(ctx):
        if len(placement.queues) != 1:
            continue
        queue = placement.port.queue(placement.queues[0]) or QueueConfig(placement.queues[0], None, None, None, False)
        rate = _rate(ctx, placement.port)
        if rate is None:
            continue
        key = (placement.klass.name, queue.index, queue.wred_profile, rate)
        grouped[key].append(placement.port.name)
        keys.setdefault(key, (placement.klass, queue))
    result = [Group(keys[k][0], keys[k][1], ctx.parsed.wred(k[2]), k[3], tuple(v)) for k, v in grouped.items()]
    ctx.memo["groups"] = result
    return result


def _green_marking(wred: WredIR | None) -> ColorCurveIR | None:
    # config_db has no DSCP->color map: all traffic is green (sonic-swss orchagent/qosorch.cpp).
    curve = wred.curve("green") if wred is not None else None
    return curve if curve is not None and curve.mark else None


def _queue_key(group: Group) -> str:
    return f"{group.ports[0]}|{group.queue.index}"


# ---------------------------------------------------------------------------------------------
# Class placement


@rule(
    "intent-port-speed", E, "transport", "ports run at the intent's speeds",
    rationale="The transport rules, PFC headroom and every threshold qosforge derives depend on each port's speed "
         "(DCTCP §3.4, DCQCN §5, IEEE 802.3 Annex 31B). A config whose ports run at other speeds than the "
         "intent's was compiled for another fabric, or the intent is out of date; its numbers cannot be "
         "checked against this intent.",
    fix="lint against the intent the config was compiled from, or fix the speeds (intent or PORT table) and compile again",
    needs="intent",
)
def _port_speed(ctx: LintContext) -> Iterator[Finding]:
    """Every threshold the transport rules check was derived for the intent's port speeds; a config
    whose ports run at other speeds was compiled for another fabric (or the intent is stale)."""
    assert ctx.intent is not None
    wrong: dict[tuple[float, float, str], list[str]] = defaultdict(list)
    for port in ctx.parsed.ports:
        intended = ctx.intent.port_speeds_bps.get(port.name)
        if port.speed_bps is not None and intended is not None and port.speed_bps != intended:
            wrong[(port.speed_bps, intended, port.speed_source or "the config")].append(port.name)
    for (configured, intended, source), ports in sorted(wrong.items()):
        yield _port_speed.report(ctx, "PORT", ports[0], "speed",
            f"{ports_text(ports)} run at {configured / 1e9:g}G in this config ({source}) but at {intended / 1e9:g}G in the "
            "intent: headroom, ECN and WRED thresholds were sized for another speed",
            values={"configured_gbps": configured / 1e9, "intent_gbps": intended / 1e9, "ports": len(ports)})


@rule(
    "class-dscp-split", E, "transport", "a class's DSCPs land in one queue",
    rationale="Each intent class is one transport in one queue (docs/architecture.md §2, §5 maps); if its DSCPs reach "
         "several queues, its packets are reordered and each queue's thresholds fit only part of it.",
    fix="map all the class's DSCPs to one TC, and that TC to one queue",
    needs="intent",
)
def _split(ctx: LintContext) -> Iterator[Finding]:
    split: dict[str, list[Placement]] = defaultdict(list)
    for placement in placements(ctx):
        if len(placement.queues) > 1:
            split[placement.klass.name].append(placement)
    for name, cases in sorted(split.items()):
        first = cases[0]
        yield _split.report(ctx, "DSCP_TO_TC_MAP", first.port.map_names.dscp_to_tc or "", None,
            f"class {name} (DSCP {list(first.klass.dscps)}) reaches queues {list(first.queues)} on "
            f"{ports_text(c.port.name for c in cases)}: one transport's packets are split over queues "
            "(reordering, and per-queue thresholds no longer match the transport)",
            values={"queues": len(first.queues)})


@rule(
    "class-queue-shared", W, "transport", "classes do not share a queue",
    rationale="Classes with different transports in one queue get one set of WRED/ECN thresholds, which cannot "
         "suit both (DCTCP's K vs DCQCN's K_min/K_max vs TBTCP's fitted curve, docs/architecture.md §3).",
    fix="give each class its own TC and queue",
    needs="intent",
)
def _shared(ctx: LintContext) -> Iterator[Finding]:
    by_queue: dict[tuple[str, int], set[str]] = defaultdict(set)
    for placement in placements(ctx):
        for queue in placement.queues:
            by_queue[(placement.port.name, queue)].add(placement.klass.name)
    shared: dict[tuple[tuple[str, ...], int], list[str]] = defaultdict(list)
    for (port, queue), names in by_queue.items():
        if len(names) > 1:
            shared[(tuple(sorted(names)), queue)].append(port)
    for (classes, queue), ports in sorted(shared.items()):
        yield _shared.report(ctx, "TC_TO_QUEUE_MAP", "", None,
            f"classes {', '.join(classes)} share queue {queue} on {ports_text(ports)}: their transports get one "
            "set of thresholds", values={"queue": queue})


@rule(
    "class-lossless-mismatch", E, "transport", "lossless classes, and only they, are PFC-paused",
    rationale="A lossless class (DCQCN needs one, DCQCN §2) must sit in a queue an enabled PFC priority pauses "
         "(sonic-yang-models sonic-port-qos-map.yang pfc_enable, pfc_to_queue_map); a lossy class in a paused queue spreads head-of-line blocking and PFC storms.",
    fix="enable PFC for the lossless class's priority, and only for it",
    needs="intent",
)
def _lossless(ctx: LintContext) -> Iterator[Finding]:
    wrong: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for placement in placements(ctx):
        if len(placement.queues) != 1:
            continue
        queue = placement.port.queue(placement.queues[0])
        paused = queue is not None and queue.lossless
        if paused != placement.klass.spec.lossless:
            wrong[(placement.klass.name, placement.klass.spec.lossless)].append(placement.port.name)
    for (name, lossless), ports in sorted(wrong.items()):
        text = ("is lossless in the intent but no enabled PFC priority pauses its queue" if lossless else
                "is lossy in the intent but its queue is paused by PFC (head-of-line blocking, PFC storms)")
        yield _lossless.report(ctx, "PORT_QOS_MAP", ports[0], "pfc_enable",
            f"class {name} {text} on {ports_text(ports)}", values={"ports": len(ports)})


# ---------------------------------------------------------------------------------------------
# ECN marking per transport


@rule(
    "ecn-missing", E, "transport", "ECN transports get ECN marking",
    rationale="DCTCP, D2TCP, EAR, DCQCN and TBTCP react to ECN marks (docs/architecture.md §3). SONiC marks with the WRED "
         "profile of the queue (ecn field) and all traffic is green (sonic-yang-models sonic-wred-profile.yang; no DSCP_TO_COLOR table in sonic-swss orchagent/qosorch.cpp), so the queue needs a WRED "
         "profile whose ecn includes green.",
    fix="bind a WRED profile with ecn: ecn_green (or ecn_all) and the transport's thresholds",
    needs="intent",
)
def _ecn_missing(ctx: LintContext) -> Iterator[Finding]:
    missing: dict[str, list[Group]] = defaultdict(list)
    for group in groups(ctx):
        if _checked_model(group.klass.spec.transport) is not None and _green_marking(group.wred) is None:
            missing[group.klass.name].append(group)
    for name, cases in sorted(missing.items()):
        first = cases[0]
        why = ("no WRED profile" if first.wred is None else
               f"WRED profile {first.wred.name} does not ECN-mark green (ecn must include green)")
        yield _ecn_missing.report(ctx, "QUEUE", _queue_key(first), "wred_profile",
            f"class {name} runs {first.klass.spec.transport}, which reacts to ECN marks, but queue "
            f"{first.queue.index} has {why} on {ports_text(p for c in cases for p in c.ports)}: the transport "
            "only sees losses", values={"queue": first.queue.index})


def _dctcp_k_bytes(ctx: LintContext, group: Group) -> float:
    from qosforge.models.dctcp import dctcp_marking_threshold

    assert ctx.intent is not None
    design = ctx.intent.design

    def compute() -> float:
        return float(dctcp_marking_threshold(group.rate_bps, group.klass.rtt_s, design.mtu,
                                             design.lso_burst).threshold_bytes)

    return ctx.cache.get(("dctcp", group.rate_bps, group.klass.rtt_s, design.mtu, design.lso_burst), compute)


@rule(
    "dctcp-k", W, "transport", "DCTCP's K is large enough, and a step",
    rationale="DCTCP needs K > C·RTT/7 for full throughput (DCTCP §3.4 eq. 13) and at least the NIC's LSO burst "
         "(DCTCP §3.5); it assumes marking every packet above K (DCTCP §3.1: min = max, 100 %). D2TCP and EAR reuse it "
         "(D2TCP §3.1, EAR §4.2). Computed by models/dctcp.py.",
    fix="set green_min_threshold = green_max_threshold = the K the message gives, probability 100",
    needs="intent",
)
def _dctcp_k(ctx: LintContext) -> Iterator[Finding]:
    assert ctx.intent is not None
    design = ctx.intent.design
    for group in groups(ctx):
        curve = _green_marking(group.wred)
        if _checked_model(group.klass.spec.transport) != "dctcp-step" or curve is None or group.wred is None:
            continue
        needed = _dctcp_k_bytes(ctx, group)
        k = curve.min_bytes.value
        where = f"class {group.klass.name} at {rate_text(group.rate_bps)} on {ports_text(group.ports)}"
        if k < needed:
            yield _dctcp_k.report(ctx, "WRED_PROFILE", group.wred.name, "green_min_threshold",
                f"K = {size_text(k)} < {size_text(needed)} = max(C·RTT/7 + 1 packet, LSO burst) for {where} "
                f"(RTT {group.klass.rtt_s * 1e6:g} us, {design.mtu:g} B packets, LSO {size_text(design.lso_burst)}): "
                "the queue drains empty after each window cut and the link loses throughput (DCTCP §3.4)",
                values={"configured_bytes": k, "required_bytes": needed, "rate_bps": group.rate_bps})
        if curve.max_bytes.value != k or curve.probability_percent.value < 100:
            yield _dctcp_k.report(ctx, "WRED_PROFILE", group.wred.name, "green_max_threshold",
                f"{group.klass.spec.transport} needs step marking (min = max = K, 100 %) but {group.wred.name} "
                f"marks from {size_text(k)} to {size_text(curve.max_bytes.value)} at "
                f"{curve.probability_percent.value:g} % for {where} (DCTCP §3.1)",
                values={"min_bytes": k, "max_bytes": curve.max_bytes.value,
                        "probability_percent": curve.probability_percent.value})


def _dcqcn_block(spec: ClassSpec) -> DcqcnSpec | None:
    from qosforge.transports.dcqcn import DcqcnSpec

    block = spec.parameters()
    return block if isinstance(block, DcqcnSpec) else None


def _whole(value: float) -> int:
    """The renderer's rounding of bytes to config_db integers (backends/sonic/render.py)."""
    import numpy as np

    return int(np.floor(value + 0.5))


@rule(
    "dcqcn-marking", W, "transport", "DCQCN marking as the model derives it",
    rationale="DCQCN marks with RED between K_min and K_max up to P_max (DCQCN §5); defaults (5 kB, 200 kB, 1 % at "
         "40G) scale with link speed unless the intent overrides them (models/dcqcn.py). A different curve "
         "changes DCQCN's rate control from what the design assumed.",
    fix="set green_min/max_threshold and green_drop_probability to the values the message gives, or put "
         "your values in the intent's dcqcn block",
    needs="intent",
)
def _dcqcn(ctx: LintContext) -> Iterator[Finding]:
    from qosforge.models.dcqcn import dcqcn_marking

    for group in groups(ctx):
        curve = _green_marking(group.wred)
        spec = group.klass.spec
        if _checked_model(spec.transport) != "dcqcn-red" or curve is None or group.wred is None:
            continue
        overrides = _dcqcn_block(spec)
        try:
            model = dcqcn_marking(group.rate_bps, overrides.kmin if overrides else None,
                                  overrides.kmax if overrides else None, overrides.pmax if overrides else None)
        except QosforgeError as error:
            yield skipped(ctx, f"DCQCN marking of class {spec.name}", error.one_line())
            continue
        expected = (_whole(float(model.kmin_bytes)), _whole(float(model.kmax_bytes)),
                    round(float(model.pmax_percent)))
        configured = (round(curve.min_bytes.value), round(curve.max_bytes.value),
                      round(curve.probability_percent.value))
        if configured != expected:
            source = "the intent's dcqcn block" if overrides else "DCQCN defaults scaled to the link speed"
            yield _dcqcn.report(ctx, "WRED_PROFILE", group.wred.name, None,
                f"class {spec.name} at {rate_text(group.rate_bps)} on {ports_text(group.ports)} marks K_min "
                f"{size_text(configured[0])}, K_max {size_text(configured[1])}, P_max {configured[2]} %; "
                f"{source} give K_min {size_text(expected[0])}, K_max {size_text(expected[1])}, P_max "
                f"{expected[2]} %", values={"kmin_bytes": configured[0], "kmax_bytes": configured[1],
                                            "pmax_percent": configured[2], "expected_kmin_bytes": expected[0],
                                            "expected_kmax_bytes": expected[1], "expected_pmax_percent": expected[2]})


def configured_error_kilobytes(bdp_bytes: float, t_min_bytes: float, t_max_bytes: float, p_max: float,
                               window_reduction_r: float, model: RedStepModel) -> float:
    """TBTCP §6.2's fit error ∫_{t_min}^{t_max} (p(Q)/r − f(Q))² dQ of a *configured* step
    curve f (step i = P_max·(i + c)/steps), on the fitter's own target and quadrature."""
    import numpy as np

    from qosforge.fitting.least_squares import BYTES_PER_KB
    from qosforge.fitting.quadrature import sample_intervals
    from qosforge.fitting.targets import tbtcp_target

    target = tbtcp_target(bdp_bytes, t_min_bytes)
    edges = np.linspace(t_min_bytes, t_max_bytes, model.steps + 1).reshape(1, -1)
    sampled = sample_intervals(target, edges, slice(0, 1))
    steps = p_max * model.step_fractions()
    residual = sampled.values / window_reduction_r - steps[None, :, None]
    return float(np.einsum("skn,skn,skn->", sampled.weights, residual, residual)) / BYTES_PER_KB


def _red_model(ctx: LintContext) -> RedStepModel:
    from qosforge.fitting.red_model import red_model_from_profile

    profile = ctx.profile
    assert profile is not None
    return ctx.cache.get(("red", profile.name), lambda: red_model_from_profile(profile))


def _best_fit(ctx: LintContext, bdp: float, t_min: float, t_max: float, r: float, red: RedStepModel) -> TbtcpRedFit:
    from qosforge.fitting.tbtcp_red import fit_tbtcp_red

    return ctx.cache.get(("tbtcp", bdp, t_min, t_max, r, red), lambda: fit_tbtcp_red(bdp, t_min, t_max, r, model=red))


@rule(
    "tbtcp-red-fit", W, "transport", "TBTCP's RED curve is the best programmable fit",
    rationale="TBTCP approximates its ideal marking curve p(Q)/r with the chip's step RED by least squares over "
         "[t_min, t_max] (TBTCP §6.2); any other P_max on the same steps fits worse. t_min = l must cover "
         "the LSO burst (TBTCP §6.2). The best fit comes from fitting/tbtcp_red.py with the vendor profile's RED "
         "steps.",
    fix="set green_drop_probability to the best P_max the message gives (qosforge fit red)",
    needs="intent",
)
def _tbtcp(ctx: LintContext) -> Iterator[Finding]:
    from qosforge.transports.tbtcp import TbtcpSpec

    assert ctx.intent is not None and ctx.profile is not None
    for group in groups(ctx):
        curve = _green_marking(group.wred)
        spec = group.klass.spec
        if _checked_model(spec.transport) != "tbtcp-red-fit" or curve is None or group.wred is None:
            continue
        block = spec.parameters()
        tbtcp = block if isinstance(block, TbtcpSpec) else None
        r = float(tbtcp.r) if tbtcp is not None else 4.0
        lso = tbtcp.lso_burst if tbtcp is not None and tbtcp.lso_burst is not None else ctx.intent.design.lso_burst
        bdp = group.rate_bps * group.klass.rtt_s / 8.0
        t_min, t_max, p_max = curve.min_bytes.value, curve.max_bytes.value, curve.probability_percent.value / 100
        where = f"class {spec.name} at {rate_text(group.rate_bps)} on {ports_text(group.ports)}"
        if t_min < lso:
            yield _tbtcp.report(ctx, "WRED_PROFILE", group.wred.name, "green_min_threshold",
                f"t_min = l = {size_text(t_min)} is below the LSO burst {size_text(lso)} for {where}: bursts "
                "trigger QCD window cuts (TBTCP §6.2)", values={"t_min_bytes": t_min, "lso_burst_bytes": lso})
        if not 0 < t_min < t_max:
            continue
        try:
            red = _red_model(ctx)
            best = _best_fit(ctx, bdp, t_min, t_max, r, red)
            configured = configured_error_kilobytes(bdp, t_min, t_max, p_max, r, red)
        except QosforgeError as error:
            yield skipped(ctx, f"the TBTCP RED fit of class {spec.name}", error.one_line())
            continue
        best_error = float(best.error_kilobytes)
        if configured > best_error * (1 + _FIT_TOLERANCE) + 1e-12:
            yield _tbtcp.report(ctx, "WRED_PROFILE", group.wred.name, "green_drop_probability",
                f"P_max {p_max * 100:g} % gives fit error {configured:.4g} kB against TBTCP's curve p(Q)/{r:g} "
                f"(BDP {size_text(bdp)}, t_min {size_text(t_min)}, t_max {size_text(t_max)}) for {where}; the best "
                f"programmable P_max on {red.name} is {float(best.p_max) * 100:g} % with error "
                f"{best_error:.4g} kB (TBTCP §6.2)",
                values={"configured_error_kb": configured, "best_error_kb": best_error,
                        "configured_pmax_percent": p_max * 100, "best_pmax_percent": float(best.p_max) * 100})


# ---------------------------------------------------------------------------------------------
# TLT


def _tlt_curve(wred: WredIR | None) -> ColorCurveIR | None:
    """TLT's color-aware threshold in config_db: a red curve that drops (TLT §4.2)."""
    curve = wred.curve("red") if wred is not None else None
    return curve if curve is not None and curve.drop else None


def _tlt_minimum(ctx: LintContext, group: Group) -> float:
    from qosforge.models.dcqcn import dcqcn_marking
    from qosforge.models.dctcp import dctcp_marking_threshold
    from qosforge.models.tlt import tlt_min_threshold

    assert ctx.intent is not None
    spec, design = group.klass.spec, ctx.intent.design
    ecn = kmax = None
    if _checked_model(spec.transport) == "dctcp-step":
        ecn = float(dctcp_marking_threshold(group.rate_bps, group.klass.rtt_s, design.mtu,
                                            design.lso_burst).threshold_bytes)
    elif _checked_model(spec.transport) == "dcqcn-red":
        overrides = _dcqcn_block(spec)
        kmax = float(dcqcn_marking(group.rate_bps, overrides.kmin if overrides else None,
                                   overrides.kmax if overrides else None,
                                   overrides.pmax if overrides else None).kmax_bytes)
    from qosforge.transports import transport

    return float(tlt_min_threshold(spec.transport, group.rate_bps, group.klass.rtt_s, ecn_threshold_bytes=ecn,
                                   kmax_bytes=kmax, steady_queue=transport(spec.transport).tlt).threshold_bytes)


def _tlt_not_expressed(ctx: LintContext, group: Group, where: str) -> Finding:
    """TLT's color-aware drop is missing: what is not expressed, why, and what to do."""
    queue = group.queue.index
    missing = f"queue {queue} has no WRED profile" if group.wred is None else f"queue {queue}'s WRED profile has no red-color drop threshold"
    accepted = ctx.intent is not None and _TLT_APPROXIMATION in ctx.intent.approximations
    if accepted:  # the intent already says so: inform, and do not ask for what it has done
        hint = ("the intent accepts this (approximations: [tlt-without-color]); for exact TLT compile with --target sai "
                "for an ASIC with ECT thresholds")
    else:
        hint = ("if that is intended, accept it in the intent (approximations: [tlt-without-color]); for exact TLT "
                "compile with --target sai for an ASIC with ECT thresholds; or remove the class's tlt block")
    return TLT_NOT_EXPRESSED.report(ctx, "QUEUE", _queue_key(group), "wred_profile",
        f"{where}: TLT is not expressed: {missing}, so unimportant packets are not dropped at K to keep room for important "
        "ones (SONiC config_db has no DSCP-to-color map to tell them apart): important ones can be lost (approximation "
        f"tlt-without-color{', accepted by the intent' if accepted else ''})", hint=hint)


_TLT_APPROXIMATION = "tlt-without-color"


@rule(
    "tlt-threshold", E, "transport", "TLT's threshold clears the transport's queue",
    rationale="TLT drops unimportant (red) packets at K; K must exceed the transport's steady-state queue: BDP for "
         "TCP/DCTCP, K_max for DCQCN (TLT §4.2; models/tlt.py).",
    fix="raise red_min/max_threshold to at least the value the message gives",
    needs="intent",
)
def _tlt(ctx: LintContext) -> Iterator[Finding]:
    from qosforge.compiler.dynamic_th import alpha_text, dynamic_th_range
    from qosforge.models.tlt import tlt_headroom

    assert ctx.intent is not None and ctx.profile is not None
    design = ctx.intent.design
    for group in groups(ctx):
        spec = group.klass.spec
        if spec.tlt is None:
            continue
        curve = _tlt_curve(group.wred)
        where = f"class {spec.name} at {rate_text(group.rate_bps)} on {ports_text(group.ports)}"
        if curve is None or group.wred is None:
            yield _tlt_not_expressed(ctx, group, where)
            continue
        k = curve.min_bytes.value
        try:
            minimum = _tlt_minimum(ctx, group)
        except QosforgeError as error:
            yield skipped(ctx, f"the TLT threshold of class {spec.name}", error.one_line())
            continue
        if k < minimum:
            yield _tlt.report(ctx, "WRED_PROFILE", group.wred.name, "red_min_threshold",
                f"TLT threshold K = {size_text(k)} < {size_text(minimum)}, the steady-state queue of "
                f"{spec.transport} (BDP or K_max, RTT {group.klass.rtt_s * 1e6:g} us) for {where}: unimportant "
                "packets are dropped in normal operation (TLT §4.2)",
                values={"configured_bytes": k, "required_bytes": minimum})
        profile = ctx.parsed.profile(group.queue.buffer_profile)
        if profile is None or profile.dynamic_th is None:
            continue
        limit = queue_limit(ctx, profile, design.congested_ports)
        pool = ctx.parsed.pool(profile.pool)
        if limit is None or pool is None or pool.size_bytes is None:
            continue
        shared = pool.size_bytes.value / int(ctx.profile.mmu_count.value or 1)
        # The alpha the ASIC applies (compiler/dynamic_th.py, the reading queue_limit used above):
        # Mellanox reads dynamic_th 7 as infinity and -8 as 0, not 2^n.
        exponent = int(profile.dynamic_th.value)
        accepted = dynamic_th_range(ctx.profile)
        alpha = accepted.alpha(exponent)
        alpha_shown = f"2^{exponent}" if exponent not in accepted.special else f"{alpha_text(alpha)}, dynamic_th {exponent}"
        if alpha == 0:  # no shared buffer at all: no headroom above K for important packets
            per_port = total = 0.0
        else:
            headroom = tlt_headroom(shared, alpha, design.congested_ports, k, design.mtu, allow_infeasible=True)
            per_port, total = float(headroom.flows_per_port), float(headroom.total_flows)
        wanted = design.concurrent_flows
        if per_port < 1 or (wanted is not None and total < wanted):
            need = f"the {wanted} the intent requires" if wanted is not None else "at least one per port"
            yield TLT_FLOWS.report(ctx, "WRED_PROFILE", group.wred.name, "red_min_threshold",
                f"with K = {size_text(k)}, {profile.name} (alpha {alpha_shown}) and "
                f"B = {size_text(shared)} at M = {design.congested_ports}, the buffer carries {total:.0f} flows "
                f"({per_port:.0f} per port) without important-packet loss for {where}, fewer than {need} "
                "(TLT §4.2: headroom alpha·B/(1+M·alpha) − K, one important packet per flow)",
                values={"flows": total, "flows_per_port": per_port,
                        **({"required_flows": wanted} if wanted is not None else {})})


TLT_FLOWS = declare(
    "tlt-flows", E, "transport", "the buffer carries the design's flows",
    rationale="Above K each congested port keeps alpha·B/(1+M·alpha) − K of headroom for important packets, one "
         "per flow, so it carries floor(headroom / packet) flows without important loss (TLT §4.2). The "
         "design needs at least one per port and, if given, design.concurrent_flows in total.",
    fix="lower K, raise dynamic_th (alpha) or the pool, or lower design.congested_ports",
    needs="intent",
)


TLT_NOT_EXPRESSED = declare(
    "tlt-not-expressed", Severity.INFO, "transport", "TLT classes without color-aware dropping",
    rationale="TLT keeps important packets by dropping unimportant (red) ones above a color-aware threshold K "
         "(TLT §4.2). SONiC config_db has no DSCP-to-color map (no such table in sonic-yang-models, none in "
         "sonic-swss orchagent/qosorch.cpp), so every packet is green and a TLT class compiled for SONiC has "
         "no red threshold: the named approximation tlt-without-color, without important-packet protection.",
    fix="compile with --target sai for exact TLT, accept the approximation (approximations: [tlt-without-color]), "
         "or remove the class's tlt block",
    needs="intent",
)


__all__ = ["configured_error_kilobytes", "groups", "placements"]
