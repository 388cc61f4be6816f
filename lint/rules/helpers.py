"""Small helpers the rule modules share: port lists in messages, raw table access, byte text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from qosforge.backends.sonic.checks.encoding import config_db_text

#: Ports named in a message before "+N more".
PORTS_SHOWN = 4


def ports_text(names: Iterable[str]) -> str:
    ordered = list(dict.fromkeys(names))
    shown = ", ".join(ordered[:PORTS_SHOWN])
    return shown + (f" (+{len(ordered) - PORTS_SHOWN} more)" if len(ordered) > PORTS_SHOWN else "")


def raw_entries(tables: Mapping[str, Any], table: str) -> dict[str, dict[str, Any]]:
    """``table``'s entries that are objects (malformed ones are the schema rules' business), each
    JSON number or boolean read as the string it means (``value-not-string`` reports the type;
    :func:`~qosforge.backends.sonic.checks.encoding.config_db_text`), as the checks read them."""
    raw = tables.get(table)
    if not isinstance(raw, dict):
        return {}
    # The usual entry holds only strings: it is returned as it is (read-only), checked at C speed.
    return {key: entry if set(map(type, entry.values())) <= _STRINGS else
            {name: _typed(table, name, value) for name, value in entry.items()}
            for key, entry in raw.items() if isinstance(entry, dict)}


_STRINGS = {str}


def _typed(table: str, field: str, value: Any) -> Any:
    if isinstance(value, str):
        return value
    text = config_db_text(table, field, value)
    return value if text is None else text


def size_text(value_bytes: float) -> str:
    """Bytes as written in config_db, with a readable size for large values."""
    whole = f"{value_bytes:,.0f} B"
    if abs(value_bytes) >= 1e6:
        return f"{whole} ({value_bytes / 1e6:.2f} MB)"
    if abs(value_bytes) >= 1e4:
        return f"{whole} ({value_bytes / 1e3:.1f} kB)"
    return whole


def rate_text(rate_bps: float) -> str:
    return f"{rate_bps / 1e9:g}G"


__all__ = ["PORTS_SHOWN", "ports_text", "rate_text", "raw_entries", "size_text"]
