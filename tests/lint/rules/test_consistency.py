"""Consistency rules and the field failures of SONiC GitHub issues on buffers, WRED and PFC a config can show.

Each case is a pain point reported on GitHub (issue number in the id) or a requirement of the rule set ("requirement:" in the id),
applied to a clean test config, and must be caught by the named rule.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qosforge.lint.engine import Linter
from qosforge.lint.findings import Severity

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from config_mutations import Config, Mutation, all_of, drop, set_field


def _breakout_port(config: Config) -> None:
    """sonic-net/SONiC #223 / sonic-buildimage #23354: a new (breakout) port gets PFC and PGs, but no
    CABLE_LENGTH and no admin_status."""
    config["PORT"]["Ethernet32"] = {"lanes": "64,65", "mtu": "9100", "speed": "100000"}
    config["PORT_QOS_MAP"]["Ethernet32"] = dict(config["PORT_QOS_MAP"]["Ethernet0"])
    config["BUFFER_PG"]["Ethernet32|3-4"] = {"profile": "pg_lossless_100000_5m_profile"}
    config["BUFFER_QUEUE"]["Ethernet32|3-4"] = {"profile": "egress_lossless_profile"}
    config["PFC_WD"]["Ethernet32"] = dict(config["PFC_WD"]["Ethernet0"])


def _second_dscp_map(config: Config) -> None:
    other = dict(config["DSCP_TO_TC_MAP"]["AZURE"])
    other["3"] = "0"  # DSCP 3 is lossless (TC 3) on the other ports
    config["DSCP_TO_TC_MAP"]["EDGE"] = other
    config["PORT_QOS_MAP"]["Ethernet28"]["dscp_to_tc_map"] = "EDGE"


PAIN_POINTS: list[tuple[str, str, Mutation, str]] = [
    ("SONiC#480 lossless PG without headroom", "mellanox_whole.json",
     set_field("BUFFER_PROFILE", "pg_lossless_100000_5m_profile", "xoff", "0"), "lossless-pg-zero-headroom"),
    ("swss#465 cable length not set", "mellanox_whole.json", drop("CABLE_LENGTH", "AZURE", "Ethernet0"),
     "lossless-chain"),
    ("SONiC#223 breakout ports without CABLE_LENGTH", "mellanox_whole.json", _breakout_port, "lossless-chain"),
    ("buildimage#23354 breakout ports without admin_status", "mellanox_whole.json", _breakout_port,
     "port-admin-status"),
    ("buildimage#4545 WRED profile with colors disabled", "mellanox_whole.json",
     all_of(*(set_field("WRED_PROFILE", "AZURE_LOSSLESS", f"wred_{c}_enable", "false") for c in ("green", "yellow", "red")),
          set_field("WRED_PROFILE", "AZURE_LOSSLESS", "ecn", "ecn_none")), "wred-inactive"),
    ("... and thresholds for disabled colors", "mellanox_whole.json",
     all_of(*(set_field("WRED_PROFILE", "AZURE_LOSSLESS", f"wred_{c}_enable", "false") for c in ("green", "yellow", "red")),
          set_field("WRED_PROFILE", "AZURE_LOSSLESS", "ecn", "ecn_none")), "wred-color-consistency"),
    ("buildimage#4545 ecn marks green but green is disabled (a Broadcom switch)", "mellanox_whole.json",
     all_of(set_field("WRED_PROFILE", "AZURE_LOSSLESS", "wred_green_enable", "false"),
          set_field("DEVICE_METADATA", "localhost", "asic_type", "broadcom")), "ecn-color-disabled"),
    ("utilities#579 WRED min > max", "mellanox_whole.json",
     set_field("WRED_PROFILE", "AZURE_LOSSLESS", "yellow_min_threshold", "20000000"), "wred-min-gt-max"),
    ("mgmt#26163 thresholds on a color that is off", "mellanox_whole.json",
     all_of(set_field("WRED_PROFILE", "AZURE_LOSSLESS", "wred_yellow_enable", "false"),
          set_field("WRED_PROFILE", "AZURE_LOSSLESS", "ecn", "ecn_green_red")), "wred-color-consistency"),
    ("buildimage#10342 NULL PG profile (traditional model)", "mellanox_whole.json",
     set_field("BUFFER_PG", "Ethernet4|3-4", "profile", "NULL"), "null-profile"),
    ("buildimage#13267 profile without pool", "mellanox_whole.json",
     drop("BUFFER_PROFILE", "pg_lossless_100000_40m_profile", "pool"), "missing-field"),
    ("buildimage PR#14125 comma-joined ports", "broadcom_traditional.json",
     lambda c: c["BUFFER_QUEUE"].update({"Ethernet0,Ethernet4|7": {"profile": "egress_lossy_profile"}}),
     "multi-port-key"),
    ("swss PR#1975 pool without size (traditional)", "broadcom_traditional.json",
     drop("BUFFER_POOL", "egress_lossy_pool", "size"), "pool-size"),
    ("swss PR#3387 profiles imply shared headroom, pool has none", "mellanox_whole.json",
     set_field("BUFFER_PROFILE", "pg_lossless_100000_300m_profile", "size", "100000"), "shared-headroom-missing"),
    ("SONiC#480 lossless PG size below xoff, no shared headroom", "mellanox_whole.json",
     set_field("BUFFER_PROFILE", "pg_lossless_100000_300m_profile", "size", "19456"), "lossless-pg-size-below-xoff"),
    ("requirement: WRED bound where its colors are enabled", "broadcom_traditional.json",
     lambda c: [queue.pop("wred_profile", None) for key, queue in c["QUEUE"].items() if key.endswith("|2")],
     "wred-unbound"),
    ("requirement: no DSCP in two classes (two maps disagree)", "mellanox_whole.json", _second_dscp_map, "dscp-conflict"),
    ("requirement: lossless PG that pfc_enable misses", "broadcom_traditional.json",
     set_field("PORT_QOS_MAP", "Ethernet8", "pfc_enable", "3"), "lossless-chain"),
    ("requirement: lossless PG on a port without PORT_QOS_MAP", "broadcom_traditional.json",
     drop("PORT_QOS_MAP", "Ethernet8"), "lossless-queue-without-pfc"),
    ("requirement: lossless chain (no DSCP reaches the lossless TC)", "broadcom_traditional.json",
     set_field("DSCP_TO_TC_MAP", "AZURE", "24", "0"), "lossless-chain"),
    ("PFC watchdog never started", "broadcom_traditional.json", drop("PFC_WD", "Ethernet4"), "pfcwd-missing"),
]


@pytest.mark.parametrize(("case", "base", "mutation", "rule"), PAIN_POINTS, ids=[c[0] for c in PAIN_POINTS])
def test_pain_point_is_caught(case: str, base: str, mutation: Mutation, rule: str,
                              load_named: Callable[[str], Config], lint_config: Callable[..., Any]) -> None:
    config = load_named(base)
    mutation(config)
    findings = lint_config(config)
    assert any(f.rule == rule for f in findings), (case, [(f.rule, f.where, f.message) for f in findings])


def test_dscp_in_two_classes_by_duplicate_key(lint_config: Callable[..., Any]) -> None:
    """The same DSCP twice in one map: json.load keeps the last, so the file says two things."""
    text = '{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "26": "0"}}}'
    assert "duplicate-key" in {f.rule for f in lint_config(text)}


def test_messages_name_the_numbers(load_named: Callable[[str], Config], lint_config: Callable[..., Any]) -> None:
    config = load_named("mellanox_whole.json")
    config["BUFFER_PROFILE"]["pg_lossless_100000_300m_profile"]["size"] = "100000"
    [finding] = [f for f in lint_config(config) if f.rule == "shared-headroom-missing"]
    assert (finding.table, finding.key, finding.field) == ("BUFFER_PROFILE", "pg_lossless_100000_300m_profile", "size")
    assert "100,000 B < xon + xoff = 113,664 B" in finding.message and finding.severity == Severity.WARNING
    assert finding.values == {"size_bytes": 100000.0, "xon_plus_xoff_bytes": 113664.0}


def test_lossless_pg_size_below_xoff_without_shared_headroom_is_an_error(load_named: Callable[[str], Config],
                                                                          lint_config: Callable[..., Any]) -> None:
    """Spectrum's SAI puts XOFF at size − xoff without a shared headroom pool (mlnx_sai_buffer.c)."""
    config = load_named("mellanox_whole.json")
    config["BUFFER_PROFILE"]["pg_lossless_100000_300m_profile"]["size"] = "19456"
    findings = lint_config(config)
    [finding] = [f for f in findings if f.rule == "lossless-pg-size-below-xoff"]
    assert finding.severity == Severity.ERROR and finding.field == "size"
    assert "size 19,456 B < xoff 94,208 B with no shared headroom pool" in finding.message
    assert finding.values == {"size_bytes": 19456.0, "xoff_bytes": 94208.0}
    assert "shared-headroom-missing" not in {f.rule for f in findings}  # one finding, at the right severity
    config["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"] = "4194304"  # a shared headroom pool: size = xon is right
    assert not {"lossless-pg-size-below-xoff", "shared-headroom-missing"} & {f.rule for f in lint_config(config)}


