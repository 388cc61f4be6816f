"""Validate a SONiC CONFIG_DB QoS/buffer fragment against what SONiC accepts.

:func:`check_config_db` is a pure function of the ``config_db.json`` dict (table -> key -> field
-> value). It implements the encoding rules of the SONiC YANG models (sonic-buildimage src/sonic-yang-models/yang-models), the YANG types,
ranges, enums, patterns and ``must`` constraints of §3, the runtime (orchagent / buffermgrd)
behaviour noted there, and every item of the §7 compiler checklist that can be decided from the
dict alone. The renderer (:mod:`qosforge.backends.sonic.render`) runs it on its own output and
treats any violation as a bug; ``qosforge lint`` reuses it on configs found on switches.

The validator understands the QoS/buffer tables (:data:`QOS_TABLES`) plus ``PORT`` and
``DEVICE_METADATA`` (read for port names, ``speed`` and ``buffer_model``). Any other table is an
``unknown-table`` violation, so a linter that loads a whole switch config should pass
:func:`qos_subset` of it. The rule ids are stable (:data:`RULES` documents each one).

Not decidable here (no PORT/ASIC data in the dict): queue/PG indices against the port's real
queue count, headroom against ``max_headroom_size``. ``pool-overcommit`` needs the ASIC buffer
size, given as ``asic_buffer_bytes``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

ConfigDb: TypeAlias = dict[str, dict[str, dict[str, str]]]

#: Rule id -> what it enforces and where the requirement comes from (the SONiC sources (sonic-buildimage, sonic-swss)).
RULES: dict[str, str] = {
    "structure": "config_db is {table: {key: {field: value}}} (§2)",
    "value-not-string": "every value is a JSON string (§2.1, §7.1)",
    "unknown-table": "only known QoS/buffer table names; MAP_PFC_PRIORITY_TO_QUEUE, not "
    "PFC_PRIORITY_TO_QUEUE_MAP (§2.10, §7.4, §7.14)",
    "unknown-field": "no field outside the table's YANG model; orchagent rejects unknown SCHEDULER/"
    "WRED fields, YANG rejects all (§2.9, §7.14)",
    "missing-field": "YANG-mandatory fields and fields orchagent needs are present (§3)",
    "bad-key": "key shape: PG `[0-7](-[0-7])?`, queue `(1[0-5]|[0-9])(-…)?`, names, N<=M (§2.7, §3)",
    "multi-port-key": "one port per key; YANG keys on a single port leafref (§2.8, §7.2)",
    "bracket-reference": "references are bare names, never `[TABLE|name]` (§2.3, §7.3)",
    "dangling-reference": "every reference resolves to an existing object (§3 leafrefs)",
    "bad-integer": "integer fields are decimal integers (§7.1)",
    "out-of-range": "YANG ranges: dynamic_th -8..7, weight 1..100, drop probability 0..100, "
    "PFC_WD times, DSCP 0..63, TC 0..15, PG/priority 0..7, queue 0..9, uint32/uint64 (§3)",
    "bad-enum": "YANG enumerations (pool type/mode, scheduler type, ecn, PFC_WD action, ...) (§3)",
    "bad-boolean": "booleans are exactly 'true'/'false' (§3.6, orchagent convertBool)",
    "bad-pattern": "YANG patterns: names `[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}`, pfc_enable "
    "`([0-7](,[0-7])*)?`, cable length `[0-9]+m`, pfc_stat_history (§3)",
    "wred-threshold-overflow": "WRED thresholds < 2^31 (orchagent stoi -> SAI u32) (§3.6, §7.7)",
    "wred-min-gt-max": "WRED min <= max per color (YANG must + orchagent) (§3.6, §7.7)",
    "wred-color-consistency": "thresholds only for colors that drop or mark (SAI @validonly; "
    "sonic-mgmt #26163) and both thresholds for every such color (§3.6, §6 #10)",
    "threshold-mode": "exactly one of dynamic_th / static_th per BUFFER_PROFILE (§3.2, §7.9)",
    "threshold-mode-pool": "dynamic buffer model: threshold field matches the pool mode (§3.2)",
    "scheduler-priority": "SCHEDULER never has `priority` (orchagent: Unknown field) (§3.8, §7.8)",
    "scheduler-rates": "cbs/pir need cir > 0, pir >= cir, pbs needs pir and pbs >= cbs (§3.8, §7.8)",
    "pfcwd-placement": "POLL_INTERVAL only on PFC_WD|GLOBAL, port fields never there (§3.17)",
    "pfcwd-poll-interval": "detection_time and restoration_time >= POLL_INTERVAL (§3.17, §7.13)",
    "pfcwd-priorities": "pfcwd_sw_enable priorities are PFC-enabled (§3.16)",
    "lossless-pool-name": "lossless (xoff) profiles use `ingress_lossless_pool` (§3.1, §7.5)",
    "profile-direction": "PG profiles on ingress pools, queue profiles on egress pools, xoff "
    "profiles never on egress pools (§3.3, §3.2 buffermgrdyn)",
    "overlapping-keys": "PG/queue key ranges of one port do not overlap (§2.7)",
    "dscp-map-incomplete": "DSCP_TO_TC_MAP lists all 64 code points (unmapped DSCP behaviour is "
    "ASIC-defined, §3.9, §9)",
    "port-qos-global": "PORT_QOS_MAP|global only carries dscp_to_tc_map (sonic-swss orchagent/qosorch.cpp)",
    "lossless-chain": "every PFC priority has the full chain: maps, lossless PG with xoff, egress "
    "queue, matching TC->queue, a DSCP reaching it, CABLE_LENGTH, pfcwd_sw_enable (sonic-swss orchagent/pfcwdorch.cpp)",
    "pool-size": "traditional model: BUFFER_POOL has size; percentage only in the dynamic model "
    "and never with size (sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-pool.yang, the SONiC sources, sonic-swss PR #1975)",
    "null-profile": "BUFFER_PG profile NULL only in the dynamic buffer model (sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-pg.yang, the SONiC sources)",
    "pool-overcommit": "sum of ingress pool sizes + xoff, and every single pool, fit the ASIC "
    "buffer (the SONiC sources, sonic-buildimage #28657)",
    "traditional-pg-overwrite": "traditional model: user lossless PGs are exactly what buffermgrd "
    "would write (key from pfc_enable, profile pg_lossless_<speed>_<cable>_profile), else "
    "buffermgrd overwrites them (§4.3, §7.10)",
    "single-entry": "CABLE_LENGTH / LOSSLESS_TRAFFIC_PATTERN / DEFAULT_LOSSLESS_BUFFER_PARAMETER "
    "have exactly one entry (§3.18-3.20)",
}


@dataclass(frozen=True)
class Violation:
    """One broken rule: ``rule`` is a key of :data:`RULES`; ``field`` is None for key/entry rules."""

    rule: str
    table: str
    key: str
    field: str | None
    message: str

    def one_line(self) -> str:
        where = f"{self.table}|{self.key}" if self.key else self.table
        if self.field is not None:
            where += f".{self.field}"
        return f"[{self.rule}] {where}: {self.message}"


# ---------------------------------------------------------------------------------------------
# Field schema (YANG types from the SONiC YANG models (sonic-buildimage src/sonic-yang-models/yang-models))

_UINT32_MAX = 2**32 - 1
_UINT64_MAX = 2**64 - 1
#: orchagent parses WRED thresholds with stoi into SAI u32 attributes (§3.6).
WRED_THRESHOLD_LIMIT = 2**31
#: YANG name pattern of WRED_PROFILE, DSCP_TO_TC_MAP, DOT1P_TO_TC_MAP, CABLE_LENGTH, ... (§3.6, §3.9).
NAME_PATTERN = re.compile(r"[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}")
PG_KEY_PATTERN = re.compile(r"([0-7])(?:-([0-7]))?")  # §3.3
QUEUE_KEY_PATTERN = re.compile(r"(1[0-5]|[0-9])(?:-(1[0-5]|[0-9]))?")  # §3.4
QUEUE_INDEX_PATTERN = re.compile(r"([0-9]+)(?:-([0-9]+))?")  # QUEUE.qindex: N or N-M (§3.7)
PFC_LIST_PATTERN = re.compile(r"([0-7](,[0-7])*)?")  # §3.16
CABLE_PATTERN = re.compile(r"[0-9]+m")  # §3.18
_UINT = re.compile(r"[0-9]+")
_INT = re.compile(r"-?[0-9]+")
#: buffermgrd's name for the profile it generates per port (§4.3).
TRADITIONAL_PG_PROFILE = re.compile(r"pg_lossless_([0-9]+)_([0-9]+m)_profile")
LOSSLESS_POOL = "ingress_lossless_pool"  # hard-coded in buffermgrd and the Lua plugins (§3.1)
WRED_COLORS = ("green", "yellow", "red")


@dataclass(frozen=True)
class _Num:
    low: int
    high: int
    signed: bool = False


@dataclass(frozen=True)
class _Enum:
    values: tuple[str, ...]


@dataclass(frozen=True)
class _Bool:
    pass


@dataclass(frozen=True)
class _Ref:
    table: str
    allow_null: bool = False


@dataclass(frozen=True)
class _RefList:
    table: str


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    what: str


_FieldSpec: TypeAlias = "_Num | _Enum | _Bool | _Ref | _RefList | _Pattern"

_U64 = _Num(0, _UINT64_MAX)
_U32 = _Num(0, _UINT32_MAX)
_PFC_LIST = _Pattern(PFC_LIST_PATTERN, "comma-separated priorities 0-7 without spaces")

_WRED_FIELDS: dict[str, _FieldSpec] = {"ecn": _Enum((
    "ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red",
    "ecn_yellow_red", "ecn_all"))}
for _color in WRED_COLORS:
    _WRED_FIELDS[f"{_color}_min_threshold"] = _U64
    _WRED_FIELDS[f"{_color}_max_threshold"] = _U64
    _WRED_FIELDS[f"{_color}_drop_probability"] = _Num(0, 100)
    _WRED_FIELDS[f"wred_{_color}_enable"] = _Bool()

#: Per table: key kind and field specs (entry tables); map tables are in _MAP_TABLES.
_FIELDS: dict[str, dict[str, _FieldSpec]] = {
    "BUFFER_POOL": {"type": _Enum(("ingress", "egress", "both")), "mode": _Enum(("static", "dynamic")),
                    "size": _U64, "xoff": _U64, "percentage": _Num(0, 255)},
    "BUFFER_PROFILE": {"pool": _Ref("BUFFER_POOL"), "size": _U64, "dynamic_th": _Num(-8, 7, True),
                       "static_th": _U64, "xon": _U64, "xon_offset": _U64, "xoff": _U64,
                       "headroom_type": _Enum(("static", "dynamic")),
                       "packet_discard_action": _Enum(("drop", "trim"))},
    "BUFFER_PG": {"profile": _Ref("BUFFER_PROFILE", allow_null=True)},
    "BUFFER_QUEUE": {"profile": _Ref("BUFFER_PROFILE")},
    "BUFFER_PORT_INGRESS_PROFILE_LIST": {"profile_list": _RefList("BUFFER_PROFILE")},
    "BUFFER_PORT_EGRESS_PROFILE_LIST": {"profile_list": _RefList("BUFFER_PROFILE")},
    "WRED_PROFILE": _WRED_FIELDS,
    "QUEUE": {"scheduler": _Ref("SCHEDULER"), "wred_profile": _Ref("WRED_PROFILE")},
    "SCHEDULER": {"type": _Enum(("DWRR", "WRR", "STRICT")), "weight": _Num(1, 100),
                  "priority": _Num(0, 9), "meter_type": _Enum(("packets", "bytes")),
                  "cir": _U64, "cbs": _U32, "pir": _U64, "pbs": _U32},
    "PORT_QOS_MAP": {"dscp_to_tc_map": _Ref("DSCP_TO_TC_MAP"),
                     "dot1p_to_tc_map": _Ref("DOT1P_TO_TC_MAP"),
                     "tc_to_queue_map": _Ref("TC_TO_QUEUE_MAP"),
                     "tc_to_pg_map": _Ref("TC_TO_PRIORITY_GROUP_MAP"),
                     "pfc_to_pg_map": _Ref("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"),
                     "pfc_to_queue_map": _Ref("MAP_PFC_PRIORITY_TO_QUEUE"),
                     "tc_to_dscp_map": _Ref("TC_TO_DSCP_MAP"),
                     "scheduler": _Ref("SCHEDULER"),
                     "pfc_enable": _PFC_LIST, "pfcwd_sw_enable": _PFC_LIST},
    "PFC_WD": {"action": _Enum(("drop", "forward", "alert")),
               "detection_time": _Num(100, 5000), "restoration_time": _Num(100, 60000),
               "pfc_stat_history": _Pattern(re.compile(r"enable|disable"), "enable or disable"),
               "POLL_INTERVAL": _Num(100, 1000)},
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": {"default_dynamic_th": _Num(-8, 7, True),
                                          "over_subscribe_ratio": _Num(0, 2**16 - 1)},
    "LOSSLESS_TRAFFIC_PATTERN": {"mtu": _Num(1, 9216), "small_packet_percentage": _Num(0, 100)},
}

#: Fields YANG marks mandatory or orchagent needs on create (§3.1, §3.2, §3.3, §3.17, §3.19, §3.20).
_MANDATORY: dict[str, tuple[str, ...]] = {
    "BUFFER_POOL": ("type", "mode"),
    "BUFFER_PROFILE": ("pool", "size"),
    "BUFFER_PG": ("profile",),
    "BUFFER_QUEUE": ("profile",),
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": ("default_dynamic_th",),
    "LOSSLESS_TRAFFIC_PATTERN": ("mtu", "small_packet_percentage"),
}

_Range: TypeAlias = tuple[int, int]
#: Type-1 map tables (§2.6): (source key range, destination value range).
_MAP_TABLES: dict[str, tuple[str, _Range, str, _Range]] = {
    "DSCP_TO_TC_MAP": ("dscp", (0, 63), "tc", (0, 15)),
    "DOT1P_TO_TC_MAP": ("dot1p", (0, 7), "tc", (0, 15)),
    "TC_TO_QUEUE_MAP": ("tc", (0, 15), "qindex", (0, 9)),
    "TC_TO_PRIORITY_GROUP_MAP": ("tc", (0, 15), "pg", (0, 7)),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": ("pfc_priority", (0, 7), "pg", (0, 7)),
    "MAP_PFC_PRIORITY_TO_QUEUE": ("pfc_priority", (0, 7), "qindex", (0, 7)),
    "TC_TO_DSCP_MAP": ("tc", (0, 15), "dscp", (0, 63)),
}
#: Map tables whose YANG list key carries the name pattern (§3.9, §3.10).
_PATTERNED_MAP_NAMES = frozenset({"DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP"})

#: Key layout per entry table.
_KEY_KIND: dict[str, str] = {
    "BUFFER_POOL": "name", "BUFFER_PROFILE": "name", "SCHEDULER": "name",
    "WRED_PROFILE": "pattern_name",
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": "pattern_name", "LOSSLESS_TRAFFIC_PATTERN": "pattern_name",
    "BUFFER_PG": "port_pg", "BUFFER_QUEUE": "port_queue", "QUEUE": "port_qindex",
    "BUFFER_PORT_INGRESS_PROFILE_LIST": "port", "BUFFER_PORT_EGRESS_PROFILE_LIST": "port",
    "PORT_QOS_MAP": "port_or_global", "PFC_WD": "port_or_GLOBAL",
}

#: The QoS/buffer tables this validator understands (§1, §3, `config qos clear` list §4.1).
QOS_TABLES = frozenset({*_FIELDS, *_MAP_TABLES, "CABLE_LENGTH"})
#: Read-only context tables (port names / speed, buffer model); not validated field by field.
CONTEXT_TABLES = frozenset({"PORT", "DEVICE_METADATA"})
#: Likely mistakes -> the right name (§2.10).
_TABLE_TRAPS = {"PFC_PRIORITY_TO_QUEUE_MAP": "MAP_PFC_PRIORITY_TO_QUEUE"}
_FIELD_TRAPS = {
    ("PFC_WD", "BIG_RED_SWITCH"): "BIG_RED_SWITCH is handled by orchagent but not in the YANG model",
    ("PORT_QOS_MAP", "pfc_to_priority_group_map"): "the field is pfc_to_pg_map",
    ("PORT_QOS_MAP", "tc_to_priority_group_map"): "the field is tc_to_pg_map",
}


#: Public view of the table-name traps: wrong table name -> the right one (§2.10). ``qosforge
#: lint`` feeds these tables to the checks even from a whole config_db, and ``--fix`` renames them.
TABLE_TRAPS: Mapping[str, str] = _TABLE_TRAPS


def field_kind(table: str, field: str) -> str | None:
    """The YANG kind of ``table.field`` for tools (``qosforge lint --fix``): ``integer``,
    ``enum``, ``boolean``, ``reference``, ``reference-list``, ``priority-list``, ``pattern``,
    or None for a field the table does not have."""
    spec = _FIELDS.get(table, {}).get(field)
    if spec is None:
        return None
    if spec is _PFC_LIST:
        return "priority-list"
    kinds: dict[type, str] = {_Num: "integer", _Enum: "enum", _Bool: "boolean", _Ref: "reference",
                              _RefList: "reference-list", _Pattern: "pattern"}
    return kinds[type(spec)]


def enum_values(table: str, field: str) -> tuple[str, ...]:
    """The allowed values of an enum field (empty for any other field)."""
    spec = _FIELDS.get(table, {}).get(field)
    return spec.values if isinstance(spec, _Enum) else ()


def map_tables() -> frozenset[str]:
    """The Type-1 map tables (§2.6): ``{map name: {from: to}}``."""
    return frozenset(_MAP_TABLES)


def qos_subset(config: Mapping[str, Any]) -> dict[str, Any]:
    """The tables :func:`check_config_db` understands, taken from a whole switch config_db."""
    return {name: table for name, table in config.items() if name in QOS_TABLES | CONTEXT_TABLES}


# ---------------------------------------------------------------------------------------------
# Entry point


def check_config_db(config: Mapping[str, Any], *, asic_buffer_bytes: int | None = None) -> list[Violation]:
    """Every rule of :data:`RULES` broken by ``config``; empty when SONiC would accept it."""
    _INDEX_CACHE.clear()
    try:
        return _check_all(config, asic_buffer_bytes)
    finally:
        _INDEX_CACHE.clear()


def _check_all(config: Mapping[str, Any], asic_buffer_bytes: int | None) -> list[Violation]:
    found: list[Violation] = []
    tables = _check_structure(config, found)
    _check_table_names(tables, found)
    for table_name, table in tables.items():
        if table_name in _FIELDS:
            _check_entry_table(table_name, table, tables, found)
        elif table_name in _MAP_TABLES:
            _check_map_table(table_name, table, found)
        elif table_name == "CABLE_LENGTH":
            _check_cable_length(table, tables, found)
    _check_buffers(tables, found)
    _check_wred(tables, found)
    _check_schedulers(tables, found)
    _check_pfc_watchdog(tables, found)
    _check_port_qos(tables, found)
    _check_overlaps(tables, found)
    _check_lossless_chain(tables, found)
    _check_traditional_pgs(tables, found)
    if asic_buffer_bytes is not None:
        _check_pool_overcommit(tables, asic_buffer_bytes, found)
    return found


# ---------------------------------------------------------------------------------------------
# Encoding (§2)


def _check_structure(config: Mapping[str, Any], found: list[Violation]) -> ConfigDb:
    """Keep the well-formed part of ``config``; report everything that is not strings in dicts."""
    tables: ConfigDb = {}
    for table_name, table in config.items():
        if not isinstance(table, Mapping):
            found.append(Violation("structure", str(table_name), "", None, "table is not an object"))
            continue
        entries: dict[str, dict[str, str]] = {}
        for key, entry in table.items():
            if not isinstance(entry, Mapping):
                found.append(Violation("structure", table_name, str(key), None, "entry is not an object"))
                continue
            fields: dict[str, str] = {}
            for field_name, value in entry.items():
                if isinstance(value, str):
                    fields[field_name] = value
                else:
                    found.append(Violation("value-not-string", table_name, key, field_name,
                                           f"value {value!r} is a JSON {type(value).__name__}; "
                                           "CONFIG_DB values are strings"))
            entries[key] = fields
        tables[table_name] = entries
    return tables


def _check_table_names(tables: ConfigDb, found: list[Violation]) -> None:
    for table_name in tables:
        if table_name in QOS_TABLES or table_name in CONTEXT_TABLES:
            continue
        right = _TABLE_TRAPS.get(table_name)
        hint = f"; the table is called {right}" if right else ""
        found.append(Violation("unknown-table", table_name, "", None, f"unknown table{hint}"))


def _is_bracket_ref(value: str) -> bool:
    return value.startswith("[") and value.endswith("]")


def _single_port(table: str, key: str, port: str, found: list[Violation]) -> bool:
    if "," in port:
        found.append(Violation("multi-port-key", table, key, None,
                               "comma-joined ports fail YANG; emit one key per port"))
        return False
    if not port:
        found.append(Violation("bad-key", table, key, None, "empty port name"))
        return False
    return True


def _check_port_exists(table: str, key: str, port: str, tables: ConfigDb, found: list[Violation]) -> None:
    ports = tables.get("PORT")
    if ports is not None and port not in ports:
        found.append(Violation("dangling-reference", table, key, None, f"port {port} is not in PORT"))


#: Longer digit strings exceed every SONiC integer (uint64 has 20 digits); parsing them would
#: only cost time (and Python refuses int() beyond 4300 digits).
_MAX_DIGITS = 24
_BEYOND_EVERY_RANGE: int = 10**_MAX_DIGITS


def _bounded_int(text: str) -> int:
    """``int(text)`` for decimal text already matched by a pattern; absurdly long text maps to a
    value beyond every range instead of being parsed."""
    digits = text.lstrip("+-")
    if len(digits) > _MAX_DIGITS:
        return -_BEYOND_EVERY_RANGE if text.startswith("-") else _BEYOND_EVERY_RANGE
    return int(text)


def _parse_range(match: re.Match[str]) -> tuple[int, int]:
    low = _bounded_int(match.group(1))
    high = _bounded_int(match.group(2)) if match.group(2) is not None else low
    return low, high


def _check_key(table: str, key: str, tables: ConfigDb, found: list[Violation]) -> None:
    kind = _KEY_KIND[table]
    if kind == "name":
        if not key or "|" in key:
            found.append(Violation("bad-key", table, key, None, "object names are non-empty, without '|'"))
        return
    if kind == "pattern_name":
        if NAME_PATTERN.fullmatch(key) is None:
            found.append(Violation("bad-pattern", table, key, None,
                                   f"name must match {NAME_PATTERN.pattern} (letters, digits, - _; <= 32)"))
        return
    parts = key.split("|")
    if kind in ("port", "port_or_global", "port_or_GLOBAL"):
        if len(parts) != 1:
            found.append(Violation("bad-key", table, key, None, "key is a single port name"))
            return
        special = {"port_or_global": "global", "port_or_GLOBAL": "GLOBAL"}.get(kind)
        if key != special and _single_port(table, key, key, found):
            _check_port_exists(table, key, key, tables, found)
        return
    if len(parts) != 2:
        found.append(Violation("bad-key", table, key, None, "key is <port>|<index>"))
        return
    port, index = parts
    pattern = {"port_pg": PG_KEY_PATTERN, "port_queue": QUEUE_KEY_PATTERN,
               "port_qindex": QUEUE_INDEX_PATTERN}[kind]
    if _single_port(table, key, port, found) and not (kind == "port_qindex" and port == "CPU"):
        _check_port_exists(table, key, port, tables, found)
    match = pattern.fullmatch(index)
    if match is None:
        found.append(Violation("bad-key", table, key, None,
                               f"index {index!r} must match {pattern.pattern}"))
        return
    low, high = _parse_range(match)
    if low > high:
        found.append(Violation("bad-key", table, key, None, f"range {index} runs backwards"))


def _check_value(table: str, key: str, name: str, value: str, spec: _FieldSpec,
                 tables: ConfigDb, found: list[Violation]) -> None:
    def add(rule: str, message: str) -> None:
        found.append(Violation(rule, table, key, name, message))

    if isinstance(spec, _Num):
        if (_INT if spec.signed else _UINT).fullmatch(value) is None:
            add("bad-integer", f"{value!r} is not a decimal integer")
        elif not spec.low <= _bounded_int(value) <= spec.high:
            add("out-of-range", f"{value} is outside {spec.low}..{spec.high}")
    elif isinstance(spec, _Enum):
        if value not in spec.values:
            add("bad-enum", f"{value!r} is not one of {', '.join(spec.values)}")
    elif isinstance(spec, _Bool):
        if value not in ("true", "false"):
            add("bad-boolean", f"{value!r}: booleans are exactly 'true' or 'false'")
    elif isinstance(spec, _Pattern):
        if spec.regex.fullmatch(value) is None:
            add("bad-pattern", f"{value!r}: expected {spec.what}")
    elif isinstance(spec, (_Ref, _RefList)):
        names = value.split(",") if isinstance(spec, _RefList) else [value]
        for ref in names:
            if _is_bracket_ref(ref):
                add("bracket-reference", f"{ref!r}: write the bare name, not [TABLE|name]")
            elif isinstance(spec, _Ref) and spec.allow_null and ref == "NULL":
                continue
            elif ref not in tables.get(spec.table, {}):
                add("dangling-reference", f"{ref!r} is not in {spec.table}")


def _check_entry_table(table_name: str, table: dict[str, dict[str, str]], tables: ConfigDb,
                       found: list[Violation]) -> None:
    specs = _FIELDS[table_name]
    for key, entry in table.items():
        _check_key(table_name, key, tables, found)
        for mandatory in _MANDATORY.get(table_name, ()):
            if mandatory not in entry:
                found.append(Violation("missing-field", table_name, key, mandatory, "mandatory field missing"))
        for name, value in entry.items():
            spec = specs.get(name)
            if spec is None:
                trap = _FIELD_TRAPS.get((table_name, name))
                found.append(Violation("unknown-field", table_name, key, name,
                                       f"not a {table_name} field" + (f": {trap}" if trap else "")))
                continue
            _check_value(table_name, key, name, value, spec, tables, found)
    if table_name in ("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "LOSSLESS_TRAFFIC_PATTERN") and len(table) != 1:
        found.append(Violation("single-entry", table_name, "", None, "keep exactly one entry"))


def _small_int(text: str, low: int, high: int) -> int | None:
    """``text`` as an int in low..high written without sign or leading zeros, else None."""
    if re.fullmatch(r"0|[1-9][0-9]*", text) is None:
        return None
    number = _bounded_int(text)
    return number if low <= number <= high else None


def _check_map_table(table_name: str, table: dict[str, dict[str, str]], found: list[Violation]) -> None:
    source, source_range, target, target_range = _MAP_TABLES[table_name]
    for name, mapping in table.items():
        if table_name in _PATTERNED_MAP_NAMES and NAME_PATTERN.fullmatch(name) is None:
            found.append(Violation("bad-pattern", table_name, name, None,
                                   f"map name must match {NAME_PATTERN.pattern}"))
        elif not name or "|" in name:
            found.append(Violation("bad-key", table_name, name, None, "map names are non-empty, without '|'"))
        for key, value in mapping.items():
            if _small_int(key, *source_range) is None:
                found.append(Violation("out-of-range", table_name, name, key,
                                       f"{source} {key!r} is not an integer in {source_range[0]}..{source_range[1]}"))
            if _small_int(value, *target_range) is None:
                found.append(Violation("out-of-range", table_name, name, key,
                                       f"{target} {value!r} is not an integer in {target_range[0]}..{target_range[1]}"))
        if table_name == "DSCP_TO_TC_MAP":
            missing = [d for d in range(64) if str(d) not in mapping]
            if missing:
                found.append(Violation("dscp-map-incomplete", table_name, name, None,
                                       f"DSCP {_ranges_text(missing)} unmapped; list all 64 code points"))


def _check_cable_length(table: dict[str, dict[str, str]], tables: ConfigDb, found: list[Violation]) -> None:
    if len(table) != 1:
        found.append(Violation("single-entry", "CABLE_LENGTH", "", None,
                               "keep exactly one entry (tools update the first key only)"))
    for name, lengths in table.items():
        if NAME_PATTERN.fullmatch(name) is None:
            found.append(Violation("bad-pattern", "CABLE_LENGTH", name, None,
                                   f"name must match {NAME_PATTERN.pattern}"))
        for port, length in lengths.items():
            if _single_port("CABLE_LENGTH", name, port, found):
                _check_port_exists("CABLE_LENGTH", name, port, tables, found)
            if CABLE_PATTERN.fullmatch(length) is None:
                found.append(Violation("bad-pattern", "CABLE_LENGTH", name, port,
                                       f"{length!r}: cable length is <meters>m, e.g. 5m"))


def _ranges_text(numbers: list[int]) -> str:
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in contiguous_ranges(numbers))


def contiguous_ranges(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted distinct integers as maximal runs (buffermgrd's generateIdListFromMap, §4.3)."""
    runs: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


