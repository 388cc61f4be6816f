"""Encoding and per-field schema checks: structure, table names, keys, field types and ranges."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from qosforge.backends.sonic.checks.schema import (
    FIELD_TRAPS,
    FIELDS,
    FLEX_COUNTER_GROUPS,
    KEY_KIND,
    MANDATORY,
    MAP_TABLES,
    PATTERNED_MAP_NAMES,
    BoolSpec,
    EnumSpec,
    FieldSpec,
    Num,
    PatternSpec,
    Ref,
    RefList,
    field_kind,
    near_miss_table,
)
from qosforge.backends.sonic.checks.view import ConfigDb, ConfigView
from qosforge.backends.sonic.checks.violation import Violation
from qosforge.backends.sonic.keys import (
    CABLE_PATTERN,
    INDEX_PATTERNS,
    NAME_PATTERN,
    bounded_int,
    is_int,
    is_uint,
    padded_number,
    ranges_text,
    small_int,
    split_indexed_key,
)


def scalar_text(value: Any) -> str | None:
    """The config_db string of a JSON scalar that is evidently a number or boolean, else None."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() and value == value.to_integral_value() else None
    if isinstance(value, float) and math.isfinite(value) and value == int(value) and abs(value) < 2**63:
        return str(int(value))
    return None


def config_db_text(table: str, field: str, value: Any) -> str | None:
    """The string CONFIG_DB would hold for a non-string JSON ``value`` of ``table.field`` (what
    ``sonic-cfggen``/redis make of a JSON number), or None when no single string is meant: a JSON
    boolean only for a boolean field (or a field the schema does not know), a list only for the
    comma-separated list fields (``profile_list``, ``pfc_enable``)."""
    kind = field_kind(table, field)
    if isinstance(value, bool) and kind not in ("boolean", None):
        return None
    text = scalar_text(value)
    if text is None and isinstance(value, list) and value and kind in ("reference-list", "priority-list"):
        items = [item if isinstance(item, str) else scalar_text(item) for item in value]
        if all(item is not None for item in items):
            text = ",".join(str(item) for item in items)
    return text


_STRINGS = {str}


def check_structure(config: Mapping[str, Any], found: list[Violation]) -> ConfigDb:
    """Keep the well-formed part of ``config``; report everything that is not strings in dicts.

    A JSON number (or boolean, or list in a list field) is reported as ``value-not-string`` and
    kept as the string it evidently means (:func:`config_db_text`), so every later rule sees the
    same typed value whichever JSON type the file used: a WRED min written as 2000000 is still
    compared with its max."""
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
            if set(map(type, entry.values())) <= _STRINGS:  # the usual entry, checked at C speed
                entries[key] = dict(entry)
                continue
            fields: dict[str, str] = {}
            for field_name, value in entry.items():
                if isinstance(value, str):
                    fields[field_name] = value
                    continue
                found.append(Violation("value-not-string", table_name, key, field_name,
                                       f"value {value!r} is a JSON {type(value).__name__}; "
                                       "CONFIG_DB values are strings"))
                text = config_db_text(table_name, field_name, value)
                if text is not None:
                    fields[field_name] = text
            entries[key] = fields
        tables[table_name] = entries
    return tables


def check_table_names(view: ConfigView, found: list[Violation]) -> None:
    for table_name in view.tables:
        right = near_miss_table(table_name)
        if right is not None:
            found.append(Violation("unknown-table", table_name, "", None,
                                   f"unknown table; did you mean {right}? (SONiC ignores this one)"))


def is_bracket_ref(value: str) -> bool:
    return value.startswith("[") and value.endswith("]")


def _port_problem(port: str) -> tuple[str, str] | None:
    if "," in port:
        return "multi-port-key", "comma-joined ports fail YANG; emit one key per port"
    if not port:
        return "bad-key", "empty port name"
    return None


def _single_port(table: str, key: str, port: str, found: list[Violation]) -> bool:
    problem = _port_problem(port)
    if problem is not None:
        found.append(Violation(problem[0], table, key, None, problem[1]))
    return problem is None


def _check_port_exists(table: str, key: str, port: str, view: ConfigView, found: list[Violation]) -> None:
    ports = view.tables.get("PORT")
    if ports is not None and port not in ports:
        found.append(Violation("dangling-reference", table, key, None, f"port {port} is not in PORT"))


#: One step of a key's verdict: (rule, message) is a violation; (None, port) says "``port`` must
#: be in PORT", the one part that depends on the rest of the file.
_KeyStep = tuple[str | None, str]


