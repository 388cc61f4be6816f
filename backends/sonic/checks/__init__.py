"""Validate a SONiC CONFIG_DB QoS/buffer config against what SONiC accepts.

:func:`check_config_db` is a pure function of the ``config_db.json`` dict (table -> key -> field
-> value): SONiC's YANG types, ranges, enums, patterns and ``must`` constraints, the runtime
(orchagent / buffermgrd) behaviour, and every cross-table rule decidable from the dict alone. The
renderer (:mod:`qosforge.backends.sonic.render`) runs it on its own output and treats any
violation as a bug; ``qosforge lint`` runs it on configs found on switches, including fragments
(``buffers.json``, ``qos.json``): a rule whose tables the file lacks is skipped.

The rules are declared once in :mod:`.specs` (id, severity, needs, fixable, rationale); the
checks are split by job: :mod:`.encoding` (structure, names, keys, field types), :mod:`.buffers`,
:mod:`.wred` (and schedulers), :mod:`.pfc` (watchdog, PORT_QOS_MAP, lossless chain). Keys and
limits are parsed in :mod:`qosforge.backends.sonic.keys`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from qosforge.backends.sonic.checks import buffers, encoding, pfc, wred
from qosforge.backends.sonic.checks.schema import (
    CONTEXT_TABLES,
    FIELDS,
    KNOWN_TABLES,
    LOSSLESS_POOL,
    MAP_TABLES,
    QOS_TABLES,
    TABLE_TRAPS,
    WRED_COLORS,
    WRED_THRESHOLD_LIMIT,
    ecn_colors,
    enum_values,
    field_kind,
    map_tables,
    near_miss_table,
)
from qosforge.backends.sonic.checks.specs import RULE_SPEC_BY_ID, RULE_SPECS, RuleSpec
from qosforge.backends.sonic.checks.view import ConfigDb, ConfigView
from qosforge.backends.sonic.checks.violation import Violation
from qosforge.backends.sonic.keys import (
    CABLE_PATTERN,
    NAME_PATTERN,
    PFC_LIST_PATTERN,
    PG_KEY_PATTERN,
    QUEUE_INDEX_PATTERN,
    QUEUE_KEY_PATTERN,
    TRADITIONAL_PG_PROFILE,
    contiguous_ranges,
)

#: Rule id -> rationale (the one-line description of each rule, from :data:`RULE_SPECS`).
RULES: dict[str, str] = {spec.id: spec.rationale for spec in RULE_SPECS}


def qos_subset(config: Mapping[str, Any]) -> dict[str, Any]:
    """The tables :func:`check_config_db` understands, taken from a whole switch config_db."""
    return {name: table for name, table in config.items() if name in KNOWN_TABLES}


def read_config_db(config: Mapping[str, Any]) -> tuple[ConfigView, list[Violation]]:
    """The one reading of a config_db dict: its well-formed part (string fields in objects) as a
    :class:`ConfigView`, and the structure violations of the rest. The checks, the reverse
    mapping (:func:`~qosforge.backends.sonic.parse.parse_config_db`) and lint all read this view."""
    found: list[Violation] = []
    return ConfigView(encoding.check_structure(config, found)), found


def check_config_db(
    config: Mapping[str, Any], *, asic_buffer_bytes: int | None = None
) -> list[Violation]:
    """Every rule of :data:`RULE_SPECS` broken by ``config``; empty when SONiC would accept it.
    ``pool-overcommit`` runs only with ``asic_buffer_bytes``."""
    view, found = read_config_db(config)
    return found + check_view(view, asic_buffer_bytes=asic_buffer_bytes)


def check_view(view: ConfigView, *, asic_buffer_bytes: int | None = None) -> list[Violation]:
    """The rules of :data:`RULE_SPECS` (but structure) on an already read config."""
    found: list[Violation] = []
    encoding.check_table_names(view, found)
    for table_name in view.tables:
        if table_name in FIELDS:
            encoding.check_entry_table(table_name, view, found)
        elif table_name in MAP_TABLES:
            encoding.check_map_table(table_name, view, found)
        elif table_name == "CABLE_LENGTH":
            encoding.check_cable_length(view, found)
    buffers.check_buffers(view, found)
    wred.check_wred(view, found)
    wred.check_schedulers(view, found)
    pfc.check_pfc_watchdog(view, found)
    pfc.check_port_qos(view, found)
    buffers.check_overlaps(view, found)
    pfc.check_lossless_chain(view, found)
    pfc.check_unpaused_lossless_pgs(view, found)
    pfc.check_pfc_priority_pg(view, found)
    buffers.check_traditional_pgs(view, found)
    if asic_buffer_bytes is not None:
        buffers.check_pool_overcommit(view, asic_buffer_bytes, found)
    return found


__all__ = [
    "CABLE_PATTERN",
    "CONTEXT_TABLES",
    "KNOWN_TABLES",
    "LOSSLESS_POOL",
    "NAME_PATTERN",
    "PFC_LIST_PATTERN",
    "PG_KEY_PATTERN",
    "QOS_TABLES",
    "QUEUE_INDEX_PATTERN",
    "QUEUE_KEY_PATTERN",
    "RULES",
    "RULE_SPECS",
    "RULE_SPEC_BY_ID",
    "TABLE_TRAPS",
    "TRADITIONAL_PG_PROFILE",
    "WRED_COLORS",
    "WRED_THRESHOLD_LIMIT",
    "ConfigDb",
    "ConfigView",
    "RuleSpec",
    "Violation",
    "check_config_db",
    "check_view",
    "contiguous_ranges",
    "ecn_colors",
    "enum_values",
    "field_kind",
    "map_tables",
    "near_miss_table",
    "qos_subset",
    "read_config_db",
]