# ---------------------------------------------------------------------------------------------
# Buffers (§3.1-3.4, §7.5, §7.9-7.12)


def _buffer_model(tables: ConfigDb) -> str:
    return tables.get("DEVICE_METADATA", {}).get("localhost", {}).get("buffer_model", "traditional")


def _pool_of(tables: ConfigDb, profile: str) -> dict[str, str] | None:
    profile_entry = tables.get("BUFFER_PROFILE", {}).get(profile)
    if profile_entry is None:
        return None
    return tables.get("BUFFER_POOL", {}).get(profile_entry.get("pool", ""))


def _check_buffers(tables: ConfigDb, found: list[Violation]) -> None:
    dynamic_model = _buffer_model(tables) == "dynamic"
    for name, pool in tables.get("BUFFER_POOL", {}).items():
        if "percentage" in pool and "size" in pool:
            found.append(Violation("pool-size", "BUFFER_POOL", name, "percentage",
                                   "percentage must not be configured along with size"))
        if "percentage" in pool and not dynamic_model:
            found.append(Violation("pool-size", "BUFFER_POOL", name, "percentage",
                                   "percentage is only valid in the dynamic buffer model"))
        if "size" not in pool and not dynamic_model:
            found.append(Violation("pool-size", "BUFFER_POOL", name, "size",
                                   "traditional model: SAI needs size on create (orchagent crash otherwise)"))
    for name, profile in tables.get("BUFFER_PROFILE", {}).items():
        modes = [field for field in ("dynamic_th", "static_th") if field in profile]
        if len(modes) != 1:
            found.append(Violation("threshold-mode", "BUFFER_PROFILE", name, None,
                                   f"give exactly one of dynamic_th / static_th (has {modes or 'none'})"))
        its_pool = tables.get("BUFFER_POOL", {}).get(profile.get("pool", ""))
        if dynamic_model and its_pool is not None and len(modes) == 1 and its_pool.get("mode") and \
                modes[0] != f"{its_pool['mode']}_th":
            found.append(Violation("threshold-mode-pool", "BUFFER_PROFILE", name, modes[0],
                                   f"pool {profile['pool']} is {its_pool['mode']}; use {its_pool['mode']}_th"))
        if "xoff" in profile:
            if profile.get("pool") != LOSSLESS_POOL:
                found.append(Violation("lossless-pool-name", "BUFFER_PROFILE", name, "pool",
                                       f"lossless profiles belong to {LOSSLESS_POOL} (buffermgrd hard-codes it)"))
            if its_pool is not None and its_pool.get("type") == "egress":
                found.append(Violation("profile-direction", "BUFFER_PROFILE", name, "pool",
                                       "a lossless (xoff) profile cannot use an egress pool"))
    for table, bad_type, what in (("BUFFER_PG", "egress", "ingress"), ("BUFFER_QUEUE", "ingress", "egress")):
        for key, entry in tables.get(table, {}).items():
            profile_name = entry.get("profile", "")
            if table == "BUFFER_PG" and profile_name == "NULL" and not dynamic_model:
                found.append(Violation("null-profile", table, key, "profile",
                                       "profile NULL only works in the dynamic buffer model"))
            profile_pool = _pool_of(tables, profile_name)
            if profile_pool is not None and profile_pool.get("type") == bad_type:
                found.append(Violation("profile-direction", table, key, "profile",
                                       f"{profile_name} uses an {bad_type} pool; {table} needs an {what} pool"))