@functools.lru_cache(maxsize=1 << 16)
def _key_steps(table: str, key: str) -> tuple[_KeyStep, ...]:
    """What :func:`_check_key` finds in ``key``, in order; a pure function of the key's text, so
    cached: the files of one fabric repeat the same port keys in every file."""
    kind = KEY_KIND[table]
    if kind == "flex_group":
        if key not in FLEX_COUNTER_GROUPS:
            return (("bad-key", f"{key!r} is not a flex-counter group of sonic-flex_counter.yang ({', '.join(sorted(FLEX_COUNTER_GROUPS))})"),)
        return ()
    if kind == "GLOBAL":  # a container with the one entry GLOBAL (sonic-trimming.yang)
        return () if key == "GLOBAL" else (("bad-key", "the only key is GLOBAL"),)
    if kind == "name":
        return (("bad-key", "object names are non-empty, without '|'"),) if not key or "|" in key else ()
    if kind == "pattern_name":
        if NAME_PATTERN.fullmatch(key) is None:
            return (("bad-pattern", f"name must match {NAME_PATTERN.pattern} (letters, digits, - _; <= 32)"),)
        return ()
    if kind in ("port", "port_or_global", "port_or_GLOBAL"):
        if "|" in key:
            return (("bad-key", "key is a single port name"),)
        special = {"port_or_global": "global", "port_or_GLOBAL": "GLOBAL"}.get(kind)
        if key == special:
            return ()
        problem = _port_problem(key)
        return (problem,) if problem is not None else ((None, key),)
    split = split_indexed_key(table, key)
    if split is None:
        voq = " or <host>|<asic>|<port>|<index> (VOQ chassis)" if table in ("BUFFER_QUEUE", "QUEUE") else ""
        return (("bad-key", f"key is <port>|<index>{voq}"),)
    chassis, port, index = split
    steps: list[_KeyStep] = []
    problem = _port_problem(port)
    if problem is not None:
        steps.append(problem)
    # A VOQ key names a port of another linecard's ASIC: it is not in this PORT table.
    elif chassis is None and not (table == "QUEUE" and port == "CPU"):
        steps.append((None, port))
    pattern = INDEX_PATTERNS[table]
    match = pattern.fullmatch(index)
    if match is None:
        steps.append(("bad-key", f"index {index!r} must match {pattern.pattern}"))
        return tuple(steps)
    low = bounded_int(match.group(1))
    high = bounded_int(match.group(2)) if match.group(2) is not None else low
    if low > high:
        steps.append(("bad-key", f"range {index} runs backwards"))
    return tuple(steps)


def _check_key(table: str, key: str, view: ConfigView, found: list[Violation]) -> None:
    for rule, text in _key_steps(table, key):
        if rule is None:
            _check_port_exists(table, key, text, view, found)
        else:
            found.append(Violation(rule, table, key, None, text))


def _spaces(value: str, number: str) -> str:
    where = [side for side, extra in (("leading", value[:value.index(number)]),
                                      ("trailing", value[value.index(number) + len(number):])) if extra]
    return f"{' and '.join(where)} whitespace"


@functools.lru_cache(maxsize=1 << 14)
def _scalar_problem(spec: Num | EnumSpec | BoolSpec | PatternSpec, value: str) -> tuple[str, str] | None:
    """(rule, message) when ``value`` breaks ``spec``; a pure function of both, so cached: a
    fabric's files repeat the same values thousands of times."""
    if isinstance(spec, Num):
        if not (is_int(value) if spec.signed else is_uint(value)):
            number = padded_number(value, signed=spec.signed)
            if number is None:
                return "bad-integer", f"{value!r} is not a decimal integer"
            if not spec.low <= bounded_int(number) <= spec.high:
                return "out-of-range", f"{number} is outside {spec.low}..{spec.high}"
            return "integer-whitespace", f"{value!r} has {_spaces(value, number)}: orchagent (stoul/stoi) and libyang read {number}"
        if not spec.low <= bounded_int(value) <= spec.high:
            return "out-of-range", f"{value} is outside {spec.low}..{spec.high}"
    elif isinstance(spec, EnumSpec):
        if value not in spec.values:
            return "bad-enum", f"{value!r} is not one of {', '.join(spec.values)}"
    elif isinstance(spec, BoolSpec):
        if value not in ("true", "false"):
            return "bad-boolean", f"{value!r}: booleans are exactly 'true' or 'false'"
    elif spec.regex.fullmatch(value) is None:
        return "bad-pattern", f"{value!r}: expected {spec.what}"
    return None


