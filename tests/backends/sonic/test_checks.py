"""check_config_db: the fixture renders clean, and each rule catches a deliberately broken config."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest

from qosforge.backends.sonic import RULES, check_config_db, qos_subset, render_config_db
from qosforge.backends.sonic.checks import contiguous_ranges, ecn_colors
from qosforge.ir import SwitchIR

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from config_mutations import Config, Mutation, drop, rekey, rename_table, set_field

BUFFER_B = 42_000_000  # the fixture's ASIC buffer






def _both(*mutations: Mutation) -> Mutation:
    def mutate(config: Config) -> None:
        for mutation in mutations:
            mutation(config)
    return mutate


def _replace_table(table: str, value: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[table] = value
    return mutate


# (rule, mutation, expected table) — each mutation breaks exactly the named requirement.
CASES: list[tuple[str, str, Mutation, str]] = [
    ("structure", "table is a list", _replace_table("SCHEDULER", ["x"]), "SCHEDULER"),
    ("value-not-string", "integer size", set_field("BUFFER_POOL", "egress_lossy_pool", "size", 30000000), "BUFFER_POOL"),
    ("value-not-string", "JSON boolean", set_field("WRED_PROFILE", "tlt_drop", "wred_green_enable", True), "WRED_PROFILE"),
    ("unknown-table", "PFC_PRIORITY_TO_QUEUE_MAP trap",
     rename_table("MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_QUEUE_MAP"), "PFC_PRIORITY_TO_QUEUE_MAP"),
    ("unknown-field", "max_headroom_size on a pool", set_field("BUFFER_POOL", "egress_lossy_pool", "max_headroom_size", "0"), "BUFFER_POOL"),
    ("unknown-field", "BIG_RED_SWITCH", set_field("PFC_WD", "GLOBAL", "BIG_RED_SWITCH", "enable"), "PFC_WD"),
    ("missing-field", "profile without size", drop("BUFFER_PROFILE", "egress_lossy", "size"), "BUFFER_PROFILE"),
    ("missing-field", "PFC_WD port without detection_time", drop("PFC_WD", "Ethernet0", "detection_time"), "PFC_WD"),
    ("bad-key", "PG 8-9", rekey("BUFFER_PG", "Ethernet0|0", "Ethernet0|8-9"), "BUFFER_PG"),
    ("bad-key", "queue 16", rekey("BUFFER_QUEUE", "Ethernet0|3", "Ethernet0|16"), "BUFFER_QUEUE"),
    ("bad-key", "backwards PG range", rekey("BUFFER_PG", "Ethernet0|0", "Ethernet0|2-1"), "BUFFER_PG"),
    ("bad-key", "QUEUE index not N or N-M", rekey("QUEUE", "Ethernet0|0", "Ethernet0|q0"), "QUEUE"),
    ("multi-port-key", "comma-joined ports", rekey("BUFFER_QUEUE", "Ethernet0|0-2", "Ethernet0,Ethernet8|0-2"), "BUFFER_QUEUE"),
    ("bracket-reference", "[BUFFER_POOL|name]",
     set_field("BUFFER_PROFILE", "egress_lossy", "pool", "[BUFFER_POOL|egress_lossy_pool]"), "BUFFER_PROFILE"),
    ("dangling-reference", "missing scheduler", set_field("QUEUE", "Ethernet0|0", "scheduler", "nope"), "QUEUE"),
    ("dangling-reference", "NULL queue profile", set_field("BUFFER_QUEUE", "Ethernet0|3", "profile", "NULL"), "BUFFER_QUEUE"),
    ("dangling-reference", "port absent from PORT", set_field("PORT", "Ethernet4", "speed", "100000"), "BUFFER_PG"),
    ("bad-integer", "size with unit", set_field("BUFFER_POOL", "egress_lossy_pool", "size", "30MB"), "BUFFER_POOL"),
    ("integer-whitespace", "size with a leading space (SONiC's Arista 7060X6 template)",
     set_field("BUFFER_POOL", "egress_lossy_pool", "size", " 166912"), "BUFFER_POOL"),
    ("out-of-range", "dynamic_th 8", set_field("BUFFER_PROFILE", "egress_lossy", "dynamic_th", "8"), "BUFFER_PROFILE"),
    ("out-of-range", "weight 0", set_field("SCHEDULER", "sched_lossy", "weight", "0"), "SCHEDULER"),
    ("out-of-range", "drop probability 101", set_field("WRED_PROFILE", "tlt_drop", "green_drop_probability", "101"), "WRED_PROFILE"),
    ("out-of-range", "detection_time 50", set_field("PFC_WD", "Ethernet0", "detection_time", "50"), "PFC_WD"),
    ("out-of-range", "restoration_time 60001", set_field("PFC_WD", "Ethernet0", "restoration_time", "60001"), "PFC_WD"),
    ("out-of-range", "POLL_INTERVAL 1001", set_field("PFC_WD", "GLOBAL", "POLL_INTERVAL", "1001"), "PFC_WD"),
    ("out-of-range", "DSCP 64", set_field("DSCP_TO_TC_MAP", "AZURE", "64", "0"), "DSCP_TO_TC_MAP"),
    ("out-of-range", "TC 16", set_field("DSCP_TO_TC_MAP", "AZURE", "0", "16"), "DSCP_TO_TC_MAP"),
    ("out-of-range", "PG 8 in TC->PG", set_field("TC_TO_PRIORITY_GROUP_MAP", "AZURE", "0", "8"), "TC_TO_PRIORITY_GROUP_MAP"),
    ("bad-enum", "ecn_on", set_field("WRED_PROFILE", "tlt_drop", "ecn", "ecn_on"), "WRED_PROFILE"),
    ("bad-enum", "scheduler type", set_field("SCHEDULER", "sched_lossy", "type", "WFQ"), "SCHEDULER"),
    ("bad-boolean", "'True'", set_field("WRED_PROFILE", "tlt_drop", "wred_green_enable", "True"), "WRED_PROFILE"),
    ("bad-pattern", "WRED name with a dot", rekey("WRED_PROFILE", "tlt_drop", "wred.1"), "WRED_PROFILE"),
    ("bad-pattern", "pfc_enable with a space", set_field("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3, 4"), "PORT_QOS_MAP"),
    ("bad-pattern", "cable length '5'", set_field("CABLE_LENGTH", "AZURE", "Ethernet0", "5"), "CABLE_LENGTH"),
    ("wred-threshold-overflow", "threshold 2^31",
     _both(set_field("WRED_PROFILE", "tlt_drop", "green_max_threshold", str(2**31))), "WRED_PROFILE"),
    ("wred-min-gt-max", "green min > max", set_field("WRED_PROFILE", "tlt_drop", "green_min_threshold", "400001"), "WRED_PROFILE"),
    ("wred-color-consistency", "yellow thresholds, yellow inactive",
     set_field("WRED_PROFILE", "tlt_drop", "yellow_min_threshold", "1000"), "WRED_PROFILE"),
    ("wred-color-consistency", "red enabled without thresholds",
     set_field("WRED_PROFILE", "tlt_drop", "wred_red_enable", "true"), "WRED_PROFILE"),
    ("threshold-mode", "both dynamic_th and static_th",
     set_field("BUFFER_PROFILE", "egress_lossy", "static_th", "1000"), "BUFFER_PROFILE"),
    ("threshold-mode", "neither", drop("BUFFER_PROFILE", "egress_lossy", "dynamic_th"), "BUFFER_PROFILE"),
    ("threshold-mode-pool", "static_th on a dynamic pool (dynamic model)",
     _both(set_field("DEVICE_METADATA", "localhost", "buffer_model", "dynamic"),
           drop("BUFFER_PROFILE", "egress_lossy", "dynamic_th"),
           set_field("BUFFER_PROFILE", "egress_lossy", "static_th", "1000")), "BUFFER_PROFILE"),
    ("scheduler-priority", "priority field", set_field("SCHEDULER", "sched_lossy", "priority", "3"), "SCHEDULER"),
    ("scheduler-rates", "pir without cir", set_field("SCHEDULER", "sched_lossy", "pir", "1000"), "SCHEDULER"),
    ("scheduler-rates", "pir < cir",
     _both(set_field("SCHEDULER", "sched_lossy", "cir", "2000"), set_field("SCHEDULER", "sched_lossy", "pir", "1000")), "SCHEDULER"),
    ("scheduler-rates", "pbs < cbs",
     _both(set_field("SCHEDULER", "sched_lossy", "cir", "1000"), set_field("SCHEDULER", "sched_lossy", "pir", "1000"),
           set_field("SCHEDULER", "sched_lossy", "cbs", "500"), set_field("SCHEDULER", "sched_lossy", "pbs", "100")), "SCHEDULER"),
    ("pfcwd-placement", "POLL_INTERVAL on a port", set_field("PFC_WD", "Ethernet0", "POLL_INTERVAL", "200"), "PFC_WD"),
    ("pfcwd-placement", "action on GLOBAL", set_field("PFC_WD", "GLOBAL", "action", "drop"), "PFC_WD"),
    ("pfcwd-poll-interval", "detection < poll", set_field("PFC_WD", "GLOBAL", "POLL_INTERVAL", "300"), "PFC_WD"),
    ("pfcwd-priorities", "watchdog on a non-PFC priority",
     set_field("PORT_QOS_MAP", "Ethernet0", "pfcwd_sw_enable", "3,4"), "PORT_QOS_MAP"),
    ("lossless-pool-name", "xoff profile on another ingress pool",
     _both(set_field("BUFFER_POOL", "ingress_other", "type", "ingress"), set_field("BUFFER_POOL", "ingress_other", "mode", "dynamic"),
           set_field("BUFFER_POOL", "ingress_other", "size", "1000"),
           set_field("BUFFER_PROFILE", "pg_lossless_100000_5m_profile", "pool", "ingress_other")), "BUFFER_PROFILE"),
    ("profile-direction", "egress profile on a PG", set_field("BUFFER_PG", "Ethernet0|0", "profile", "egress_lossy"), "BUFFER_PG"),
    ("profile-direction", "ingress profile on a queue",
     set_field("BUFFER_QUEUE", "Ethernet0|0-2", "profile", "ingress_lossy"), "BUFFER_QUEUE"),
    ("overlapping-keys", "PG 0 and 0-1", set_field("BUFFER_PG", "Ethernet0|0-1", "profile", "ingress_lossy"), "BUFFER_PG"),
    ("dscp-map-incomplete", "DSCP 63 missing", drop("DSCP_TO_TC_MAP", "AZURE", "63"), "DSCP_TO_TC_MAP"),
    ("port-qos-global", "tc_to_queue_map on global", set_field("PORT_QOS_MAP", "global", "tc_to_queue_map", "AZURE"), "PORT_QOS_MAP"),
    # With cable 0m buffermgrd leaves the port's PGs to the operator (cfgmgr/buffermgr.cpp).
    ("lossless-chain", "no lossless PG on a 0m port",
     _both(drop("BUFFER_PG", "Ethernet0|3"), set_field("CABLE_LENGTH", "AZURE", "Ethernet0", "0m")), "PORT_QOS_MAP"),
    ("lossless-chain", "lossless PG without xoff", set_field("BUFFER_PG", "Ethernet0|3", "profile", "ingress_lossy"), "PORT_QOS_MAP"),
    ("lossless-chain", "no lossless egress queue", drop("BUFFER_QUEUE", "Ethernet0|3"), "PORT_QOS_MAP"),
    ("lossless-chain", "tc_to_pg_map unbound", drop("PORT_QOS_MAP", "Ethernet0", "tc_to_pg_map"), "PORT_QOS_MAP"),
    ("lossless-chain", "TC of the lossless PG sent to another queue",
     set_field("TC_TO_QUEUE_MAP", "AZURE", "3", "2"), "PORT_QOS_MAP"),
    ("lossless-chain", "no DSCP reaches the lossless TC", set_field("DSCP_TO_TC_MAP", "AZURE", "26", "0"), "PORT_QOS_MAP"),
    ("lossless-chain", "no CABLE_LENGTH", drop("CABLE_LENGTH", "AZURE", "Ethernet0"), "PORT_QOS_MAP"),
    ("lossless-chain", "lossless PG without PFC", set_field("BUFFER_PG", "Ethernet0|5", "profile", "pg_lossless_100000_5m_profile"), "BUFFER_PG"),
    ("pool-size", "traditional pool without size",
     _both(drop("BUFFER_POOL", "egress_lossy_pool", "size"), set_field("DEVICE_METADATA", "localhost", "hwsku", "x")),
     "BUFFER_POOL"),
    ("pool-size", "percentage with size", set_field("BUFFER_POOL", "egress_lossy_pool", "percentage", "50"), "BUFFER_POOL"),
    ("null-profile", "NULL PG profile in the traditional model",
     _both(set_field("BUFFER_PG", "Ethernet0|3", "profile", "NULL"),
           set_field("DEVICE_METADATA", "localhost", "buffer_model", "traditional")), "BUFFER_PG"),
    ("pfc-priority-lossy-pg", "PFC priority's TC mapped to a lossy PG",
     set_field("TC_TO_PRIORITY_GROUP_MAP", "AZURE", "3", "1"), "PORT_QOS_MAP"),
    ("lossless-queue-without-pfc", "lossless PG on a port without PFC",
     drop("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), "BUFFER_PG"),
    ("pool-overcommit", "ingress pools exceed the buffer",
     set_field("BUFFER_POOL", "ingress_lossless_pool", "size", "41000000"), "BUFFER_POOL"),
    ("traditional-pg-overwrite", "custom lossless profile name",
     _both(set_field("BUFFER_PROFILE", "my_lossless", "pool", "ingress_lossless_pool"),
           set_field("BUFFER_PROFILE", "my_lossless", "size", "67584"),
           set_field("BUFFER_PROFILE", "my_lossless", "dynamic_th", "0"),
           set_field("BUFFER_PROFILE", "my_lossless", "xoff", "48128"),
           set_field("BUFFER_PG", "Ethernet0|3", "profile", "my_lossless")), "BUFFER_PG"),
    ("traditional-pg-overwrite", "profile named for another cable",
     set_field("BUFFER_PG", "Ethernet0|3", "profile", "pg_lossless_100000_40m_profile"), "BUFFER_PG"),
    ("single-entry", "two CABLE_LENGTH entries", set_field("CABLE_LENGTH", "OTHER", "Ethernet0", "5m"), "CABLE_LENGTH"),
]


@pytest.fixture
def config(switch: SwitchIR) -> Config:
    return copy.deepcopy(render_config_db(switch))


def test_fixture_renders_clean(config: Config) -> None:
    assert check_config_db(config, asic_buffer_bytes=BUFFER_B) == []


@pytest.mark.parametrize(("rule", "description", "mutation", "table"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_rule_catches_broken_config(config: Config, rule: str, description: str, mutation: Mutation, table: str) -> None:
    mutation(config)
    violations = check_config_db(config, asic_buffer_bytes=BUFFER_B)
    assert any(v.rule == rule and v.table == table for v in violations), (description, violations)


def test_every_rule_has_a_case() -> None:
    assert {case[0] for case in CASES} == set(RULES)


def test_violation_names_table_key_and_field(config: Config) -> None:
    config["SCHEDULER"]["sched_lossy"]["weight"] = "0"
    [violation] = check_config_db(config, asic_buffer_bytes=BUFFER_B)
    assert (violation.rule, violation.table, violation.key, violation.field) == (
        "out-of-range", "SCHEDULER", "sched_lossy", "weight")
    assert "1..100" in violation.message
    assert violation.one_line().startswith("[out-of-range] SCHEDULER|sched_lossy.weight:")


def test_dynamic_model_accepts_null_pg_and_pool_without_size(config: Config) -> None:
    config["DEVICE_METADATA"] = {"localhost": {"buffer_model": "dynamic"}}
    config["BUFFER_PG"]["Ethernet0|3"]["profile"] = "NULL"
    del config["BUFFER_POOL"]["egress_lossy_pool"]["size"]
    assert check_config_db(config) == []


def test_cable_zero_lets_the_user_own_lossless_pgs(config: Config) -> None:
    """buffermgrd skips ports with cable 0m (sonic-yang-models sonic-cable-length.yang; sonic-swss cfgmgr/buffermgr.cpp), so any lossless profile name is kept."""
    config["CABLE_LENGTH"]["AZURE"]["Ethernet0"] = "0m"
    config["BUFFER_PROFILE"]["custom"] = dict(config["BUFFER_PROFILE"]["pg_lossless_100000_5m_profile"])
    config["BUFFER_PG"]["Ethernet0|3"]["profile"] = "custom"
    config["BUFFER_PROFILE"].pop("pg_lossless_100000_5m_profile")
    assert check_config_db(config) == []


def test_port_speed_is_checked_when_port_table_present(config: Config) -> None:
    config["PORT"] = {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "40000"}}
    rules = {(v.rule, v.key) for v in check_config_db(config)}
    assert rules == {("traditional-pg-overwrite", "Ethernet4|3")}


def test_qos_subset_keeps_only_understood_tables(config: Config) -> None:
    whole = {**config, "INTERFACE": {"Ethernet0|10.0.0.1/31": {}}, "PORT": {"Ethernet0": {}}}
    assert set(qos_subset(whole)) == set(config) | {"PORT"}


def test_helpers() -> None:
    assert contiguous_ranges([4, 3, 0, 1, 7]) == [(0, 1), (3, 4), (7, 7)]
    assert ecn_colors("ecn_all") == {"green", "yellow", "red"}
    assert ecn_colors("ecn_green_red") == {"green", "red"}
    assert ecn_colors("ecn_none") == frozenset()


def test_absurd_numbers_and_ranges_are_bounded_not_parsed() -> None:
    """Found by lint's fuzzing: int() refuses > 4300 digits, and a huge index range was walked."""
    import time

    start = time.perf_counter()
    found = check_config_db({
        "QUEUE": {"Ethernet0|0-99999999999999999999999": {"scheduler": "x"}},
        "WRED_PROFILE": {"a": {"green_min_threshold": "9" * 5000, "green_max_threshold": "10", "wred_green_enable": "true"}},
    })
    assert time.perf_counter() - start < 5.0
    assert any(v.rule in ("out-of-range", "wred-threshold-overflow") and v.field == "green_min_threshold" for v in found)
