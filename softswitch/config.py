"""The software switch's typed configuration, built only from SAI objects (docs/architecture.md §6).

Load path: ``program_from_json`` -> ``validate_program`` (everything SAI metadata rejects is
rejected there, with the operation/object/attribute named) -> ``program_objects`` (final
attribute state) -> :func:`switch_config` (this module), which additionally rejects what the
software switch cannot model. Citations name the SAI header (opencomputeproject/SAI inc/) and the
attribute or type whose text they rely on, or the sonic-sairedis / sonic-swss file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from qosforge.errors import QosforgeError
from qosforge.models.dynamic_threshold import alpha_from_dynamic_th
from qosforge.models.pfc_headroom import DEFAULT_PROPAGATION_SPEED_MPS
from qosforge.softswitch.asic import AsicModel, asic_from_profile

if TYPE_CHECKING:
    # The SAI backend (and through it the vendor profiles' pydantic schemas and the IR) is
    # imported where a program is loaded: the flag-configured dumbbell builds these dataclasses
    # directly, and `qosforge simulate` starts ~0.25 s faster without them (bench/bench_startup.py).
    from qosforge.backends.sai import SaiObject, SaiProgram
    from qosforge.backends.sai.program import SaiValue

#: DSCP is a 6-bit field; TC, PG, PFC priority and queue indexes are 3-bit in every chip we model
#: (8 TCs/PGs/priorities, sonic-sairedis vslib/ "mlnx and brcm is 8").
DSCP_VALUES = 64
PRIORITIES = 8
#: sai_packet_color_t (SAI inc/saitypes.h:779).
COLORS = ("GREEN", "YELLOW", "RED")
#: Signal propagation in copper and fibre, 5 ns/m (IEEE 802.3 Table 29-3): the same value as the
#: compiler's wire and the physical headroom model (models/pfc_headroom.py).
CABLE_DELAY_S_PER_M = 1.0 / DEFAULT_PROPAGATION_SPEED_MPS

Direction = Literal["ingress", "egress", "both"]
SchedulingType = Literal["STRICT", "WRR", "DWRR"]


class SoftswitchConfigError(QosforgeError):
    """A valid SAI program that asks for something the software switch cannot model."""


@dataclass(frozen=True)
class PoolConfig:
    object_id: str
    direction: Direction
    size_bytes: int
    dynamic: bool
    xoff_size_bytes: int
    """Shared headroom pool; included in ``size_bytes`` (SAI inc/saibuffer.h)."""


@dataclass(frozen=True)
class BufferProfileConfig:
    object_id: str
    pool: str | None
    reserved_bytes: int
    dynamic_th: int | None
    """alpha = 2^dynamic_th (SAI inc/saibuffer.h, SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH); None in static mode."""
    static_th_bytes: int | None
    """0 = no limit on the shared usage (SAI inc/saibuffer.h, SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH)."""
    xoff_bytes: int
    xon_bytes: int
    xon_offset_bytes: int
    dynamic_th_special: tuple[tuple[int, float], ...] = ()
    """The emulated ASIC's exponents that mean another alpha than 2^n (its vendor profile's
    ``dynamic_th_special``: Mellanox reads 7 as infinity), filled in by :func:`switch_config`."""
    trims: bool = False
    """The profile discards by trimming (SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION =
    ..._DROP_AND_TRIM, SAI inc/saibuffer.h; "applicable only when attached to a queue")."""

    @property
    def alpha(self) -> float | None:
        """The alpha the emulated ASIC applies (models/dynamic_threshold.py ``alpha_from_dynamic_th``,
        the one conversion compile and lint use too); None in static mode."""
        if self.dynamic_th is None:
            return None
        return alpha_from_dynamic_th(self.dynamic_th, dict(self.dynamic_th_special))


@dataclass(frozen=True)
class Curve:
    """One RED curve: 0 at or below min, the chip's steps up to max, 1 above (TBTCP §6.2)."""

    enabled: bool
    min_bytes: int
    max_bytes: int
    probability: float
    """P_max as a fraction (SAI programs whole percent, SAI inc/saiwred.h)."""


