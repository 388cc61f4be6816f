"""Bytes -> config dict, bounded: what ``qosforge lint`` reads and what it refuses.

A file is *unusable* (exit code 2, one line, never a traceback) when it is larger than
:data:`MAX_CONFIG_BYTES`, not UTF-8, not JSON (the error names line:column), nested deeper than
:data:`MAX_DEPTH`, or not a JSON object. Everything else is linted, however wrong it is.

Bounds, and why:

* :data:`MAX_CONFIG_BYTES` = 64 MiB. The largest real config_db (a 5,000-port spine with all QoS
  tables) is a few tens of MB; the bound keeps memory at a small multiple of it.
* :data:`MAX_DEPTH` = 32 levels. config_db is 3 levels deep (table, key, field); Python's json
  parser recurses per level and would otherwise raise RecursionError around 1,000 levels.
* :data:`MAX_TEXT_CHARS` = 4,096 characters for a key or value inside a QoS table. Real values
  are short (the longest, ``profile_list``, names a few profiles); the bound keeps every regex and
  integer conversion linear (Python refuses to convert more than 4,300 digits to an int, and
  SONiC's uint64 fields have at most 20). Longer text is reported (rule ``oversized-text``) and
  replaced by a short placeholder for the other checks.

JSON details a plain ``json.load`` hides and config_db loaders get wrong are kept: duplicate
keys in one object (``json.load`` on the switch silently keeps the last one, so a DSCP can be in
two classes without anyone seeing it) and top-level keys in redis-dump form (``"TABLE|key"``, as
in sonic-utilities' mock tables), which are normalised into nested tables and reported.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from qosforge.errors import QosforgeError

MAX_CONFIG_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 32
MAX_TEXT_CHARS = 4096
#: Python refuses int() of more digits than this (sys.int_info.default_max_str_digits).
_PYTHON_INT_DIGITS = 4300

Path_ = tuple[str, ...]


class UnusableInputError(QosforgeError):
    """The file cannot be linted at all (exit code 2)."""


@dataclass(frozen=True)
class Duplicate:
    """A key that appears more than once in one JSON object; ``path`` leads to that object."""

    path: Path_
    key: str
    count: int


@dataclass(frozen=True)
class Oversized:
    """A key or value longer than :data:`MAX_TEXT_CHARS` (``field`` None: the key itself)."""

    table: str
    key: str
    field: str | None
    length: int


@dataclass(frozen=True)
class LoadedConfig:
    """One parsed file: ``data`` as written, ``tables`` normalised for the checks."""

    file: str
    text: str
    data: dict[str, Any]
    """The JSON object as written (after keeping the last of duplicate keys, as json.load does)."""
    tables: dict[str, Any]
    """``data`` with redis-dump keys nested and oversized text replaced: what the rules see."""
    duplicates: tuple[Duplicate, ...] = ()
    redis_keys: dict[tuple[str, str], str] = field(default_factory=dict)
    """(table, key) -> the top-level ``"TABLE|key"`` it was written as."""
    oversized: tuple[Oversized, ...] = ()


def read_bytes(path: Path) -> bytes:
    """The file's bytes, refusing unreadable and oversized files before reading them."""
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise UnusableInputError(
                f"the file is {size:,} bytes; lint reads at most {MAX_CONFIG_BYTES:,}",
                place=str(path), hint="lint one switch's config_db.json per file")
        with path.open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise UnusableInputError(f"cannot read the file ({error.strerror or error})", place=str(path),
                                 hint="check the path and permissions") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise UnusableInputError(f"the file is larger than {MAX_CONFIG_BYTES:,} bytes", place=str(path),
                                 hint="lint one switch's config_db.json per file")
    return data


