"""Schema of a vendor profile: one YAML per ASIC, every value with its source.

This is the contract the compiler, the models and the PFC headroom model code against; the field
names are fixed (see docs/architecture.md §1 and the vendor-profile brief). Each chip parameter is a
:class:`Sourced` value: ``{value: 12MB, source: td2-brief, note: ...}``. ``value: unknown`` means
nobody has found a public source for it; such a value loads as ``None`` and any consumer that needs
it calls :meth:`Sourced.known`, which raises :class:`qosforge.errors.ProfileError` naming the
profile and the field and saying what to do. Nothing in a profile is ever a guess.

Sizes and speeds are written with units and parsed with :mod:`qosforge.units` (``12MB`` = 12·10^6
bytes, ``40G`` = 40·10^9 b/s), so a profile reads like the datasheet it cites.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, model_validator

from qosforge.errors import ProfileError, UnitError
from qosforge.units import parse_rate_bps, parse_size_bytes

T = TypeVar("T")

#: The spelling of a value nobody could source (the YAML says ``value: unknown``).
UNKNOWN = "unknown"

#: A source id: lower-case slug such as ``tlt`` or ``sonic-mgmt-qos-td2``. A ``source`` string
#: whose first word is such an id must name an entry of the profile's ``sources`` list.
_SOURCE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


class _Strict(BaseModel):
    """Unknown fields are errors (a typo must not silently drop a sourced value)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _parse_bytes(raw: Any) -> Any:
    """``12MB`` / ``208B`` -> integer bytes (a profile states whole bytes)."""
    if isinstance(raw, str):
        try:
            size = parse_size_bytes(raw)
        except UnitError as error:
            # pydantic reports ValueError with the field location; UnitError would escape it.
            raise ValueError(error.one_line()) from None
        if size != int(size):
            raise ValueError(f"{raw!r} is not a whole number of bytes")
        return int(size)
    # A bare number is refused: the unit is what makes a profile checkable against its source.
    raise ValueError(f"{raw!r}: write a size with its unit, e.g. 12MB or 208B")


def _parse_rate(raw: Any) -> Any:
    """``40G`` -> bits per second."""
    if isinstance(raw, str):
        try:
            return parse_rate_bps(raw)
        except UnitError as error:
            raise ValueError(error.one_line()) from None
    raise ValueError(f"{raw!r}: write a speed with its unit, e.g. 40G or 100Gbps")


Bytes = Annotated[int, BeforeValidator(_parse_bytes), Field(gt=0)]
BitsPerSecond = Annotated[float, BeforeValidator(_parse_rate)]
Count = Annotated[int, Field(ge=1)]


class SourceRef(_Strict):
    """One entry of a profile's bibliography."""

    id: str = Field(pattern=_SOURCE_ID.pattern)
    citation: str = Field(min_length=1)
    url: str | None = None


