"""Lint on the configs operators run. Synthetic configs reproduce each pattern seen in
SONiC's own rendered samples (sonic-buildimage src/sonic-config-engine/tests/sample_output), vendor
files and sonic-utilities test fixtures; a corpus of real files runs too when
``QOSFORGE_LINT_CORPUS`` names a folder of them (the files are never committed)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from qosforge.lint.engine import Linter

Config = dict[str, Any]
AZURE_DSCP = {str(d): ("3" if d == 3 else "4" if d == 4 else "0") for d in range(64)}
IDENTITY8 = {str(i): str(i) for i in range(8)}


def _qos_fragment(ports: int = 4, pfc: str = "3,4", tc_to_pg: dict[str, str] | None = None) -> Config:
    """A qos.json as SONiC's qos_config.j2 renders it: maps, PORT_QOS_MAP, QUEUE, WRED; no buffers."""
    names = [f"Ethernet{4 * i}" for i in range(ports)]
    return {
        "DSCP_TO_TC_MAP": {"AZURE": AZURE_DSCP},
        "TC_TO_QUEUE_MAP": {"AZURE": IDENTITY8},
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": tc_to_pg or {"0": "0", "1": "0", "3": "3", "4": "4", "7": "7"}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": IDENTITY8},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}},
        "WRED_PROFILE": {"AZURE_LOSSLESS": {"wred_green_enable": "true", "ecn": "ecn_green", "green_min_threshold": "250000",
                                            "green_max_threshold": "2097152", "green_drop_probability": "5"}},
        "PORT_QOS_MAP": {name: {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE",
                                "pfc_to_queue_map": "AZURE", "pfc_enable": pfc, "pfcwd_sw_enable": pfc}
                         for name in names},
        "QUEUE": {f"{name}|{q}": {"scheduler": "scheduler.0", "wred_profile": "AZURE_LOSSLESS"}
                  for name in names for q in (3, 4)},
    }


