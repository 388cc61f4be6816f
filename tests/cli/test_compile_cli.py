"""`qosforge compile`, `explain` and `schema` end to end through the console entry point."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from qosforge.backends.sonic import check_config_db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"




@pytest.mark.parametrize("example", sorted(p for p in EXAMPLES.glob("*.yaml") if not p.name.endswith(".traffic.yaml")), ids=lambda p: p.stem)
def test_examples_compile_to_valid_config_db(example: Path, tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = run_cli("compile", str(example), "-o", str(tmp_path), "--format", "json", "--target", "sonic")
    if example.stem == "tlt-softswitch":  # exact TLT, meant for SAI: config_db cannot express it
        assert code == 2 and "SONiC config_db cannot express" in err
        return
    assert code == 0, err
    report = json.loads(out)
    written = sorted(tmp_path.glob("*/config_db.json"))
    assert {p.parent.name for p in written} == {s["name"] for s in report["switches"]}
    for path in written:
        config = json.loads(path.read_text())
        assert check_config_db(config) == []
        assert all(isinstance(v, str) for table in config.values() for entry in table.values() for v in entry.values())
    assert json.loads((tmp_path / "report.json").read_text()) == report
    assert (tmp_path / "report.json").read_text(encoding="utf-8") == out  # the same bytes, printed


def test_failed_compile_writes_nothing(tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]]) -> None:
    intent = tmp_path / "bad.yaml"
    intent.write_text(re.sub(r"approximations: \[.*\]\n", "", (EXAMPLES / "tlt-testbed.yaml").read_text()))
    out_dir = tmp_path / "out"
    code, _, err = run_cli("compile", str(intent), "-o", str(out_dir))
    assert code == 2
    assert "SONiC config_db cannot express" in err and "tlt-without-color" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out_dir.exists()
    code, _, err = run_cli("compile", str(intent), "-o", str(out_dir), "--accept-approximation", "tlt-without-color")
    assert code == 2 and "SAI target cannot express exactly" in err and "tlt-unmarked-red" in err
    assert not out_dir.exists()
    code, _, err = run_cli("compile", str(intent), "-o", str(out_dir), "--accept-approximation", "tlt-without-color", "--accept-approximation", "tlt-unmarked-red")
    assert code == 2 and "openconfig target cannot express" in err and "pools-out-of-band" in err
    assert not out_dir.exists()
    code, _, _ = run_cli("compile", str(intent), "-o", str(out_dir), "--accept-approximation", "tlt-without-color", "--accept-approximation", "tlt-unmarked-red",
                         "--accept-approximation", "pools-out-of-band")
    assert code == 0
    assert (out_dir / "aurora720" / "sairedis.rec").is_file()
    assert (out_dir / "aurora720" / "config_db.json").is_file()


def test_switch_selection(tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, _, _ = run_cli("compile", str(EXAMPLES / "roce-pod.yaml"), "-o", str(tmp_path), "--switch", "leaf2", "--switch", "spine1")
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["leaf2", "spine1"]
    code, _, err = run_cli("compile", str(EXAMPLES / "roce-pod.yaml"), "-o", str(tmp_path / "x"), "--switch", "leaf99")
    assert code == 2 and "--switch" in err and not (tmp_path / "x").exists()


def test_explain_reports_model_formula_and_source(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("explain", str(EXAMPLES / "roce-pod.yaml"), "--switch", "leaf1",
        "--path", "BUFFER_PROFILE/pg_lossless_100000_40m_profile/xoff", "--format", "json",
    )
    assert code == 0
    explanation = json.loads(out)
    assert explanation["rendered"] == "53248"  # SONiC's own table, sonic-swss cfgmgr/buffer_headroom_mellanox.lua
    assert explanation["model"] == "sonic_headroom[mellanox]"
    assert any("buffer_headroom_mellanox.lua" in d["source"] for d in explanation["derivations"])
    code, out, _ = run_cli("explain", str(EXAMPLES / "tbtcp-testbed.yaml"), "--switch", "trident1",
        "--path", "WRED_PROFILE/iperf_10G/green_drop_probability", "--format", "json",
    )
    assert code == 0
    explanation = json.loads(out)
    assert explanation["model"] == "fit_tbtcp_red" and explanation["rendered"] == "18"


def test_explain_bad_path(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, _, err = run_cli("explain", str(EXAMPLES / "roce-pod.yaml"), "--switch", "leaf1", "--path", "WRED_PROFILE/x")
    assert code == 2 and "--path" in err
    code, _, err = run_cli("explain", str(EXAMPLES / "roce-pod.yaml"), "--switch", "leaf1", "--path", "DSCP_TO_TC_MAP/AZURE/26")
    assert code == 2 and "not a model output" in err


def test_schema_is_json_schema_of_the_intent(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("schema")
    assert code == 0
    schema = json.loads(out)
    assert schema["additionalProperties"] is False
    assert {"apiVersion", "kind", "metadata", "topology", "classes"} <= set(schema["required"])


def test_compile_for_sai_writes_program_and_recording(tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]]) -> None:
    from qosforge.backends.sai import check_program, program_from_json

    code, out, err = run_cli("compile", str(EXAMPLES / "tlt-softswitch.yaml"), "-o", str(tmp_path))
    assert code == 0, err
    assert "sai.json" in out and "sairedis.rec" in out
    program = program_from_json((tmp_path / "tor1" / "sai.json").read_text())
    assert check_program(program) == [] and len(program.ports) == 32
    recording = (tmp_path / "tor1" / "sairedis.rec").read_text()
    assert "|a|INIT_VIEW" in recording and "SAI_WRED_ATTR_ECN_RED_MIN_THRESHOLD=" in recording
    assert not (tmp_path / "tor1" / "config_db.json").exists()


def test_sai_capability_gap_writes_nothing(tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]]) -> None:
    intent = tmp_path / "td2.yaml"
    intent.write_text((EXAMPLES / "tlt-softswitch.yaml").read_text().replace("profile: softswitch", "profile: broadcom-trident2"))
    out_dir = tmp_path / "out"
    code, _, err = run_cli("compile", str(intent), "-o", str(out_dir))
    assert code == 2 and "ecn_ect_thresholds is false" in err and "td2.yaml:" in err
    assert err.count("\n") == 1 and not out_dir.exists()


def test_explain_prints_bracketed_sources_as_written(run_cli: Callable[..., tuple[int, str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    # rich read "[dctcp]" or "[b]" in a source as markup and dropped it from the table.
    from qosforge.backends.sonic import explain
    from qosforge.provenance import Derivation, InputValue

    real = explain.explain_value

    def bracketed(switch: object, path: str) -> explain.Explanation:
        found = real(switch, path)  # type: ignore[arg-type]
        step = Derivation("t_max_bytes", "K [b] = BDP", "[Alizadeh10 §3.3] [dctcp]")
        return replace(found, inputs=(InputValue("[tlt]", "[bold]x", "B"),), derivations=(step,))

    monkeypatch.setattr(explain, "explain_value", bracketed)
    code, out, err = run_cli("explain", str(EXAMPLES / "tbtcp-testbed.yaml"), "--switch", "trident1",
                             "--path", "WRED_PROFILE/iperf_10G/green_max_threshold")
    assert code == 0, err
    for text in ("[Alizadeh10 §3.3]", "[dctcp]", "K [b] = BDP", "[tlt]", "[bold]x"):
        assert text in out


def test_explain_table_folds_long_sources_instead_of_cutting_them(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    # A source path is one long word; rich's default overflow cut it to "sonic-bu…", which cites
    # a file that does not exist.
    code, out, err = run_cli("explain", str(EXAMPLES / "tlt-simulation.yaml"), "--switch", "leaf1",
                             "--path", "BUFFER_PROFILE/ingress_lossy_profile/size")
    assert code == 0, err
    assert "…" not in out
    joined = "".join(line.strip("│ ") for line in out.splitlines())
    assert "sonic-buffer-queue.yang" in joined.replace(" ", "")



def test_an_empty_output_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           run_cli: Callable[..., tuple[int, str, str]]) -> None:
    monkeypatch.chdir(tmp_path)  # -o "" would be the current directory
    code, _, err = run_cli("compile", str(EXAMPLES / "roce-pod.yaml"), "-o", "")
    assert code == 2 and "-o/--output: the output folder is empty" in err
    assert list(tmp_path.iterdir()) == []