@dataclass(frozen=True)
class WredConfig:
    object_id: str
    weight: int
    drop: tuple[Curve, Curve, Curve]
    """Per color (GREEN, YELLOW, RED): the <C>_ENABLE/MIN/MAX/DROP_PROBABILITY curve."""
    mark: tuple[bool, bool, bool]
    """Per color: in ECN_MARK_MODE (SAI inc/saiwred.h, sai_ecn_mark_mode_t)."""
    ect_mark: tuple[Curve, Curve, Curve]
    """Per color: ECN_<C>_MIN/MAX/MARK_PROBABILITY, each falling back to the <C>_ value (SAI inc/saiwred.h, SAI_WRED_ATTR_GREEN_DROP_PROBABILITY)."""


@dataclass(frozen=True)
class SchedulerConfig:
    object_id: str
    kind: SchedulingType
    weight: int
    max_rate_bytes_per_s: int
    """0 = no shaping (SAI inc/saischeduler.h)."""
    max_burst_bytes: int


@dataclass(frozen=True)
class QueueConfig:
    index: int
    buffer_profile: str | None
    wred: str | None
    scheduler: str | None
    pfc_deadlock_watch: bool = False
    """SAI_QUEUE_ATTR_ENABLE_PFC_DLDR: the port's deadlock detection/recovery applies to it."""


@dataclass(frozen=True)
class PgConfig:
    index: int
    buffer_profile: str | None


@dataclass(frozen=True)
class PortConfig:
    object_id: str
    name: str
    speed_bps: float
    cable_m: float
    peer: str | None
    dscp_to_tc: tuple[int, ...]
    dscp_to_color: tuple[int, ...]
    tc_to_queue: tuple[int, ...]
    tc_to_pg: tuple[int, ...]
    pfc_priority_to_pg: tuple[int, ...]
    pfc_priority_to_queue: tuple[int, ...]
    pfc_enabled: int
    """Bit vector of PFC-enabled priorities (SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL, SAI inc/saiport.h)."""
    queues: tuple[QueueConfig, ...]
    pgs: tuple[PgConfig, ...]
    port_max_rate_bytes_per_s: int
    pfc_deadlock_detection_s: tuple[float, ...] = (0.0,) * 8
    """Per TC: SAI_PORT_ATTR_PFC_TC_DLD_INTERVAL (ms in the program), 0 = not set."""
    pfc_deadlock_recovery_s: tuple[float, ...] = (0.0,) * 8
    """Per TC: SAI_PORT_ATTR_PFC_TC_DLR_INTERVAL."""

    @property
    def cable_delay_s(self) -> float:
        return self.cable_m * CABLE_DELAY_S_PER_M

    def pfc_mask_of_pg(self, pg: int) -> int:
        """Bit vector of the PFC-enabled priorities mapped to priority group ``pg``: a PG with an
        XOFF_TH and a non-empty mask is lossless (SAI inc/saibuffer.h XOFF_TH, inc/saiport.h)."""
        return sum(1 << prio for prio in range(PRIORITIES) if (self.pfc_enabled >> prio) & 1 and self.pfc_priority_to_pg[prio] == pg)


@dataclass(frozen=True)
class TrimmingConfig:
    """The switch's packet trimming (SAI inc/saiswitch.h SAI_SWITCH_ATTR_PACKET_TRIM_*): packets
    a trimming queue cannot admit are cut to ``size_bytes`` (the frame), carry ``dscp`` and go to
    queue ``queue_index``."""

    size_bytes: int
    dscp: int
    queue_index: int


@dataclass(frozen=True)
class SwitchConfig:
    name: str
    asic: AsicModel
    ect_threshold_enable: bool
    """SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE (SAI inc/saiswitch.h; the ECN_* thresholds of SAI inc/saiwred.h)."""
    pools: tuple[PoolConfig, ...]
    profiles: tuple[BufferProfileConfig, ...]
    wreds: tuple[WredConfig, ...]
    schedulers: tuple[SchedulerConfig, ...]
    ports: tuple[PortConfig, ...]
    notes: tuple[str, ...] = ()
    trimming: TrimmingConfig | None = None
    """None: the switch does not trim (no SAI_SWITCH_ATTR_PACKET_TRIM_SIZE)."""

    def port(self, name: str) -> PortConfig:
        for port in self.ports:
            if port.name == name:
                return port
        raise QosforgeError(
            f"no port {name!r} on switch {self.name}",
            place="--port",
            hint=f"ports: {', '.join(p.name for p in self.ports[:8])}{', ...' if len(self.ports) > 8 else ''}",
        )

    def profile(self, object_id: str) -> BufferProfileConfig:
        return next(p for p in self.profiles if p.object_id == object_id)

    def pool(self, object_id: str) -> PoolConfig:
        return next(p for p in self.pools if p.object_id == object_id)

    @property
    def ect_thresholds_effective(self) -> bool:
        """ECT packets use the ECN_* thresholds only if the switch enables them and the chip
        honours them (SAI inc/saiwred.h, "Valid when SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE == true")."""
        return self.ect_threshold_enable and bool(self.asic.ecn_ect_thresholds)

    @property
    def color_drop_applies_to_ect(self) -> bool:
        return bool(self.asic.color_drop_applies_to_ect)