def _check_pool_overcommit(tables: ConfigDb, asic_buffer_bytes: int, found: list[Violation]) -> None:
    # Ingress pools (size + shared-headroom xoff) partition the buffer, so their sum must fit
    # (the SONiC sources; sonic-buildimage #28657). Egress pools are not summed: SONiC's own Broadcom templates
    # size egress_lossless_pool as the whole MMU next to egress_lossy_pool (the SONiC sources, Dell 6100), a
    # static upper bound, not a partition. Every single pool must still fit.
    ingress_total = 0
    for name, pool in tables.get("BUFFER_POOL", {}).items():
        size = _uint_or_none(pool, "size") or 0
        xoff = _uint_or_none(pool, "xoff") or 0
        if pool.get("type") in ("ingress", "both"):
            ingress_total += size + xoff
        if size + xoff > asic_buffer_bytes:
            found.append(Violation("pool-overcommit", "BUFFER_POOL", name, "size",
                                   f"size + xoff = {size + xoff} B > ASIC buffer {asic_buffer_bytes} B"))
    if ingress_total > asic_buffer_bytes:
        found.append(Violation("pool-overcommit", "BUFFER_POOL", "", None,
                               f"ingress pools (size + xoff) total {ingress_total} B > ASIC buffer "
                               f"{asic_buffer_bytes} B"))


