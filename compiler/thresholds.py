"""Per-class marking and dropping thresholds from the transport models and the RED fitter.

For each class and port speed this runs the marking plan of the class's transport (transports/:
one module per congestion control, each citing the model and paper section it applies, e.g.
DCTCP's step at K, DCTCP §3.4; DCQCN's RED ramp, DCQCN §5; TBTCP's fitted step RED, TBTCP §6.2;
none for TCP, which reacts to loss) and turns its result into IR color curves:

* An explicit ``ecn`` entry of the class at this speed (intent ``classes[].ecn``, e.g. a vendor's
  recommended profile) replaces the model's marking curve; the model's values are kept beside it
  (``model_marking``) with a warning where the two differ by more than :data:`ECN_DISAGREEMENT`.
* TLT (TLT §4.2): unimportant packets are red and tail-dropped at K (min = max = K, 100 %);
  their ECN marking moves to the ECT thresholds so the transport keeps its signal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qosforge.compiler.intent import ClassSpec, Design, EcnSpec
from qosforge.ir import ColorCurveIR, Derived, EctMarkingIR, derived_constant, derived_from
from qosforge.models.tlt import tlt_headroom, tlt_min_threshold
from qosforge.transports import Marking, MarkingInputs, transport
from qosforge.transports.marking import full_percent
from qosforge.units import format_bytes, format_rate
from qosforge.vendor_profiles.schema import VendorProfile

SOURCE_TLT_COLOR_DROP = "TLT §4.2 (unimportant packets colored red, dropped at K; important packets green)"
SOURCE_EXPLICIT_ECN = "operator-stated ECN marking (intent classes[].ecn), used instead of the transport model's"
#: A stated value more than this factor away from the model's recommendation is reported.
ECN_DISAGREEMENT = 2.0


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


def _step_curve(color: str, threshold: Derived, *, drop: bool, mark: bool) -> ColorCurveIR:
    return ColorCurveIR(color=color, drop=drop, mark=mark, min_bytes=threshold, max_bytes=threshold, probability_percent=full_percent(100.0, "probability_percent"))  # type: ignore[arg-type]


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
    plan = transport(spec.transport).marking
    planned = Marking() if plan is None else plan(MarkingInputs(
        rate_bps=rate_bps, rtt_s=rtt_s, mtu_bytes=design.mtu, lso_burst_bytes=design.lso_burst, concurrent_flows=design.concurrent_flows,
        lossless=spec.lossless, parameters=spec.parameters(), profile=profile, per_port_share_bytes=per_port_share_bytes))
    marking = list(planned.values)
    host = list(planned.host)
    mark_min, mark_max, mark_probability = planned.min_bytes, planned.max_bytes, planned.probability_percent
    ecn_threshold_for_tlt, kmax_for_tlt = planned.ecn_threshold_bytes, planned.kmax_bytes

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
        if ecn_threshold_for_tlt is not None or kmax_for_tlt is None:
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
            minimum = tlt_min_threshold(spec.transport, rate_bps, rtt_s, ecn_threshold_bytes=ecn_threshold_for_tlt, kmax_bytes=kmax_for_tlt,
                                        steady_queue=transport(spec.transport).tlt)
            tlt_threshold = derived_from(minimum, "threshold_bytes")
        headroom = tlt_headroom(shared_buffer_bytes, design.alpha, design.congested_ports, tlt_threshold.value, design.mtu)
        tlt_flows = derived_from(headroom, "total_flows")
        curves.append(_step_curve("red", tlt_threshold, drop=True, mark=False))
        if mark_min is not None and mark_max is not None and mark_probability is not None:
            # TLT §4.2: unimportant packets still carry the transport's ECN signal; with color drop
            # on red, SAI's ECT thresholds are the place for that marking.
            ect.append(EctMarkingIR("red", min_bytes=mark_min, max_bytes=mark_max, probability_percent=mark_probability))
    return ClassThresholds(tuple(marking), tuple(curves), tuple(ect), tlt_threshold, tlt_flows, tuple(host), model_marking, warnings)