# Attributes the switch models, and attributes it accepts without a data-path effect (with why).
_MODELLED = {
    "SAI_OBJECT_TYPE_SWITCH": {
        "SAI_SWITCH_ATTR_PORT_LIST", "SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE",
        "SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP", "SAI_SWITCH_ATTR_QOS_DSCP_TO_COLOR_MAP",
        "SAI_SWITCH_ATTR_QOS_TC_TO_QUEUE_MAP", "SAI_SWITCH_ATTR_QOS_DEFAULT_TC",
        "SAI_SWITCH_ATTR_PACKET_TRIM_SIZE", "SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE",
        "SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE",
        "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE", "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX",
    },
    "SAI_OBJECT_TYPE_PORT": {
        "SAI_PORT_ATTR_SPEED", "SAI_PORT_ATTR_QOS_QUEUE_LIST", "SAI_PORT_ATTR_INGRESS_PRIORITY_GROUP_LIST",
        "SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST", "SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP",
        "SAI_PORT_ATTR_QOS_DSCP_TO_COLOR_MAP", "SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP",
        "SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP", "SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
        "SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP", "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL",
        "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE", "SAI_PORT_ATTR_QOS_DEFAULT_TC",
        "SAI_PORT_ATTR_QOS_SCHEDULER_PROFILE_ID",
    },
    "SAI_OBJECT_TYPE_QUEUE": {"SAI_QUEUE_ATTR_BUFFER_PROFILE_ID", "SAI_QUEUE_ATTR_WRED_PROFILE_ID", "SAI_QUEUE_ATTR_SCHEDULER_PROFILE_ID"},
    "SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP": {"SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE"},
    "SAI_OBJECT_TYPE_SCHEDULER_GROUP": {"SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST", "SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID"},
    "SAI_OBJECT_TYPE_BUFFER_POOL": {"SAI_BUFFER_POOL_ATTR_TYPE", "SAI_BUFFER_POOL_ATTR_SIZE", "SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE", "SAI_BUFFER_POOL_ATTR_XOFF_SIZE"},
    "SAI_OBJECT_TYPE_BUFFER_PROFILE": {
        "SAI_BUFFER_PROFILE_ATTR_POOL_ID", "SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE",
        "SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE", "SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH",
        "SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH", "SAI_BUFFER_PROFILE_ATTR_XOFF_TH",
        "SAI_BUFFER_PROFILE_ATTR_XON_TH", "SAI_BUFFER_PROFILE_ATTR_XON_OFFSET_TH",
        "SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION",
    },
    "SAI_OBJECT_TYPE_QOS_MAP": {"SAI_QOS_MAP_ATTR_TYPE", "SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST"},
    "SAI_OBJECT_TYPE_SCHEDULER": {
        "SAI_SCHEDULER_ATTR_SCHEDULING_TYPE", "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT",
        "SAI_SCHEDULER_ATTR_METER_TYPE", "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE",
        "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_BURST_RATE", "SAI_SCHEDULER_ATTR_LABEL",
    },
}
_WRED_COLOR_ATTRS = {
    f"SAI_WRED_ATTR_{prefix}{color}_{what}{suffix}"
    for prefix in ("", "ECN_")
    for color in COLORS
    for what in ("MIN_THRESHOLD", "MAX_THRESHOLD")
    for suffix in ("", "_64")
} | {f"SAI_WRED_ATTR_{c}_{w}" for c in COLORS for w in ("ENABLE", "DROP_PROBABILITY")} | {
    f"SAI_WRED_ATTR_ECN_{c}_MARK_PROBABILITY" for c in COLORS
}
_MODELLED["SAI_OBJECT_TYPE_WRED"] = _WRED_COLOR_ATTRS | {"SAI_WRED_ATTR_WEIGHT", "SAI_WRED_ATTR_ECN_MARK_MODE"}
#: Accepted without data-path effect; the port DLD/DLR intervals and the queue's ENABLE_PFC_DLDR
#: are read into the configuration for the fabric scenarios' PFC watchdog (softswitch/engine/kernel.py).
_NO_EFFECT = {
    "SAI_PORT_ATTR_PFC_TC_DLD_INTERVAL", "SAI_PORT_ATTR_PFC_TC_DLR_INTERVAL",
    "SAI_QUEUE_ATTR_ENABLE_PFC_DLDR", "SAI_QUEUE_ATTR_PFC_DLR_INIT", "SAI_QUEUE_ATTR_PFC_DLR_PACKET_ACTION",
    "SAI_SWITCH_ATTR_PFC_DLR_PACKET_ACTION", "SAI_SWITCH_ATTR_PFC_TC_DLD_INTERVAL", "SAI_SWITCH_ATTR_PFC_TC_DLR_INTERVAL",
}