# ---------------------------------------------------------------------------------------------
# WRED and schedulers (§3.6, §3.8)


def _uint_or_none(entry: Mapping[str, str], field: str) -> int | None:
    value = entry.get(field)
    return _bounded_int(value) if value is not None and _UINT.fullmatch(value) else None


def ecn_colors(ecn: str) -> frozenset[str]:
    """Colors an ``ecn`` enum value marks (``ecn_all`` -> all three, ``ecn_none`` -> none)."""
    if ecn == "ecn_all":
        return frozenset(WRED_COLORS)
    return frozenset(part for part in ecn.removeprefix("ecn_").split("_") if part in WRED_COLORS)


def _check_wred(tables: ConfigDb, found: list[Violation]) -> None:
    for name, profile in tables.get("WRED_PROFILE", {}).items():
        marked = ecn_colors(profile.get("ecn", "ecn_none"))
        for color in WRED_COLORS:
            low = _uint_or_none(profile, f"{color}_min_threshold")
            high = _uint_or_none(profile, f"{color}_max_threshold")
            for field, value in ((f"{color}_min_threshold", low), (f"{color}_max_threshold", high)):
                if value is not None and value >= WRED_THRESHOLD_LIMIT:
                    found.append(Violation("wred-threshold-overflow", "WRED_PROFILE", name, field,
                                           f"{value} >= 2^31: orchagent parses it with stoi"))
            if low is not None and high is not None and low > high:
                found.append(Violation("wred-min-gt-max", "WRED_PROFILE", name, f"{color}_max_threshold",
                                       f"{color} max {high} < min {low}"))
            active = profile.get(f"wred_{color}_enable") == "true" or color in marked
            has_thresholds = any(f"{color}_{part}" in profile
                                 for part in ("min_threshold", "max_threshold", "drop_probability"))
            if has_thresholds and not active:
                found.append(Violation("wred-color-consistency", "WRED_PROFILE", name, None,
                                       f"{color} thresholds set but {color} neither drops nor marks "
                                       "(SAI: valid only when enabled)"))
            if active and (f"{color}_min_threshold" not in profile or f"{color}_max_threshold" not in profile):
                found.append(Violation("wred-color-consistency", "WRED_PROFILE", name, None,
                                       f"{color} drops or marks but has no min/max thresholds"))


