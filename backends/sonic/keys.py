"""config_db keys, integers and the limits that bound them: defined once for the SONiC backend.

The validator (:mod:`qosforge.backends.sonic.checks`), the reverse mapping
(:mod:`qosforge.backends.sonic.parse`) and ``qosforge lint`` all parse keys and numbers with
these helpers, so a key that one of them accepts is read the same way by the others.

Key shapes come from SONiC's YANG models (sonic-buildimage ``src/sonic-yang-models/yang-models``):

* ``BUFFER_PG``: ``<port>|<pg>``, pg ``[0-7]`` or ``N-M`` (sonic-buffer-pg.yang);
* ``BUFFER_QUEUE``: ``<port>|<queue>``, queue ``0-15`` or ``N-M`` (``BUFFER_QUEUE_LIST``), or on a
  VOQ chassis ``<host>|<asic>|<port>|<queue>`` (``VOQ_BUFFER_QUEUE_LIST``, sonic-buffer-queue.yang);
* ``QUEUE``: ``<port>|<qindex>`` (``QUEUE_LIST``) or ``<host>|<asic>|<port>|<qindex>``
  (``VOQ_QUEUE_LIST``, sonic-queue.yang).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

#: YANG name pattern of WRED_PROFILE, DSCP_TO_TC_MAP, DOT1P_TO_TC_MAP, CABLE_LENGTH (sonic-wred-profile.yang).
NAME_PATTERN = re.compile(r"[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}")
PG_KEY_PATTERN = re.compile(r"([0-7])(?:-([0-7]))?")  # sonic-buffer-pg.yang
QUEUE_KEY_PATTERN = re.compile(r"(1[0-5]|[0-9])(?:-(1[0-5]|[0-9]))?")  # sonic-buffer-queue.yang
QUEUE_INDEX_PATTERN = re.compile(r"([0-9]+)(?:-([0-9]+))?")  # QUEUE qindex: a free string, N or N-M
PFC_LIST_PATTERN = re.compile(r"([0-7](,[0-7])*)?")  # sonic-port-qos-map.yang pfc_enable
CABLE_PATTERN = re.compile(r"[0-9]+m")  # sonic-cable-length.yang
#: buffermgrd's name for the lossless profile it generates per port (sonic-swss cfgmgr/buffermgr.cpp).
TRADITIONAL_PG_PROFILE = re.compile(r"pg_lossless_([0-9]+)_([0-9]+m)_profile")

#: uint64 has 20 decimal digits; longer digit strings exceed every config_db number (and Python
#: refuses int() beyond 4,300 digits), so they are never converted.
MAX_DIGITS = 20
BEYOND_EVERY_RANGE: int = 10**(MAX_DIGITS + 4)
#: The widest index range a key may span: no port has more queues (the CPU port's 0-48 is the
#: largest in SONiC's configs; BUFFER_QUEUE allows 0-15).
MAX_INDEX_SPAN = 64
#: A QoS map has at most 64 entries (DSCP 0-63; TC 0-15; priorities 0-7).
MAX_MAP_ENTRIES = 64

_UINT = re.compile(r"[0-9]+")
_INT = re.compile(r"-?[0-9]+")
_CANONICAL = re.compile(r"0|[1-9][0-9]*")
#: What the switch reads as a number: orchagent's std::stoul/stoi skip leading whitespace and stop at
#: the first non-digit (sonic-swss orchagent/bufferorch.cpp, qosorch.cpp call them without checking
#: the end position), and libyang trims whitespace around integer values, so " 166912" and
#: "6217728 " load as numbers. The checks still report the spaces (integer-whitespace).
_UINT_READ = re.compile(r"\s*([0-9]+)\s*")
_INT_READ = re.compile(r"\s*(-?[0-9]+)\s*")

#: Which key layout each indexed table has (see the module doc).
INDEX_PATTERNS: dict[str, re.Pattern[str]] = {
    "BUFFER_PG": PG_KEY_PATTERN,
    "BUFFER_QUEUE": QUEUE_KEY_PATTERN,
    "QUEUE": QUEUE_INDEX_PATTERN,
}
#: Tables whose keys may carry a VOQ chassis prefix ``<host>|<asic>|``.
VOQ_TABLES = frozenset({"BUFFER_QUEUE", "QUEUE"})


def bounded_int(text: str) -> int:
    """``int(text)`` for decimal text already matched by a pattern; absurdly long text maps to a
    value beyond every range instead of being parsed."""
    digits = text.lstrip("+-")
    if len(digits) > MAX_DIGITS + 4:
        return -BEYOND_EVERY_RANGE if text.startswith("-") else BEYOND_EVERY_RANGE
    return int(text)


def uint(text: object) -> int | None:
    """A non-negative decimal string as int (bounded), else None; surrounding whitespace is read
    past, as the switch does (see _UINT_READ)."""
    match = _UINT_READ.fullmatch(text) if isinstance(text, str) else None
    return bounded_int(match.group(1)) if match is not None else None


def sint(text: object) -> int | None:
    """A signed decimal string as int (bounded), else None (whitespace as :func:`uint`)."""
    match = _INT_READ.fullmatch(text) if isinstance(text, str) else None
    return bounded_int(match.group(1)) if match is not None else None


def padded_number(text: str, *, signed: bool) -> str | None:
    """The number inside ``text`` when only whitespace around it keeps it from being a plain
    decimal integer, else None."""
    match = (_INT_READ if signed else _UINT_READ).fullmatch(text)
    return match.group(1) if match is not None and match.group(1) != text else None


def is_uint(text: str) -> bool:
    return _UINT.fullmatch(text) is not None


def is_int(text: str) -> bool:
    return _INT.fullmatch(text) is not None


def small_int(text: str, low: int, high: int) -> int | None:
    """``text`` as an int in low..high written without sign or leading zeros, else None."""
    if _CANONICAL.fullmatch(text) is None:
        return None
    number = bounded_int(text)
    return number if low <= number <= high else None


@functools.lru_cache(maxsize=1024)
def _priority_list(text: str) -> tuple[int, ...]:
    if not text or PFC_LIST_PATTERN.fullmatch(text) is None:
        return ()
    return tuple(sorted({int(part) for part in text.split(",")}))


def priorities(text: object) -> tuple[int, ...]:
    """A ``pfc_enable`` / ``pfcwd_sw_enable`` list as sorted distinct priorities (empty if malformed)."""
    if not isinstance(text, str) or len(text) > 64:
        return () if not isinstance(text, str) else _priority_list.__wrapped__(text)
    return _priority_list(text)


def contiguous_ranges(numbers: list[int] | tuple[int, ...]) -> list[tuple[int, int]]:
    """Sorted distinct integers as maximal runs (buffermgrd's generateIdListFromMap)."""
    runs: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def ranges_text(numbers: list[int] | tuple[int, ...]) -> str:
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in contiguous_ranges(numbers))


