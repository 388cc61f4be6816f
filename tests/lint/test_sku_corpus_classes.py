"""The false-alarm classes found linting every SKU's rendered buffers.json + qos.json
(tools/render_sonic_corpus.py), each as a small synthetic config shaped like the SONiC template that
showed it, and the real defects the same corpus holds, which must still be caught."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from qosforge.lint.engine import Linter
from qosforge.lint.findings import Finding
from tests.lint.test_real_world import _buffers_fragment, _qos_fragment

Config = dict[str, Any]
TERALYNX_PLATFORM = "x86_64-cel_midstone-r0"  # device/celestica/..., platform_asic marvell-teralynx
SPECTRUM4_PLATFORM = "x86_64-nvidia_sn5600-r0"


def _merged() -> Config:
    return copy.deepcopy({**_buffers_fragment(), **_qos_fragment()})


def _with_platform(config: Config, platform: str | None = None, **fields: str) -> Config:
    if platform is not None or fields:
        localhost = {"platform": platform} if platform is not None else {}
        config["DEVICE_METADATA"] = {"localhost": {**localhost, **fields}}
    return config


def _lint(config: Config, **options: Any) -> list[Finding]:
    report = Linter(**options).lint_bytes(json.dumps(config, indent=1).encode(), "config_db.json")
    assert report.unusable is None, report.unusable
    return report.findings


def _of(findings: list[Finding], rule: str) -> list[tuple[str, str]]:
    return [(f.severity.value, f.message) for f in findings if f.rule == rule]


# ------------------------------------------------------------------ profile-direction

def _teralynx_directions() -> Config:
    """As device/celestica/x86_64-cel_midstone-r0 renders: a PG profile on the egress pool, the
    ingress lossy profile on queues."""
    config = _merged()
    config["BUFFER_PG"]["Ethernet0|0"] = {"profile": "egress_lossy_profile"}
    config["BUFFER_QUEUE"]["Ethernet4|0-2"] = {"profile": "ingress_lossy_profile"}
    return config


@pytest.mark.parametrize(("platform", "fields", "profile", "expected"), [
    (TERALYNX_PLATFORM, {}, None, []),
    (None, {"asic_type": "innovium"}, None, []),
    ("x86_64-delta_et-c032if-r0", {}, None, []),  # a Teralynx 7 box whose platform_asic says broadcom
    (None, {}, None, ["info", "info"]),  # buffers.json + qos.json: no DEVICE_METADATA, vendor unknown
    ("x86_64-mlnx_msn2700-r0", {}, None, ["error", "error"]),
    (None, {}, "broadcom-tomahawk3", ["error", "error"]),
    (TERALYNX_PLATFORM, {"buffer_model": "dynamic"}, None, ["error", "error"]),  # buffermgrdyn rejects it
])
def test_profile_direction_follows_the_vendor(platform: str | None, fields: dict[str, str], profile: str | None,
                                              expected: list[str]) -> None:
    config = _with_platform(_teralynx_directions(), platform, **fields)
    if fields.get("buffer_model") == "dynamic":
        config["BUFFER_POOL"]["ingress_lossless_pool"].pop("size")
        config["BUFFER_POOL"]["ingress_lossless_pool"].pop("xoff")
        config["BUFFER_POOL"]["egress_lossless_pool"].pop("size")
    found = _of(_lint(config, profile=profile), "profile-direction")
    assert [severity for severity, _ in found] == expected
    if expected == ["info", "info"]:
        assert all("Teralynx" in message and "vendor is unknown" in message for _, message in found)


# ------------------------------------------------------------------ integers with spaces

@pytest.mark.parametrize(("value", "rule", "severity", "words"), [
    (" 166912", "integer-whitespace", "warning", "leading whitespace"),  # Arista-7060X6-64PE-B-C448O16
    ("6217728 ", "integer-whitespace", "warning", "trailing whitespace"),  # Mellanox-SN4700-O8C48
    (" 12 ", "integer-whitespace", "warning", "leading and trailing whitespace"),
    ("12 MB", "bad-integer", "error", "not a decimal integer"),
])
def test_integer_with_stray_spaces_is_a_warning_naming_them(value: str, rule: str, severity: str,
                                                            words: str) -> None:
    config = _merged()
    config["BUFFER_POOL"]["egress_lossless_pool"]["size"] = value
    findings = _lint(config)
    [(got_severity, message)] = _of(findings, rule)
    assert got_severity == severity and words in message
    assert not _of(findings, "bad-integer" if rule == "integer-whitespace" else "integer-whitespace")
    if rule == "integer-whitespace":
        assert f"read {value.strip()}" in message


def test_padded_pool_size_still_counts_as_the_number() -> None:
    from qosforge.backends.sonic.keys import padded_number, uint

    assert uint(" 166912") == 166912 and uint("6217728 ") == 6217728 and uint("1 2") is None
    assert padded_number("166912", signed=False) is None and padded_number(" -3", signed=True) == "-3"


# ------------------------------------------------------------------ lossless-pool-name

def test_xoff_on_a_templates_own_egress_profile_is_not_lossless_pool_name() -> None:
    """device/netberg/x86_64-netberg_aurora_610-r0: egress_lossless_profile carries xon/xoff and only
    queues use it; buffermgrd's pool name rule is about PG profiles."""
    config = _merged()
    config["BUFFER_PROFILE"]["egress_lossless_profile"].update({"xon": "18432", "xoff": "18432"})
    findings = _lint(config)
    assert not _of(findings, "lossless-pool-name") and not _of(findings, "profile-direction")