def _check_schedulers(tables: ConfigDb, found: list[Violation]) -> None:
    for name, scheduler in tables.get("SCHEDULER", {}).items():
        if "priority" in scheduler:
            found.append(Violation("scheduler-priority", "SCHEDULER", name, "priority",
                                   "orchagent rejects the whole entry (Unknown field); use type STRICT"))
        cir = _uint_or_none(scheduler, "cir")
        pir = _uint_or_none(scheduler, "pir")
        cbs = _uint_or_none(scheduler, "cbs")
        pbs = _uint_or_none(scheduler, "pbs")
        for field in ("cbs", "pir"):
            if field in scheduler and not cir:
                found.append(Violation("scheduler-rates", "SCHEDULER", name, field,
                                       f"{field} can't be configured without cir > 0"))
        if pir is not None and cir is not None and pir < cir:
            found.append(Violation("scheduler-rates", "SCHEDULER", name, "pir", "pir must be >= cir"))
        if "pbs" in scheduler and not pir:
            found.append(Violation("scheduler-rates", "SCHEDULER", name, "pbs",
                                   "pbs can't be configured without pir > 0"))
        if pbs is not None and cbs is not None and pbs < cbs:
            found.append(Violation("scheduler-rates", "SCHEDULER", name, "pbs", "pbs must be >= cbs"))