def _buffers_fragment(ports: int = 4, *, dynamic: bool = False) -> Config:
    """A buffers.json as buffers_config.j2 renders it: one egress pool named egress_lossless_pool,
    lossless PGs left to buffermgrd (traditional) or NULL (dynamic), no PORT_QOS_MAP."""
    names = [f"Ethernet{4 * i}" for i in range(ports)]
    pool: dict[str, str] = {"type": "ingress", "mode": "dynamic"} if dynamic else {
        "size": "12766208", "type": "ingress", "mode": "dynamic", "xoff": "4194112"}
    config: Config = {
        "CABLE_LENGTH": {"AZURE": {name: "40m" for name in names}},
        "BUFFER_POOL": {"ingress_lossless_pool": pool,
                        "egress_lossless_pool": {"size": "12766208", "type": "egress", "mode": "dynamic"}},
        "BUFFER_PROFILE": {
            "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"},
            "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"},
            "egress_lossy_profile": {"pool": "egress_lossless_pool", "size": "1518", "dynamic_th": "3"}},
        "BUFFER_PG": {f"{name}|0": {"profile": "ingress_lossy_profile"} for name in names},
        "BUFFER_QUEUE": {**{f"{name}|3-4": {"profile": "egress_lossless_profile"} for name in names},
                         **{f"{name}|0-2": {"profile": "egress_lossy_profile"} for name in names}},
    }
    if dynamic:
        config["BUFFER_PG"].update({f"{name}|3-4": {"profile": "NULL"} for name in names})
        config["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {"AZURE": {"default_dynamic_th": "0"}}
    return config


def _lint(config: Config | str, **options: Any) -> tuple[list[Any], Linter]:
    linter = Linter(**options)
    text = config if isinstance(config, str) else json.dumps(config, indent=1)
    report = linter.lint_bytes(text.encode(), "config_db.json")
    assert report.unusable is None, report.unusable
    return report.findings, linter


def _errors(findings: list[Any]) -> list[tuple[str, str]]:
    return [(f.rule, f.message) for f in findings if f.severity.value == "error"]


@pytest.mark.parametrize("config", [_qos_fragment(), _buffers_fragment(), _buffers_fragment(dynamic=True),
                                    {**_qos_fragment(), **_buffers_fragment()}],
                         ids=["qos.json", "buffers.json traditional", "buffers.json dynamic", "merged"])
def test_sonic_shaped_configs_have_no_errors(config: Config) -> None:
    findings, _ = _lint(config)
    assert _errors(findings) == []


def test_fragments_say_which_rules_were_skipped() -> None:
    _, linter = _lint(_qos_fragment())
    reasons = " | ".join(s.reason for s in linter.skipped)
    assert "has no BUFFER_PG" in reasons and "has no CABLE_LENGTH" in reasons
    assert "vendor-specific and the ASIC vendor is unknown" in reasons


def test_zero_metre_port_needs_its_own_pgs_but_buffermgrd_ports_do_not() -> None:
    config = {**_qos_fragment(), **_buffers_fragment()}
    assert _errors(_lint(config)[0]) == []  # cable 40m: buffermgrd writes BUFFER_PG|<port>|3-4
    config["CABLE_LENGTH"]["AZURE"]["Ethernet0"] = "0m"
    errors = _errors(_lint(config)[0])
    assert errors == [("lossless-chain", "PFC priority 3: no BUFFER_PG for Ethernet0|3 (cable length 0m: buffermgrd "
                                          "leaves the port to you)"),
                      ("lossless-chain", "PFC priority 4: no BUFFER_PG for Ethernet0|4 (cable length 0m: buffermgrd "
                                          "leaves the port to you)")]


def test_voq_chassis_keys_are_valid() -> None:
    config = _qos_fragment()
    config["QUEUE"] = {f"lc1|Asic0|Ethernet{4 * i}|{q}": {"scheduler": "scheduler.0", "wred_profile": "AZURE_LOSSLESS"}
                       for i in range(4) for q in (3, 4)}
    assert _errors(_lint(config)[0]) == []
    config["QUEUE"]["lc1|Ethernet0|3"] = {"scheduler": "scheduler.0"}
    assert [rule for rule, _ in _errors(_lint(config)[0])] == ["bad-key"]


def test_pfc_priority_in_a_lossy_pg_is_caught() -> None:
    config = {**_qos_fragment(tc_to_pg={"0": "0", "3": "3", "4": "1"}), **_buffers_fragment()}
    errors = _errors(_lint(config)[0])
    assert ("pfc-priority-lossy-pg", "PFC priority 4: TC 4 maps to PG 1 (AZURE), but the lossless PGs are [3, 4]: "
            "lossless traffic lands in a lossy PG (on 4 ports: Ethernet0, Ethernet4, Ethernet8, Ethernet12)") in errors


def test_the_same_finding_on_many_ports_is_one_finding() -> None:
    config = _qos_fragment(ports=48, tc_to_pg={"0": "0", "3": "3", "4": "1"})
    [finding] = [f for f in _lint(config)[0] if f.rule == "pfc-priority-lossy-pg"]
    assert finding.values["ports"] == 48 and finding.values["port_list"].split(",")[47] == "Ethernet188"


def test_legacy_notation_and_old_versions_are_reported_once_per_file() -> None:
    config = _qos_fragment()
    for entry in config["PORT_QOS_MAP"].values():
        entry["dscp_to_tc_map"] = "[DSCP_TO_TC_MAP|AZURE]"
    config["VERSIONS"] = {"DATABASE": {"VERSION": "version_1_0_4"}}
    findings, _ = _lint(config)
    [bracket] = [f for f in findings if f.rule == "bracket-reference"]
    assert bracket.severity.value == "info" and bracket.values["count"] == 4 and "version_3_0_2" in bracket.message
    assert [f.rule for f in findings if f.rule == "legacy-db-version"] == ["legacy-db-version"]
    del config["VERSIONS"]
    [bracket] = [f for f in _lint(config)[0] if f.rule == "bracket-reference"]
    assert bracket.severity.value == "error"  # nothing migrates it on a current database


@pytest.mark.parametrize("dump", ["redis", "sonic-db-dump"])
def test_redis_dumps_are_read_not_linted_as_garbage(dump: str) -> None:
    flat: Config = {}
    for table, entries in _qos_fragment().items():
        for key, entry in entries.items():
            flat[f"{table}|{key}"] = entry if dump == "redis" else {"type": "hash", "value": entry, "ttl": -0.001,
                                                                    "expireat": 0}
    findings, _ = _lint(flat)
    assert _errors(findings) == []
    assert [f.rule for f in findings if f.rule == "redis-key-format"] == ["redis-key-format"]


def test_vendor_specific_rules_only_for_their_vendor() -> None:
    config = {**_buffers_fragment(), "BUFFER_PROFILE": {
        **_buffers_fragment()["BUFFER_PROFILE"],
        "pg_lossless_100000_40m_profile": {"pool": "ingress_lossless_pool", "size": "19456", "xon": "19456",
                                           "xoff": "40000", "dynamic_th": "0"}}}
    config["BUFFER_POOL"]["ingress_lossless_pool"].pop("xoff")
    config["BUFFER_PG"]["Ethernet0|3-4"] = {"profile": "pg_lossless_100000_40m_profile"}
    config["PORT_QOS_MAP"] = {"Ethernet0": {"pfc_enable": "3,4"}}
    rules = lambda platform: {f.rule for f in _lint({**config, "DEVICE_METADATA": {"localhost": {"platform": platform}}})[0]}  # noqa: E731
    assert "lossless-pg-size-below-xoff" in rules("x86_64-mlnx_msn2700-r0")  # size 19456 < xoff 40000
    assert "lossless-pg-size-below-xoff" not in rules("x86_64-arista_7060_cx32s")


def test_maps_and_wred_bound_nowhere_and_misspelled_tables() -> None:
    config = _qos_fragment()
    config["DOT1P_TO_TC_MAP"] = {"UNUSED": {"0": "0"}}
    config["BUFER_POOL"] = {"p": {"size": "1"}}
    findings, _ = _lint(config)
    assert [(f.rule, f.key) for f in findings if f.rule == "map-unbound"] == [("map-unbound", "UNUSED")]
    [unknown] = [f for f in findings if f.rule == "unknown-table"]
    assert unknown.table == "BUFER_POOL" and "did you mean BUFFER_POOL" in unknown.message


def test_merge_deep_updates_and_points_at_the_source_file(tmp_path: Path) -> None:
    buffers, qos = tmp_path / "buffers.json", tmp_path / "qos.json"
    buffers.write_text(json.dumps(_buffers_fragment(), indent=1))
    override = _qos_fragment(tc_to_pg={"0": "0", "3": "3", "4": "1"})
    override["CABLE_LENGTH"] = {"AZURE": {"Ethernet0": "300m"}}
    qos.write_text(json.dumps(override, indent=1))
    report = Linter().lint_merged([buffers, qos])
    assert report.unusable is None
    [moved] = [f for f in report.findings if f.rule == "merge-override"]
    assert moved.file == str(qos) and moved.line is not None and "'40m' -> '300m'" in moved.message
    [lossy] = [f for f in report.findings if f.rule == "pfc-priority-lossy-pg"]
    assert lossy.file == str(qos)
    assert not any(f.rule == "lossless-chain" for f in report.findings)  # merged: every table is there


def test_disable_and_project_settings(tmp_path: Path) -> None:
    from qosforge.lint.project import load_settings
    from qosforge.lint.rules import REGISTRY

    config = _qos_fragment(tc_to_pg={"0": "0", "3": "3", "4": "1"})
    assert not any(f.rule == "pfc-priority-lossy-pg" for f in _lint(config, disable=frozenset({"pfc-priority-lossy-pg"}))[0])
    (tmp_path / "pyproject.toml").write_text(
        '[tool.qosforge.lint]\n[[tool.qosforge.lint.per-path]]\npaths = ["config_db.json"]\n'
        'severity = { pfc-priority-lossy-pg = "warning" }\n')
    settings = load_settings(tmp_path, frozenset(REGISTRY))
    [finding] = [f for f in _lint(config, settings=settings)[0] if f.rule == "pfc-priority-lossy-pg"]
    assert finding.severity.value == "warning"


CORPUS = os.environ.get("QOSFORGE_LINT_CORPUS")


@pytest.mark.skipif(not CORPUS, reason="QOSFORGE_LINT_CORPUS names no folder of real SONiC configs")
def test_real_corpus_has_no_errors() -> None:
    """Every config of the corpus lints without errors: a folder's buffers.json and qos.json as the
    one config sonic-cfggen merges (--merge; tools/render_sonic_corpus.py writes one folder per
    SKU and role), every other *.json alone (files that are not config_db, such as swssconfig
    APPL_DB lists or hwsku.json, must be refused, exit 2, not crash)."""
    assert CORPUS is not None
    linter = Linter()
    failing: dict[str, list[str]] = {}
    paths = sorted(Path(CORPUS).rglob("*.json"))
    pairs = {path.parent for path in paths if path.name == "qos.json" and (path.parent / "buffers.json").exists()}
    reports = [linter.lint_merged([folder / "buffers.json", folder / "qos.json"]) for folder in sorted(pairs)]
    reports += [linter.lint_path(path) for path in paths
                if not (path.parent in pairs and path.name in ("buffers.json", "qos.json"))]
    for report in reports:
        assert not any(f.rule == "internal-error" for f in report.findings), report.file
        errors = [f"{f.rule}: {f.message}" for f in report.findings if f.severity.value == "error"]
        if errors:
            failing[report.file] = errors[:3]
    allowed = int(os.environ.get("QOSFORGE_LINT_CORPUS_MAX_FAILING", "0"))
    assert len(failing) <= allowed, json.dumps(failing, indent=1)[:4000]


def test_cable_length_findings_per_port_are_one_finding() -> None:
    config = _buffers_fragment(ports=6)
    config["CABLE_LENGTH"]["AZURE"] = {f"Ethernet{4 * i}": "40 m" for i in range(6)}
    [finding] = [f for f in _lint(config)[0] if f.rule == "bad-pattern"]
    assert finding.values["ports"] == 6 and "(on 6 ports: Ethernet0, Ethernet4, Ethernet8, Ethernet12 (+2 more))" in finding.message
