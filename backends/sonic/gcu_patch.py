"""The JSON Patch (RFC 6902) that SONiC's Generic Config Updater applies to move a switch's running
QoS and buffer tables to the compiled ones, leaving every other table alone.

``config apply-patch FILE`` (sonic-utilities ``config/main.py: apply_patch`` ->
``generic_config_updater/main.py: apply_patch_from_file``) reads the patch with the PyPI
``jsonpatch`` library, applies it to the running config to get the target, validates the target
against the SONiC YANG models and then works out its own change order. GCU addresses config_db
with JSON Pointers (RFC 6901): ``/TABLE/KEY/FIELD`` with the table's key as one token, so a
multi-part key such as ``Ethernet0|3-4`` is a single, unescaped token (``|`` is not special in
RFC 6901); only ``~`` and ``/`` are escaped, as ``~0`` and ``~1``
(sonic-buildimage ``src/sonic-yang-mgmt/sonic_yang_path.py: configdb_path_split/_join`` use
``jsonpointer.JsonPointer.parts`` / ``from_parts``, which ``generic_config_updater/gu_common.py:
PathAddressing`` calls). The patch here is built with the same ``jsonpatch``/``jsonpointer``
libraries, so its paths are exactly GCU's.

Which tables are "QoS and buffer tables": :data:`QOS_AND_BUFFER_TABLES`, the tables
``config qos reload`` deletes and regenerates (sonic-utilities ``config/main.py: _clear_qos``,
``QOS_TABLE_NAMES``), plus ``PFC_WD``, the PFC watchdog table qosforge renders (written by
``pfcwd start``/``start_default``, sonic-utilities ``pfcwd/main.py``). ``FLEX_COUNTER_TABLE``
(:data:`MERGED_TABLES`) is merged instead: the running switch polls groups qosforge knows nothing
about (RIF, ACL, ...), so the patch only sets the fields of the groups the compiled config names;
so is ``SWITCH_TRIMMING`` (the packet trimming setting, sonic-swss orchagent/switchorch.cpp).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonpatch

from qosforge.backends.sonic.checks.encoding import config_db_text
from qosforge.errors import QosforgeError

#: sonic-utilities config/main.py ``_clear_qos`` QOS_TABLE_NAMES (commit 691b1bbc), in its order.
CONFIG_QOS_RELOAD_TABLES: tuple[str, ...] = (
    "PORT_QOS_MAP",
    "QUEUE",
    "TC_TO_PRIORITY_GROUP_MAP",
    "MAP_PFC_PRIORITY_TO_QUEUE",
    "TC_TO_QUEUE_MAP",
    "DSCP_TO_TC_MAP",
    "MPLS_TC_TO_TC_MAP",
    "SCHEDULER",
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "WRED_PROFILE",
    "CABLE_LENGTH",
    "BUFFER_PG",
    "BUFFER_QUEUE",
    "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST",
    "BUFFER_PROFILE",
    "BUFFER_POOL",
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
    "LOSSLESS_TRAFFIC_PATTERN",
)

#: The tables a qosforge patch owns: everything ``config qos reload`` owns, and ``PFC_WD``.
QOS_AND_BUFFER_TABLES: frozenset[str] = frozenset((*CONFIG_QOS_RELOAD_TABLES, "PFC_WD"))
#: Tables the patch merges into, entry by entry and field by field: the counter groups watch needs,
#: and the switch's one packet-trimming entry (SWITCH_TRIMMING|GLOBAL, sonic-trimming.yang), which
#: no QoS reload owns; a config without trimming leaves it alone (no profile then trims).
MERGED_TABLES: frozenset[str] = frozenset({"FLEX_COUNTER_TABLE", "SWITCH_TRIMMING"})

# Tables keyed by "<port>" or "<port>|<index>" (YANG: a leafref to PORT, or the words below).
_PER_PORT_TABLES = (
    "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE", "PFC_WD",
    "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST",
)
# PORT_QOS_MAP|global (sonic-port-qos-map.yang) and PFC_WD|GLOBAL (sonic-pfcwd.yang) are not ports.
_NOT_PORTS = frozenset({"global", "GLOBAL"})


class BaseConfigError(QosforgeError):
    """A base config (a switch's running config_db.json) that a patch cannot be computed against."""


def check_base_config(base: Any, place: str) -> dict[str, dict[str, Any]]:
    """``base`` as a config_db document (table -> key -> entry), or a :class:`BaseConfigError`.

    A running config_db.json (``sonic-cfggen -d --print-data``, ``show runningconfiguration all``)
    is an object of tables, each an object of entries; and it always has a ``PORT`` table, which
    every per-port QoS key refers to (YANG leafrefs).
    """
    hint = "give the switch's running config: sonic-cfggen -d --print-data > config_db.json (or show runningconfiguration all)"
    if not isinstance(base, dict):
        raise BaseConfigError(f"a config_db.json is a JSON object of tables, not a {type(base).__name__}", place=place, hint=hint)
    for table, entries in base.items():
        if not isinstance(entries, dict):
            raise BaseConfigError(f"table {table} is a {type(entries).__name__}, not an object of entries", place=place, hint=hint)
        if table in QOS_AND_BUFFER_TABLES:
            for key, entry in entries.items():
                if not isinstance(entry, dict):
                    raise BaseConfigError(f"{table}|{key} is a {type(entry).__name__}, not an object of fields", place=place, hint=hint)
    if not base.get("PORT"):
        raise BaseConfigError("no PORT table: this is not a switch's running config_db.json", place=place, hint=hint)
    return base


def _ports_used(compiled: Mapping[str, Mapping[str, Mapping[str, str]]]) -> set[str]:
    ports = {key.split("|", 1)[0] for table in _PER_PORT_TABLES for key in compiled.get(table, {})}
    for entry in compiled.get("CABLE_LENGTH", {}).values():
        ports.update(entry)  # CABLE_LENGTH|AZURE: {"<port>": "<length>m"}
    return ports - _NOT_PORTS


def ports_losing_qos(base: Mapping[str, Any], compiled: Mapping[str, Mapping[str, Mapping[str, str]]]) -> list[str]:
    """Ports with per-port QoS entries in ``base`` (PORT_QOS_MAP, QUEUE, BUFFER_PG, ...) that the
    compiled config does not configure: replacing the tables whole removes their QoS."""
    running = {key.split("|", 1)[0] for table in _PER_PORT_TABLES for key in (base.get(table) or {})}
    for entry in (base.get("CABLE_LENGTH") or {}).values():
        if isinstance(entry, Mapping):
            running.update(entry)
    kept = _ports_used(compiled)
    return sorted(running - _NOT_PORTS - kept, key=_port_order)


def _port_order(name: str) -> tuple[str, int]:
    """Ethernet4 before Ethernet100 (the number, not the text)."""
    prefix = name.rstrip("0123456789")
    digits = name[len(prefix):]
    return (prefix, int(digits) if digits else -1)


def _speed_mismatches(base_ports: Mapping[str, Any], port_speeds_bps: Mapping[str, float]) -> list[str]:
    """Ports whose running speed (PORT|<port>.speed, in Mb/s) is not the one the intent compiled
    for: their headroom and WRED profiles were sized for another rate."""
    mismatches = []
    for name, speed_bps in sorted(port_speeds_bps.items()):
        entry = base_ports.get(name)
        running = entry.get("speed") if isinstance(entry, Mapping) else None
        if running is not None and not isinstance(running, str):
            running = config_db_text("PORT", "speed", running)  # a JSON number means the same speed
        if isinstance(running, str) and running.isdigit() and int(running) * 1e6 != speed_bps:
            mismatches.append(f"{name} runs at {int(running) // 1000}G, compiled for {speed_bps / 1e9:g}G")
    return mismatches


def gcu_patch(base: Mapping[str, Any], compiled: Mapping[str, Mapping[str, Mapping[str, str]]], *, place: str = "base config",
              port_speeds_bps: Mapping[str, float] | None = None) -> list[dict[str, Any]]:
    """The RFC 6902 operations that turn ``base``'s QoS and buffer tables into ``compiled``'s.

    Applied to ``base``, the patch gives ``base`` with exactly the tables of
    :data:`QOS_AND_BUFFER_TABLES` replaced by the compiled ones (a table the compiled config does
    not have is removed: GCU refuses targets with empty tables, ``generic_updater.py:
    PatchApplier.apply``). Only ``add``, ``remove`` and ``replace`` are used.
    """
    checked = check_base_config(base, place)
    foreign = sorted(set(compiled) - QOS_AND_BUFFER_TABLES - MERGED_TABLES)
    if foreign:  # the SONiC renderer only writes QoS and buffer tables
        raise ValueError(f"compiled config has tables outside the QoS/buffer set: {', '.join(foreign)}")
    missing = sorted(_ports_used(compiled) - set(checked["PORT"]))
    if missing:
        shown = ", ".join(missing[:6]) + (", ..." if len(missing) > 6 else "")
        raise BaseConfigError(
            f"the compiled config uses {len(missing)} port(s) that the base config's PORT table lacks: {shown}",
            place=place,
            hint="GCU's YANG validation rejects QoS entries on ports that do not exist; check that the base is this switch's running config and that the intent's port names match it",
        )
    mismatched = _speed_mismatches(checked["PORT"], port_speeds_bps or {})
    if mismatched:
        shown = "; ".join(mismatched[:4]) + ("; ..." if len(mismatched) > 4 else "")
        raise BaseConfigError(
            f"{len(mismatched)} port(s) of the running config run at another speed than the intent says: {shown}",
            place=place,
            hint="buffermgrd sizes PG headroom from PORT speed, so the compiled headroom and WRED profiles would not apply; "
            "fix the port speeds in the intent (or the switch), then compile again",
        )
    # Sorted: a frozenset's order depends on the string hash seed, and jsonpatch emits operations
    # in the order of the dicts it compares, so an unsorted walk wrote the same operations in
    # another order on every run.
    current = {table: checked[table] for table in sorted(QOS_AND_BUFFER_TABLES | MERGED_TABLES) if table in checked}
    target: dict[str, Any] = {table: dict(entries) for table, entries in compiled.items() if entries and table not in MERGED_TABLES}
    for table in sorted(MERGED_TABLES):
        merged = {key: dict(entry) for key, entry in checked.get(table, {}).items()}
        for key, entry in compiled.get(table, {}).items():
            merged.setdefault(key, {}).update(entry)
        if merged:
            target[table] = merged
    # optimization=False: no 'move' ops, so every operation names its own path (readable, and
    # GCU's multi-ASIC scope split rewrites only 'path', never 'from').
    patch = jsonpatch.JsonPatch.from_diff(current, target, optimization=False)
    return list(patch.patch)


__all__ = ["CONFIG_QOS_RELOAD_TABLES", "MERGED_TABLES", "QOS_AND_BUFFER_TABLES", "BaseConfigError", "check_base_config", "gcu_patch"]
