"""Per-class marking and dropping thresholds from the transport models and the RED fitter.

For each class and port speed this picks the model docs/architecture.md §3 names for the transport, and
turns its result into IR color curves:

* DCTCP / D2TCP: step marking at K (min = max = K, 100 %), DCTCP §3.4; D2TCP's switch side is
  DCTCP's (D2TCP §3.1).
* EAR: the same switch-side K (EAR §4.2) plus the host RTT threshold T.
* DCQCN: RED marking K_min/K_max/P_max (DCQCN §5), speed-scaled defaults or the intent's values.
* TBTCP: the least-squares fitted step RED (TBTCP §6.2) with t_min = l and t_max chosen within
  the port's buffer share unless given.
* IRN: DCQCN's RED marking on a lossy class (IRN runs DCQCN's congestion control, IRN §4).
* TCP: no ECN marking at the switch (TCP reacts to loss), so no curve unless TLT adds one.
* HPCC is refused by the planner: it needs INT, not ECN thresholds (HPCC §3).
* An explicit ``ecn`` entry of the class at this speed (intent ``classes[].ecn``, e.g. a vendor's
  recommended profile) replaces the model's marking curve; the model's values are kept beside it
  (``model_marking``) with a warning where the two differ by more than :data:`ECN_DISAGREEMENT`.
* TLT (TLT §4.2): unimportant packets are red and tail-dropped at K (min = max = K, 100 %);
  their ECN marking moves to the ECT thresholds so the transport keeps its signal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from qosforge.compiler.defaults import DEFAULT_TBTCP_BETA, DEFAULT_TBTCP_R
from qosforge.compiler.intent import ClassSpec, Design, EcnSpec
from qosforge.errors import ModelInputError
from qosforge.fitting.red_model import RedStepModel, red_model_from_profile
from qosforge.fitting.tbtcp_red import TbtcpRedFit, fit_tbtcp_red
from qosforge.ir import ColorCurveIR, Derived, EctMarkingIR, derived_constant, derived_from
from qosforge.models.dcqcn import dcqcn_marking
from qosforge.models.dctcp import dctcp_marking_threshold
from qosforge.models.ear import ear_thresholds
from qosforge.models.tbtcp import tbtcp_steady_state
from qosforge.models.tlt import tlt_headroom, tlt_min_threshold
from qosforge.units import format_bytes, format_rate, format_time
from qosforge.vendor_profiles.schema import VendorProfile

SOURCE_STEP_MARKING = "DCTCP §3.1 (mark every packet above K: RED with min = max = K, P = 100%)"
SOURCE_TLT_COLOR_DROP = "TLT §4.2 (unimportant packets colored red, dropped at K; important packets green)"
#: EAR gives no formula for T, only T > K and one evaluated point (K = 65, T = 120 packets at
#: 10 Gbps, §4.2). qosforge's heuristic default keeps that T/K ratio at every speed; set
#: ``ear.rtt_threshold`` in the intent to override it.
EAR_T_OVER_K = 120.0 / 65.0
SOURCE_EXPLICIT_ECN = "operator-stated ECN marking (intent classes[].ecn), used instead of the transport model's"
#: A stated value more than this factor away from the model's recommendation is reported.
ECN_DISAGREEMENT = 2.0


def _ear_delay_threshold(delay_s: float, *, given: bool) -> Derived:
    """EAR's queueing-delay threshold T with its own derivation: the intent's value, or the default
    that keeps EAR's evaluated T/K ratio (K = 65, T = 120 packets, §4.2) at this speed."""
    if given:
        return derived_constant(delay_s, "s", quantity="delay_threshold_s", formula="T = intent ear.rtt_threshold",
                                source="EAR §4.2 (T is a free parameter; the paper evaluates T = 120 packets at 10 Gbps)")
    return derived_constant(delay_s, "s", quantity="delay_threshold_s", formula="T = (120/65) * K * 8 / rate",
                            source="EAR §4.2 (K = 65, T = 120 packets at 10 Gbps; qosforge keeps T/K at every speed, "
                                   "set ear.rtt_threshold to override)", model="ear_default_t")


@dataclass(frozen=True)
class ClassThresholds:
    marking: tuple[Derived, ...]
    curves: tuple[ColorCurveIR, ...]
    ect_marking: tuple[EctMarkingIR, ...]
    tlt_threshold_bytes: Derived | None
    tlt_flows: Derived | None
    host_settings: tuple[Derived, ...]
    model_marking: tuple[Derived, ...] = ()
    """The transport model's marking where an explicit ``ecn`` entry replaced it (else empty)."""
    warnings: tuple[str, ...] = ()
    """Where the explicit marking differs from the model's by more than ECN_DISAGREEMENT."""