def _check_value(table: str, key: str, name: str, value: str, spec: FieldSpec,
                 view: ConfigView, found: list[Violation]) -> None:
    if not isinstance(spec, (Ref, RefList)):
        problem = _scalar_problem(spec, value) if len(value) <= 64 else _scalar_problem.__wrapped__(spec, value)
        if problem is not None:
            found.append(Violation(problem[0], table, key, name, problem[1]))
        return
    names = value.split(",") if isinstance(spec, RefList) else [value]
    for ref in names:
        if is_bracket_ref(ref):
            found.append(Violation("bracket-reference", table, key, name,
                                   f"{ref!r}: write the bare name, not [TABLE|name]"))
        elif isinstance(spec, Ref) and spec.allow_null and ref == "NULL":
            continue
        elif spec.table in view.tables and ref not in view.tables[spec.table]:
            # A reference into a table the file lacks is resolved when SONiC merges the
            # fragments (buffers.json + qos.json + config_db.json): not checkable here.
            found.append(Violation("dangling-reference", table, key, name, f"{ref!r} is not in {spec.table}"))


def check_entry_table(table_name: str, view: ConfigView, found: list[Violation]) -> None:
    specs = FIELDS[table_name]
    table = view.entries(table_name)
    for key, entry in table.items():
        _check_key(table_name, key, view, found)
        for mandatory in MANDATORY.get(table_name, ()):
            if mandatory not in entry:
                found.append(Violation("missing-field", table_name, key, mandatory, "mandatory field missing"))
        for name, value in entry.items():
            spec = specs.get(name)
            if spec is None:
                trap = FIELD_TRAPS.get((table_name, name))
                found.append(Violation("unknown-field", table_name, key, name,
                                       f"not a {table_name} field" + (f": {trap}" if trap else "")))
                continue
            _check_value(table_name, key, name, value, spec, view, found)
    if table_name in ("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "LOSSLESS_TRAFFIC_PATTERN") and len(table) != 1:
        found.append(Violation("single-entry", table_name, "", None, "keep exactly one entry"))


def check_map_table(table_name: str, view: ConfigView, found: list[Violation]) -> None:
    source, source_range, target, target_range = MAP_TABLES[table_name]
    for name, mapping in view.entries(table_name).items():
        if table_name in PATTERNED_MAP_NAMES and NAME_PATTERN.fullmatch(name) is None:
            found.append(Violation("bad-pattern", table_name, name, None,
                                   f"map name must match {NAME_PATTERN.pattern}"))
        elif not name or "|" in name:
            found.append(Violation("bad-key", table_name, name, None, "map names are non-empty, without '|'"))
        for key, value in mapping.items():
            if small_int(key, *source_range) is None:
                found.append(Violation("out-of-range", table_name, name, key,
                                       f"{source} {key!r} is not an integer in {source_range[0]}..{source_range[1]}"))
            if small_int(value, *target_range) is None:
                found.append(Violation("out-of-range", table_name, name, key,
                                       f"{target} {value!r} is not an integer in {target_range[0]}..{target_range[1]}"))
        if table_name == "DSCP_TO_TC_MAP":
            missing = [d for d in range(64) if str(d) not in mapping]
            if missing:
                found.append(Violation("dscp-map-incomplete", table_name, name, None,
                                       f"DSCP {ranges_text(missing)} unmapped; list all 64 code points"))


def check_cable_length(view: ConfigView, found: list[Violation]) -> None:
    table = view.entries("CABLE_LENGTH")
    if len(table) != 1:
        found.append(Violation("single-entry", "CABLE_LENGTH", "", None,
                               "keep exactly one entry (tools update the first key only)"))
    for name, lengths in table.items():
        if NAME_PATTERN.fullmatch(name) is None:
            found.append(Violation("bad-pattern", "CABLE_LENGTH", name, None,
                                   f"name must match {NAME_PATTERN.pattern}"))
        for port, length in lengths.items():
            if _single_port("CABLE_LENGTH", name, port, found):
                _check_port_exists("CABLE_LENGTH", name, port, view, found)
            if CABLE_PATTERN.fullmatch(length) is None:
                found.append(Violation("bad-pattern", "CABLE_LENGTH", name, port,
                                       f"{length!r}: cable length is <meters>m, e.g. 5m"))


__all__ = ["check_cable_length", "check_entry_table", "check_map_table", "check_structure", "check_table_names",
           "config_db_text", "is_bracket_ref", "scalar_text"]