def test_lossless_pg_profile_outside_ingress_lossless_pool_is_still_caught() -> None:
    config = _merged()
    config["BUFFER_POOL"]["ingress_other_pool"] = {"size": "1000000", "type": "ingress", "mode": "dynamic"}
    config["BUFFER_PROFILE"]["my_lossless"] = {"pool": "ingress_other_pool", "size": "19456", "xon": "19456",
                                               "xoff": "40000", "dynamic_th": "0"}
    config["BUFFER_PG"]["Ethernet0|3-4"] = {"profile": "my_lossless"}
    [(severity, message)] = _of(_lint(config), "lossless-pool-name")
    assert severity == "error" and "lossless PG profile in ingress_other_pool" in message


# ------------------------------------------------------------------ pfcwd-missing

@pytest.mark.parametrize(("metadata", "expected"), [
    (None, []),  # buffers.json + qos.json: PFC_WD is never in them
    ({"default_pfcwd_status": "enable"}, []),  # `pfcwd start_default` writes it at boot
    ({"default_pfcwd_status": "disable"}, ["default_pfcwd_status is disable"]),
    ({"hwsku": "Mellanox-SN2700"}, ["default_pfcwd_status is not set (YANG default disable)"]),
])
def test_pfcwd_missing_knows_start_default(metadata: dict[str, str] | None, expected: list[str]) -> None:
    config = _merged()
    if metadata is not None:
        config["DEVICE_METADATA"] = {"localhost": metadata}
    found = _of(_lint(config), "pfcwd-missing")
    assert len(found) == len(expected)
    for (severity, message), words in zip(found, expected, strict=True):
        assert severity == "warning" and words in message


def test_pfc_wd_table_that_leaves_ports_out_is_still_reported() -> None:
    config = _merged()
    config["DEVICE_METADATA"] = {"localhost": {"default_pfcwd_status": "enable"}}
    config["PFC_WD"] = {"GLOBAL": {"POLL_INTERVAL": "200"},
                        "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"}}
    [(severity, message)] = _of(_lint(config), "pfcwd-missing")
    assert severity == "warning" and "Ethernet4" in message and "Ethernet0," not in message


# ------------------------------------------------------------------ ecn-color-disabled