def explicit_ecn(spec: ClassSpec, rate_bps: float) -> EcnSpec | None:
    """The class's explicit ECN entry for this port speed, if the intent states one."""
    return next((entry for entry in spec.ecn or () if abs(entry.speed - rate_bps) <= 1e-9 * rate_bps), None)


def _stated(entry: EcnSpec, spec: ClassSpec) -> tuple[Derived, Derived, Derived]:
    speed = format_rate(entry.speed)
    def given(value: float, unit: str, quantity: str, name: str) -> Derived:
        return derived_constant(value, unit, quantity=quantity, formula=f"intent classes[{spec.name}].ecn[{speed}].{name}",
                                source=SOURCE_EXPLICIT_ECN, model="explicit_ecn")
    return given(entry.min, "B", "kmin_bytes", "min"), given(entry.max, "B", "kmax_bytes", "max"), given(entry.pmax, "%", "pmax_percent", "pmax")


def _disagreements(spec: ClassSpec, rate_bps: float, stated: tuple[Derived, Derived, Derived],
                   model: tuple[Derived | None, Derived | None, Derived | None]) -> tuple[str, ...]:
    """One line per stated value more than ECN_DISAGREEMENT away from the model's (either way)."""
    warnings = []
    # A step model (DCTCP's K, DCTCP §3.1: min = max) marks every packet above K; its 100 % is the
    # step's height, not a ramp's maximum, so a vendor ramp's pmax (typically a few %) is not held
    # against it — only where the model itself is a ramp (DCQCN's K_min..K_max, P_max).
    step_model = model[0] is not None and model[1] is not None and model[0].value == model[1].value
    for name, given, recommended in zip(("min", "max", "pmax"), stated, model, strict=True):
        if recommended is None or recommended.value <= 0 or (name == "pmax" and step_model):
            continue
        ratio = given.value / recommended.value
        if ratio > ECN_DISAGREEMENT or ratio < 1.0 / ECN_DISAGREEMENT:
            origin = recommended.provenance.derivation_of(recommended.quantity)
            warnings.append(
                f"class '{spec.name}' at {format_rate(rate_bps)}: ecn {name} {_shown(given)} is {ratio:.2g}x the {spec.transport} model's "
                f"{_shown(recommended)} ({origin.source if origin else recommended.provenance.model})")
    return tuple(warnings)


def _shown(value: Derived) -> str:
    return f"{value.value:g}%" if value.unit == "%" else format_bytes(value.value)


def wred_profile_name(class_name: str, rate_bps: float) -> str:
    """SONiC WRED_PROFILE names match [a-zA-Z0-9][-a-zA-Z0-9_]{0,31} (sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang)."""
    name = f"{class_name}_{rate_bps / 1e9:g}G".replace(".", "p")
    return re.sub(r"[^-A-Za-z0-9_]", "_", name)[:32]


def _full(value: float, quantity: str) -> Derived:
    return derived_constant(value, "%", quantity=quantity, formula="100 (mark or drop every packet above the threshold)", source=SOURCE_STEP_MARKING)


def _step_curve(color: str, threshold: Derived, *, drop: bool, mark: bool) -> ColorCurveIR:
    return ColorCurveIR(color=color, drop=drop, mark=mark, min_bytes=threshold, max_bytes=threshold, probability_percent=_full(100.0, "probability_percent"))  # type: ignore[arg-type]


def _percent(fraction: Derived) -> Derived:
    """A fitted probability in percent, named with its unit (``pmax_percent``) as every output
    shows P_max; its derivation is the fraction's, times 100."""
    from dataclasses import replace

    from qosforge.provenance import Derivation

    name = "pmax_percent"
    origin = fraction.provenance.derivation_of(fraction.quantity)
    derivation = Derivation(name, f"100 * {fraction.quantity}" + (f"; {fraction.quantity} = {origin.formula}" if origin else ""),
                            origin.source if origin else "percent of the fitted probability")
    provenance = replace(fraction.provenance, derivations=(*fraction.provenance.derivations, derivation))
    return Derived(value=round(fraction.value * 100.0, 6), unit="%", provenance=provenance, quantity=name)


