"""Everything the rules of one file share: the loaded config, its IR view, the ASIC and intent.

Expensive views are built once per file and only when a rule asks (the SONiC checks, the
reverse-mapped IR, line positions); model results are cached per run by their inputs, so 1,000
configs of the same fabric evaluate each headroom or fit once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from qosforge.backends.sonic.checks import (
    CONTEXT_TABLES,
    QOS_TABLES,
    TABLE_TRAPS,
    Violation,
    check_config_db,
    map_tables,
)
from qosforge.backends.sonic.parse import ParsedConfigDb, parse_config_db
from qosforge.lint.findings import Finding, Severity, clip, printable
from qosforge.lint.intent import SwitchIntent
from qosforge.lint.load import LoadedConfig
from qosforge.lint.locate import KeyLocator
from qosforge.vendor_profiles.schema import VendorProfile

Needs = Literal["config", "profile", "intent"]
T = TypeVar("T")

#: Tables the linter reads; every other table of a whole config_db is left alone.
KNOWN_TABLES = frozenset(QOS_TABLES | CONTEXT_TABLES)
#: The widest queue index range a key may span: no port has more queues (the CPU port's 0-48 is
#: the largest in sonic-buildimage src/sonic-yang-models/yang-models/sonic-queue.yang, BUFFER_QUEUE allows 0-15, sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-queue.yang).
MAX_INDEX_SPAN = 64
#: A QoS map has at most 64 entries (DSCP 0-63; TC 0-15, priorities 0-7, §3.9-§3.15). Beyond its
#: keys 0-63, a map keeps at most this many other (invalid) keys for the checks, which walk every
#: map once per port (a 10^6-entry map bound to 5,000 ports would take hours).
MAX_MAP_ENTRIES = 64
MAP_TABLES = map_tables()
_MAP_KEY = re.compile(r"[0-9]|[1-5][0-9]|6[0-3]")
_RANGE = re.compile(r"[^|]*\|([0-9]{1,4096})-([0-9]{1,4096})")


def _index_span(key: str) -> int:
    match = _RANGE.fullmatch(key)
    return int(match.group(2)) - int(match.group(1)) if match is not None else 0


@dataclass
class RunCache:
    """Model results shared by every file of one run, keyed by their inputs."""

    values: dict[Hashable, Any] = field(default_factory=dict)

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        if key not in self.values:
            self.values[key] = compute()
        result: T = self.values[key]
        return result


@dataclass(frozen=True)
class RuleInfo:
    """What a finding inherits from its rule (see :mod:`qosforge.lint.rules`)."""

    severity: Severity
    hint: str


class LintContext:
    """One file being linted."""

    def __init__(
        self,
        loaded: LoadedConfig,
        *,
        profile: VendorProfile | None,
        intent: SwitchIntent | None,
        rules: Mapping[str, RuleInfo],
        cache: RunCache | None = None,
    ) -> None:
        self.loaded = loaded
        self.file = loaded.file
        self.tables = loaded.tables
        self.profile = profile
        self.intent = intent
        self.cache = cache if cache is not None else RunCache()
        self._rules = rules
        self._locator = KeyLocator(loaded.text)
        self.memo: dict[str, Any] = {}
        self.wide_ranges: list[str] = []
        """QUEUE keys held back from the checks (see :attr:`checked_tables`)."""
        self.oversized_maps: list[tuple[str, str, int]] = []
        """(table, map name, entries) of maps cut to :data:`MAX_MAP_ENTRIES` for the checks."""
        """Per-file results several rules share (e.g. where each intent class lands)."""

    def has(self, needs: Needs) -> bool:
        if needs == "profile":
            return self.profile is not None
        if needs == "intent":
            return self.intent is not None
        return True

    # ------------------------------------------------------------------ views

    @functools.cached_property
    def checked_tables(self) -> dict[str, Any]:
        """What check_config_db sees: the QoS/buffer and context tables, plus tables whose name
        is a known trap (``PFC_PRIORITY_TO_QUEUE_MAP``), so they are reported as unknown.

        QUEUE keys whose index range is wider than :data:`MAX_INDEX_SPAN` are held back (and
        reported as ``index-range-too-wide``): YANG leaves the QUEUE index a free string (§3.7),
        and expanding ``0-99999999999`` index by index would never finish."""
        tables = {name: table for name, table in self.tables.items() if name in KNOWN_TABLES or name in TABLE_TRAPS}
        queue = tables.get("QUEUE")
        if isinstance(queue, dict):
            wide = [key for key in queue if _index_span(key) > MAX_INDEX_SPAN]
            if wide:
                self.wide_ranges.extend(wide)
                tables["QUEUE"] = {key: entry for key, entry in queue.items() if key not in set(wide)}
        for name in MAP_TABLES & set(tables):
            maps = tables[name]
            if isinstance(maps, dict) and any(isinstance(m, dict) and len(m) > MAX_MAP_ENTRIES for m in maps.values()):
                tables[name] = {key: self._bounded_map(name, key, mapping) for key, mapping in maps.items()}
        return tables

    def _bounded_map(self, table: str, name: str, mapping: Any) -> Any:
        """Every entry a map can validly have (keys 0-63), plus the first MAX_MAP_ENTRIES others."""
        if not isinstance(mapping, dict) or len(mapping) <= MAX_MAP_ENTRIES:
            return mapping
        others = [key for key in mapping if not _MAP_KEY.fullmatch(key)]
        if len(others) <= MAX_MAP_ENTRIES:
            return mapping
        self.oversized_maps.append((table, name, len(mapping)))
        dropped = set(others[MAX_MAP_ENTRIES:])
        return {key: value for key, value in mapping.items() if key not in dropped}

    @functools.cached_property
    def asic_buffer_bytes(self) -> int | None:
        if self.profile is None:
            return None
        value = self.profile.buffer_bytes.value
        return int(value) if value is not None else None

    @functools.cached_property
    def violations(self) -> list[Violation]:
        return check_config_db(self.checked_tables, asic_buffer_bytes=self.asic_buffer_bytes)

    @functools.cached_property
    def parsed(self) -> ParsedConfigDb:
        return parse_config_db(self.checked_tables, file=self.file)

    # ------------------------------------------------------------------ findings

    def location(self, table: str, key: str, field_name: str | None) -> tuple[int | None, int | None]:
        redis_key = self.loaded.redis_keys.get((table, key))
        parts = [redis_key] if redis_key is not None else [table, *([key] if key else [])]
        if field_name is not None and key:
            parts.append(field_name)
        found = self._locator.locate(*parts)
        return (found[0], found[1]) if found is not None else (None, None)

    def locate_path(self, path: tuple[str, ...]) -> tuple[int | None, int | None]:
        found = self._locator.locate(*path)
        return (found[0], found[1]) if found is not None else (None, None)

    def report(
        self,
        rule: str,
        table: str,
        key: str,
        field_name: str | None,
        message: str,
        *,
        hint: str | None = None,
        values: Mapping[str, float | str] | None = None,
        line: tuple[int | None, int | None] | None = None,
    ) -> Finding:
        info = self._rules.get(rule, RuleInfo(Severity.ERROR, "see docs/rules.md"))
        where_line, where_column = line if line is not None else self.location(table, key, field_name)
        return Finding(
            rule=rule,
            severity=info.severity,
            file=self.file,
            table=clip(printable(table), 120),
            key=clip(printable(key), 200),
            field=None if field_name is None else clip(printable(field_name), 120),
            message=clip(printable(message)),
            hint=hint or info.hint,
            line=where_line,
            column=where_column,
            values=dict(values or {}),
        )


__all__ = ["KNOWN_TABLES", "LintContext", "Needs", "RuleInfo", "RunCache"]