def _ecn_all_green_only() -> Config:
    """As SONiC's Spectrum-4/5 qos.json.j2 (device/mellanox/x86_64-nvidia_sn5600-r0) renders it."""
    config = _merged()
    config["WRED_PROFILE"]["AZURE_LOSSLESS"]["ecn"] = "ecn_all"
    return config


@pytest.mark.parametrize(("platform", "fields", "expected"), [
    (SPECTRUM4_PLATFORM, {}, []),
    (None, {"asic_type": "mellanox"}, []),
    (None, {"asic_type": "broadcom"}, ["warning"]),
    (TERALYNX_PLATFORM, {}, ["warning"]),
    (None, {}, ["info"]),
])
def test_ecn_color_disabled_follows_the_platform(platform: str | None, fields: dict[str, str],
                                                 expected: list[str]) -> None:
    found = _of(_lint(_with_platform(_ecn_all_green_only(), platform, **fields)), "ecn-color-disabled")
    assert [severity for severity, _ in found] == expected
    if found:
        assert "marks red, yellow" in found[0][1]


# ------------------------------------------------------------------ comma-joined PORT_QOS_MAP keys

def _joined_port_qos_map(config: Config) -> Config:
    """As device/inventec/x86_64-inventec_d6356-r0 renders: one PORT_QOS_MAP key for all ports."""
    entries = config["PORT_QOS_MAP"]
    joined = ",".join(entries)
    config["PORT_QOS_MAP"] = {joined: next(iter(entries.values()))}
    return config


def test_comma_joined_port_qos_map_names_the_real_cause() -> None:
    findings = _lint(_joined_port_qos_map(_merged()))
    chain = _of(findings, "lossless-chain")
    assert [severity for severity, _ in chain] == ["error", "error"]
    for (_, message), priority in zip(chain, (3, 4), strict=True):
        assert message.startswith(f"PFC priority {priority}: no lossless PG {priority} on 4 of the 4 ports")
        assert "comma-joined PORT_QOS_MAP key" in message and "buffermgrd" in message
    assert not any("CABLE_LENGTH" in message for _, message in chain)
    [(_, warning)] = _of(findings, "multi-port-key")  # and the YANG/GCU warning stays, naming buffermgrd
    assert "buffermgrd does not split PORT_QOS_MAP keys" in warning


def test_comma_joined_key_is_fine_when_the_template_writes_the_lossless_pgs() -> None:
    """device/celestica/x86_64-cel_midstone-r0 Midstone-200i_64x100nrz: the template's own BUFFER_PG
    holds the lossless profile, so buffermgrd not finding pfc_enable costs nothing."""
    config = _joined_port_qos_map(_merged())
    config["BUFFER_PROFILE"]["lossless"] = {"pool": "ingress_lossless_pool", "size": "1518", "xon": "18432",
                                            "xoff": "40000", "dynamic_th": "0"}
    config["BUFFER_PG"]["Ethernet0,Ethernet4,Ethernet8,Ethernet12|3-4"] = {"profile": "lossless"}
    findings = _lint(config)
    assert not _of(findings, "lossless-chain") and not _of(findings, "lossless-queue-without-pfc")


# ------------------------------------------------------------------ real defects stay errors

def _legacy_brackets(config: Config) -> None:
    for entry in config["BUFFER_PROFILE"].values():
        entry["pool"] = f"[BUFFER_POOL|{entry['pool']}]"


def _every_cable_zero(config: Config) -> None:
    config["CABLE_LENGTH"]["AZURE"] = dict.fromkeys(config["CABLE_LENGTH"]["AZURE"], "0m")


def _lossy_only_pgs(config: Config) -> None:
    config["BUFFER_PG"] = {f"Ethernet{4 * i}|0-7": {"profile": "ingress_lossy_profile"} for i in range(4)}
    _every_cable_zero(config)


def _no_dscp_reaches(config: Config) -> None:
    config["DSCP_TO_TC_MAP"]["AZURE"] = dict.fromkeys(config["DSCP_TO_TC_MAP"]["AZURE"], "0")


