"""What qosforge knows about one congestion control, in one object: :class:`TransportSpec`.

Every consumer derives its view from the registry below instead of spelling transport names out:
the intent (the ``transport`` field's accepted names and each transport's parameter block,
compiler/intent.py), the compiler (the marking plan, compiler/thresholds.py; the lossless and
refusal checks, compiler/plan.py; CNPs and NIC DCQCN, compiler/plan.py and compiler/hosts.py), the
host target (backends/host/settings.py), lint (lint/rules/transport.py, lint/rules/hosts.py) and
the software switch (the engine flow kind a class's hosts run as, softswitch/helper/compiled.py).

This package sits below the backends and above the IR and the fitters (pyproject.toml's layers
contract), so every one of those consumers may import it while a marking plan may call the models
and fitters and return IR values. docs/extending/transport.md says how to add one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from qosforge.ir import Derived
from qosforge.models.tlt import TltSteadyQueue

if TYPE_CHECKING:
    # Annotations only: the software switch reads the registry for each transport's flow kind,
    # and a warm `simulate --traffic` should not load the vendor profiles' schemas for that.
    from pydantic import BaseModel

    from qosforge.vendor_profiles.schema import VendorProfile


@dataclass(frozen=True)
class MarkingInputs:
    """What a marking plan reads for one class at one port speed (compiler/thresholds.py)."""

    rate_bps: float
    rtt_s: float
    mtu_bytes: float
    """Packet size of packet-based thresholds (intent design.mtu)."""
    lso_burst_bytes: float
    """Host NIC LSO burst (intent design.lso_burst)."""
    concurrent_flows: int | None
    """Long-lived flows per bottleneck (intent design.concurrent_flows), if given."""
    lossless: bool
    parameters: BaseModel | None
    """The class's parameter block (:attr:`TransportSpec.parameters`), if the intent gives one."""
    profile: VendorProfile
    per_port_share_bytes: float
    """The port's share of the shared buffer under the design point (compiler/buffers.py)."""


@dataclass(frozen=True)
class Marking:
    """A marking plan's answer: the green ECN curve (min, max, probability; all None for no
    marking), the values the report lists, the host settings it implies, and what TLT's
    threshold must clear (TLT §4.2: the ECN step K, or DCQCN's K_max)."""

    values: tuple[Derived, ...] = ()
    min_bytes: Derived | None = None
    max_bytes: Derived | None = None
    probability_percent: Derived | None = None
    host: tuple[Derived, ...] = ()
    ecn_threshold_bytes: float | None = None
    """The ECN step K that TLT's threshold must clear (window transports)."""
    kmax_bytes: float | None = None
    """DCQCN's K_max that TLT's threshold must clear (TLT §4.2)."""


#: A marking plan: the switch-side ECN/RED thresholds of one class at one port speed.
MarkingPlan = Callable[[MarkingInputs], Marking]


@dataclass(frozen=True)
class MarkingModel:
    """Which model computes the thresholds, as lint checks them (lint/rules/transport.py)."""

    name: Literal["dctcp-step", "dcqcn-red", "tbtcp-red-fit"]
    source: str


@dataclass(frozen=True)
class LosslessRule:
    """A transport that needs PFC (``required``) or must run without it (``refused``): the error
    compiler/plan.py raises at the class's ``lossless`` field. ``message`` may name ``{name}``."""

    need: Literal["required", "refused"]
    message: str
    hint: str


@dataclass(frozen=True)
class HostSettings:
    """What the transport's senders run (backends/host/settings.py)."""

    congestion_control: str | None
    """The congestion control the senders run: a net.ipv4.tcp_congestion_control name, or the RoCE
    NIC's (``dcqcn``); None leaves the kernel default (the intent does not constrain it)."""
    ecn: bool
    """Whether the senders must negotiate and react to ECN (the switch marks for them)."""
    nic_dcqcn: bool = False
    """Congestion control runs in a RoCE NIC (DCQCN's reaction and notification points): the
    receivers send CNPs, which get their own strict-priority queue (compiler/plan.py)."""