def test_aggregated_over_ports(load_named: Callable[[str], Config], lint_config: Callable[..., Any]) -> None:
    config = load_named("broadcom_traditional.json")
    for entry in config["PFC_WD"].values():
        entry.pop("detection_time", None)
    [finding] = [f for f in lint_config(config) if f.rule == "pfcwd-missing"]
    assert "Ethernet0, Ethernet4, Ethernet8, Ethernet12" in finding.message and finding.values == {"ports": 4}


def _as_json_types(config: Config) -> Config:
    """The same config as a redis dump or a hand-written file may carry it: every decimal value a
    JSON integer, every "true"/"false" a JSON boolean."""
    def typed(value: Any) -> Any:
        if isinstance(value, str) and value.isdigit() and len(value) < 18:
            return int(value)
        return {"true": True, "false": False}.get(value, value) if isinstance(value, str) else value
    return {table: {key: ({field: typed(value) for field, value in entry.items()} if isinstance(entry, dict) else entry)
                    for key, entry in entries.items()} if isinstance(entries, dict) else entries
            for table, entries in config.items()}


@pytest.mark.parametrize(("base", "mutation"), [
    ("mellanox_whole.json", set_field("WRED_PROFILE", "AZURE_LOSSLESS", "yellow_min_threshold", "20000000")),
    ("mellanox_whole.json", _second_dscp_map),
    ("broadcom_traditional.json", lambda c: [queue.pop("wred_profile", None) for key, queue in c["QUEUE"].items() if key.endswith("|2")]),
    ("broadcom_traditional.json", set_field("DSCP_TO_TC_MAP", "AZURE", "24", "0")),
], ids=["wred-min-gt-max", "dscp-conflict", "wred-unbound", "lossless-chain"])
def test_every_rule_sees_the_same_value_whichever_json_type(base: str, mutation: Mutation, load_named: Callable[[str], Config],
                                                            lint_config: Callable[..., Any]) -> None:
    # A WRED min > max written as JSON integers used to vanish: the checks only kept strings.
    config = load_named(base)
    mutation(config)
    def seen(findings: list[Any]) -> set[tuple[str, str, str, str | None]]:
        return {(f.rule, f.table, f.key, f.field) for f in findings if f.rule != "value-not-string"}
    as_strings, as_json = lint_config(config), lint_config(_as_json_types(config))
    assert seen(as_json) == seen(as_strings)
    assert any(f.rule == "value-not-string" for f in as_json)