def _profile_mode(config: Config) -> None:
    config["BUFFER_PROFILE"]["egress_lossy_profile"]["mode"] = "dynamic"


def _tc_in_another_pg(config: Config) -> None:
    config["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"].update({"3": "1", "4": "2"})


@pytest.mark.parametrize(("mutate", "rule", "words"), [
    (_legacy_brackets, "bracket-reference", "legacy [TABLE|name] notation"),
    (_every_cable_zero, "lossless-chain", "cable length 0m"),
    (_lossy_only_pgs, "lossless-chain", "has no xoff (not lossless)"),
    (_no_dscp_reaches, "lossless-chain", "no DSCP maps to TC"),
    (_profile_mode, "unknown-field", "not a BUFFER_PROFILE field"),
    (_tc_in_another_pg, "pfc-priority-lossy-pg", "lossless traffic lands in a lossy PG"),
    (_joined_port_qos_map, "lossless-chain", "comma-joined PORT_QOS_MAP key"),
], ids=["bracket", "cable-0m", "lossy-only-pgs", "no-dscp", "profile-mode", "tc-other-pg", "joined-key"])
def test_real_defects_of_the_corpus_stay_errors(mutate: Any, rule: str, words: str) -> None:
    config = _merged()
    mutate(config)
    found = _of(_lint(config), rule)
    assert any(severity == "error" and words in message for severity, message in found), found


def test_unmodified_pair_lints_clean() -> None:
    assert [f for f in _lint(_merged()) if f.severity.value in ("error", "warning")] == []


