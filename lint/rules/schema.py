"""Encoding and schema rules: the checks of backends/sonic/checks.py, plus what only the JSON
text shows (duplicate keys, redis-dump keys, oversized text).

The 33 rules of :data:`qosforge.backends.sonic.checks.RULES` are exposed under their own ids
(stable: the renderer's self-check and lint report the same names). Their rationale is the text
of ``checks.RULES`` (with its the SONiC sources (sonic-buildimage, sonic-swss) sections); this module adds what a linter
needs on top: severity, category and the fix hint.
"""

from __future__ import annotations

from collections.abc import Iterator

from qosforge.backends.sonic.checks import RULES as SONIC_RULES
from qosforge.lint.context import MAX_INDEX_SPAN, MAX_MAP_ENTRIES, LintContext
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.load import MAX_TEXT_CHARS
from qosforge.lint.rules.base import Category, Rule

E, W = Severity.ERROR, Severity.WARNING

#: checks.py rule id -> (severity, category, title, fix, needs, fixable).
_SONIC: dict[str, tuple[Severity, Category, str, str, bool]] = {
    "structure": (E, "encoding", "config_db is {table: {key: {field: value}}}",
                  "make every table an object of entries and every entry an object of string fields", False),
    "value-not-string": (E, "encoding", "every value is a JSON string",
                         'quote numbers ("3302912") and booleans ("true"); lists of names or priorities '
                         'are one comma-separated string ("3,4")', True),
    "unknown-table": (E, "encoding", "only known QoS/buffer table names",
                      "rename the table (PFC_PRIORITY_TO_QUEUE_MAP is MAP_PFC_PRIORITY_TO_QUEUE) or drop it", True),
    "unknown-field": (E, "encoding", "no field outside the table's YANG model",
                      "remove the field or correct its name (see the table in the SONiC YANG models (sonic-buildimage src/sonic-yang-models/yang-models))", False),
    "missing-field": (E, "encoding", "mandatory fields are present",
                      "add the field: YANG marks it mandatory or orchagent needs it on create", False),
    "bad-key": (E, "encoding", "keys have the shape the table's YANG list key has",
                "write <port>|<index> with PG 0-7, queue 0-15, ranges N-M with N <= M; names without '|'", False),
    "multi-port-key": (E, "encoding", "one port per key",
                       "write one key per port (Ethernet0|3-4, Ethernet4|3-4), not Ethernet0,Ethernet4|3-4", True),
    "bracket-reference": (E, "encoding", "references are bare names",
                          'write "ingress_lossless_pool", not "[BUFFER_POOL|ingress_lossless_pool]"', True),
    "dangling-reference": (E, "schema", "every reference resolves",
                           "create the referenced object or fix the name (orchagent retries the entry forever)",
                           False),
    "bad-integer": (E, "encoding", "integer fields are decimal integers",
                    "write the number in bytes (or ms, %) as a plain decimal string, without units", False),
    "out-of-range": (E, "schema", "values within the YANG ranges",
                     "use a value inside the range the message gives", False),
    "bad-enum": (E, "encoding", "values of enumerations are spelled exactly",
                 "use one of the values the message lists (case matters)", True),
    "bad-boolean": (E, "encoding", 'booleans are exactly "true" or "false"',
                    'write "true" or "false" in lower case', True),
    "bad-pattern": (E, "encoding", "names and lists match the YANG patterns",
                    'follow the pattern in the message: pfc_enable "3,4" without spaces, cable "40m"', True),
    "wred-threshold-overflow": (E, "schema", "WRED thresholds below 2^31",
                                "use thresholds below 2147483648 bytes (orchagent parses them with stoi)", False),
    "wred-min-gt-max": (E, "schema", "WRED min <= max per color",
                        "make <color>_min_threshold <= <color>_max_threshold", True),
    "wred-color-consistency": (E, "schema", "thresholds exactly for the colors that drop or mark",
                               "set wred_<color>_enable / ecn for the colors you configure, and give each such "
                               "color both thresholds", False),
    "threshold-mode": (E, "schema", "exactly one of dynamic_th / static_th",
                       "keep dynamic_th (alpha = 2^n) or static_th (bytes), not both, not neither", False),
    "threshold-mode-pool": (E, "schema", "dynamic model: threshold field matches the pool mode",
                            "use <pool mode>_th (dynamic_th on a dynamic pool)", False),
    "scheduler-priority": (E, "schema", "SCHEDULER has no priority field",
                           "remove priority; make the queue strict with type STRICT", True),
    "scheduler-rates": (E, "schema", "scheduler rates are consistent (cir, pir, cbs, pbs)",
                        "give cir > 0 with pir/cbs, pir >= cir, and pbs only with pir, pbs >= cbs", False),
    "pfcwd-placement": (E, "schema", "PFC_WD fields on the right key",
                        "POLL_INTERVAL on PFC_WD|GLOBAL only; action/times/history on port keys only", False),
    "pfcwd-poll-interval": (E, "schema", "watchdog times >= POLL_INTERVAL",
                            "raise detection/restoration time or lower POLL_INTERVAL", False),
    "pfcwd-priorities": (W, "consistency", "the watchdog watches PFC-enabled priorities",
                         "list in pfcwd_sw_enable only priorities that are in pfc_enable", False),
    "lossless-pool-name": (E, "schema", "lossless profiles use ingress_lossless_pool",
                           "put xoff profiles in ingress_lossless_pool (buffermgrd and the Lua plugins "
                           "hard-code the name)", False),
    "profile-direction": (E, "schema", "profiles are on pools of the right direction",
                          "PG profiles on ingress pools, queue profiles on egress pools, xoff never egress", False),
    "overlapping-keys": (E, "schema", "PG/queue ranges of a port do not overlap",
                         "split the ranges so every index has one entry", False),
    "dscp-map-incomplete": (W, "consistency", "DSCP_TO_TC_MAP lists all 64 code points",
                            "map every DSCP 0-63 (unmapped DSCPs get an ASIC-defined TC)", False),
    "port-qos-global": (W, "schema", "PORT_QOS_MAP|global only carries dscp_to_tc_map",
                        "move the other maps to the port entries (orchagent ignores them on global)", False),
    "lossless-chain": (E, "consistency", "every PFC priority has the full lossless chain",
                       "complete the chain the message names: maps bound, lossless PG with xoff, egress "
                       "queue, DSCP reaching the TC, CABLE_LENGTH, pfcwd_sw_enable", False),
    "pool-size": (E, "schema", "pools have size (traditional) or percentage (dynamic), not both",
                  "give size in the traditional model; percentage only with buffer_model dynamic", False),
    "null-profile": (E, "schema", "BUFFER_PG profile NULL only in the dynamic model",
                     "name a real profile, or set DEVICE_METADATA|localhost.buffer_model dynamic", False),
    "pool-overcommit": (E, "capacity", "pools fit the ASIC buffer",
                        "shrink the pools (and the shared headroom xoff) to fit the ASIC's buffer", False),
    "traditional-pg-overwrite": (W, "consistency", "traditional model: lossless PGs as buffermgrd writes them",
                                 "name the lossless profile pg_lossless_<speed>_<cable>_profile and key the PG "
                                 "from pfc_enable, or set the port's cable to 0m to own the PGs", False),
    "single-entry": (W, "schema", "one entry in CABLE_LENGTH / LOSSLESS_TRAFFIC_PATTERN / "
                     "DEFAULT_LOSSLESS_BUFFER_PARAMETER", "merge the entries into one (tools read the first)", False),
}