def _reject(object_id: str, attribute: str, message: str, hint: str) -> SoftswitchConfigError:
    return SoftswitchConfigError(message, place=f"{object_id} {attribute}", hint=hint)


def _neutral(value: SaiValue) -> bool:
    return value is None or value is False or value == 0 or value == () or value == ""


def _check_supported(objects: Mapping[str, SaiObject]) -> None:
    for object_id, obj in objects.items():
        modelled = _MODELLED.get(obj.object_type)
        if modelled is None:
            raise _reject(object_id, obj.object_type, "the software switch does not model this object type",
                          "remove it from the program; the switch models buffers, WRED, QoS maps, schedulers and PFC")
        for attribute, value in obj.attributes.items():
            if attribute in modelled or attribute in _NO_EFFECT or _neutral(value):
                continue
            raise _reject(object_id, attribute, f"the software switch cannot model {attribute} = {value!r}",
                          "remove the attribute or leave it at its SAI default")
        if obj.object_type == "SAI_OBJECT_TYPE_WRED":
            if "SAI_WRED_ATTR_ECN_COLOR_UNAWARE_MIN_THRESHOLD" in obj.attributes:
                raise _reject(object_id, "SAI_WRED_ATTR_ECN_COLOR_UNAWARE_MIN_THRESHOLD", "color-unaware ECT thresholds are not modelled", "use per-color ECN_<COLOR>_* thresholds")
        if obj.object_type == "SAI_OBJECT_TYPE_PORT":
            mode = obj.attributes.get("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE", "SAI_PORT_PRIORITY_FLOW_CONTROL_MODE_COMBINED")
            if mode != "SAI_PORT_PRIORITY_FLOW_CONTROL_MODE_COMBINED":
                raise _reject(object_id, "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE", "only COMBINED PFC (one bit vector for RX and TX) is modelled", "use SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL (SAI inc/saiport.h)")
        if obj.object_type == "SAI_OBJECT_TYPE_SCHEDULER":
            meter = obj.attributes.get("SAI_SCHEDULER_ATTR_METER_TYPE", "SAI_METER_TYPE_BYTES")
            if meter != "SAI_METER_TYPE_BYTES":
                raise _reject(object_id, "SAI_SCHEDULER_ATTR_METER_TYPE", "packet-rate shaping is not modelled", "use SAI_METER_TYPE_BYTES (SAI inc/saischeduler.h)")


def _int(obj: SaiObject, name: str, default: int = 0) -> int:
    value = obj.attributes.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value


def _pool(object_id: str, obj: SaiObject) -> PoolConfig:
    kind = str(obj.attributes["SAI_BUFFER_POOL_ATTR_TYPE"]).removeprefix("SAI_BUFFER_POOL_TYPE_").lower()
    direction: Direction = "ingress" if kind == "ingress" else "egress" if kind == "egress" else "both"
    mode = obj.attributes.get("SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE", "SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC")
    return PoolConfig(object_id, direction, _int(obj, "SAI_BUFFER_POOL_ATTR_SIZE"), mode == "SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC", _int(obj, "SAI_BUFFER_POOL_ATTR_XOFF_SIZE"))