def test_lossy_class_beside_a_lossless_tc_of_sonics_pair(load_named: Callable[[str], Config], lint_config: Callable[..., Any]) -> None:
    """The compiler's old plan for mixed-fabric: one lossless TC 3, a lossy class on TC 4."""
    config = load_named("broadcom_traditional.json")
    assert not [f for f in lint_config(config) if f.rule == "lossy-tc-in-lossless-pair"]  # 3,4 both lossless
    for entry in config["PORT_QOS_MAP"].values():
        if "pfc_enable" in entry:
            entry["pfc_enable"] = entry["pfcwd_sw_enable"] = "3"
    [finding] = [f for f in lint_config(config) if f.rule == "lossy-tc-in-lossless-pair"]
    assert (finding.table, finding.key, finding.field) == ("PORT_QOS_MAP", "Ethernet0", "pfc_enable")
    assert "TC 4 carries lossy traffic (DSCP 24) beside lossless TC 3 on Ethernet0, Ethernet4, Ethernet8, Ethernet12" in finding.message
    assert finding.values == {"lossy_tc": 4, "lossless_tc": 3, "ports": 4}


def test_a_config_of_another_asic_is_a_warning(
    load_named: Callable[[str], Config], lint_config: Callable[..., Any]
) -> None:
    config = load_named("mellanox_whole.json")
    config["DEVICE_METADATA"]["localhost"]["hwsku"] = "ACS-MSN3700"  # a Spectrum-2 (GCU's spc2)
    assert "asic-mismatch" not in {
        f.rule for f in lint_config(config, profile="mellanox-spectrum-2")
    }
    [finding] = [
        f for f in lint_config(config, profile="broadcom-trident2") if f.rule == "asic-mismatch"
    ]
    assert (finding.table, finding.key, finding.field, finding.severity) == (
        "DEVICE_METADATA",
        "localhost",
        "hwsku",
        Severity.WARNING,
    )
    assert finding.message == (
        "HWSKU ACS-MSN3700 is a Spectrum-2 switch, but the file is linted against vendor profile "
        "broadcom-trident2 (Broadcom Trident II (BCM56850))"
    )
    # An HWSKU GCU does not know: the vendor its platform names.
    config["DEVICE_METADATA"]["localhost"]["hwsku"] = "Custom-Box"
    [finding] = [
        f for f in lint_config(config, profile="broadcom-trident2") if f.rule == "asic-mismatch"
    ]
    assert "platform x86_64-mlnx_msn3700-r0 says a mellanox switch" in finding.message


def test_a_compiled_config_linted_against_another_intents_asic_is_a_warning(tmp_path: Path) -> None:
    """The README's sequence that once passed silently: a Trident II fabric's leaf1 linted with
    a Spectrum-2 intent (examples/roce-pod.yaml)."""
    from qosforge.cli import main

    examples = Path(__file__).resolve().parents[3] / "examples"
    with pytest.raises(SystemExit):
        main(
            [
                "compile",
                str(examples / "tlt-simulation.yaml"),
                "-o",
                str(tmp_path / "out"),
                "-q",
                "--target",
                "sonic",
            ]
        )
    linter = Linter(intent=examples / "roce-pod.yaml")
    report = linter.lint_path(tmp_path / "out" / "leaf1" / "config_db.json")
    [finding] = [f for f in report.findings if f.rule == "asic-mismatch"]
    assert finding.message.startswith(
        "qosforge compiled this file for switch leaf1 with vendor profile broadcom-trident2"
    )
    against = "linted against vendor profile mellanox-spectrum-2 (NVIDIA (Mellanox) Spectrum-2)"
    assert finding.message.endswith(against)
