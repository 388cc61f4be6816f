"""Encoding and schema rules, on a whole config_db: the YANG validation cases
(sonic-utilities config/main.py config_file_yang_validation) and the JSON-only rules.

Base config: tests/lint/configs/mellanox_whole.json (a whole Spectrum-2 config_db, clean). Each
case is one row of sonic-utilities config/main.py and the SONiC YANG models (or a config_db encoding rule) and must be caught by the
named rule; the cases SONiC accepts must stay clean.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from config_mutations import Config, Mutation, all_of, drop, rekey, rename_table, set_field

#: (YANG case, mutation, rule that must catch it)
YANG_CASES: list[tuple[str, Mutation, str]] = [
    ("pool as [BUFFER_POOL|name]", set_field("BUFFER_PROFILE", "q_lossy_profile", "pool", "[BUFFER_POOL|egress_lossy_pool]"),
     "bracket-reference"),
    ("BUFFER_QUEUE|Ethernet0,Ethernet4|0-2", rekey("BUFFER_QUEUE", "Ethernet0|0-2", "Ethernet0,Ethernet4|0-2"),
     "multi-port-key"),
    ("QUEUE|Ethernet0,Ethernet4|5", rekey("QUEUE", "Ethernet0|5", "Ethernet0,Ethernet4|5"), "multi-port-key"),
    ("DEFAULT_LOSSLESS_BUFFER_PARAMETER.max_headroom_size",
     all_of(set_field("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "AZURE", "default_dynamic_th", "0"),
          set_field("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "AZURE", "max_headroom_size", "0")), "unknown-field"),
    ("PFC_WD|GLOBAL.BIG_RED_SWITCH", set_field("PFC_WD", "GLOBAL", "BIG_RED_SWITCH", "enable"), "unknown-field"),
    ("PORT_QOS_MAP.mpls_tc_to_tc_map", set_field("PORT_QOS_MAP", "Ethernet0", "mpls_tc_to_tc_map", "AZURE"),
     "unknown-field"),
    ("SCHEDULER.priority (YANG passes, orchagent rejects)", set_field("SCHEDULER", "scheduler.0", "priority", "3"),
     "scheduler-priority"),
    ("WRED green_min > green_max", set_field("WRED_PROFILE", "AZURE_LOSSLESS", "green_min_threshold", "20000000"),
     "wred-min-gt-max"),
    ("WRED profile name wred.1", rekey("WRED_PROFILE", "AZURE_LOSSLESS", "wred.1"), "bad-pattern"),
    ("WRED ecn ecn_on", set_field("WRED_PROFILE", "AZURE_LOSSLESS", "ecn", "ecn_on"), "bad-enum"),
    ("wred_green_enable True", set_field("WRED_PROFILE", "AZURE_LOSSLESS", "wred_green_enable", "True"), "bad-boolean"),
    ("green_max_threshold 5000000000 (YANG passes, stoi throws)",
     set_field("WRED_PROFILE", "AZURE_LOSSLESS", "green_max_threshold", "5000000000"), "wred-threshold-overflow"),
    ("BUFFER_PG profile NULL in the traditional model", set_field("BUFFER_PG", "Ethernet0|3-4", "profile", "NULL"),
     "null-profile"),
    ("BUFFER_QUEUE profile NULL", set_field("BUFFER_QUEUE", "Ethernet0|3-4", "profile", "NULL"), "dangling-reference"),
    ("table renamed PFC_PRIORITY_TO_QUEUE_MAP",
     rename_table("MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_QUEUE_MAP"), "unknown-table"),
    ("dynamic_th 8", set_field("BUFFER_PROFILE", "q_lossy_profile", "dynamic_th", "8"), "out-of-range"),
    ("both dynamic_th and static_th", set_field("BUFFER_PROFILE", "q_lossy_profile", "static_th", "1000"),
     "threshold-mode"),
    ("xoff profile on an egress pool used in BUFFER_PG",
     set_field("BUFFER_PROFILE", "pg_lossless_100000_5m_profile", "pool", "egress_lossy_pool"), "profile-direction"),
    ("BUFFER_PROFILE without size", drop("BUFFER_PROFILE", "q_lossy_profile", "size"), "missing-field"),
    ("BUFFER_POOL without size (traditional)", drop("BUFFER_POOL", "egress_lossy_pool", "size"), "pool-size"),
    ("pool percentage with buffer_model unset",
     all_of(drop("BUFFER_POOL", "egress_lossy_pool", "size"), set_field("BUFFER_POOL", "egress_lossy_pool", "percentage", "50")),
     "pool-size"),
    ("detection_time 100 < POLL_INTERVAL 200", set_field("PFC_WD", "Ethernet0", "detection_time", "100"),
     "pfcwd-poll-interval"),
    ("CABLE_LENGTH value 5", set_field("CABLE_LENGTH", "AZURE", "Ethernet0", "5"), "bad-pattern"),
    ("BUFFER_PG|Ethernet0|8-9", rekey("BUFFER_PG", "Ethernet0|0", "Ethernet0|8-9"), "bad-key"),
    ("BUFFER_PG on a port absent from PORT", set_field("BUFFER_PG", "Ethernet400|0", "profile", "ingress_lossy_profile"),
     "dangling-reference"),
    ("DSCP key 64", set_field("DSCP_TO_TC_MAP", "AZURE", "64", "1"), "out-of-range"),
    ("tc value 16", set_field("DSCP_TO_TC_MAP", "AZURE", "1", "16"), "out-of-range"),
    ('pfc_enable "3, 4"', set_field("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3, 4"), "bad-pattern"),
    ("SCHEDULER pir < cir", all_of(set_field("SCHEDULER", "scheduler.0", "cir", "2000"),
                                 set_field("SCHEDULER", "scheduler.0", "pir", "1000")), "scheduler-rates"),
    ("SCHEDULER weight 0", set_field("SCHEDULER", "scheduler.0", "weight", "0"), "out-of-range"),
    ("PORT_QOS_MAP|global.tc_to_queue_map (YANG passes, orchagent ignores)",
     set_field("PORT_QOS_MAP", "global", "tc_to_queue_map", "AZURE"), "port-qos-global"),
    # config_db encoding rules (sonic-swss orchagent/orch.cpp, sonic-buildimage src/sonic-yang-mgmt/sonic_yang_ext.py)
    ("integer size", set_field("BUFFER_POOL", "egress_lossy_pool", "size", 30000000), "value-not-string"),
    ("profile_list as a JSON array",
     set_field("BUFFER_PORT_EGRESS_PROFILE_LIST", "Ethernet0", "profile_list", ["egress_lossless_profile"]),
     "value-not-string"),
    ("size with a unit", set_field("BUFFER_POOL", "egress_lossy_pool", "size", "30MB"), "bad-integer"),
]


@pytest.mark.parametrize(("case", "mutation", "rule"), YANG_CASES, ids=[c[0] for c in YANG_CASES])
def test_bad_case_is_caught_by_its_rule(case: str, mutation: Mutation, rule: str, load_named: Callable[[str], Config],
                                        lint_config: Callable[..., Any]) -> None:
    config = load_named("mellanox_whole.json")
    mutation(config)
    findings = lint_config(config)
    caught = [f for f in findings if f.rule == rule]
    assert caught, (case, [(f.rule, f.where) for f in findings])
    assert all(f.line is not None for f in caught), caught  # located in the file


@pytest.mark.parametrize("name", ["mellanox_whole.json", "mellanox_dynamic.json", "broadcom_traditional.json"])
def test_configs_sonic_accepts_lint_clean(name: str, load_named: Callable[[str], Config],
                                          lint_config: Callable[..., Any]) -> None:
    """The YANG cases SONiC accepts are in these files: QUEUE|CPU|0, TC_TO_DOT1P_MAP (no YANG model), profile_list
    strings, and the whole dynamic set (buffer_model dynamic, NULL PGs, pools without size)."""
    assert lint_config(load_named(name)) == []


def test_duplicate_keys_are_found_with_their_line(lint_config: Callable[..., Any]) -> None:
    text = '{\n  "DSCP_TO_TC_MAP": {\n    "AZURE": {\n      "26": "3",\n      "26": "0"\n    }\n  }\n}\n'
    [finding] = [f for f in lint_config(text) if f.rule == "duplicate-key"]
    assert (finding.table, finding.key, finding.field, finding.line, finding.column) == (
        "DSCP_TO_TC_MAP", "AZURE", "26", 4, 7)
    assert "2 times" in finding.message and not finding.fixable  # --fix refuses


def test_redis_dump_keys_are_reported_and_still_checked(lint_config: Callable[..., Any]) -> None:
    text = '{"SCHEDULER|s": {"type": "DWRR", "weight": "0"}}'
    findings = lint_config(text)
    assert {(f.rule, f.table, f.key) for f in findings} == {
        ("redis-key-format", "SCHEDULER", "s"), ("out-of-range", "SCHEDULER", "s")}
    assert all(f.line == 1 for f in findings)


def test_oversized_text_is_a_finding_not_a_crash(lint_config: Callable[..., Any]) -> None:
    findings = lint_config({"BUFFER_POOL": {"p": {"type": "ingress", "mode": "dynamic", "size": "9" * 6000}}})
    assert {f.rule for f in findings} == {"oversized-text", "bad-integer"}


def test_other_tables_of_a_whole_config_are_ignored(lint_config: Callable[..., Any]) -> None:
    assert lint_config({"VLAN": {"Vlan1": {"vlanid": 1}}, "SOMETHING": [1, 2]}) == []


def test_runaway_queue_ranges_are_held_back(lint_config: Callable[..., Any]) -> None:
    """YANG lets QUEUE's index be any string; expanding 0-10^23 would never finish."""
    findings = lint_config({"QUEUE": {"Ethernet0|0-99999999999999999999999": {"scheduler": "s"},
                                      "Ethernet0|0-2": {"scheduler": "s"}, "CPU|0-48": {}}})
    assert [(f.rule, f.key) for f in findings if f.rule != "dangling-reference"] == [
        ("index-range-too-wide", "Ethernet0|0-99999999999999999999999")]