def _profile(object_id: str, obj: SaiObject, chip: AsicModel) -> BufferProfileConfig:
    attrs = obj.attributes
    dynamic = attrs.get("SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE") == "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC"
    pool = attrs.get("SAI_BUFFER_PROFILE_ATTR_POOL_ID")
    return BufferProfileConfig(
        object_id=object_id,
        pool=pool if isinstance(pool, str) else None,
        reserved_bytes=_int(obj, "SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE"),
        dynamic_th=_int(obj, "SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH") if dynamic else None,
        static_th_bytes=None if dynamic else _int(obj, "SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH"),
        xoff_bytes=_int(obj, "SAI_BUFFER_PROFILE_ATTR_XOFF_TH"),
        xon_bytes=_int(obj, "SAI_BUFFER_PROFILE_ATTR_XON_TH"),
        xon_offset_bytes=_int(obj, "SAI_BUFFER_PROFILE_ATTR_XON_OFFSET_TH"),
        dynamic_th_special=chip.dynamic_th_special,
        trims=attrs.get("SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION")
        == "SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP_AND_TRIM",
    )


#: SAI inc/saiswitch.h defaults: a 128 B trimmed packet, DSCP 0, queue 0.
_TRIM_DEFAULTS = {"SAI_SWITCH_ATTR_PACKET_TRIM_SIZE": 128, "SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE": 0,
                  "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX": 0}


def _trimming(switch: SaiObject | None) -> TrimmingConfig | None:
    """The switch's trimming settings; only the static modes are modelled (a DSCP value and a
    queue index: SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_DSCP_VALUE and
    SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC, SAI inc/saiswitch.h)."""
    if switch is None or "SAI_SWITCH_ATTR_PACKET_TRIM_SIZE" not in switch.attributes:
        return None
    attrs = switch.attributes
    modes = (("SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE", "SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_DSCP_VALUE"),
             ("SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE", "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC"))
    for attribute, modelled in modes:
        if attrs.get(attribute, modelled) != modelled:
            raise _reject("switch", attribute, f"the software switch models only {modelled}",
                          f"set {attribute} to {modelled} (SAI inc/saiswitch.h)")
    values = {name: _int(switch, name, default) for name, default in _TRIM_DEFAULTS.items()}
    return TrimmingConfig(values["SAI_SWITCH_ATTR_PACKET_TRIM_SIZE"], values["SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE"],
                          values["SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX"])


def _threshold(obj: SaiObject, name: str, fallback: int, buffer_bytes: float) -> int:
    """A WRED threshold in bytes: the _64 form wins when set; 0 means the maximum buffer size
    ("Default to 0 i.e. maximum buffer size", SAI inc/saiwred.h)."""
    value = _int(obj, f"{name}_64") or _int(obj, name) or fallback
    return value if value > 0 else int(buffer_bytes)


def _wred(object_id: str, obj: SaiObject, buffer_bytes: float) -> WredConfig:
    weight = _int(obj, "SAI_WRED_ATTR_WEIGHT")
    mode = str(obj.attributes.get("SAI_WRED_ATTR_ECN_MARK_MODE", "SAI_ECN_MARK_MODE_NONE"))
    drop: list[Curve] = []
    ect: list[Curve] = []
    for color in COLORS:
        base = f"SAI_WRED_ATTR_{color}"
        minimum = _threshold(obj, f"{base}_MIN_THRESHOLD", 0, buffer_bytes)
        maximum = _threshold(obj, f"{base}_MAX_THRESHOLD", 0, buffer_bytes)
        probability = _int(obj, f"{base}_DROP_PROBABILITY", 100) / 100.0
        drop.append(Curve(bool(obj.attributes.get(f"{base}_ENABLE", False)), minimum, maximum, probability))
        # "In absence of this attribute, green ECT traffic would use SAI_WRED_ATTR_GREEN_MIN_THRESHOLD" (SAI inc/saiwred.h).
        ecn = f"SAI_WRED_ATTR_ECN_{color}"
        ect.append(Curve(
            True,
            _threshold(obj, f"{ecn}_MIN_THRESHOLD", minimum, buffer_bytes),
            _threshold(obj, f"{ecn}_MAX_THRESHOLD", maximum, buffer_bytes),
            _int(obj, f"{ecn}_MARK_PROBABILITY", round(probability * 100)) / 100.0,
        ))
    from qosforge.backends.sai.render import ecn_marked_colors

    marked = ecn_marked_colors(mode)
    return WredConfig(object_id, weight, (drop[0], drop[1], drop[2]), ("GREEN" in marked, "YELLOW" in marked, "RED" in marked), (ect[0], ect[1], ect[2]))