def _require_tbtcp_marking(fit: TbtcpRedFit, model: RedStepModel, *, rate_bps: float, rtt_s: float) -> None:
    """A fitted profile whose every step rounds to 0 % marks nothing between t_min and t_max and
    every packet above t_max (the step RED of fitting/red_model.py): a DCTCP-like step at t_max,
    not TBTCP's probabilistic marking, so QCD (TBTCP §4.1) gets no gradual signal and the queue
    sits at t_max instead of near l. It happens when BDP = rate·RTT/8 dwarfs [l, t_max]: the ideal
    p(Q) = (Q − l)/(BDP − l + Q) (TBTCP §4.1) stays below half the chip's probability step there
    (place ``rtt``: the RTT, with the rate, is what drives it)."""
    if float(np.max(fit.step_probabilities)) > 0:
        return
    grid = f"{model.probability_granularity * 100:g} % grid" if model.probability_granularity else "probability grid"
    bdp = rate_bps * rtt_s / 8.0
    raise ModelInputError(
        f"the fitted TBTCP RED profile marks nothing between t_min and t_max (only every packet above t_max): P_max {float(fit.p_max_unquantized) * 100:.3g} % rounds to 0 on "
        f"{model.name}'s {grid}, because BDP = {format_bytes(bdp)} ({format_rate(rate_bps)} × RTT {format_time(rtt_s)}) is "
        f"{bdp / float(fit.t_max_bytes):,.0f}× t_max = {format_bytes(float(fit.t_max_bytes))}, so the ideal marking "
        "(Q − l)/(BDP − l + Q) (TBTCP §4.1) stays near 0 up to t_max; that is a step at t_max, not TBTCP's marking curve",
        place="rtt",
        hint="give the fabric's real round-trip time (datacenter RTTs are tens to hundreds of us; TBTCP §7 measured "
             "150 us at 10G), or raise tbtcp.t_max so marking reaches a programmable probability",
    )


