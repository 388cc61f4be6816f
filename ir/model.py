"""The vendor-neutral intermediate representation (docs/architecture.md §5).

One :class:`SwitchIR` per switch: buffer pools and profiles, PG and queue bindings, WRED curves
per color, QoS maps, schedulers, PFC and its watchdog. Every number the backends emit is a
:class:`Derived` value that carries its provenance, so ``qosforge explain`` can show how it was
obtained. Backends only translate this structure; they never compute thresholds themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from qosforge.provenance import Provenance

Color = Literal["green", "yellow", "red"]
Direction = Literal["ingress", "egress"]
ThresholdMode = Literal["dynamic", "static"]
SchedulerKind = Literal["STRICT", "DWRR"]
#: What a queue does with a packet it cannot admit (SONiC BUFFER_PROFILE packet_discard_action,
#: SAI sai_buffer_profile_packet_admission_fail_action_t DROP / DROP_AND_TRIM).
DiscardAction = Literal["drop", "trim"]
#: A registered transport's name (transports/: the registry sits above the IR, so the IR holds the
#: name the intent validated against it, qosforge.transports.transport_names()).
Transport = str


@dataclass(frozen=True)
class Derived:
    """A number the compiler emits, with the unit and the derivation that produced it."""

    value: float
    unit: str
    provenance: Provenance
    quantity: str
    """The output field of ``provenance`` this value is (for ``explain``)."""

    @property
    def as_int(self) -> int:
        return round(self.value)


@dataclass(frozen=True)
class PoolIR:
    name: str
    direction: Direction
    mode: ThresholdMode
    size_bytes: Derived
    shared_headroom_bytes: Derived | None = None


@dataclass(frozen=True)
class BufferProfileIR:
    name: str
    pool: str
    reserved_bytes: Derived
    dynamic_th: Derived | None = None
    static_th_bytes: Derived | None = None
    xon_bytes: Derived | None = None
    xoff_bytes: Derived | None = None
    xon_offset_bytes: Derived | None = None
    discard_action: DiscardAction = "drop"

    @property
    def lossless(self) -> bool:
        return self.xoff_bytes is not None


@dataclass(frozen=True)
class ColorCurveIR:
    """RED/WRED behaviour for one color: drop and/or ECN-mark between min and max."""

    color: Color
    drop: bool
    mark: bool
    min_bytes: Derived
    max_bytes: Derived
    probability_percent: Derived


@dataclass(frozen=True)
class EctMarkingIR:
    """Separate ECN marking thresholds for ECT packets (SAI_WRED_ATTR_ECN_* ; not in config_db)."""

    color: Color
    min_bytes: Derived
    max_bytes: Derived
    probability_percent: Derived


@dataclass(frozen=True)
class WredIR:
    name: str
    curves: tuple[ColorCurveIR, ...]
    ect_marking: tuple[EctMarkingIR, ...] = ()

    def curve(self, color: Color) -> ColorCurveIR | None:
        return next((c for c in self.curves if c.color == color), None)


@dataclass(frozen=True)
class SchedulerIR:
    name: str
    kind: SchedulerKind
    weight: int | None = None
    max_rate_bytes_per_s: Derived | None = None
    """A shaper (FastLane's 2 % cap); rendered as SONiC pir (needs cir) or SAI MAX_BANDWIDTH_RATE."""


@dataclass(frozen=True)
class QueueIR:
    index: int
    class_name: str
    scheduler: str
    buffer_profile: str
    wred_profile: str | None
    lossless: bool


@dataclass(frozen=True)
class PriorityGroupIR:
    index: int
    buffer_profile: str
    lossless: bool


@dataclass(frozen=True)
class PortIR:
    name: str
    speed_bps: float
    cable_m: float
    peer: str | None
    priority_groups: tuple[PriorityGroupIR, ...]
    queues: tuple[QueueIR, ...]
    pfc_priorities: tuple[int, ...]
    host_nic: str | None = None
    """The NIC profile of the host on this port (vendor_profiles/nics/; ``linux-kernel`` unless the
    intent names one); None on ports that do not face a host."""


@dataclass(frozen=True)
class QosMapsIR:
    """All maps as (from, to) pairs, sorted; names are chosen by the backends."""

    dscp_to_tc: tuple[tuple[int, int], ...]
    dscp_to_color: tuple[tuple[int, Color], ...]
    tc_to_queue: tuple[tuple[int, int], ...]
    tc_to_priority_group: tuple[tuple[int, int], ...]
    pfc_priority_to_priority_group: tuple[tuple[int, int], ...]
    pfc_priority_to_queue: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class PfcWatchdogIR:
    detection_ms: int
    restoration_ms: int
    poll_interval_ms: int
    action: Literal["drop", "forward", "alert"]
    source: str


@dataclass(frozen=True)
class CapabilityGap:
    """Something the intent asks for that a target or ASIC cannot express."""

    target: str
    class_name: str
    feature: str
    detail: str
    alternatives: tuple[str, ...]
    approximation: str | None = None
    """Set when the user accepted a named approximation; the output then carries it."""


@dataclass(frozen=True)
class HostTcpIR:
    """A TCP class's Linux hosts: the minimum RTO and initial window its connections run, each
    with where it came from (the class's ``hosts``, the intent's top-level ``hosts``, or Linux's
    default). ``*_stated``: the intent gives the value, so the host target renders it (a Linux
    default needs no command)."""

    rto_min_s: float
    rto_min_source: str
    rto_min_stated: bool
    initial_window_segments: int
    initial_window_source: str
    initial_window_stated: bool


@dataclass(frozen=True)
class ClassIR:
    """The plan and the model results for one traffic class on one switch."""

    name: str
    transport: Transport
    traffic_class: int
    queue: int
    priority_group: int | None
    lossless: bool
    dscp: tuple[int, ...]
    important_dscp: tuple[int, ...]
    rtt_s: Derived
    bdp_bytes: Derived
    marking: tuple[Derived, ...]
    """ECN marking parameters the class needs (K, K_min/K_max/P_max, fitted P_max, ...)."""
    tlt_threshold_bytes: Derived | None = None
    tlt_flows_without_important_loss: Derived | None = None
    host_settings: tuple[Derived, ...] = ()
    """Host-side outputs (TBTCP r and beta, EAR T, D2TCP d clamp, TLT N-th packet marking)."""
    rate_bps: float = 0.0
    """Port speed these thresholds are for (a switch with several speeds has one ClassIR each)."""
    model_marking: tuple[Derived, ...] = ()
    """The transport model's recommended marking where the intent stated its own (``ecn``); empty otherwise."""
    warnings: tuple[str, ...] = ()
    """Where the stated marking differs from the model's by more than 2x (compiler/thresholds.py)."""
    load_balancing: str = "ecmp"
    """How switches spread the class over equal-cost next hops: ecmp, flowlet, spray or adaptive
    (compiler/intent.py LoadBalancingSpec; the simulator's, SONiC renders only ecmp)."""
    flowlet_gap_s: float = 0.0
    """The inactivity gap that starts a new flowlet (flowlet, adaptive); 0: none."""
    host_tcp: HostTcpIR | None = None
    """The class's Linux TCP hosts (compiler/host_tcp.py); None for a class whose congestion
    control runs in a RoCE NIC."""


@dataclass(frozen=True)
class ControlClassIR:
    """A class the compiler adds for transport signalling (RoCE CNPs, FastLane notifications):
    lossy, on its own strict-priority queue; its DSCPs, TC, queue and scheduler are also in the
    switch's maps, queues and schedulers like any class's."""

    name: str
    purpose: str
    traffic_class: int
    queue: int
    dscp: tuple[int, ...]
    source: str


@dataclass(frozen=True)
class TrimmingIR:
    """The switch's packet trimming setting (SONiC SWITCH_TRIMMING|GLOBAL; SAI switch attributes
    SAI_SWITCH_ATTR_PACKET_TRIM_*): one per switch, used by every queue whose buffer profile's
    ``discard_action`` is ``trim``."""

    size_bytes: Derived
    dscp: int | None
    """The DSCP of trimmed packets; None when it comes from the port's TC_TO_DSCP map (from-tc)."""
    tc: int | None
    """The TC whose TC_TO_DSCP entry gives the DSCP (from-tc mode); None otherwise."""
    queue: int | None
    """The trim queue (static resolution); None when resolved from the DSCP (dynamic)."""
    trim_queue: int
    """The queue trimmed packets land on in either mode (the planned trim class's queue)."""
    source: str


@dataclass(frozen=True)
class SwitchIR:
    name: str
    vendor_profile: str
    buffer_bytes: Derived
    pools: tuple[PoolIR, ...]
    buffer_profiles: tuple[BufferProfileIR, ...]
    wred_profiles: tuple[WredIR, ...]
    schedulers: tuple[SchedulerIR, ...]
    maps: QosMapsIR
    ports: tuple[PortIR, ...]
    classes: tuple[ClassIR, ...]
    pfc_watchdog: PfcWatchdogIR | None
    gaps: tuple[CapabilityGap, ...] = field(default=())
    control_classes: tuple[ControlClassIR, ...] = field(default=())
    trimming: TrimmingIR | None = None

    def profile(self, name: str) -> BufferProfileIR:
        return next(p for p in self.buffer_profiles if p.name == name)


@dataclass(frozen=True)
class TargetView:
    """The switches as one target renders them: capability gaps recorded, approximations applied."""

    target: str
    switches: tuple[SwitchIR, ...]


@dataclass(frozen=True)
class FabricIR:
    name: str
    source_file: str
    switches: tuple[SwitchIR, ...]
    """The full-fidelity plan, before any target's capabilities are applied."""
    targets: tuple[str, ...]
    views: tuple[TargetView, ...] = ()

    def for_target(self, target: str) -> tuple[SwitchIR, ...]:
        """The switches as ``target`` renders them (the full plan where it has no view)."""
        return next((view.switches for view in self.views if view.target == target), self.switches)

    def gaps(self, switch_name: str) -> tuple[CapabilityGap, ...]:
        """Every target's capability gaps for one switch."""
        return tuple(gap for view in self.views for s in view.switches if s.name == switch_name for gap in s.gaps)


def derived_from(result: object, quantity_name: str, *, index: int | None = None) -> Derived:
    """Take one output of a model result (a provenance-carrying dataclass) into the IR."""
    from qosforge.provenance import quantities

    view = next(v for v in quantities(result) if v.name == quantity_name)
    value = view.value if index is None else view.value[index]
    provenance: Provenance = getattr(result, "provenance")  # noqa: B009
    return Derived(value=float(value), unit=view.unit, provenance=provenance, quantity=quantity_name)


def derived_constant(value: float, unit: str, *, quantity: str, formula: str, source: str, model: str = "constant") -> Derived:
    """A value fixed by a standard or a vendor profile rather than computed by a model."""
    from qosforge.provenance import Derivation

    return Derived(
        value=float(value),
        unit=unit,
        provenance=Provenance(model=model, inputs=(), derivations=(Derivation(quantity, formula, source),)),
        quantity=quantity,
    )