def _decode(data: bytes, file: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        raise UnusableInputError(
            "the file starts with a UTF-8 byte-order mark, which SONiC's json.load rejects",
            place=f"{file}:1:1", hint="save the file as UTF-8 without BOM")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise UnusableInputError(f"not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})",
                                 place=f"{file}:{line}", hint="config_db.json is UTF-8 JSON") from None


def _big_int(text: str) -> int | Decimal:
    # json.loads would raise ValueError on > 4300 digits; keep such a number as a Decimal so it is
    # reported as a non-string value like any other number.
    return int(text) if len(text) <= _PYTHON_INT_DIGITS else Decimal(text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class _DuplicateRecorder:
    """object_pairs_hook that keeps json.load's semantics (last wins) and remembers duplicates."""

    def __init__(self) -> None:
        self.found: dict[int, list[tuple[str, int]]] = {}

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            counts: dict[str, int] = {}
            for key, _value in pairs:
                counts[key] = counts.get(key, 0) + 1
            self.found[id(result)] = [(key, count) for key, count in counts.items() if count > 1]
        return result


_SCALARS = frozenset({str, int, float, bool, type(None), Decimal})


@dataclass(frozen=True)
class _Shape:
    too_deep: bool
    keys: int
    """Number of object keys in the parsed value."""
    longest_text: int
    """Length of the longest key or string value."""


def _walk(value: Any, limit: int) -> _Shape:
    """Depth, key count and longest text of a parsed value, iteratively.

    Containers whose children are all scalars (most config_db entries) are handled with C-level
    ``map``/``set``/``max`` calls, so only containers are visited one by one."""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (dict, list)) else []
    keys = 0
    longest = len(value) if isinstance(value, str) else 0
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return _Shape(True, keys, longest)
        if isinstance(node, dict):
            keys += len(node)
            longest = max(longest, max(map(len, node), default=0))
            children: Any = node.values()
        else:
            children = node
        types = set(map(type, children))
        if types <= {str}:
            longest = max(longest, max(map(len, children), default=0))
            continue
        if types == {dict} and depth < limit:
            # A config_db table ({key: {field: "value"}}): its entries' keys and values are
            # reached through dict.values at C speed, with no Python step per entry.
            values = list(itertools.chain.from_iterable(map(dict.values, children)))
            if set(map(type, values)) <= {str}:
                keys += sum(map(len, children))
                longest = max(longest, max(map(len, itertools.chain.from_iterable(children)), default=0),
                              max(map(len, values), default=0))
                continue
        for child in children:
            if isinstance(child, str):
                longest = max(longest, len(child))
            elif isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return _Shape(False, keys, longest)


def _parse(text: str, file: str, hook: _DuplicateRecorder | None) -> Any:
    try:
        return json.loads(text, object_pairs_hook=hook, parse_int=_big_int, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise UnusableInputError(f"not JSON: {error.msg}", place=f"{file}:{error.lineno}:{error.colno}",
                                 hint="fix the JSON syntax (config_db.json is one JSON object)") from None
    except RecursionError:
        raise UnusableInputError(f"nested deeper than {MAX_DEPTH} levels", place=file,
                                 hint="config_db is {table: {key: {field: value}}}") from None
    except ValueError as error:
        raise UnusableInputError(f"not JSON: {error}", place=file, hint="use only standard JSON values") from None


def parse_json(text: str, file: str) -> tuple[Any, _DuplicateRecorder, int]:
    """The JSON value of ``text``, the duplicate keys it hides, and its longest key or string.

    Plain dicts are parsed first (C speed); only when the text writes more keys than the parsed
    objects hold (json.load keeps the last of duplicates) is it parsed again with a hook that
    finds them."""
    value = _parse(text, file, None)
    shape = _walk(value, MAX_DEPTH)
    if shape.too_deep:
        raise UnusableInputError(f"nested deeper than {MAX_DEPTH} levels", place=file,
                                 hint="config_db is {table: {key: {field: value}}}")
    recorder = _DuplicateRecorder()
    # Each written key is followed by one colon, so with as many colons as parsed keys no key was
    # dropped; colons inside strings (MAC or IPv6 addresses) send us to the exact, slower check.
    if text.count(":") != shape.keys:
        value = _parse(text, file, recorder)
    return value, recorder, shape.longest_text


def _duplicate_paths(data: Any, recorder: _DuplicateRecorder) -> tuple[Duplicate, ...]:
    if not recorder.found:
        return ()
    found: list[Duplicate] = []
    stack: list[tuple[Any, Path_]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        if not isinstance(node, dict):
            continue
        for key, count in recorder.found.get(id(node), []):
            found.append(Duplicate(path, key, count))
        if len(path) < 3:
            stack.extend((child, (*path, key)) for key, child in node.items())
    return tuple(sorted(found, key=lambda d: (d.path, d.key)))


def _placeholder(length: int) -> str:
    return f"<{length}-character text>"


_TABLE_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
#: The fields of one key in ``sonic-db-dump`` output (sonic-swss-common): {type, value, ttl, expireat}.
_DB_DUMP_FIELDS = frozenset({"type", "value", "ttl", "expireat"})


def _db_dump_value(entry: Any) -> Any:
    """The hash of a ``sonic-db-dump`` key ({"type": "hash", "value": {...}, "ttl": -1}), else
    ``entry`` unchanged."""
    if isinstance(entry, dict) and "value" in entry and "type" in entry and set(entry) <= _DB_DUMP_FIELDS:
        return entry["value"]
    return entry


def normalise(data: dict[str, Any], known_tables: frozenset[str], *, longest_text: int | None = None,
              ) -> tuple[dict[str, Any], dict[tuple[str, str], str], tuple[Oversized, ...]]:
    """Read redis dumps (``"TABLE|key"`` top-level keys, as in sonic-utilities tests/mock_tables)
    and ``sonic-db-dump`` output (each key ``{type, value, ttl}``) as nested config_db tables, and
    replace oversized keys/values of known tables (see module doc); ``longest_text`` (from the
    parse) skips the search when nothing can be oversized."""
    tables: dict[str, Any] = {}
    redis_keys: dict[tuple[str, str], str] = {}
    flat: dict[str, dict[str, Any]] = {}
    for name, table in data.items():
        prefix, bar, rest = name.partition("|")
        nested = data.get(prefix)
        if bar and rest and _TABLE_NAME.fullmatch(prefix) and (nested is None or isinstance(nested, dict)) and \
                not (isinstance(nested, dict) and rest in nested):
            table = _db_dump_value(table)
            flat.setdefault(prefix, {})[rest] = table
            redis_keys[(prefix, rest)] = name
        else:
            tables[name] = table
    for prefix, entries in flat.items():
        # New dicts: ``data`` stays exactly as written (the fixer rewrites from it).
        tables[prefix] = {**tables.get(prefix, {}), **entries}
    oversized: list[Oversized] = []
    if longest_text is not None and longest_text <= MAX_TEXT_CHARS:
        return tables, redis_keys, ()
    for name in list(tables):
        table = tables[name]
        if name not in known_tables or not isinstance(table, dict):
            continue
        tables[name] = _bounded_table(name, table, oversized)
    return tables, redis_keys, tuple(oversized)


def _bounded_table(name: str, table: dict[str, Any], oversized: list[Oversized]) -> dict[str, Any]:
    if all(len(key) <= MAX_TEXT_CHARS and (not isinstance(entry, dict) or _short_entry(entry))
           for key, entry in table.items()):
        return table
    bounded: dict[str, Any] = {}
    for key, entry in table.items():
        if len(key) > MAX_TEXT_CHARS:
            oversized.append(Oversized(name, key[:64], None, len(key)))
            continue  # no SONiC key is that long; the entry cannot be addressed
        if isinstance(entry, dict) and not _short_entry(entry):
            fields: dict[str, Any] = {}
            for field_name, value in entry.items():
                if len(field_name) > MAX_TEXT_CHARS:
                    oversized.append(Oversized(name, key, field_name[:64], len(field_name)))
                    continue
                if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
                    oversized.append(Oversized(name, key, field_name, len(value)))
                    value = _placeholder(len(value))
                fields[field_name] = value
            entry = fields
        bounded[key] = entry
    return bounded


def _short_entry(entry: Mapping[str, Any]) -> bool:
    if max(map(len, entry), default=0) > MAX_TEXT_CHARS:
        return False
    values = entry.values()
    if set(map(type, values)) <= {str}:  # the usual entry: C-level checks only
        return max(map(len, values), default=0) <= MAX_TEXT_CHARS
    return all(not isinstance(v, str) or len(v) <= MAX_TEXT_CHARS for v in values)


def require_sonic_tables(tables: Mapping[str, Any], file: str) -> None:
    """A file with no SONiC CONFIG_DB table at all is not a config to lint (exit 2), never 'clean'."""
    from qosforge.backends.sonic.checks import near_miss_table
    from qosforge.backends.sonic.tables import SONIC_TABLES

    if any(name in SONIC_TABLES or near_miss_table(name) is not None for name in tables):
        return
    shown = ", ".join(sorted(map(str, tables))[:3]) or "nothing"
    raise UnusableInputError(
        f"no SONiC CONFIG_DB table in the file (top level holds {shown})", place=f"{file}:1:1",
        hint='config_db.json is {"TABLE": {"key": {"field": "value"}}} with SONiC tables such as '
        "PORT, BUFFER_POOL, DSCP_TO_TC_MAP")


def load_config(data: bytes, file: str, known_tables: frozenset[str], *, part_of_merge: bool = False) -> LoadedConfig:
    """Parse ``data`` (a file's bytes); raises :class:`UnusableInputError` for unusable input.
    ``part_of_merge``: one file of a ``--merge``, where an empty object is a part that adds nothing
    (sonic-cfggen renders ``{}`` from SKUs without buffer settings, e.g. Nokia-7215's buffers.json);
    the merged whole must still hold a SONiC table."""
    if len(data) > MAX_CONFIG_BYTES:
        raise UnusableInputError(f"the input is larger than {MAX_CONFIG_BYTES:,} bytes", place=file,
                                 hint="lint one switch's config_db.json per file")
    text = _decode(data, file)
    value, recorder, longest = parse_json(text, file)
    if isinstance(value, list) and value and all(isinstance(op, dict) and "OP" in op for op in value):
        raise UnusableInputError(
            "this is a swssconfig file (a list of APPL_DB operations with OP), not CONFIG_DB",
            place=f"{file}:1:1", hint="lint the config_db.json (or buffers.json / qos.json) the switch loads")
    if not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else f"a JSON {type(value).__name__}"
        raise UnusableInputError(f"the top level is {kind}, not an object", place=f"{file}:1:1",
                                 hint="config_db.json is one object: {\"TABLE\": {\"key\": {\"field\": \"value\"}}}")
    tables, redis_keys, oversized = normalise(value, known_tables, longest_text=longest)
    if not (part_of_merge and not value):
        require_sonic_tables(tables, file)
    return LoadedConfig(file=file, text=text, data=value, tables=tables,
                        duplicates=_duplicate_paths(value, recorder), redis_keys=redis_keys, oversized=oversized)


__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_DEPTH",
    "MAX_TEXT_CHARS",
    "Duplicate",
    "LoadedConfig",
    "Oversized",
    "UnusableInputError",
    "load_config",
    "normalise",
    "parse_json",
    "read_bytes",
    "require_sonic_tables",
]
