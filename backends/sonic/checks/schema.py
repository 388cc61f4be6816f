"""The config_db schema the validator knows: field types, mandatory fields, map tables, key kinds.

Types, ranges, enums and patterns are SONiC's YANG models (sonic-buildimage
``src/sonic-yang-models/yang-models/sonic-buffer-*.yang``, ``sonic-wred-profile.yang``,
``sonic-scheduler.yang``, ``sonic-port-qos-map.yang``, ``sonic-pfcwd.yang``, the map tables'
``sonic-*-map.yang``); the runtime constraints are orchagent's (sonic-swss ``orchagent/qosorch.cpp``,
``bufferorch.cpp``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from qosforge.backends.sonic.keys import PFC_LIST_PATTERN

_UINT32_MAX = 2**32 - 1
_UINT64_MAX = 2**64 - 1
#: orchagent parses WRED thresholds with stoi into SAI u32 attributes (orchagent/qosorch.cpp).
WRED_THRESHOLD_LIMIT = 2**31
#: Hard-coded in buffermgrd and the Lua headroom plugins (sonic-swss cfgmgr/buffermgr.cpp).
LOSSLESS_POOL = "ingress_lossless_pool"
WRED_COLORS = ("green", "yellow", "red")


@dataclass(frozen=True)
class Num:
    low: int
    high: int
    signed: bool = False


@dataclass(frozen=True)
class EnumSpec:
    values: tuple[str, ...]


@dataclass(frozen=True)
class BoolSpec:
    pass


@dataclass(frozen=True)
class Ref:
    table: str
    allow_null: bool = False


@dataclass(frozen=True)
class RefList:
    table: str


@dataclass(frozen=True)
class PatternSpec:
    regex: re.Pattern[str]
    what: str


FieldSpec: TypeAlias = "Num | EnumSpec | BoolSpec | Ref | RefList | PatternSpec"

U64 = Num(0, _UINT64_MAX)
U32 = Num(0, _UINT32_MAX)
PFC_LIST = PatternSpec(PFC_LIST_PATTERN, "comma-separated priorities 0-7 without spaces")

WRED_FIELDS: dict[str, FieldSpec] = {"ecn": EnumSpec((
    "ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red",
    "ecn_yellow_red", "ecn_all"))}
for _color in WRED_COLORS:
    WRED_FIELDS[f"{_color}_min_threshold"] = U64
    WRED_FIELDS[f"{_color}_max_threshold"] = U64
    WRED_FIELDS[f"{_color}_drop_probability"] = Num(0, 100)
    WRED_FIELDS[f"wred_{_color}_enable"] = BoolSpec()

#: Per table: key kind and field specs (entry tables); map tables are in MAP_TABLES.
FIELDS: dict[str, dict[str, FieldSpec]] = {
    "BUFFER_POOL": {"type": EnumSpec(("ingress", "egress", "both")), "mode": EnumSpec(("static", "dynamic")),
                    "size": U64, "xoff": U64, "percentage": Num(0, 255)},
    "BUFFER_PROFILE": {"pool": Ref("BUFFER_POOL"), "size": U64, "dynamic_th": Num(-8, 7, True),
                       "static_th": U64, "xon": U64, "xon_offset": U64, "xoff": U64,
                       "headroom_type": EnumSpec(("static", "dynamic")),
                       "packet_discard_action": EnumSpec(("drop", "trim"))},
    "BUFFER_PG": {"profile": Ref("BUFFER_PROFILE", allow_null=True)},
    "BUFFER_QUEUE": {"profile": Ref("BUFFER_PROFILE")},
    "BUFFER_PORT_INGRESS_PROFILE_LIST": {"profile_list": RefList("BUFFER_PROFILE")},
    "BUFFER_PORT_EGRESS_PROFILE_LIST": {"profile_list": RefList("BUFFER_PROFILE")},
    "WRED_PROFILE": WRED_FIELDS,
    "QUEUE": {"scheduler": Ref("SCHEDULER"), "wred_profile": Ref("WRED_PROFILE")},
    "SCHEDULER": {"type": EnumSpec(("DWRR", "WRR", "STRICT")), "weight": Num(1, 100),
                  "priority": Num(0, 9), "meter_type": EnumSpec(("packets", "bytes")),
                  "cir": U64, "cbs": U32, "pir": U64, "pbs": U32},
    "PORT_QOS_MAP": {"dscp_to_tc_map": Ref("DSCP_TO_TC_MAP"),
                     "dot1p_to_tc_map": Ref("DOT1P_TO_TC_MAP"),
                     "tc_to_queue_map": Ref("TC_TO_QUEUE_MAP"),
                     "tc_to_pg_map": Ref("TC_TO_PRIORITY_GROUP_MAP"),
                     "pfc_to_pg_map": Ref("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"),
                     "pfc_to_queue_map": Ref("MAP_PFC_PRIORITY_TO_QUEUE"),
                     "tc_to_dscp_map": Ref("TC_TO_DSCP_MAP"),
                     "scheduler": Ref("SCHEDULER"),
                     "pfc_enable": PFC_LIST, "pfcwd_sw_enable": PFC_LIST},
    "PFC_WD": {"action": EnumSpec(("drop", "forward", "alert")),
               "detection_time": Num(100, 5000), "restoration_time": Num(100, 60000),
               "pfc_stat_history": PatternSpec(re.compile(r"enable|disable"), "enable or disable"),
               "POLL_INTERVAL": Num(100, 1000)},
    # sonic-trimming.yang: size uint32; dscp_value union uint8 0..63 | "from-tc"; tc_value uint8;
    # queue_index union uint8 | "dynamic".
    "SWITCH_TRIMMING": {"size": U32,
                        "dscp_value": PatternSpec(re.compile(r"6[0-3]|[1-5]?[0-9]|from-tc"), "a DSCP 0-63 or from-tc"),
                        "tc_value": Num(0, 255),
                        "queue_index": PatternSpec(re.compile(r"25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]|dynamic"),
                                                   "a queue index 0-255 or dynamic")},
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": {"default_dynamic_th": Num(-8, 7, True),
                                          "over_subscribe_ratio": Num(0, 2**16 - 1)},
    "LOSSLESS_TRAFFIC_PATTERN": {"mtu": Num(1, 9216), "small_packet_percentage": Num(0, 100)},
    # sonic-flex_counter.yang: FLEX_COUNTER_STATUS flex_status, FLEX_COUNTER_DELAY_STATUS
    # stypes:boolean_type, POLL_INTERVAL poll_interval (uint32 100..4294967295, milliseconds).
    "FLEX_COUNTER_TABLE": {"FLEX_COUNTER_STATUS": EnumSpec(("enable", "disable")),
                           "FLEX_COUNTER_DELAY_STATUS": PatternSpec(re.compile(r"false|true|False|True"), "true or false"),
                           "POLL_INTERVAL": Num(100, 2**32 - 1)},
}

#: FLEX_COUNTER_TABLE's keys: the group containers of sonic-buildimage
#: src/sonic-yang-models/yang-models/sonic-flex_counter.yang (FLEX_COUNTER_TABLE is a container of
#: containers, not a list: any other key is unknown to YANG). Groups without POLL_INTERVAL there
#: take their period elsewhere (PFCWD: PFC_WD|GLOBAL POLL_INTERVAL).
FLEX_COUNTER_GROUPS = frozenset({
    "ACL", "BUFFER_POOL_WATERMARK", "DASH_METER", "DEBUG_COUNTER", "ENI", "FLOW_CNT_ROUTE", "FLOW_CNT_TRAP", "HA_SET",
    "ICMP_SESSION", "PFCWD", "PG_DROP", "PG_WATERMARK", "PORT", "PORT_BUFFER_DROP", "PORT_PHY_ATTR", "PORT_RATES",
    "QUEUE", "QUEUE_WATERMARK", "RIF", "RIF_RATES", "SRV6", "SWITCH", "TUNNEL", "WRED_ECN_PORT", "WRED_ECN_QUEUE",
})
FLEX_COUNTER_GROUPS_WITHOUT_POLL = frozenset({"DEBUG_COUNTER", "PFCWD", "PORT_RATES", "RIF_RATES"})

#: Fields YANG marks mandatory or orchagent needs on create (sonic-yang-models
#: sonic-buffer-pool, sonic-buffer-profile, sonic-buffer-pg, sonic-pfcwd, sonic-default-lossless-buffer-parameter,
#: sonic-lossless-traffic-pattern .yang; sonic-swss orchagent/bufferorch.cpp).
MANDATORY: dict[str, tuple[str, ...]] = {
    "BUFFER_POOL": ("type", "mode"),
    "BUFFER_PROFILE": ("pool", "size"),
    "BUFFER_PG": ("profile",),
    "BUFFER_QUEUE": ("profile",),
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": ("default_dynamic_th",),
    "LOSSLESS_TRAFFIC_PATTERN": ("mtu", "small_packet_percentage"),
}

Range: TypeAlias = tuple[int, int]
#: Type-1 map tables (sonic-buildimage src/sonic-yang-mgmt/sonic_yang_ext.py Type_1_list_maps_model): (source key range, destination value range).
MAP_TABLES: dict[str, tuple[str, Range, str, Range]] = {
    "DSCP_TO_TC_MAP": ("dscp", (0, 63), "tc", (0, 15)),
    "DOT1P_TO_TC_MAP": ("dot1p", (0, 7), "tc", (0, 15)),
    "TC_TO_QUEUE_MAP": ("tc", (0, 15), "qindex", (0, 9)),
    "TC_TO_PRIORITY_GROUP_MAP": ("tc", (0, 15), "pg", (0, 7)),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": ("pfc_priority", (0, 7), "pg", (0, 7)),
    "MAP_PFC_PRIORITY_TO_QUEUE": ("pfc_priority", (0, 7), "qindex", (0, 7)),
    "TC_TO_DSCP_MAP": ("tc", (0, 15), "dscp", (0, 63)),
}
#: Map tables whose YANG list key carries the name pattern (sonic-yang-models sonic-dscp-tc-map.yang, sonic-dot1p-tc-map.yang).
PATTERNED_MAP_NAMES = frozenset({"DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP"})

#: Key layout per entry table.
KEY_KIND: dict[str, str] = {
    "BUFFER_POOL": "name", "BUFFER_PROFILE": "name", "SCHEDULER": "name",
    "WRED_PROFILE": "pattern_name",
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": "pattern_name", "LOSSLESS_TRAFFIC_PATTERN": "pattern_name",
    "BUFFER_PG": "port_pg", "BUFFER_QUEUE": "port_queue", "QUEUE": "port_qindex",
    "BUFFER_PORT_INGRESS_PROFILE_LIST": "port", "BUFFER_PORT_EGRESS_PROFILE_LIST": "port",
    "PORT_QOS_MAP": "port_or_global", "PFC_WD": "port_or_GLOBAL",
    "FLEX_COUNTER_TABLE": "flex_group",
    "SWITCH_TRIMMING": "GLOBAL",
}

#: The QoS/buffer tables this validator understands (the CONFIG_DB tables sonic-swss orchagent/orchdaemon.cpp
#: and cfgmgr/buffermgr.cpp read; the table list of sonic-utilities config/main.py _clear_qos).
QOS_TABLES = frozenset({*FIELDS, *MAP_TABLES, "CABLE_LENGTH"})
#: Read-only context tables (port names / speed, buffer model); not validated field by field.
CONTEXT_TABLES = frozenset({"PORT", "DEVICE_METADATA"})
#: Likely mistakes -> the right name (sonic-swss-common common/schema.h CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME).
TABLE_TRAPS: Mapping[str, str] = {"PFC_PRIORITY_TO_QUEUE_MAP": "MAP_PFC_PRIORITY_TO_QUEUE"}
FIELD_TRAPS = {
    ("PFC_WD", "BIG_RED_SWITCH"): "BIG_RED_SWITCH is handled by orchagent but not in the YANG model",
    ("PORT_QOS_MAP", "pfc_to_priority_group_map"): "the field is pfc_to_pg_map",
    ("PORT_QOS_MAP", "tc_to_priority_group_map"): "the field is tc_to_pg_map",
}



#: QoS/buffer table names plus the context tables the checks read.
KNOWN_TABLES = frozenset(QOS_TABLES | CONTEXT_TABLES)
#: How close a table name must be to a QoS/buffer table name to be reported as a misspelling
#: (difflib ratio; BUFER_POOL vs BUFFER_POOL is 0.95, BUFFER_PORT vs BUFFER_POOL 0.82).
NEAR_MISS_RATIO = 0.85


def near_miss_table(name: str) -> str | None:
    """The QoS/buffer table ``name`` misspells (a known trap or a near-miss), None otherwise.

    Only near-misses of the QoS/buffer tables count: a whole config_db holds ~100 other SONiC
    tables (sonic-yang-models), which are none of lint's business."""
    from qosforge.backends.sonic.tables import SONIC_TABLES

    if name in KNOWN_TABLES or name in SONIC_TABLES:
        return None
    trap = TABLE_TRAPS.get(name)
    if trap is not None:
        return trap
    import difflib

    matches = difflib.get_close_matches(name.upper(), sorted(QOS_TABLES), n=1, cutoff=NEAR_MISS_RATIO)
    return matches[0] if matches else None