@dataclass(frozen=True)
class TransportSpec:
    """One congestion control: everything each layer needs to know about it."""

    name: str
    """The intent's ``transport:`` value."""
    paper: str
    """Its primary source, e.g. "DCTCP (Alizadeh et al., SIGCOMM 2010)"."""
    host: HostSettings
    marking: MarkingPlan | None = None
    """Computes the switch's ECN/RED marking; None: the switch marks nothing (TCP reacts to loss)."""
    marking_model: MarkingModel | None = None
    """The model the marking plan applies, as lint checks it; None: lint checks no marking."""
    block: str | None = None
    """The intent key of the class's parameter block (``dcqcn:``); two transports may share one."""
    parameters: type[BaseModel] | None = None
    """The pydantic model of that block (unknown fields refused, as everywhere in the intent)."""
    marking_fields: tuple[str, str] | None = None
    """The block's fields that state the marking's min and max thresholds (``kmin``, ``kmax``):
    they conflict with an explicit ``ecn`` list, and an out-of-range threshold is traced to them."""
    lossless: LosslessRule | None = None
    refused: str | None = None
    """Named by the schema but never compiled: why, in one clause (the compiler's error)."""
    tlt: TltSteadyQueue | None = None
    """Where it holds the queue at steady state, which TLT's color-aware threshold must clear
    (models/tlt.py, TLT §4.2); None: a ``tlt`` block on its class is refused."""
    flow_kind: str | None = None
    """The software switch's flow kind its hosts run as (softswitch/traffic/spec.py FlowKind);
    None: not simulated, ``simulate`` refuses such a class."""
    flow_kind_note: str = field(default="")
    """Why the flow kind stands in for the transport, where it is another's."""


_REGISTRY: dict[str, TransportSpec] = {}
_SEALED: list[str] = []


def register(spec: TransportSpec) -> TransportSpec:
    """Add a transport. Register before ``qosforge.compiler`` is imported: the intent's schema
    is built once from the registry then (compiler/intent.py seals it)."""
    if _SEALED:
        raise RuntimeError(f"transport {spec.name!r} registered after {_SEALED[0]} built the intent schema from the registry; "
                           "declare it in the qosforge.transports entry-point group (qosforge/plugins.py), "
                           "or register it before qosforge.compiler is imported")
    if spec.name in _REGISTRY:
        raise ValueError(f"transport {spec.name!r} is registered twice")
    if spec.block is not None and spec.parameters is None:
        raise ValueError(f"transport {spec.name!r}: a parameter block needs its pydantic model")
    for other in _REGISTRY.values():
        if spec.block is not None and other.block == spec.block and other.parameters is not spec.parameters:
            raise ValueError(f"transport {spec.name!r}: block {spec.block!r} is {other.name}'s with another model")
    _REGISTRY[spec.name] = spec
    return spec


def seal(by: str) -> None:
    """Called by the module that builds types from the registry (compiler/intent.py)."""
    if not _SEALED:
        _SEALED.append(by)


def transports() -> Iterator[TransportSpec]:
    """Every registered transport, in registration order."""
    return iter(tuple(_REGISTRY.values()))


def transport(name: str) -> TransportSpec:
    """The registered transport ``name`` (KeyError if none: the intent validated it)."""
    return _REGISTRY[name]


def find_transport(name: str) -> TransportSpec | None:
    """The registered transport ``name``, or None (a name read from a file, not yet validated)."""
    return _REGISTRY.get(name)


def transport_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def accepted_transports() -> tuple[str, ...]:
    """The transports qosforge compiles (the registered ones, less the refused)."""
    return tuple(spec.name for spec in _REGISTRY.values() if spec.refused is None)


def refused_transports() -> tuple[TransportSpec, ...]:
    return tuple(spec for spec in _REGISTRY.values() if spec.refused is not None)


def rdma_transports() -> tuple[str, ...]:
    """Transports whose congestion control runs in a RoCE NIC (DCQCN's RP/NP)."""
    return tuple(spec.name for spec in _REGISTRY.values() if spec.host.nic_dcqcn)


def roce_hint() -> str:
    return " or ".join(rdma_transports())


def transport_hint() -> str:
    """The one-line hint for an unknown or refused transport: what is accepted, what is refused and why."""
    refused = "; ".join(f"{spec.name} is refused: {spec.refused}" for spec in refused_transports())
    return f"accepted transports: {', '.join(accepted_transports())} ({roce_hint()} for RoCE); {refused}"


def parameter_blocks() -> dict[str, type[BaseModel]]:
    """Each intent parameter block (key -> model), in the order transports registered them."""
    blocks: dict[str, type[BaseModel]] = {}
    for spec in _REGISTRY.values():
        if spec.block is not None and spec.parameters is not None:
            blocks.setdefault(spec.block, spec.parameters)
    return blocks


def transports_with_block(block: str) -> tuple[str, ...]:
    return tuple(spec.name for spec in _REGISTRY.values() if spec.block == block)


def blocks_setting_marking() -> tuple[str, ...]:
    return tuple(block for block in parameter_blocks() if any(s.block == block and s.marking_fields for s in _REGISTRY.values()))


__all__ = ["HostSettings", "LosslessRule", "Marking", "MarkingInputs", "MarkingModel", "MarkingPlan", "TransportSpec",
           "accepted_transports", "blocks_setting_marking", "find_transport", "parameter_blocks", "rdma_transports", "refused_transports", "register",
           "roce_hint", "seal", "transport", "transport_hint", "transport_names", "transports", "transports_with_block"]