@dataclass(frozen=True)
class IndexedKey:
    """A parsed ``[<host>|<asic>|]<port>|<index range>`` key."""

    port: str
    low: int
    high: int
    chassis: str | None = None
    """``<host>|<asic>`` of a VOQ key, None for a local port."""

    @property
    def span(self) -> int:
        return self.high - self.low

    def indices(self) -> range:
        return range(self.low, self.high + 1)


#: Parsed keys are shared across the files of a run: a fabric's configs repeat the same port
#: keys, so linting 1,000 of them parses each key shape once (the results are immutable).
_KEY_CACHE_SIZE = 1 << 16


@functools.lru_cache(maxsize=_KEY_CACHE_SIZE)
def split_indexed_key(table: str, key: str) -> tuple[str | None, str, str] | None:
    """(chassis prefix or None, port, index text) of an indexed key, None for a wrong part count."""
    parts = key.split("|")
    if len(parts) == 2:
        return None, parts[0], parts[1]
    if len(parts) == 4 and table in VOQ_TABLES:
        return f"{parts[0]}|{parts[1]}", parts[2], parts[3]
    return None


@functools.lru_cache(maxsize=_KEY_CACHE_SIZE)
def parse_indexed_key(table: str, key: str) -> IndexedKey | None:
    """``key`` of BUFFER_PG / BUFFER_QUEUE / QUEUE parsed, or None when malformed (wrong part
    count, an index outside the table's pattern, a range running backwards or wider than
    :data:`MAX_INDEX_SPAN`)."""
    split = split_indexed_key(table, key)
    if split is None:
        return None
    chassis, port, index = split
    match = INDEX_PATTERNS[table].fullmatch(index) if len(index) <= 2 * MAX_DIGITS + 1 else None
    if match is None or not port:
        return None
    low = bounded_int(match.group(1))
    high = bounded_int(match.group(2)) if match.group(2) is not None else low
    if high < low or high - low > MAX_INDEX_SPAN or high >= 10**MAX_DIGITS:
        return None
    return IndexedKey(port, low, high, chassis)


def index_span(key: str) -> int:
    """How many indices past the first a ``<...>|N-M`` key spans (0 for anything else)."""
    match = re.fullmatch(r"[0-9]{1,4096}-([0-9]{1,4096})", key.rsplit("|", 1)[-1])
    if match is None:
        return 0
    low_text = key.rsplit("|", 1)[-1].split("-")[0]
    return bounded_int(match.group(1)) - bounded_int(low_text)


def bare_reference(value: str) -> str:
    """A reference without the legacy ``[TABLE|name]`` notation (db_migrator version_3_0_2 strips
    it the same way: sonic-utilities scripts/db_migrator.py migrate_qos_db_fieldval_reference_remove)."""
    if value.startswith("[") and value.endswith("]") and "|" in value:
        return value[1:-1].split("|", 1)[1]
    return value


def cable_metres(text: object) -> float | None:
    if not isinstance(text, str) or CABLE_PATTERN.fullmatch(text) is None or len(text) > MAX_DIGITS:
        return None
    return float(text[:-1])


__all__ = [
    "CABLE_PATTERN",
    "INDEX_PATTERNS",
    "MAX_DIGITS",
    "MAX_INDEX_SPAN",
    "MAX_MAP_ENTRIES",
    "NAME_PATTERN",
    "PFC_LIST_PATTERN",
    "PG_KEY_PATTERN",
    "QUEUE_INDEX_PATTERN",
    "QUEUE_KEY_PATTERN",
    "TRADITIONAL_PG_PROFILE",
    "VOQ_TABLES",
    "IndexedKey",
    "bare_reference",
    "bounded_int",
    "cable_metres",
    "contiguous_ranges",
    "index_span",
    "is_int",
    "is_uint",
    "padded_number",
    "parse_indexed_key",
    "priorities",
    "ranges_text",
    "sint",
    "small_int",
    "split_indexed_key",
    "uint",
]