# ---------------------------------------------------------------------------------------------
# PFC watchdog and port bindings (§3.16, §3.17)


def _check_pfc_watchdog(tables: ConfigDb, found: list[Violation]) -> None:
    table = tables.get("PFC_WD", {})
    poll = _uint_or_none(table.get("GLOBAL", {}), "POLL_INTERVAL")
    for key, entry in table.items():
        for field in entry:
            on_global = field == "POLL_INTERVAL"
            if on_global != (key == "GLOBAL") and field in _FIELDS["PFC_WD"]:
                where = "only on PFC_WD|GLOBAL" if on_global else "on ports, never on PFC_WD|GLOBAL"
                found.append(Violation("pfcwd-placement", "PFC_WD", key, field, f"{field} belongs {where}"))
        if key == "GLOBAL":
            continue
        if "detection_time" not in entry:
            found.append(Violation("missing-field", "PFC_WD", key, "detection_time",
                                   "orchagent: detection_time missing"))
        for field in ("detection_time", "restoration_time"):
            value = _uint_or_none(entry, field)
            if poll is not None and value is not None and value < poll:
                found.append(Violation("pfcwd-poll-interval", "PFC_WD", key, field,
                                       f"{field} {value} < POLL_INTERVAL {poll}"))


def _priorities(text: str | None) -> list[int]:
    if not text or PFC_LIST_PATTERN.fullmatch(text) is None:
        return []
    return [int(part) for part in text.split(",")]


