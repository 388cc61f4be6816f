"""Encoding and schema rules: the checks of backends/sonic/checks.py, plus what only the JSON
text shows (duplicate keys, redis-dump keys, oversized text).

The rules of :data:`qosforge.backends.sonic.checks.specs.RULE_SPECS` are exposed under their own
ids (stable: the renderer's self-check and lint report the same names), each declared once there
with its severity, category, needs, fixability, rationale and fix hint.
"""

from __future__ import annotations

from collections.abc import Iterator

from qosforge.backends.sonic.checks.specs import RULE_SPECS, RuleSpec
from qosforge.backends.sonic.keys import MAX_INDEX_SPAN, MAX_MAP_ENTRIES
from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.load import MAX_TEXT_CHARS
from qosforge.lint.rules.base import Rule

E, W = Severity.ERROR, Severity.WARNING


def _sonic_rule(spec: RuleSpec) -> Rule:
    return Rule(
        id=spec.id, severity=Severity(spec.severity), category=spec.category, title=spec.title,
        rationale=spec.rationale + ". Enforced by backends/sonic/checks, which the SONiC renderer also runs on "
        "its own output.",
        fix=spec.fix, needs=spec.needs, fixable=spec.fixable, origin="backends/sonic/checks",
    )


def sonic_findings(ctx: LintContext) -> Iterator[Finding]:
    """check_config_db's violations as findings (one pass for all of its rules)."""
    for violation in ctx.violations:
        yield ctx.report(violation.rule, violation.table, violation.key, violation.field, violation.message)


def _duplicate_keys(ctx: LintContext) -> Iterator[Finding]:
    for duplicate in ctx.loaded.duplicates:
        path = (*duplicate.path, duplicate.key)
        table = path[0]
        key = path[1] if len(path) > 1 else ""
        field_name = path[2] if len(path) > 2 else None
        yield ctx.report(
            "duplicate-key", table, key, field_name,
            f"key {duplicate.key!r} appears {duplicate.count} times in one object; json.load keeps the "
            "last one silently" + (" (one DSCP or TC mapped twice)" if len(path) == 3 else ""),
            values={"count": duplicate.count}, line=ctx.locate_path(path))


def _redis_keys(ctx: LintContext) -> Iterator[Finding]:
    for (table, key), written in sorted(ctx.loaded.redis_keys.items()):
        yield ctx.report(
            "redis-key-format", table, key, None,
            f"top-level key {written!r} is redis-dump form; config_db.json nests it as "
            f'"{table}": {{"{key}": ...}}', line=ctx.locate_path((written,)))


def _wide_ranges(ctx: LintContext) -> Iterator[Finding]:
    ctx.checked_tables  # noqa: B018 - fills ctx.wide_ranges
    for key in ctx.wide_ranges:
        yield ctx.report("index-range-too-wide", "QUEUE", key, None,
                         f"queue index range {key.split('|')[-1][:40]} spans more than {MAX_INDEX_SPAN} queues; "
                         "no port has that many (orchagent: Invalid queue index)",
                         values={"limit": MAX_INDEX_SPAN})


def _oversized_maps(ctx: LintContext) -> Iterator[Finding]:
    ctx.checked_tables  # noqa: B018 - fills ctx.oversized_maps
    for table, name, entries in ctx.oversized_maps:
        yield ctx.report("oversized-map", table, name, None,
                         f"map {name} has {entries:,} entries; a QoS map has at most {MAX_MAP_ENTRIES} "
                         f"(DSCP 0-63), so the rest are invalid keys (the first {MAX_MAP_ENTRIES} of them were checked)",
                         values={"entries": entries, "limit": MAX_MAP_ENTRIES})


def _oversized(ctx: LintContext) -> Iterator[Finding]:
    for item in ctx.loaded.oversized:
        what = "key" if item.field is None else f"value of {item.field}"
        yield ctx.report(
            "oversized-text", item.table, item.key, item.field,
            f"{what} is {item.length:,} characters (limit {MAX_TEXT_CHARS:,}); no SONiC key or value is "
            "that long", values={"length": item.length, "limit": MAX_TEXT_CHARS})


RULES: tuple[Rule, ...] = (
    *(_sonic_rule(spec) for spec in RULE_SPECS),
    Rule(
        id="duplicate-key", severity=E, category="encoding", title="no key twice in one JSON object",
        rationale="JSON objects with repeated keys load without error: Python's json.load (sonic-cfggen, "
        "config reload) keeps the last value and drops the others silently, so a DSCP mapped twice in "
        "DSCP_TO_TC_MAP is in two classes in the file but in one on the switch (issue 7: 'no DSCP in "
        "two classes'; reference/sonic_qos.md §2.6 map encoding).",
        fix="keep one occurrence of the key with the value you mean", fixable=True, check=_duplicate_keys),
    Rule(
        id="redis-key-format", severity=E, category="encoding", title="tables are nested objects",
        rationale='config_db.json nests entries as {"TABLE": {"key": {...}}} (reference/sonic_qos.md §2.2); '
        'the flat {"TABLE|key": {...}} form is a redis dump (sonic-utilities tests/mock_tables), which '
        "`config reload` and `sonic-cfggen -j` do not read as table entries.",
        fix='nest the entry: "TABLE|key": {...} becomes "TABLE": {"key": {...}}', fixable=True,
        check=_redis_keys),
    Rule(
        id="index-range-too-wide", severity=E, category="encoding", title="queue ranges a port can have",
        rationale=f"QUEUE keys are <port>|<qindex>, the index N or N-M as a free YANG string "
        f"(reference/sonic_qos.md §3.7); an index at or above the port's queue count fails in orchagent "
        f"('Invalid queue index'), and no port has more than {MAX_INDEX_SPAN} queues. Such keys are held back "
        "from the other checks, which would expand the range index by index.",
        fix="write the queue range the port has, e.g. Ethernet0|0-2", check=_wide_ranges),
    Rule(
        id="oversized-map", severity=E, category="encoding", title="maps no longer than their key range",
        rationale=f"A QoS map's keys are DSCP 0-63, TC 0-15 or priorities 0-7 (reference/sonic_qos.md §3.9-§3.15), "
        f"so no valid map has more than {MAX_MAP_ENTRIES} entries. Beyond keys 0-63, only the first "
        f"{MAX_MAP_ENTRIES} invalid keys go to the other checks, which walk each map once per port; this keeps "
        "lint's time linear in the file size.",
        fix="keep one entry per DSCP / TC / priority", check=_oversized_maps),
    Rule(
        id="oversized-text", severity=E, category="encoding", title="keys and values of sane length",
        rationale=f"No SONiC QoS key or value is longer than a few hundred characters (uint64 has 20 "
        f"digits); text over {MAX_TEXT_CHARS:,} characters is reported and replaced by a placeholder for "
        "the other checks, which keeps linting linear in the file size (Python refuses to convert "
        "more than 4,300 digits to an integer).",
        fix="remove the runaway text (often a paste or generator error)", check=_oversized),
)

__all__ = ["RULES", "sonic_findings"]