def field_kind(table: str, field: str) -> str | None:
    """The YANG kind of ``table.field`` for tools (``qosforge lint --fix``): ``integer``,
    ``enum``, ``boolean``, ``reference``, ``reference-list``, ``priority-list``, ``pattern``,
    or None for a field the table does not have."""
    spec = FIELDS.get(table, {}).get(field)
    if spec is None:
        return None
    if spec is PFC_LIST:
        return "priority-list"
    kinds: dict[type, str] = {Num: "integer", EnumSpec: "enum", BoolSpec: "boolean", Ref: "reference",
                              RefList: "reference-list", PatternSpec: "pattern"}
    return kinds[type(spec)]


def enum_values(table: str, field: str) -> tuple[str, ...]:
    """The allowed values of an enum field (empty for any other field)."""
    spec = FIELDS.get(table, {}).get(field)
    return spec.values if isinstance(spec, EnumSpec) else ()


def map_tables() -> frozenset[str]:
    """The Type-1 map tables: ``{map name: {from: to}}``."""
    return frozenset(MAP_TABLES)


def ecn_colors(ecn: str) -> frozenset[str]:
    """Colors an ``ecn`` enum value marks (``ecn_all`` -> all three, ``ecn_none`` -> none)."""
    if ecn == "ecn_all":
        return frozenset(WRED_COLORS)
    return frozenset(part for part in ecn.removeprefix("ecn_").split("_") if part in WRED_COLORS)
