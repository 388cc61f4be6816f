"""Rows as columns: flattened keys for ``--parquet`` and for the plot.

Nested result objects become dotted column names (``drops_by_reason.wred``), lists of objects
too, by their names (``switches.tor1.buffer.value``, ``switches.leaf1.ports.Ethernet0.drops_by_reason.wred``); the row's sections
are prefixed (``params.rtt``, ``result.goodput_gbps``, ``timing.seconds``) so a parameter and an
output of the same name stay apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from qosforge.campaigns.store import Row
from qosforge.files import write_atomically

#: Fields that name an object in a result list: switches and classes have a ``name``, a fabric
#: switch's ports their ``port`` (``Ethernet0``, as the text output names them).
IDENTIFYING_KEYS = ("name", "port")


def _item_names(items: list[Any]) -> list[str] | None:
    """Names for a list of objects: their first identifying field (IDENTIFYING_KEYS) when every
    item has it and it is unique, else their indices; ``None`` for a list of plain values, which
    stays one column."""
    if not items or not all(isinstance(item, Mapping) for item in items):
        return None
    for key in IDENTIFYING_KEYS:
        names = [str(item.get(key)) for item in items]
        if all(item.get(key) is not None for item in items) and len(set(names)) == len(names):
            return names
    return [str(index) for index in range(len(items))]


def flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{'a': {'b': 1}, 's': [{'name': 'x', 'v': 2}], 'c': [1, 2]}`` ->
    ``{'a.b': 1, 's.x.v': 2, 'c': [1, 2]}`` (compile's per-switch reports become columns)."""
    flat: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        names = _item_names(item) if isinstance(item, list) else None
        if isinstance(item, Mapping):
            flat.update(flatten(item, f"{name}."))
        elif names is not None:
            for item_name, element in zip(names, item, strict=True):
                flat.update(flatten(element, f"{name}.{item_name}."))
        else:
            flat[name] = item
    return flat


def row_columns(row: Row) -> dict[str, Any]:
    data = row.to_json()
    columns: dict[str, Any] = {"point": data["point"], "command": " ".join(data["command"]), "status": data["status"], "error": data["error"]}
    for section in ("params", "result", "timing"):
        columns.update(flatten(data[section] or {}, f"{section}."))
    return columns


def columns_of(rows: Sequence[Row]) -> dict[str, list[Any]]:
    """Column name -> one value per row (None where a row lacks the column)."""
    flat_rows = [row_columns(row) for row in rows]
    names = list(dict.fromkeys(name for flat in flat_rows for name in flat))
    return {name: [flat.get(name) for flat in flat_rows] for name in names}


def _arrow_column(values: list[Any]) -> Any:
    import pyarrow as pa

    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # Mixed kinds in one column (a number in one row, text in another): keep it as JSON text.
        return pa.array([None if value is None else json.dumps(value, default=str) for value in values], type=pa.string())


def write_parquet(path: Path, rows: Sequence[Row]) -> None:
    """One Parquet row per grid point, written atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({name: _arrow_column(values) for name, values in columns_of(rows).items()})
    write_atomically(path, lambda temporary: pq.write_table(table, temporary))


__all__ = ["columns_of", "flatten", "row_columns", "write_parquet"]
