"""Encoding and schema rules: the checks of backends/sonic/checks.py, plus what only the JSON
text shows (duplicate keys, redis-dump keys, oversized text).

The rules of :data:`qosforge.backends.sonic.checks.specs.RULE_SPECS` are exposed under their own
ids (stable: the renderer's self-check and lint report the same names), each declared once there
with its severity, category, needs, fixability, rationale and fix hint.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from qosforge.backends.sonic.checks import Violation
from qosforge.backends.sonic.checks.specs import RULE_SPECS, RuleSpec
from qosforge.backends.sonic.facts import TERALYNX
from qosforge.backends.sonic.keys import MAX_INDEX_SPAN, MAX_MAP_ENTRIES
from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Severity, clip
from qosforge.lint.load import MAX_TEXT_CHARS
from qosforge.lint.merge import MergedConfig
from qosforge.lint.rules.base import Rule, declare, register, rule
from qosforge.lint.rules.helpers import raw_entries

E, W = Severity.ERROR, Severity.WARNING


def _sonic_rule(spec: RuleSpec) -> Rule:
    return Rule(
        id=spec.id, severity=Severity(spec.severity), category=spec.category, title=spec.title,
        rationale=spec.rationale + ". Enforced by backends/sonic/checks, which the SONiC renderer also runs on "
        "its own output.",
        fix=spec.fix, needs=spec.needs, fixable=spec.fixable, origin="backends/sonic/checks",
    )


# The config_db validator's rules come first, under their own ids, in RULE_SPECS order; they
# run together in one pass (sonic_findings), so they have no check of their own here.
for _spec in RULE_SPECS:
    register(_sonic_rule(_spec))


#: Legacy notations reported once per file (not once per key), with what db_migrator does.
_LEGACY_RULES = ("bracket-reference", "multi-port-key")
#: db_migrator's step that rewrites [TABLE|name] references (sonic-utilities scripts/db_migrator.py).
_BRACKET_MIGRATION = (3, 0, 2)
_VERSION = re.compile(r"version_([0-9]+(?:_[0-9]+)*)")


def db_version(ctx: LintContext) -> tuple[str, tuple[int, ...]] | None:
    """VERSIONS|DATABASE.VERSION (as written, and as a comparable tuple), when the file has it."""
    entry = raw_entries(ctx.tables, "VERSIONS").get("DATABASE", {})
    text = entry.get("VERSION")
    match = _VERSION.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    numbers = tuple(int(part) for part in match.group(1).split("_")[:6])
    return text, numbers  # type: ignore[return-value]


def _older_than(version: tuple[int, ...], step: tuple[int, ...]) -> bool:
    # Release-named versions (version_202305_01) follow every x_y_z one.
    return version[0] < 1000 and version < step


_DIRECTION_NOTE = {
    Severity.ERROR: "",
    Severity.INFO: " (fine on Marvell/Innovium Teralynx, whose templates do this on purpose; the ASIC vendor is "
                   "unknown: give --profile or DEVICE_METADATA|localhost.platform to check it)",
}


def _direction_severity(ctx: LintContext) -> Severity | None:
    """How a PG profile on an egress pool (or a queue profile on an ingress pool) is reported.

    Nothing in SONiC's traditional buffer model checks the direction: not the YANG models
    (sonic-buffer-pg.yang, sonic-buffer-queue.yang reference any profile) and not orchagent
    (sonic-swss orchagent/bufferorch.cpp hands the profile's OID to SAI as it is). Teralynx SKUs
    rely on that: since 2019 their templates put ingress_lossy_profile on queues and PG profiles on
    egress pools (device/celestica/x86_64-cel_midstone-r0, marvell, wistron, delta et-c032if ...).
    The dynamic model's buffermgrd rejects an egress profile on a PG (sonic-swss
    cfgmgr/buffermgrdyn.cpp: "Egress buffer profile configured on PG"), and no other vendor's
    template mixes the directions, so: an error in
    the dynamic model or for a known non-Teralynx vendor, nothing on Teralynx, and info when the
    vendor is unknown (a buffers.json/qos.json pair carries no DEVICE_METADATA)."""
    if ctx.view.dynamic:
        return Severity.ERROR
    vendor = ctx.vendor.vendor
    if vendor == TERALYNX:
        return None
    return Severity.ERROR if vendor is not None else Severity.INFO


def sonic_findings(ctx: LintContext) -> Iterator[Finding]:
    """check_config_db's violations as findings (one pass for all of its rules); legacy notations
    once per file."""
    legacy: dict[str, list[Violation]] = {}
    direction: Severity | bool | None = False  # decided on the first profile-direction violation
    for violation in ctx.violations:
        if violation.rule in _LEGACY_RULES:
            legacy.setdefault(violation.rule, []).append(violation)
            continue
        if violation.rule == "profile-direction":
            if direction is False:
                direction = _direction_severity(ctx)
            if not isinstance(direction, Severity):
                continue
            finding = ctx.report(violation.rule, violation.table, violation.key, violation.field,
                                 violation.message + _DIRECTION_NOTE[direction])
            yield replace(finding, severity=direction)
            continue
        yield ctx.report(violation.rule, violation.table, violation.key, violation.field, violation.message)
    version = db_version(ctx)
    for rule_id, items in legacy.items():
        first = items[0]
        where = ", ".join(dict.fromkeys(v.table for v in items))
        if rule_id == "bracket-reference":
            what = (f"{len(items)} reference(s) in {where} use the legacy [TABLE|name] notation (first: "
                    f"{first.table}|{first.key}.{first.field})")
            migrated = version is not None and _older_than(version[1], _BRACKET_MIGRATION)
            action = (f"db_migrator upgrades this {version[0]} database on load and its version_3_0_2 step "
                      "rewrites them to bare names" if migrated and version is not None else
                      "db_migrator rewrites them only when upgrading a database older than version_3_0_2; "
                      "YANG and orchagent expect bare names")
        else:
            what = f"{len(items)} key(s) in {where} join several ports with ',' (first: {first.table}|{first.key})"
            migrated = False
            action = ("orchagent still splits them, so the switch works, but YANG validation and GCU reject them "
                      "and db_migrator does not rewrite them (warning; --fix splits them)")
            if any(v.table == "PORT_QOS_MAP" for v in items):
                action += ("; buffermgrd does not split PORT_QOS_MAP keys, so pfc_enable under one gets no lossless "
                           "PGs from it (lossless-chain)")
        finding = ctx.report(rule_id, first.table, first.key, first.field, f"{what}: {action}",
                             values={"count": len(items)})
        # What SONiC still loads is not an error: db_migrator rewrites old brackets, orchagent
        # splits comma-joined ports.
        yield replace(finding, severity=Severity.INFO) if migrated else finding


@rule(
    "duplicate-key", E, "encoding", "no key twice in one JSON object",
    rationale="JSON objects with repeated keys load without error: Python's json.load (sonic-cfggen, "
        "config reload) keeps the last value and drops the others silently, so a DSCP mapped twice in "
        "DSCP_TO_TC_MAP is in two classes in the file but in one on the switch (the SONiC YANG models, "
        "sonic-buildimage src/sonic-yang-models/yang-models, map it as one value per key).",
    fix="keep one occurrence of the key with the value you mean (--fix refuses such a file: which "
        "occurrence is meant is not mechanical, and keeping one would silently drop the other's data)",
)
def _duplicate_keys(ctx: LintContext) -> Iterator[Finding]:
    for duplicate in ctx.loaded.duplicates:
        path = (*duplicate.path, duplicate.key)
        table = path[0]
        key = path[1] if len(path) > 1 else ""
        field_name = path[2] if len(path) > 2 else None
        yield _duplicate_keys.report(ctx, table, key, field_name,
            f"key {duplicate.key!r} appears {duplicate.count} times in one object; json.load keeps the "
            "last one silently" + (" (one DSCP or TC mapped twice)" if len(path) == 3 else ""),
            values={"count": duplicate.count}, line=ctx.locate_path(path))


MERGE_OVERRIDE = declare(
    "merge-override", Severity.INFO, "encoding", "fields a later --merge file overrides",
    rationale="With --merge, files are merged as sonic-cfggen merges buffers.json, qos.json and config_db.json: a "
        "deep update where a later file overrides an earlier one per field (sonic-buildimage "
        "src/sonic-config-engine/sonic-cfggen deep_update). An overridden field is worth knowing, not wrong.",
    fix="drop the field from the earlier file if the override is intended",
)


@rule(
    "legacy-db-version", Severity.INFO, "encoding", "old database versions",
    rationale="VERSIONS|DATABASE.VERSION older than the release-named versions means db_migrator (sonic-utilities "
        "scripts/db_migrator.py) rewrites the tables when SONiC loads them; reported once per file with what it "
        "does, so the legacy notations it fixes are not read as defects.",
    fix="run config reload on a current image (db_migrator -o migrate), then save the migrated config",
)
def _legacy_version(ctx: LintContext) -> Iterator[Finding]:
    version = db_version(ctx)
    if version is None or not _older_than(version[1], _CURRENT_DB_VERSION):
        return
    steps = " (its version_3_0_2 step rewrites [TABLE|name] references)" if _older_than(
        version[1], _BRACKET_MIGRATION) else ""
    yield _legacy_version.report(ctx, "VERSIONS", "DATABASE", "VERSION",
        f"database {version[0]}: db_migrator upgrades it on load (config reload, boot) to its current version, "
        f"rewriting tables on the way{steps}; lint checks the file as written")


@rule(
    "redis-key-format", Severity.INFO, "encoding", "redis dumps are read as config_db",
    rationale='config_db.json nests entries as {"TABLE": {"key": {...}}}; the flat {"TABLE|key": {...}} form is '
        "a redis dump (sonic-utilities tests/mock_tables), and sonic-db-dump writes each key as "
        "{type, value, ttl}. Both are recognised and read as config_db, and reported once per file: "
        "`config reload` and `sonic-cfggen -j` do not read these forms.",
    fix='nest the entry: "TABLE|key": {...} becomes "TABLE": {"key": {...}}',
    fixable=True,
)
def _redis_keys(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.loaded.redis_keys:
        return
    (table, key), written = min(ctx.loaded.redis_keys.items())
    yield _redis_keys.report(ctx, table, key, None,
        f"the file is a redis dump ({len(ctx.loaded.redis_keys)} top-level keys such as {written!r}); it was read "
        f'as config_db, which nests entries as "{table}": {{"{key}": ...}} (--fix writes that form)',
        line=ctx.locate_path((written,)), values={"count": len(ctx.loaded.redis_keys)})


@rule(
    "index-range-too-wide", E, "encoding", "queue ranges a port can have",
    rationale=f"QUEUE keys are <port>|<qindex>, the index N or N-M as a free YANG string "
        f"(sonic-buildimage src/sonic-yang-models/yang-models/sonic-queue.yang); an index at or above the port's queue count fails in orchagent "
        f"('Invalid queue index'), and no port has more than {MAX_INDEX_SPAN} queues. Such keys are held back "
        "from the other checks, which would expand the range index by index.",
    fix="write the queue range the port has, e.g. Ethernet0|0-2",
)
def _wide_ranges(ctx: LintContext) -> Iterator[Finding]:
    ctx.checked_tables  # noqa: B018 - fills ctx.wide_ranges
    for key in ctx.wide_ranges:
        yield _wide_ranges.report(ctx, "QUEUE", key, None,
                         f"queue index range {key.split('|')[-1][:40]} spans more than {MAX_INDEX_SPAN} queues; "
                         "no port has that many (orchagent: Invalid queue index)",
                         values={"limit": MAX_INDEX_SPAN})


@rule(
    "oversized-map", E, "encoding", "maps no longer than their key range",
    rationale=f"A QoS map's keys are DSCP 0-63, TC 0-15 or priorities 0-7 (the SONiC QoS map YANG models, sonic-buildimage src/sonic-yang-models/yang-models), "
        f"so no valid map has more than {MAX_MAP_ENTRIES} entries. Beyond keys 0-63, only the first "
        f"{MAX_MAP_ENTRIES} invalid keys go to the other checks, which walk each map once per port; this keeps "
        "lint's time linear in the file size.",
    fix="keep one entry per DSCP / TC / priority",
)
def _oversized_maps(ctx: LintContext) -> Iterator[Finding]:
    ctx.checked_tables  # noqa: B018 - fills ctx.oversized_maps
    for table, name, entries in ctx.oversized_maps:
        yield _oversized_maps.report(ctx, table, name, None,
                         f"map {name} has {entries:,} entries; a QoS map has at most {MAX_MAP_ENTRIES} "
                         f"(DSCP 0-63), so the rest are invalid keys (the first {MAX_MAP_ENTRIES} of them were checked)",
                         values={"entries": entries, "limit": MAX_MAP_ENTRIES})


@rule(
    "oversized-text", E, "encoding", "keys and values of sane length",
    rationale=f"No SONiC QoS key or value is longer than a few hundred characters (uint64 has 20 "
        f"digits); text over {MAX_TEXT_CHARS:,} characters is reported and replaced by a placeholder for "
        "the other checks, which keeps linting linear in the file size (Python refuses to convert "
        "more than 4,300 digits to an integer).",
    fix="remove the runaway text (often a paste or generator error)",
)
def _oversized(ctx: LintContext) -> Iterator[Finding]:
    for item in ctx.loaded.oversized:
        what = "key" if item.field is None else f"value of {item.field}"
        yield _oversized.report(ctx, item.table, item.key, item.field,
            f"{what} is {item.length:,} characters (limit {MAX_TEXT_CHARS:,}); no SONiC key or value is "
            "that long", values={"length": item.length, "limit": MAX_TEXT_CHARS})


#: Steps after which db_migrator has nothing left to rewrite in QoS tables: the release-named
#: versions (sonic-utilities scripts/db_migrator.py, version_202305_01 onwards).
_CURRENT_DB_VERSION = (1000,)

def override_findings(ctx: LintContext, merged: MergedConfig) -> Iterator[Finding]:
    """merge-override: a field a later file of --merge sets again (info, at the later file's line)."""
    for item in merged.overrides:
        table, key, field_name = item.path
        yield MERGE_OVERRIDE.report(ctx, table, key, field_name,
                         f"{item.later} overrides {item.earlier}: {clip(repr(item.old), 60)} -> {clip(repr(item.new), 60)} "
                         "(sonic-cfggen deep update: the later file wins)")


__all__ = ["MERGE_OVERRIDE", "override_findings", "sonic_findings"]
