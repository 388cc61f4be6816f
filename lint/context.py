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
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from qosforge.backends.sonic.checks import (
    KNOWN_TABLES,
    ConfigView,
    Violation,
    check_view,
    map_tables,
    near_miss_table,
    read_config_db,
)
from qosforge.backends.sonic.facts import VendorFact, vendor_from_metadata
from qosforge.backends.sonic.keys import MAX_INDEX_SPAN, MAX_MAP_ENTRIES, index_span
from qosforge.lint.findings import Finding, Severity, clip, printable
from qosforge.lint.load import LoadedConfig
from qosforge.lint.locate import KeyLocator
from qosforge.lint.merge import MergedConfig

if TYPE_CHECKING:  # heavy (IR, pydantic) and needed only by the model-based rules
    from qosforge.backends.host.document import HostSettingsDocument
    from qosforge.backends.phases import LintReader
    from qosforge.backends.sonic.parse import ParsedConfigDb
    from qosforge.lint.intent import SwitchIntent
    from qosforge.vendor_profiles.schema import VendorProfile

Needs = Literal["config", "profile", "intent", "hosts", "counters"]
T = TypeVar("T")

MAP_TABLES = map_tables()
#: Beyond its keys 0-63, a map keeps at most MAX_MAP_ENTRIES other (invalid) keys for the checks,
#: which walk every map once per port (a 10^6-entry map bound to 5,000 ports would take hours).
_MAP_KEY = re.compile(r"[0-9]|[1-5][0-9]|6[0-3]")


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
        merged: MergedConfig | None = None,
        hosts: HostSettingsDocument | None = None,
        reader: LintReader | None = None,
    ) -> None:
        self.loaded = loaded
        self.reader = reader
        """The target's lint phase that reads the tables back (None: the sonic target's)."""
        self.merged = merged
        self._locators: dict[int, KeyLocator] = {}
        self.file = loaded.file
        self.tables = loaded.tables
        self.profile = profile
        self.intent = intent
        self.hosts = hosts
        """The host settings document of ``lint --hosts`` (the host rules need it)."""
        self.cache = cache if cache is not None else RunCache()
        self._rules = rules
        self._locator = KeyLocator(loaded.text)
        self.memo: dict[str, Any] = {}
        self.wide_ranges: list[str] = []
        """QUEUE keys held back from the checks (see :attr:`checked_tables`)."""
        self.oversized_maps: list[tuple[str, str, int]] = []
        """(table, map name, entries) of maps cut to :data:`MAX_MAP_ENTRIES` for the checks."""
        """Per-file results several rules share (e.g. where each intent class lands)."""

    @functools.cached_property
    def vendor(self) -> VendorFact:
        """The ASIC vendor: from the vendor profile (--profile or the intent), else DEVICE_METADATA."""
        if self.profile is not None:
            return VendorFact(self.profile.name.split("-")[0], f"vendor profile {self.profile.name}")
        return vendor_from_metadata(self.tables)

    def has(self, needs: Needs) -> bool:
        if needs == "profile":
            return self.profile is not None
        if needs == "intent":
            return self.intent is not None
        if needs == "hosts":
            return self.hosts is not None
        return True

    # ------------------------------------------------------------------ views

    @functools.cached_property
    def checked_tables(self) -> dict[str, Any]:
        """What check_config_db sees: the QoS/buffer and context tables, plus tables whose name
        is a known trap (``PFC_PRIORITY_TO_QUEUE_MAP``), so they are reported as unknown.

        QUEUE keys whose index range is wider than :data:`MAX_INDEX_SPAN` are held back (and
        reported as ``index-range-too-wide``): YANG leaves the QUEUE index a free string (sonic-yang-models sonic-queue.yang),
        and expanding ``0-99999999999`` index by index would never finish."""
        tables = {name: table for name, table in self.tables.items()
                  if name in KNOWN_TABLES or near_miss_table(name) is not None}
        queue = tables.get("QUEUE")
        if isinstance(queue, dict):
            wide = [key for key in queue if index_span(key) > MAX_INDEX_SPAN]
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
    def _read(self) -> tuple[ConfigView, list[Violation]]:
        return read_config_db(self.checked_tables)

    @property
    def view(self) -> ConfigView:
        """The well-formed tables the checks read; the reverse mapping reads the same ones."""
        return self._read[0]

    @functools.cached_property
    def violations(self) -> list[Violation]:
        view, structure = self._read
        return structure + check_view(view, asic_buffer_bytes=self.asic_buffer_bytes)

    @functools.cached_property
    def parsed(self) -> ParsedConfigDb:
        reader = self.reader
        if reader is None:
            from qosforge.backends.registry import get_target

            reader = get_target("sonic").lint
            assert reader is not None  # the sonic target reads config_db back
        parsed: ParsedConfigDb = reader.parse(self.view.tables, file=self.file)
        return parsed

    # ------------------------------------------------------------------ findings

    def _source(self, table: str, key: str, field_name: str | None) -> tuple[LoadedConfig, KeyLocator]:
        """The file that supplied ``table|key.field`` (the last one, with --merge) and its locator."""
        if self.merged is None:
            return self.loaded, self._locator
        paths = [(table, key, field_name), (table, key), (table,)] if field_name else [(table, key), (table,)]
        index = next((self.merged.origin[p] for p in paths if p in self.merged.origin), 0)
        source = self.merged.sources[index]
        if index not in self._locators:
            self._locators[index] = KeyLocator(source.text)
        return source, self._locators[index]

    def location(self, table: str, key: str, field_name: str | None) -> tuple[int | None, int | None]:
        return self._where(table, key, field_name)[1:]

    def _where(self, table: str, key: str, field_name: str | None) -> tuple[str, int | None, int | None]:
        source, locator = self._source(table, key, field_name)
        redis_key = source.redis_keys.get((table, key))
        parts = [redis_key] if redis_key is not None else [table, *([key] if key else [])]
        if field_name is not None and key:
            parts.append(field_name)
        found = locator.locate(*parts)
        return (source.file, found[0], found[1]) if found is not None else (source.file, None, None)

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
        file, where_line, where_column = self._where(table, key, field_name)
        if line is not None:
            where_line, where_column = line
        return Finding(
            rule=rule,
            severity=info.severity,
            file=file,
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