def _scheduler(object_id: str, obj: SaiObject) -> SchedulerConfig:
    kind = str(obj.attributes.get("SAI_SCHEDULER_ATTR_SCHEDULING_TYPE", "SAI_SCHEDULING_TYPE_WRR")).removeprefix("SAI_SCHEDULING_TYPE_")
    scheduling: SchedulingType = "STRICT" if kind == "STRICT" else "DWRR" if kind == "DWRR" else "WRR"
    weight = _int(obj, "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT", 1)
    if scheduling != "STRICT" and weight < 1:
        raise _reject(object_id, "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT", "weight 0 is invalid (\"Range [0 - 255], 0-invalid weight\", SAI inc/saischeduler.h)", "use a weight of 1 to 255")
    return SchedulerConfig(object_id, scheduling, weight, _int(obj, "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE"), _int(obj, "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_BURST_RATE"))


def _map_table(objects: Mapping[str, SaiObject], map_id: SaiValue, key_field: str, value_field: str, size: int, default: int, limit: int, where: str) -> tuple[int, ...]:
    """A QoS map as a lookup table; keys absent from the map take ``default``."""
    from qosforge.backends.sai import QosMapEntry

    table = [default] * size
    if not isinstance(map_id, str):
        return tuple(table)
    entries = objects[map_id].attributes.get("SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST", ())
    assert isinstance(entries, tuple)
    for entry in entries:
        assert isinstance(entry, QosMapEntry)
        key, value = dict(entry.key), dict(entry.value)
        k = int(key.get(key_field, 0))
        raw = value.get(value_field, 0 if value_field != "color" else "SAI_PACKET_COLOR_GREEN")
        v = COLORS.index(str(raw).removeprefix("SAI_PACKET_COLOR_")) if value_field == "color" else int(raw)
        if not 0 <= k < size or not 0 <= v < limit:
            raise _reject(map_id, "SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST", f"entry {key_field} {k} -> {value_field} {v} is outside what the switch has ({where})", f"keys 0..{size - 1}, values 0..{limit - 1}")
        table[k] = v
    return tuple(table)


def _schedulers_of_queues(objects: Mapping[str, SaiObject], port_id: str) -> dict[str, str]:
    """Queue id -> scheduler id: a group's SCHEDULER_PROFILE_ID applies to the queues in its
    CHILD_LIST (orchagent's QosOrch::getSchedulerGroup, sonic-swss orchagent/qosorch.cpp); a queue's own attribute wins."""
    result: dict[str, str] = {}
    groups = objects[port_id].attributes.get("SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST", ())
    assert isinstance(groups, tuple)
    for group_id in groups:
        group = objects.get(str(group_id))
        if group is None:
            continue
        scheduler = group.attributes.get("SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID")
        children = group.attributes.get("SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST", ())
        if isinstance(scheduler, str) and isinstance(children, tuple):
            for child in children:
                result[str(child)] = scheduler
    return result