def class_thresholds(
    spec: ClassSpec,
    *,
    rate_bps: float,
    rtt_s: float,
    design: Design,
    profile: VendorProfile,
    shared_buffer_bytes: float,
    per_port_share_bytes: float,
) -> ClassThresholds:
    """Marking curves, TLT threshold and host settings for one class at one port speed."""
    marking: list[Derived] = []
    host: list[Derived] = []
    mark_min: Derived | None = None
    mark_max: Derived | None = None
    mark_probability: Derived | None = None
    ecn_threshold_for_tlt: float | None = None
    kmax_for_tlt: float | None = None

    if spec.transport in ("dctcp", "d2tcp", "ear"):
        dctcp = dctcp_marking_threshold(rate_bps, rtt_s, design.mtu, design.lso_burst)
        threshold = derived_from(dctcp, "threshold_bytes")
        marking.append(threshold)
        mark_min = mark_max = threshold
        mark_probability = _full(100.0, "probability_percent")
        ecn_threshold_for_tlt = threshold.value
        if spec.transport == "ear":
            delay_s = spec.ear.rtt_threshold if spec.ear and spec.ear.rtt_threshold is not None else EAR_T_OVER_K * threshold.value * 8.0 / rate_bps
            ear = ear_thresholds(rate_bps=rate_bps, packet_bytes=design.mtu, base_rtt_s=rtt_s, ecn_threshold_bytes=threshold.value, delay_threshold_s=delay_s)
            host += [_ear_delay_threshold(delay_s, given=spec.ear is not None and spec.ear.rtt_threshold is not None),
                     derived_from(ear, "rtt_threshold_s")]
        if spec.transport == "d2tcp" and spec.d2tcp is not None:
            host += [
                derived_constant(spec.d2tcp.d_min, "1", quantity="d_min", formula="intent d2tcp.d_min", source="D2TCP §3.2.3 (d clamped to [0.5, 2])"),
                derived_constant(spec.d2tcp.d_max, "1", quantity="d_max", formula="intent d2tcp.d_max", source="D2TCP §3.2.3 (d clamped to [0.5, 2])"),
            ]
    elif spec.transport in ("dcqcn", "irn"):
        # IRN keeps DCQCN's congestion control and ECN marking on a lossy class (IRN §4; TLT §7.1
        # runs "DCQCN with IRN"); its selective retransmission replaces PFC.
        overrides = spec.dcqcn
        dcqcn = dcqcn_marking(
            rate_bps,
            overrides.kmin if overrides else None,
            overrides.kmax if overrides else None,
            overrides.pmax if overrides else None,
            lossless=spec.lossless,
            selective_retransmission=spec.transport == "irn",
        )
        mark_min, mark_max = derived_from(dcqcn, "kmin_bytes"), derived_from(dcqcn, "kmax_bytes")
        mark_probability = derived_from(dcqcn, "pmax_percent")
        marking += [mark_min, mark_max, mark_probability]
        kmax_for_tlt = mark_max.value
    elif spec.transport == "tbtcp":
        tbtcp = spec.tbtcp
        lso = tbtcp.lso_burst if tbtcp and tbtcp.lso_burst is not None else design.lso_burst
        beta = tbtcp.beta if tbtcp else DEFAULT_TBTCP_BETA
        window_reduction = tbtcp.r if tbtcp else DEFAULT_TBTCP_R
        red_model = red_model_from_profile(profile)
        fit = fit_tbtcp_red(
            rate_bps * rtt_s / 8.0,
            lso,
            tbtcp.t_max if tbtcp else None,
            window_reduction,
            beta,
            model=red_model,
            lso_burst_bytes=lso,
            port_buffer_bytes=per_port_share_bytes,
        )
        _require_tbtcp_marking(fit, red_model, rate_bps=rate_bps, rtt_s=rtt_s)
        mark_min, mark_max = derived_from(fit, "t_min_bytes"), derived_from(fit, "t_max_bytes")
        mark_probability = _percent(derived_from(fit, "p_max"))
        marking += [mark_min, mark_max, mark_probability, derived_from(fit, "error_kilobytes")]
        flows = tbtcp.flows if tbtcp and tbtcp.flows is not None else design.concurrent_flows
        if flows is not None:
            # TBTCP §4.4: with n long-lived flows the queue settles where RAI's beta per RTT
            # equals QCD's expected cut, Q = beta*n MSS on the ideal curve (Eq. 8).
            steady = tbtcp_steady_state(rate_bps, rtt_s, flows, beta, design.mtu, lso, window_reduction)
            marking += [derived_from(steady, "queue_eq8_bytes"), derived_from(steady, "queue_bytes")]
        host += [derived_from(fit, "window_reduction_r"), derived_from(fit, "beta")]

    model_marking: tuple[Derived, ...] = ()
    warnings: tuple[str, ...] = ()
    entry = explicit_ecn(spec, rate_bps)
    if entry is not None:
        stated = _stated(entry, spec)
        warnings = _disagreements(spec, rate_bps, stated, (mark_min, mark_max, mark_probability))
        model_marking = tuple(marking)
        marking = list(stated)
        mark_min, mark_max, mark_probability = stated
        # TLT's threshold must sit above where the transport holds the queue: with a stated curve,
        # at most its max (TLT §4.2 sizes K from the marking threshold).
        if ecn_threshold_for_tlt is not None or spec.transport not in ("dcqcn", "irn"):
            ecn_threshold_for_tlt = entry.max
        else:
            kmax_for_tlt = entry.max

    curves: list[ColorCurveIR] = []
    ect: list[EctMarkingIR] = []
    tlt_threshold: Derived | None = None
    tlt_flows: Derived | None = None
    if mark_min is not None and mark_max is not None and mark_probability is not None:
        curves.append(ColorCurveIR("green", drop=False, mark=True, min_bytes=mark_min, max_bytes=mark_max, probability_percent=mark_probability))
    if spec.tlt is not None:
        if spec.tlt.threshold is not None:
            tlt_threshold = derived_constant(spec.tlt.threshold, "B", quantity="threshold_bytes", formula="intent tlt.threshold", source="operator-given color-aware threshold (TLT §4.2 requires K >= the transport's steady queue)")
        else:
            minimum = tlt_min_threshold(spec.transport, rate_bps, rtt_s, ecn_threshold_bytes=ecn_threshold_for_tlt, kmax_bytes=kmax_for_tlt)
            tlt_threshold = derived_from(minimum, "threshold_bytes")
        headroom = tlt_headroom(shared_buffer_bytes, design.alpha, design.congested_ports, tlt_threshold.value, design.mtu)
        tlt_flows = derived_from(headroom, "total_flows")
        curves.append(_step_curve("red", tlt_threshold, drop=True, mark=False))
        if mark_min is not None and mark_max is not None and mark_probability is not None:
            # TLT §4.2: unimportant packets still carry the transport's ECN signal; with color drop
            # on red, SAI's ECT thresholds are the place for that marking.
            ect.append(EctMarkingIR("red", min_bytes=mark_min, max_bytes=mark_max, probability_percent=mark_probability))
    return ClassThresholds(tuple(marking), tuple(curves), tuple(ect), tlt_threshold, tlt_flows, tuple(host), model_marking, warnings)
