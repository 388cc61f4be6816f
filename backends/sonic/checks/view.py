"""The well-formed part of a config_db, indexed once, with the facts the checks share.

:class:`ConfigView` is built per :func:`~qosforge.backends.sonic.checks.check_config_db` call
(no module-level caches): per-port indices of BUFFER_PG / BUFFER_QUEUE / QUEUE, parsed maps,
cable lengths, the buffer model, and which tables the file has at all, so a check that needs a
table the file lacks (a ``qos.json`` without BUFFER_PG) is skipped rather than firing as if the
table were empty: SONiC merges ``buffers.json``, ``qos.json`` and ``config_db.json`` at load.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TypeAlias

from qosforge.backends.sonic.facts import BufferModelFact, buffer_model
from qosforge.backends.sonic.keys import IndexedKey, bare_reference, is_int, parse_indexed_key, sint

ConfigDb: TypeAlias = dict[str, dict[str, dict[str, str]]]


@dataclass(frozen=True)
class IndexedEntry:
    key: str
    parsed: IndexedKey
    entry: dict[str, str]


class ConfigView:
    """The string-only tables of one config (as ``_check_structure`` kept them) and their facts."""

    def __init__(self, tables: ConfigDb) -> None:
        self.tables = tables

    def has(self, *names: str) -> bool:
        """Every table in ``names`` is in the file (possibly empty)."""
        return all(name in self.tables for name in names)

    def entries(self, table: str) -> dict[str, dict[str, str]]:
        return self.tables.get(table, {})

    @functools.cached_property
    def model(self) -> BufferModelFact:
        return buffer_model(self.tables)

    @property
    def dynamic(self) -> bool:
        return self.model.model == "dynamic"

    @functools.cached_property
    def cables(self) -> dict[str, str]:
        """port -> cable length string (first CABLE_LENGTH entry that names the port)."""
        found: dict[str, str] = {}
        for lengths in self.entries("CABLE_LENGTH").values():
            for port, length in lengths.items():
                found.setdefault(port, length)
        return found

    @functools.cache  # noqa: B019 - one view per check run; the cache dies with it
    def port_index(self, table: str) -> dict[str, list[IndexedEntry]]:
        """Well-formed indexed keys of ``table`` grouped by port (VOQ keys by their port too), so
        per-port look-ups stay linear in the size of the config (a 5,000-port spine has 40,000 keys)."""
        index: dict[str, list[IndexedEntry]] = {}
        for key, entry in self.entries(table).items():
            parsed = parse_indexed_key(table, key)
            if parsed is not None:
                # orchagent splits a comma-joined port list (sonic-swss orchagent/bufferorch.cpp
                # processBufferPG/processBufferQueue tokenize the port part on ','), so such a key
                # configures each of its ports.
                for port in dict.fromkeys(parsed.port.split(",")):
                    index.setdefault(port, []).append(IndexedEntry(key, parsed, entry))
        return index

    @functools.cache  # noqa: B019 - see port_index
    def port_qos_keys(self) -> dict[str, str]:
        """port -> the PORT_QOS_MAP key that configures it for orchagent (qosorch.cpp splits
        comma-joined keys as bufferorch does); a port's own key wins over a joined one."""
        keys = [key for key in self.entries("PORT_QOS_MAP") if key != "global"]
        found = {key: key for key in keys if "," not in key}
        for key in keys:
            if "," in key:
                for port in key.split(","):
                    found.setdefault(port, key)
        return found

    def indexed(self, table: str, port: str) -> list[IndexedEntry]:
        return self.port_index(table).get(port, [])

    def covering(self, table: str, port: str, index: int) -> IndexedEntry | None:
        for item in self.indexed(table, port):
            if item.parsed.low <= index <= item.parsed.high:
                return item
        return None

    @functools.cache  # noqa: B019 - see port_index
    def map(self, table: str, name: str | None) -> dict[int, int] | None:
        """The named map of ``table`` as integers, None when absent (or the name is None)."""
        if name is None:
            return None
        name = bare_reference(name)
        if name not in self.entries(table):
            return None
        return {number: target for k, v in self.entries(table)[name].items()
                if is_int(k) and is_int(v) and (number := sint(k)) is not None and (target := sint(v)) is not None}

    def profile(self, name: str) -> dict[str, str] | None:
        return self.entries("BUFFER_PROFILE").get(bare_reference(name))

    def pool_of(self, profile_name: str) -> dict[str, str] | None:
        profile = self.profile(profile_name)
        return None if profile is None else self.entries("BUFFER_POOL").get(bare_reference(profile.get("pool", "")))

    def lossless_profile(self, name: str) -> bool:
        """A PG profile that reserves headroom: it has xoff, or it is NULL in the dynamic model
        (buffermgrdyn computes the headroom, sonic-swss cfgmgr/buffermgrdyn.cpp)."""
        if name == "NULL":
            return self.dynamic
        profile = self.profile(name)
        return profile is not None and "xoff" in profile

    def buffermgrd_writes_pgs(self, port: str) -> bool:
        """Traditional model: buffermgrd writes BUFFER_PG|<port>|<pfc_enable> itself when the
        port's cable length is not 0 m (sonic-swss cfgmgr/buffermgr.cpp doUpdatePgTask). A port
        without CABLE_LENGTH in a file lacking that table is taken to have one (fragment)."""
        if self.dynamic or "," in port:
            return False  # a comma-joined PORT_QOS_MAP key: see check_lossless_chain
        cable = self.cables.get(port)
        if cable is None:
            return not self.has("CABLE_LENGTH")
        return cable != "0m"


__all__ = ["ConfigDb", "ConfigView", "IndexedEntry"]