def _port(program: SaiProgram, objects: Mapping[str, SaiObject], index: int) -> PortConfig:
    context = program.ports[index]
    obj = objects[context.object_id]
    switch = objects.get("switch")
    attrs = obj.attributes

    def bound(port_attr: str, switch_attr: str | None = None) -> SaiValue:
        value = attrs.get(port_attr)
        if value is None and switch_attr is not None and switch is not None:
            value = switch.attributes.get(switch_attr)
        return value

    default_tc = _int(obj, "SAI_PORT_ATTR_QOS_DEFAULT_TC", _int(switch, "SAI_SWITCH_ATTR_QOS_DEFAULT_TC") if switch else 0)
    queue_ids = attrs.get("SAI_PORT_ATTR_QOS_QUEUE_LIST", ())
    pg_ids = attrs.get("SAI_PORT_ATTR_INGRESS_PRIORITY_GROUP_LIST", ())
    assert isinstance(queue_ids, tuple) and isinstance(pg_ids, tuple)
    unicast = program.inventory.unicast_queues
    schedulers = _schedulers_of_queues(objects, context.object_id)
    queues = []
    for position, queue_id in enumerate(queue_ids[:unicast]):
        queue = objects[str(queue_id)].attributes
        profile = queue.get("SAI_QUEUE_ATTR_BUFFER_PROFILE_ID")
        wred = queue.get("SAI_QUEUE_ATTR_WRED_PROFILE_ID")
        own = queue.get("SAI_QUEUE_ATTR_SCHEDULER_PROFILE_ID")
        scheduler = own if isinstance(own, str) else schedulers.get(str(queue_id))
        queues.append(QueueConfig(position, profile if isinstance(profile, str) else None, wred if isinstance(wred, str) else None, scheduler,
                                  queue.get("SAI_QUEUE_ATTR_ENABLE_PFC_DLDR") is True))
    pgs = []
    for position, pg_id in enumerate(pg_ids):
        profile = objects[str(pg_id)].attributes.get("SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE")
        pgs.append(PgConfig(position, profile if isinstance(profile, str) else None))
    n_queues, n_pgs = len(queues), max(len(pgs), 1)
    port_scheduler = attrs.get("SAI_PORT_ATTR_QOS_SCHEDULER_PROFILE_ID")
    # "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE & ..._BURST_RATE attributes alone valid" on a port (SAI inc/saiport.h).
    port_rate = _int(objects[port_scheduler], "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE") if isinstance(port_scheduler, str) else 0
    where = f"port {context.name}"
    return PortConfig(
        object_id=context.object_id,
        name=context.name,
        speed_bps=float(context.speed_bps),
        cable_m=float(context.cable_m),
        peer=context.peer,
        # DSCP -> TC: port map, else switch map, else the default TC (SAI inc/saiport.h SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP, inc/saiswitch.h).
        dscp_to_tc=_map_table(objects, bound("SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP", "SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP"), "dscp", "tc", DSCP_VALUES, default_tc, PRIORITIES, where),
        # DSCP -> color: unmapped packets are GREEN (SAI inc/saiqosmap.h:123).
        dscp_to_color=_map_table(objects, bound("SAI_PORT_ATTR_QOS_DSCP_TO_COLOR_MAP", "SAI_SWITCH_ATTR_QOS_DSCP_TO_COLOR_MAP"), "dscp", "color", DSCP_VALUES, 0, len(COLORS), where),
        # TC -> queue: "Default no map, i.e. all packets to queue 0" (SAI inc/saiport.h:1685, SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP).
        tc_to_queue=_map_table(objects, bound("SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP", "SAI_SWITCH_ATTR_QOS_TC_TO_QUEUE_MAP"), "tc", "qidx", PRIORITIES, 0, n_queues, where),
        tc_to_pg=_map_table(objects, bound("SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP"), "tc", "pg", PRIORITIES, 0, n_pgs, where),
        pfc_priority_to_pg=_map_table(objects, bound("SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"), "prio", "pg", PRIORITIES, 0, n_pgs, where),
        pfc_priority_to_queue=_map_table(objects, bound("SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP"), "prio", "qidx", PRIORITIES, 0, n_queues, where),
        pfc_enabled=_int(obj, "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"),
        queues=tuple(queues),
        pgs=tuple(pgs),
        port_max_rate_bytes_per_s=port_rate,
        pfc_deadlock_detection_s=_interval_by_tc(attrs.get("SAI_PORT_ATTR_PFC_TC_DLD_INTERVAL")),
        pfc_deadlock_recovery_s=_interval_by_tc(attrs.get("SAI_PORT_ATTR_PFC_TC_DLR_INTERVAL")),
    )


def _interval_by_tc(value: SaiValue) -> tuple[float, ...]:
    """A PFC_TC_DLD/DLR_INTERVAL map list (TC -> milliseconds, SAI inc/saiport.h) per TC in seconds."""
    from qosforge.backends.sai.program import MapListEntry

    seconds = [0.0] * PRIORITIES
    if isinstance(value, tuple):
        for entry in value:
            if isinstance(entry, MapListEntry) and 0 <= entry.key < PRIORITIES:
                seconds[entry.key] = entry.value / 1000.0
    return tuple(seconds)


