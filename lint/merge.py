"""``qosforge lint --merge A.json B.json``: lint several files as the one config SONiC loads.

SONiC renders ``buffers.json`` and ``qos.json`` separately and ``sonic-cfggen`` merges them (and
the platform's ``config_db.json``) with a deep update: later files override earlier ones per
field (sonic-buildimage src/sonic-config-engine/sonic-cfggen ``deep_update``). The merged config
keeps, per table / key / field, which file supplied it, so every finding still points at the file
and line its value came from; a field a later file overrides is reported (``merge-override``,
info).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qosforge.lint.load import LoadedConfig

Path_ = tuple[str, ...]


@dataclass(frozen=True)
class Override:
    path: Path_
    """(table, key, field) that a later file sets again."""
    earlier: str
    later: str
    old: Any
    new: Any


@dataclass
class MergedConfig:
    loaded: LoadedConfig
    """The merged tables (``file`` names every input, ``text`` is empty)."""
    sources: list[LoadedConfig]
    origin: dict[Path_, int] = field(default_factory=dict)
    """(table,), (table, key), (table, key, field) -> index in ``sources`` of the file that supplied it last."""
    overrides: list[Override] = field(default_factory=list)


def _deep_update(target: dict[str, Any], source: dict[str, Any], index: int, path: Path_,
                 merged: MergedConfig) -> None:
    for name, value in source.items():
        here = (*path, name)
        current = target.get(name)
        if isinstance(value, dict) and isinstance(current, dict):
            _deep_update(current, value, index, here, merged)
        else:
            if here in merged.origin and len(here) == 3 and current != value:
                earlier = merged.sources[merged.origin[here]].file
                merged.overrides.append(Override(here, earlier, merged.sources[index].file, current, value))
            target[name] = dict(value) if isinstance(value, dict) else value
            if isinstance(value, dict):
                _record(value, index, here, merged)
        merged.origin[here] = index


def _record(value: dict[str, Any], index: int, path: Path_, merged: MergedConfig) -> None:
    for name, child in value.items():
        merged.origin[(*path, name)] = index
        if isinstance(child, dict) and len(path) < 2:
            _record(child, index, (*path, name), merged)


def merge_configs(configs: list[LoadedConfig]) -> MergedConfig:
    """The deep update of ``configs`` in order (later files win per field)."""
    tables: dict[str, Any] = {}
    merged = MergedConfig(
        LoadedConfig(file=" + ".join(c.file for c in configs), text="", data=tables, tables=tables,
                     duplicates=tuple(d for c in configs for d in c.duplicates)),
        list(configs))
    for index, config in enumerate(configs):
        _deep_update(tables, _copy(config.tables), index, (), merged)
    return merged


def _copy(tables: dict[str, Any]) -> dict[str, Any]:
    return {name: ({key: (dict(entry) if isinstance(entry, dict) else entry) for key, entry in table.items()}
                   if isinstance(table, dict) else table) for name, table in tables.items()}


__all__ = ["MergedConfig", "Override", "merge_configs"]