class Sourced(_Strict, Generic[T]):
    """A chip parameter with its provenance; ``value`` is None when the YAML says ``unknown``."""

    value: T | None
    source: str = Field(min_length=1)
    note: str | None = None

    # Set by VendorProfile after validation so that ``known`` can name the profile.
    _profile: str = PrivateAttr(default="?")
    _field: str = PrivateAttr(default="?")

    @model_validator(mode="before")
    @classmethod
    def _unknown_is_none(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("value") == UNKNOWN:
            if not data.get("note"):
                raise ValueError("an unknown value needs a note saying why it is unknown")
            return {**data, "value": None}
        return data

    @property
    def is_known(self) -> bool:
        return self.value is not None

    def known(self, field_name: str | None = None) -> T:
        """The value, or a :class:`ProfileError` saying which profile lacks it and what to do."""
        if self.value is not None:
            return self.value
        field = field_name or self._field
        why = f" ({self.note})" if self.note else ""
        raise ProfileError(
            f"{field} of vendor profile {self._profile!r} is unknown{why}",
            place=f"vendor_profiles/{self._profile}.yaml: {field}",
            hint=(
                f"give {field} explicitly for this switch (intent file or command-line option), "
                f"or add a value with its public source to vendor_profiles/{self._profile}.yaml"
            ),
        )


class PortGroup(_Strict):
    """``count`` ports at ``speed_bps`` (a profile's ports are a list of such groups)."""

    count: Count
    speed_bps: BitsPerSecond


class BreakoutMode(_Strict):
    """One front-panel port run as ``ports`` ports of any of ``speeds_bps`` each.

    SONiC's ``device/<platform>/platform.json`` writes these as ``<ports>x<speed>[<other
    speeds>]``, e.g. ``2x100G[50G]`` = two ports of 100G or 50G; the native mode is ``1x<native>``.
    """

    ports: Count
    speeds_bps: Annotated[list[BitsPerSecond], Field(min_length=1)]


class TrimSize(_Strict):
    """The trim sizes an ASIC accepts: ``min_bytes`` to ``max_bytes`` in steps of ``step_bytes``."""

    min_bytes: Bytes
    max_bytes: Bytes
    step_bytes: Bytes

    @model_validator(mode="after")
    def _ordered(self) -> TrimSize:
        if self.min_bytes > self.max_bytes:
            raise ValueError("packet_trim_size: min_bytes is larger than max_bytes")
        return self


class RedQuantisation(_Strict):
    """How the chip implements RED/WRED marking (TBTCP §6.2; docs/architecture.md §4)."""

    #: Number of equal intervals (t_min, t_max] is cut into.
    steps: Sourced[Count]
    #: Step i marks with P_max·(i + step_offset)/steps; 0.5 = interval midpoint (TBTCP §6.2).
    step_offset: Sourced[Annotated[float, Field(ge=0.0, le=1.0)]]
    #: Smallest programmable probability increment as a fraction (0.01 = whole percent).
    probability_granularity: Sourced[Annotated[float, Field(gt=0.0, le=1.0)]]
    #: Whether each step's probability can be set on its own (TBTCP §8 "Hardware Consideration").
    per_step_programmable: Sourced[bool]
    #: Granularity in bytes at which thresholds are programmed.
    threshold_granularity_bytes: Sourced[Bytes]


class SonicAsicTable(_Strict):
    """SONiC ``ASIC_TABLE`` entry used by the dynamic buffer model's headroom Lua.

    Values and units exactly as ``platform/<vendor>/asic_table.j2`` writes them
    (sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2): the ``*_kb`` fields are KB of 1024 bytes.
    """

    name: str
    script: Literal["mellanox", "barefoot"]
    cell_size_bytes: Count
    pipeline_latency_kb: Annotated[float, Field(ge=0.0)]
    mac_phy_delay_kb: Annotated[float, Field(ge=0.0)]
    peer_response_time_kb: Annotated[float, Field(ge=0.0)]
    port_reserved_shp_cells: Annotated[int, Field(ge=0)] | None
    port_max_shp_cells: Annotated[int, Field(ge=0)] | None
    source: str = Field(min_length=1)
    note: str | None = None


class PfcHeadroom(_Strict):
    """Inputs for PFC headroom; ``sonic`` is None where SONiC has no ASIC_TABLE entry."""

    sonic: SonicAsicTable | None
    note: str | None = None


#: Every Sourced field of a profile, dotted for nested ones (used by ``known`` and the CLI).
SOURCED_FIELDS: tuple[str, ...] = (
    "buffer_bytes",
    "mmu_count",
    "cell_bytes",
    "ports",
    "lanes_per_port",
    "breakout_modes",
    "queues_per_port",
    "dynamic_th_min",
    "dynamic_th_max",
    "dynamic_th_special",
    "red.steps",
    "red.step_offset",
    "red.probability_granularity",
    "red.per_step_programmable",
    "red.threshold_granularity_bytes",
    "ecn_ect_thresholds",
    "color_aware_tail_drop",
    "color_drop_applies_to_ect",
    "max_lossless_classes",
    "fastlane_support",
    "packet_trimming",
    "packet_trim_size",
)


class VendorProfile(_Strict):
    """One switch ASIC as qosforge sees it. File stem = ``name``."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    vendor: str
    asic: str
    description: str
    aliases: list[str] = Field(default_factory=list)
    sources: list[SourceRef] = Field(min_length=1)

    #: Total packet buffer shared by the MMUs.
    buffer_bytes: Sourced[Bytes]
    #: Number of independent memory-management units the buffer is split into (Tomahawk: 4).
    mmu_count: Sourced[Count]
    cell_bytes: Sourced[Bytes]
    #: Front-panel ports at their native speed (what a datasheet lists first).
    ports: Sourced[Annotated[list[PortGroup], Field(min_length=1)]]
    #: SerDes lanes of one front-panel port at its native speed (SONiC port_config.ini /
    #: platform.json ``lanes``); SONiC names a port ``Ethernet<first lane index>`` on many
    #: platforms, which is how a switch layout binds names to lanes.
    lanes_per_port: Sourced[Count]
    #: How one front-panel port may be split or slowed (SONiC platform.json ``breakout_modes``).
    breakout_modes: Sourced[Annotated[list[BreakoutMode], Field(min_length=1)]]
    #: Unicast egress queues per port available to traffic classes.
    queues_per_port: Sourced[Count]
    #: Range of the SAI/SONiC dynamic_th exponent n (alpha = 2^n) the ASIC accepts.
    dynamic_th_min: Sourced[int]
    dynamic_th_max: Sourced[int]
    #: Exponents in that range the ASIC does not read as alpha = 2^n, with the alpha it applies
    #: instead (Mellanox SAI: -8 -> 0, no shared buffer; 7 -> infinity, no limit). Empty where
    #: every exponent means 2^n. Used by compile and lint (compiler/dynamic_th.py).
    dynamic_th_special: Sourced[dict[int, Annotated[float, Field(ge=0.0)]]]
    red: RedQuantisation
    #: Separate ECN marking thresholds for ECT traffic (SAI_WRED_ATTR_ECN_*) are honoured.
    ecn_ect_thresholds: Sourced[bool]
    #: A per-colour drop threshold can be set within one queue (TLT §4.1).
    color_aware_tail_drop: Sourced[bool]
    #: A colour's drop threshold also drops ECN-capable (ECT) packets of that colour rather than
    #: only marking them — what TLT over DCTCP relies on.
    color_drop_applies_to_ect: Sourced[bool]
    max_lossless_classes: Sourced[Count]
    #: Switch-generated drop notifications (FastLane §3); no commodity ASIC offers them.
    fastlane_support: Sourced[bool]
    #: Packet trimming: a packet its egress queue cannot admit is cut and forwarded on a trim
    #: queue (SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP_AND_TRIM, SAI inc/saibuffer.h).
    packet_trimming: Sourced[bool]
    #: The trim sizes the ASIC accepts (SAI_SWITCH_ATTR_PACKET_TRIM_SIZE takes any uint32).
    packet_trim_size: Sourced[TrimSize]
    pfc_headroom: PfcHeadroom

    @model_validator(mode="after")
    def _check_and_bind(self) -> VendorProfile:
        ids = [entry.id for entry in self.sources]
        duplicates = sorted({source_id for source_id in ids if ids.count(source_id) > 1})
        if duplicates:
            raise ValueError(f"duplicate source ids: {', '.join(duplicates)}")
        known_ids = set(ids)
        for field_name in SOURCED_FIELDS:
            sourced = self.sourced(field_name)
            _check_source(sourced.source, known_ids, field_name)
            # Private attributes are not fields, so setting them is allowed on a frozen model.
            sourced._profile = self.name
            sourced._field = field_name
        if self.pfc_headroom.sonic is not None:
            _check_source(self.pfc_headroom.sonic.source, known_ids, "pfc_headroom.sonic")
        if (
            self.dynamic_th_min.value is not None
            and self.dynamic_th_max.value is not None
            and self.dynamic_th_min.value > self.dynamic_th_max.value
        ):
            raise ValueError("dynamic_th_min is larger than dynamic_th_max")
        special = self.dynamic_th_special.value or {}
        low, high = self.dynamic_th_min.value, self.dynamic_th_max.value
        outside = sorted(n for n in special if (low is not None and n < low) or (high is not None and n > high))
        if outside:
            raise ValueError(f"dynamic_th_special lists {outside}, outside dynamic_th_min..dynamic_th_max")
        return self

    @property
    def dynamic_th_special_alphas(self) -> dict[int, float]:
        """Exponents this ASIC reads as another alpha than 2^n, with that alpha: the profile's
        ``dynamic_th_special`` where it states its own dynamic_th range (else none are known). The
        one reading compile, lint (compiler/dynamic_th.py) and the software switch (softswitch/asic.py)
        pass to models/dynamic_threshold.py ``alpha_from_dynamic_th``."""
        if self.dynamic_th_min.value is None or self.dynamic_th_max.value is None:
            return {}
        return dict(self.dynamic_th_special.value or {})

    def sourced(self, field_name: str) -> Sourced[Any]:
        """The Sourced value named ``field_name`` (``buffer_bytes``, ``red.steps``, ...)."""
        if field_name not in SOURCED_FIELDS:
            raise ProfileError(
                f"{field_name!r} is not a sourced field of a vendor profile",
                place=f"vendor profile {self.name}",
                hint=f"use one of {', '.join(SOURCED_FIELDS)}",
            )
        node: Any = self
        for part in field_name.split("."):
            node = getattr(node, part)
        if not isinstance(node, Sourced):  # pragma: no cover - SOURCED_FIELDS lists Sourced only
            raise TypeError(field_name)
        return node

    def unknown_fields(self) -> list[str]:
        """Sourced fields whose value is ``unknown`` in the YAML."""
        return [name for name in SOURCED_FIELDS if not self.sourced(name).is_known]

    def source_for(self, source: str) -> SourceRef | None:
        """The bibliography entry a ``source`` string refers to (its first word), if any."""
        first = source.split(maxsplit=1)[0]
        return next((entry for entry in self.sources if entry.id == first), None)


def _check_source(source: str, known_ids: set[str], field_name: str) -> None:
    """A source is ``<id>``, ``<id> <where in it>``, or free text; an id-like word must resolve."""
    words = source.split()
    first = words[0]
    if first in known_ids:
        return
    if len(words) == 1 and _SOURCE_ID.match(first):
        raise ValueError(
            f"{field_name}: source {first!r} is not in this profile's sources "
            f"(known: {', '.join(sorted(known_ids))})"
        )