def _check_modelable(config: SwitchConfig) -> None:
    asic = config.asic
    uses_wred = any(q.wred is not None for p in config.ports for q in p.queues)
    if uses_wred and asic.red is None:
        raise _reject(f"vendor profile {asic.name}", "red.steps", "queues use WRED but the profile does not state the chip's RED step quantisation", "state it with --assume red.steps=N --assume red.step_offset=C")
    if config.ect_threshold_enable:
        for field, known in (("ecn_ect_thresholds", asic.ecn_ect_thresholds), ("color_drop_applies_to_ect", asic.color_drop_applies_to_ect)):
            if known is None:
                raise _reject(f"vendor profile {asic.name}", field, "SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE is set but the profile does not say how the chip treats ECT packets", f"state it with --assume {field}=true|false")
    for profile in config.profiles:
        if profile.pool is None:
            raise _reject(profile.object_id, "SAI_BUFFER_PROFILE_ATTR_POOL_ID", "a profile without a pool is not modelled (it only applies to global port buffers, SAI inc/saibuffer.h)", "give the profile a buffer pool")
    for port in config.ports:
        if not port.speed_bps > 0:
            raise _reject(port.object_id, "speed_bps", "a port needs a positive speed", "set the port's speed in the program's ports")
        if len(port.queues) == 0:
            raise _reject(port.object_id, "SAI_PORT_ATTR_QOS_QUEUE_LIST", "the port has no unicast queues", "discover the port's queues")
        for pg in port.pgs:
            if pg.buffer_profile is None:
                continue
            profile = config.profile(pg.buffer_profile)
            pool = config.pool(profile.pool or "")
            if pool.direction == "egress":
                raise _reject(f"ipg:{port.name}:{pg.index}", "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE", f"profile {profile.object_id} is in egress pool {pool.object_id}", "use an ingress pool for priority groups")
        for queue in port.queues:
            if queue.buffer_profile is not None:
                pool = config.pool(config.profile(queue.buffer_profile).pool or "")
                if pool.direction == "ingress":
                    raise _reject(f"queue:{port.name}:{queue.index}", "SAI_QUEUE_ATTR_BUFFER_PROFILE_ID", f"profile {queue.buffer_profile} is in ingress pool {pool.object_id}", "use an egress pool for queues")


def switch_config(program: SaiProgram, objects: Mapping[str, SaiObject], asic: AsicModel | None = None) -> SwitchConfig:
    """The typed configuration of a validated program's final object state."""
    _check_supported(objects)
    chip = asic if asic is not None else asic_from_profile(program.vendor_profile)
    by_type: dict[str, list[tuple[str, SaiObject]]] = {}
    for object_id, obj in objects.items():
        by_type.setdefault(obj.object_type, []).append((object_id, obj))
    switch = objects.get("switch")
    ect_enable = bool(switch.attributes.get("SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE", False)) if switch else False
    config = SwitchConfig(
        name=program.switch_name,
        asic=chip,
        ect_threshold_enable=ect_enable,
        pools=tuple(_pool(i, o) for i, o in by_type.get("SAI_OBJECT_TYPE_BUFFER_POOL", [])),
        profiles=tuple(_profile(i, o, chip) for i, o in by_type.get("SAI_OBJECT_TYPE_BUFFER_PROFILE", [])),
        wreds=tuple(_wred(i, o, chip.buffer_bytes) for i, o in by_type.get("SAI_OBJECT_TYPE_WRED", [])),
        schedulers=tuple(_scheduler(i, o) for i, o in by_type.get("SAI_OBJECT_TYPE_SCHEDULER", [])),
        ports=tuple(_port(program, objects, i) for i in range(len(program.ports))),
        notes=program.notes,
        trimming=_trimming(switch),
    )
    _check_modelable(config)
    return config


def load_switch_program(program: SaiProgram, *, assume: Mapping[str, str] | None = None) -> SwitchConfig:
    """Validate a program as SAI would, then build the switch configuration (``assume``: values
    for vendor-profile fields the profile leaves unknown, see :func:`asic_from_profile`)."""
    from qosforge.backends.sai import program_objects, validate_program

    validate_program(program)
    objects = program_objects(program)
    return switch_config(program, objects, asic_from_profile(program.vendor_profile, assume))


def load_switch_json(text: str, *, source: str = "<sai json>", assume: Mapping[str, str] | None = None) -> SwitchConfig:
    """The switch configuration of a ``qosforge.sai/1`` document (the SAI backend's JSON)."""
    from qosforge.backends.sai import program_from_json

    return load_switch_program(program_from_json(text, source=source), assume=assume)


__all__ = [
    "CABLE_DELAY_S_PER_M",
    "COLORS",
    "BufferProfileConfig",
    "Curve",
    "PgConfig",
    "PoolConfig",
    "PortConfig",
    "QueueConfig",
    "SchedulerConfig",
    "SoftswitchConfigError",
    "SwitchConfig",
    "WredConfig",
    "load_switch_json",
    "load_switch_program",
    "switch_config",
]
