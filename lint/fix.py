"""``qosforge lint --fix``: repair what is mechanical, leave the rest to the operator.

A fix is *mechanical* when the corrected file says what the written one evidently meant, with no
choice left to make. Fixed:

* ``redis-key-format``: top-level ``"TABLE|key"`` entries nested as ``"TABLE": {"key": ...}``;
* ``duplicate-key``: the last occurrence kept, which is what json.load on the switch reads;
* ``unknown-table``: ``PFC_PRIORITY_TO_QUEUE_MAP`` renamed ``MAP_PFC_PRIORITY_TO_QUEUE`` (merged
  when both exist and no map name is in both);
* ``value-not-string``: integers (and integral floats) as decimal strings, JSON booleans as
  ``"true"``/``"false"``, a JSON list of names or priorities in a list field (``profile_list``,
  ``pfc_enable``, ``pfcwd_sw_enable``) as one comma-separated string;
* ``bracket-reference``: ``"[BUFFER_POOL|name]"`` -> ``"name"``;
* ``bad-boolean`` / ``bad-enum``: a case-only difference from exactly one allowed value;
* ``bad-pattern``: spaces removed from ``pfc_enable``/``pfcwd_sw_enable``; a CABLE_LENGTH of
  ``"5"`` or ``"5 m"`` written ``"5m"`` (metres are the only unit, sonic-yang-models sonic-cable-length.yang);
* ``multi-port-key``: ``"Ethernet0,Ethernet4|3-4"`` split into one key per port with the same
  fields (not when a resulting key already exists with other fields);
* ``scheduler-priority``: the ``priority`` field removed from SCHEDULER (orchagent rejects the
  whole entry otherwise; strictness is expressed by ``type: STRICT``);
* ``wred-min-gt-max``: min and max swapped only when another color of the same profile uses the
  same two numbers the right way round (a copy-paste slip). Otherwise which number is wrong cannot
  be known, and the finding stays.

Everything else (missing fields, dangling references, wrong numbers) needs a decision and is left
alone. The fixed file is written as ``<file>.fixed.json``, to ``-o``, or over the file only with
``--in-place``; it keeps the key order and indentation of the original.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from qosforge.backends.sonic.checks import (
    PFC_LIST_PATTERN,
    TABLE_TRAPS,
    WRED_COLORS,
    WRED_THRESHOLD_LIMIT,
    enum_values,
    field_kind,
)
from qosforge.backends.sonic.checks.encoding import config_db_text, scalar_text
from qosforge.lint.context import KNOWN_TABLES
from qosforge.lint.load import LoadedConfig

#: Tables whose keys start with a port (or are one), as "<port>" or "<port>|<index>" (each sonic-yang-models list keys on one port leafref).
PORT_KEYED_TABLES = frozenset({"BUFFER_PG", "BUFFER_QUEUE", "QUEUE", "PORT_QOS_MAP", "PFC_WD",
                               "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"})
_CABLE = re.compile(r"([0-9]+)\s*[mM]?")


@dataclass(frozen=True)
class Fix:
    """One mechanical change; (rule, table, key, field) names the finding it resolves."""

    rule: str
    table: str
    key: str
    field: str | None
    description: str


class _Fixer:
    def __init__(self, loaded: LoadedConfig) -> None:
        self.loaded = loaded
        self.data: dict[str, Any] = copy.deepcopy(loaded.data)
        self.fixes: list[Fix] = []

    def add(self, rule: str, table: str, key: str, field: str | None, description: str) -> None:
        self.fixes.append(Fix(rule, table, key, field, description))

    # ------------------------------------------------------------------ whole-file fixes

    def nest_redis_keys(self) -> None:
        if not self.loaded.redis_keys:
            return
        written = {name: table_key for table_key, name in self.loaded.redis_keys.items()}
        result: dict[str, Any] = {}
        for name, value in self.data.items():
            if name in written:
                table, key = written[name]
                result.setdefault(table, {})[key] = value
                self.add("redis-key-format", table, key, None, f'"{name}" nested as "{table}": {{"{key}": ...}}')
            elif name in result and isinstance(result[name], dict) and isinstance(value, dict):
                result[name] = {**value, **result[name]}
            else:
                result[name] = value
        self.data = result

    def rename_trap_tables(self) -> None:
        for wrong, right in TABLE_TRAPS.items():
            table = self.data.get(wrong)
            if not isinstance(table, dict):
                continue
            existing = self.data.get(right)
            if existing is not None and (not isinstance(existing, dict) or set(existing) & set(table)):
                continue
            merged = {**(existing or {}), **table}
            self.data = {(right if name == wrong else name): (merged if name == wrong else value)
                         for name, value in self.data.items() if name != right}
            self.add("unknown-table", wrong, "", None, f"table renamed {right}")

    # ------------------------------------------------------------------ per-value fixes

    def each_table(self) -> list[str]:
        return [name for name, table in self.data.items()
                if (name in KNOWN_TABLES or name in TABLE_TRAPS) and isinstance(table, dict)]

    def fix_values(self) -> None:
        for table_name in self.each_table():
            for key, entry in self.data[table_name].items():
                if not isinstance(entry, dict):
                    continue
                for field_name in list(entry):
                    for fixer in (self._stringify, self._bracket, self._case, self._pattern):
                        fixed = fixer(table_name, key, field_name, entry[field_name])
                        if fixed is not None:
                            entry[field_name] = fixed

    def _stringify(self, table: str, key: str, field_name: str, value: Any) -> str | None:
        if isinstance(value, str):
            return None
        text = config_db_text(table, field_name, value)
        if text is None:
            return None
        self.add("value-not-string", table, key, field_name, f"{json.dumps(value, default=str)} -> \"{text}\"")
        return text

    def _bracket(self, table: str, key: str, field_name: str, value: Any) -> str | None:
        kind = field_kind(table, field_name)
        if not isinstance(value, str) or kind not in ("reference", "reference-list"):
            return None
        parts = value.split(",") if kind == "reference-list" else [value]
        bare = [_strip_brackets(part) for part in parts]
        if bare == parts:
            return None
        text = ",".join(bare)
        self.add("bracket-reference", table, key, field_name, f"\"{value}\" -> \"{text}\"")
        return text

    def _case(self, table: str, key: str, field_name: str, value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        kind = field_kind(table, field_name)
        allowed = ("true", "false") if kind == "boolean" else enum_values(table, field_name)
        if not allowed or value in allowed:
            return None
        matches = [option for option in allowed if option.lower() == value.strip().lower()]
        if len(matches) != 1:
            return None
        self.add("bad-boolean" if kind == "boolean" else "bad-enum", table, key, field_name,
                 f"\"{value}\" -> \"{matches[0]}\"")
        return matches[0]

    def _pattern(self, table: str, key: str, field_name: str, value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        if field_kind(table, field_name) == "priority-list":
            squeezed = "".join(value.split())
            if squeezed != value and PFC_LIST_PATTERN.fullmatch(squeezed):
                self.add("bad-pattern", table, key, field_name, f"\"{value}\" -> \"{squeezed}\"")
                return squeezed
        return None

    def fix_cable_lengths(self) -> None:
        table = self.data.get("CABLE_LENGTH")
        if not isinstance(table, dict):
            return
        for name, lengths in table.items():
            if not isinstance(lengths, dict):
                continue
            for port, length in list(lengths.items()):
                text = scalar_text(length) if not isinstance(length, str) else length
                if text is None:
                    continue
                match = _CABLE.fullmatch(text.strip())
                if match is not None and f"{match.group(1)}m" != length:
                    if not isinstance(length, str):
                        self.add("value-not-string", "CABLE_LENGTH", name, port, f"{length} -> \"{text}\"")
                    self.add("bad-pattern", "CABLE_LENGTH", name, port, f"\"{text}\" -> \"{match.group(1)}m\"")
                    lengths[port] = f"{match.group(1)}m"
        self._split_cable_ports(table)

    def _split_cable_ports(self, table: dict[str, Any]) -> None:
        for name, lengths in table.items():
            if not isinstance(lengths, dict) or not any("," in port for port in lengths):
                continue
            result: dict[str, Any] = {}
            for port, length in lengths.items():
                names = [p for p in port.split(",") if p] if "," in port else [port]
                if any(p in lengths and lengths[p] != length for p in names if p != port):
                    result[port] = length
                    continue
                for single in names:
                    result[single] = length
                if len(names) > 1:
                    self.add("multi-port-key", "CABLE_LENGTH", name, None, f"{port} split into {len(names)} ports")
            table[name] = result

    def split_multi_port_keys(self) -> None:
        for table_name in PORT_KEYED_TABLES:
            table = self.data.get(table_name)
            if not isinstance(table, dict) or not any("," in key.split("|")[0] for key in table):
                continue
            result: dict[str, Any] = {}
            for key, entry in table.items():
                port_part, bar, rest = key.partition("|")
                ports = [p for p in port_part.split(",") if p]
                if "," not in port_part or not ports:
                    result.setdefault(key, entry)
                    continue
                keys = [f"{port}{bar}{rest}" for port in ports]
                if any(k in table and table[k] != entry for k in keys) or len(set(keys)) != len(keys):
                    result[key] = entry  # the split would overwrite a different entry: not mechanical
                    continue
                for single in keys:
                    result[single] = copy.deepcopy(entry)
                self.add("multi-port-key", table_name, key, None, f"split into {', '.join(keys)}")
            self.data[table_name] = result

    def drop_scheduler_priority(self) -> None:
        table = self.data.get("SCHEDULER")
        if not isinstance(table, dict):
            return
        for name, entry in table.items():
            if isinstance(entry, dict) and "priority" in entry:
                del entry["priority"]
                self.add("scheduler-priority", "SCHEDULER", name, "priority", "removed priority")

    def swap_wred_windows(self) -> None:
        table = self.data.get("WRED_PROFILE")
        if not isinstance(table, dict):
            return
        for name, entry in table.items():
            if not isinstance(entry, dict):
                continue
            windows = {color: (_uint(entry.get(f"{color}_min_threshold")), _uint(entry.get(f"{color}_max_threshold")))
                       for color in WRED_COLORS}
            for color, (low, high) in windows.items():
                if low is None or high is None or low <= high or low >= WRED_THRESHOLD_LIMIT:
                    continue
                witnesses = [c for c, window in windows.items() if c != color and window == (high, low)]
                if witnesses:
                    entry[f"{color}_min_threshold"], entry[f"{color}_max_threshold"] = str(high), str(low)
                    self.add("wred-min-gt-max", "WRED_PROFILE", name, f"{color}_max_threshold",
                             f"{color} min/max swapped to {high}/{low}, as {witnesses[0]} has them")


def _strip_brackets(text: str) -> str:
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1]
        return inner.split("|", 1)[1] if "|" in inner else inner
    return text


def _uint(value: Any) -> int | None:
    return int(value) if isinstance(value, str) and re.fullmatch(r"[0-9]{1,20}", value) else None


def apply_fixes(loaded: LoadedConfig) -> tuple[dict[str, Any], list[Fix]]:
    """The fixed config and what was changed (empty list: nothing mechanical to fix)."""
    fixer = _Fixer(loaded)
    steps: tuple[Callable[[], None], ...] = (
        fixer.nest_redis_keys, fixer.fix_values, fixer.fix_cable_lengths,
        fixer.split_multi_port_keys, fixer.rename_trap_tables,
        fixer.drop_scheduler_priority, fixer.swap_wred_windows,
    )
    for step in steps:
        step()
    return fixer.data, fixer.fixes


def _indent(text: str) -> int | None:
    match = re.search(r"\n([ \t]+)\"", text)
    if match is None:
        return None
    return len(match.group(1).expandtabs(4))


def render_fixed(data: dict[str, Any], original_text: str) -> str:
    """JSON text of ``data`` in the original's style (indent, trailing newline), non-ASCII kept."""
    indent = _indent(original_text)
    text = json.dumps(data, indent=indent, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON "\ud800"): keep it escaped, as written
        text = json.dumps(data, indent=indent, ensure_ascii=True, default=str)
    return text + "\n" if original_text.endswith("\n") or indent is not None else text


__all__ = ["PORT_KEYED_TABLES", "Fix", "apply_fixes", "render_fixed"]