def _sonic_rule(rule_id: str) -> Rule:
    severity, category, title, fix, fixable = _SONIC[rule_id]
    return Rule(
        id=rule_id, severity=severity, category=category, title=title,
        rationale=SONIC_RULES[rule_id] + ". Enforced by backends/sonic/checks.py, which the SONiC "
        "renderer also runs on its own output.",
        fix=fix, needs="profile" if rule_id == "pool-overcommit" else "config", fixable=fixable,
        origin="backends/sonic/checks.py",
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
    *(_sonic_rule(rule_id) for rule_id in SONIC_RULES),
    Rule(
        id="duplicate-key", severity=E, category="encoding", title="no key twice in one JSON object",
        rationale="JSON objects with repeated keys load without error: Python's json.load (sonic-cfggen, "
        "config reload) keeps the last value and drops the others silently, so a DSCP mapped twice in "
        "DSCP_TO_TC_MAP is in two classes in the file but in one on the switch (issue 7: 'no DSCP in "
        "two classes'; the SONiC YANG models (sonic-buildimage src/sonic-yang-models/yang-models) map encoding).",
        fix="keep one occurrence of the key with the value you mean", fixable=True, check=_duplicate_keys),
    Rule(
        id="redis-key-format", severity=E, category="encoding", title="tables are nested objects",
        rationale='config_db.json nests entries as {"TABLE": {"key": {...}}} (the SONiC YANG models (sonic-buildimage src/sonic-yang-models/yang-models)); '
        'the flat {"TABLE|key": {...}} form is a redis dump (sonic-utilities tests/mock_tables), which '
        "`config reload` and `sonic-cfggen -j` do not read as table entries.",
        fix='nest the entry: "TABLE|key": {...} becomes "TABLE": {"key": {...}}', fixable=True,
        check=_redis_keys),
    Rule(
        id="index-range-too-wide", severity=E, category="encoding", title="queue ranges a port can have",
        rationale=f"QUEUE keys are <port>|<qindex>, the index N or N-M as a free YANG string "
        f"(sonic-buildimage src/sonic-yang-models/yang-models/sonic-queue.yang); an index at or above the port's queue count fails in orchagent "
        f"('Invalid queue index'), and no port has more than {MAX_INDEX_SPAN} queues. Such keys are held back "
        "from the other checks, which would expand the range index by index.",
        fix="write the queue range the port has, e.g. Ethernet0|0-2", check=_wide_ranges),
    Rule(
        id="oversized-map", severity=E, category="encoding", title="maps no longer than their key range",
        rationale=f"A QoS map's keys are DSCP 0-63, TC 0-15 or priorities 0-7 (the SONiC QoS map YANG models (sonic-buildimage src/sonic-yang-models/yang-models)-§3.15), "
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