def test_render_tool_layout_is_a_switch_buffers_config_j2_can_read() -> None:
    """tools/render_sonic_corpus.py's synthetic layout: every front-panel port has a neighbour (DPU
    ports are left to the template), t0 servers are Vlan1000 members, t1 splits ToR/spine."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("render_sonic_corpus",
                                                  Path(__file__).parents[2] / "tools" / "render_sonic_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["render_sonic_corpus"] = module  # dataclasses resolve annotations through it
    spec.loader.exec_module(module)
    ports = {f"Ethernet{i}": {"lanes": str(i)} for i in range(0, 64, 4)} | {"Ethernet64": {"role": "Dpc"}}
    t0 = module.layout("t0", "SKU", "x86_64-p-r0", ports)
    assert t0["DEVICE_METADATA"]["localhost"]["type"] == "ToRRouter"
    assert len(t0["DEVICE_NEIGHBOR"]) == 16 and "Ethernet64" not in t0["DEVICE_NEIGHBOR"]
    types = [t0["DEVICE_NEIGHBOR_METADATA"][n["name"]]["type"] for n in t0["DEVICE_NEIGHBOR"].values()]
    assert types.count("LeafRouter") == 4 and types.count("Server") == 12 and len(t0["VLAN_MEMBER"]) == 12
    t1 = module.layout("t1", "SKU", "x86_64-p-r0", ports)
    types = [t1["DEVICE_NEIGHBOR_METADATA"][n["name"]]["type"] for n in t1["DEVICE_NEIGHBOR"].values()]
    assert types.count("ToRRouter") == 8 and types.count("SpineRouter") == 8 and "VLAN_MEMBER" not in t1


# ------------------------------------------------------------------ many switches in one run

def _write_switch(folder: Path, *, lossy_pg: bool = False) -> None:
    folder.mkdir(parents=True)
    qos = _qos_fragment(tc_to_pg={"0": "0", "3": "3", "4": "1"} if lossy_pg else None)
    (folder / "buffers.json").write_text(json.dumps(_buffers_fragment(), indent=1))
    (folder / "qos.json").write_text(json.dumps(qos, indent=1))


def test_merge_groups_by_folder_and_by_plus() -> None:
    from qosforge.api.lint import merge_groups

    files = ("a/buffers.json", "b/buffers.json", "a/qos.json", "b/qos.json")
    assert merge_groups(files, by_folder=True) == [[Path("a/buffers.json"), Path("a/qos.json")],
                                                    [Path("b/buffers.json"), Path("b/qos.json")]]
    assert merge_groups(files, by_folder=False) == [[Path(f) for f in files]]  # one config, as before


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from qosforge.cli import main

    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    captured = capsys.readouterr()
    return int(exited.value.code or 0), captured.out, captured.err


def test_many_switches_in_one_run_point_at_their_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    _write_switch(tmp_path / "leaf1")
    _write_switch(tmp_path / "leaf2", lossy_pg=True)
    (tmp_path / "leaf3").mkdir()
    (tmp_path / "leaf3" / "buffers.json").write_text("{}")  # SKUs without buffers render {}
    (tmp_path / "leaf3" / "qos.json").write_text(json.dumps(_qos_fragment(), indent=1))
    monkeypatch.chdir(tmp_path)
    folders = ("leaf1", "leaf2", "leaf3")
    code, out, _ = _run(capsys, "lint", "--merge", "--merge-folders", "--format", "json",
                        *(f"{f}/buffers.json" for f in folders), *(f"{f}/qos.json" for f in folders))
    report = json.loads(out)
    assert code == 1 and report["summary"]["files"] == 3
    [error] = [f for f in report["findings"] if f["severity"] == "error"]
    assert error["rule"] == "pfc-priority-lossy-pg" and error["file"] == "leaf2/qos.json" and error["line"] > 1
    code, out, _ = _run(capsys, "lint", "--merge", "leaf1/buffers.json+leaf1/qos.json",
                        "leaf3/buffers.json+leaf3/qos.json")
    assert code == 0 and "in 2 merged configs (4 files)" in out and out.count("not run:") == 1
    (tmp_path / "leaf3" / "qos.json").write_text("{}")
    code, _, err = _run(capsys, "lint", "--merge", "leaf3/buffers.json", "leaf3/qos.json")
    assert code == 2 and "no SONiC CONFIG_DB table" in err  # nothing at all is never clean


def test_write_baseline_exits_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    _write_switch(tmp_path / "leaf2", lossy_pg=True)
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(capsys, "lint", "--merge", "leaf2/buffers.json", "leaf2/qos.json",
                        "--write-baseline", "base.json")
    assert code == 0 and json.loads((tmp_path / "base.json").read_text())["findings"]
    assert "1 finding(s) recorded" in err


# ------------------------------------------------------------------ unbound maps and WRED profiles

def test_unbound_identity_pfc_to_queue_map_is_not_reported() -> None:
    """SONiC's Arista 7060X6 / Dell S5232F qos templates define an identity MAP_PFC_PRIORITY_TO_QUEUE
    that no port binds: unbound, the port gets that identity anyway."""
    config = _merged()
    for entry in config["PORT_QOS_MAP"].values():
        del entry["pfc_to_queue_map"]
    assert not _of(_lint(config), "map-unbound")
    config["MAP_PFC_PRIORITY_TO_QUEUE"]["AZURE"]["3"] = "4"
    assert [severity for severity, _ in _of(_lint(config), "map-unbound")] == ["warning"]


def test_wred_profile_unbound_is_a_note_when_no_queue_binds_any() -> None:
    config = _merged()
    for entry in config["QUEUE"].values():
        del entry["wred_profile"]
    [(severity, message)] = _of(_lint(config), "wred-unbound")
    assert severity == "info" and "no queue binds any WRED profile" in message
    config["WRED_PROFILE"]["OTHER"] = dict(config["WRED_PROFILE"]["AZURE_LOSSLESS"])
    config["QUEUE"]["Ethernet0|3"]["wred_profile"] = "OTHER"  # bindings exist: the lost one is a warning
    assert [severity for severity, _ in _of(_lint(config), "wred-unbound")] == ["warning"]