def _check_port_qos(tables: ConfigDb, found: list[Violation]) -> None:
    for key, entry in tables.get("PORT_QOS_MAP", {}).items():
        if key == "global":
            for field in entry:
                if field != "dscp_to_tc_map":
                    found.append(Violation("port-qos-global", "PORT_QOS_MAP", key, field,
                                           "orchagent ignores every global field but dscp_to_tc_map"))
            continue
        stray = set(_priorities(entry.get("pfcwd_sw_enable"))) - set(_priorities(entry.get("pfc_enable")))
        if stray:
            found.append(Violation("pfcwd-priorities", "PORT_QOS_MAP", key, "pfcwd_sw_enable",
                                   f"priorities {sorted(stray)} are watched but not PFC-enabled"))


_IndexedEntry = tuple[int, int, str, dict[str, str]]


def _indexed_entries(tables: ConfigDb, table: str, port: str) -> list[_IndexedEntry]:
    """(low, high, key, entry) for every well-formed ``<port>|<index range>`` key of ``table``."""
    return _port_index(tables, table).get(port, [])


def _port_index(tables: ConfigDb, table: str) -> dict[str, list[_IndexedEntry]]:
    """All well-formed indexed keys of ``table`` grouped by port, built once per table object so
    per-port look-ups stay linear in the size of the config (a 5,000-port spine has 40,000 keys)."""
    entries = tables.get(table, {})
    cached = _INDEX_CACHE.get((id(entries), table))
    if cached is not None and cached[0] is entries:
        return cached[1]
    pattern = PG_KEY_PATTERN if table == "BUFFER_PG" else (
        QUEUE_KEY_PATTERN if table == "BUFFER_QUEUE" else QUEUE_INDEX_PATTERN)
    index: dict[str, list[_IndexedEntry]] = {}
    for key, entry in entries.items():
        parts = key.split("|")
        if len(parts) == 2:
            match = pattern.fullmatch(parts[1])
            if match is not None:
                low, high = _parse_range(match)
                index.setdefault(parts[0], []).append((low, high, key, entry))
    _INDEX_CACHE[(id(entries), table)] = (entries, index)
    return index


_INDEX_CACHE: dict[tuple[int, str], tuple[dict[str, dict[str, str]], dict[str, list[_IndexedEntry]]]] = {}


def _ports_of(tables: ConfigDb, table: str) -> set[str]:
    return {key.split("|")[0] for key in tables.get(table, {}) if "|" in key}


#: PG and queue indices are at most 0..15 in SONiC's YANG; wider spans are malformed keys.
_MAX_INDEX_SPAN = 64


def _check_overlaps(tables: ConfigDb, found: list[Violation]) -> None:
    for table in ("BUFFER_PG", "BUFFER_QUEUE", "QUEUE"):
        for port in sorted(_ports_of(tables, table)):
            seen: dict[int, str] = {}
            for low, high, key, _entry in sorted(_indexed_entries(tables, table, port)):
                if high - low > _MAX_INDEX_SPAN:
                    continue  # not a real index range (bad-key reports it); do not walk it
                clashes = sorted({seen[i] for i in range(low, high + 1) if i in seen})
                if clashes:
                    found.append(Violation("overlapping-keys", table, key, None,
                                           f"overlaps {', '.join(clashes)}"))
                for index in range(low, high + 1):
                    seen.setdefault(index, key)


def _covering(tables: ConfigDb, table: str, port: str, index: int) -> tuple[str, dict[str, str]] | None:
    for low, high, key, entry in _indexed_entries(tables, table, port):
        if low <= index <= high:
            return key, entry
    return None


def _map(tables: ConfigDb, table: str, name: str | None) -> dict[int, int] | None:
    if name is None or name not in tables.get(table, {}):
        return None
    return {_bounded_int(k): _bounded_int(v) for k, v in tables[table][name].items()
            if _INT.fullmatch(k) and _INT.fullmatch(v)}


def _check_lossless_chain(tables: ConfigDb, found: list[Violation]) -> None:
    port_maps = tables.get("PORT_QOS_MAP", {})
    dynamic_model = _buffer_model(tables) == "dynamic"
    cable_ports = {port for lengths in tables.get("CABLE_LENGTH", {}).values() for port in lengths}
    for port, entry in port_maps.items():
        if port == "global":
            continue
        enabled = _priorities(entry.get("pfc_enable"))

        def broken(message: str, field: str | None = None, port: str = port) -> None:
            found.append(Violation("lossless-chain", "PORT_QOS_MAP", port, field, message))

        lossless_pgs: set[int] = set()
        dscp_map_name = entry.get("dscp_to_tc_map") or port_maps.get("global", {}).get("dscp_to_tc_map")
        if enabled:
            for field in ("tc_to_pg_map", "tc_to_queue_map", "pfc_to_queue_map", "pfcwd_sw_enable"):
                if not entry.get(field):
                    broken(f"PFC is enabled ({entry['pfc_enable']}) but {field} is not set", field)
            if dscp_map_name is None:
                broken("PFC is enabled but no dscp_to_tc_map (port or global) classifies traffic",
                       "dscp_to_tc_map")
            if port not in cable_ports:
                broken("PFC is enabled but the port has no CABLE_LENGTH (buffermgrd waits forever)")
        tc_to_pg = _map(tables, "TC_TO_PRIORITY_GROUP_MAP", entry.get("tc_to_pg_map"))
        tc_to_queue = _map(tables, "TC_TO_QUEUE_MAP", entry.get("tc_to_queue_map"))
        pfc_to_queue = _map(tables, "MAP_PFC_PRIORITY_TO_QUEUE", entry.get("pfc_to_queue_map"))
        pfc_to_pg = _map(tables, "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", entry.get("pfc_to_pg_map"))
        dscp_to_tc = _map(tables, "DSCP_TO_TC_MAP", dscp_map_name)
        for priority in enabled:
            # Without a PFC-priority->PG map the ASIC pauses priority p from PG p (SONiC's implicit
            # identity; buffermgrd also uses pfc_enable numbers as PG indices, §3.16, §4.3).
            if pfc_to_pg is not None and priority not in pfc_to_pg:
                broken(f"PFC priority {priority} is missing from {entry['pfc_to_pg_map']}", "pfc_to_pg_map")
                continue
            pg = pfc_to_pg[priority] if pfc_to_pg is not None else priority
            lossless_pgs.add(pg)
            covering = _covering(tables, "BUFFER_PG", port, pg)
            if covering is None:
                broken(f"PFC priority {priority}: no BUFFER_PG for {port}|{pg}")
            else:
                profile = covering[1].get("profile", "")
                profile_entry = tables.get("BUFFER_PROFILE", {}).get(profile)
                if not (profile == "NULL" and dynamic_model) and (profile_entry is None or "xoff" not in profile_entry):
                    broken(f"PFC priority {priority}: BUFFER_PG|{covering[0]} profile {profile!r} has no xoff (not lossless)")
            if pfc_to_queue is None:
                continue
            if priority not in pfc_to_queue:
                broken(f"PFC priority {priority} is missing from {entry['pfc_to_queue_map']}", "pfc_to_queue_map")
                continue
            queue = pfc_to_queue[priority]
            if _covering(tables, "BUFFER_QUEUE", port, queue) is None:
                broken(f"PFC priority {priority}: no BUFFER_QUEUE for {port}|{queue}")
            if tc_to_pg is None:
                continue
            tcs = sorted(tc for tc, mapped_pg in tc_to_pg.items() if mapped_pg == pg)
            if not tcs:
                broken(f"PFC priority {priority}: no TC maps to lossless PG {pg}", "tc_to_pg_map")
                continue
            for tc in tcs:
                if tc_to_queue is not None and tc_to_queue.get(tc) != queue:
                    broken(f"TC {tc} fills lossless PG {pg} but goes to queue {tc_to_queue.get(tc)}, "
                           f"while PFC priority {priority} pauses queue {queue}", "tc_to_queue_map")
            if dscp_to_tc is not None and not any(tc in tcs for tc in dscp_to_tc.values()):
                broken(f"PFC priority {priority}: no DSCP maps to TC {tcs} (lossless PG {pg} unused)",
                       "dscp_to_tc_map")
        for low, high, key, pg_entry in _indexed_entries(tables, "BUFFER_PG", port):
            profile_entry = tables.get("BUFFER_PROFILE", {}).get(pg_entry.get("profile", ""))
            if profile_entry is not None and "xoff" in profile_entry:
                unpaused = [pg for pg in range(low, high + 1) if pg not in lossless_pgs]
                if unpaused:
                    found.append(Violation("lossless-chain", "BUFFER_PG", key, "profile",
                                           f"PG {unpaused} has a lossless profile but no PFC priority"))


def _check_traditional_pgs(tables: ConfigDb, found: list[Violation]) -> None:
    if _buffer_model(tables) == "dynamic":
        return
    cable = {port: length for lengths in tables.get("CABLE_LENGTH", {}).values()
             for port, length in lengths.items()}
    for port, entry in tables.get("PORT_QOS_MAP", {}).items():
        enabled = _priorities(entry.get("pfc_enable"))
        if port == "global" or not enabled or cable.get(port, "0m") == "0m":
            continue  # buffermgrd leaves the port alone (§3.18, §4.3)
        speed = tables.get("PORT", {}).get(port, {}).get("speed")
        for low, high in contiguous_ranges(enabled):
            key = f"{port}|{low}" if low == high else f"{port}|{low}-{high}"
            pg_entry = tables.get("BUFFER_PG", {}).get(key)
            if pg_entry is None:
                found.append(Violation("traditional-pg-overwrite", "BUFFER_PG", key, None,
                                       "buffermgrd will write this key from pfc_enable; emit it exactly"))
                continue
            match = TRADITIONAL_PG_PROFILE.fullmatch(pg_entry.get("profile", ""))
            if match is None or match.group(2) != cable[port] or (speed is not None and match.group(1) != speed):
                expected = f"pg_lossless_{speed or '<speed>'}_{cable[port]}_profile"
                found.append(Violation("traditional-pg-overwrite", "BUFFER_PG", key, "profile",
                                       f"buffermgrd overwrites it with {expected}; name the profile so"))
