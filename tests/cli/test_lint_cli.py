"""qosforge lint: exit codes, formats, several files, --fix, and errors as one line."""

from __future__ import annotations

import io
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

CONFIGS = Path(__file__).parents[1] / "lint" / "configs"
GOOD = str(CONFIGS / "broadcom_traditional.json")
BAD = str(CONFIGS / "broadcom_bad_encoding.json")
#: BAD without its duplicated DSCP (--fix refuses files with duplicate keys).
_DUPLICATE = '"10": "3",\n      "10": "1"'


def _fixable_copy(path: Path) -> None:
    text = Path(BAD).read_text()
    assert _DUPLICATE in text
    path.write_text(text.replace(_DUPLICATE, '"10": "1"'))


INTENT = str(CONFIGS / "broadcom_fabric.yaml")
Run = Callable[..., tuple[int, str, str]]


def _no_traceback(err: str) -> None:
    assert "Traceback" not in err and "internal error" not in err


def test_clean_file_exits_0(run_cli: Run) -> None:
    code, out, err = run_cli("lint", GOOD, "--profile", "broadcom-tomahawk")
    assert code == 0 and err == ""
    assert "0 errors, 0 warnings, 0 notes in 1 file (profile: broadcom-tomahawk; intent: none)" in out
    assert "not run: 11 rules" in out and "no --intent" in out


def test_findings_exit_1_and_name_the_place(run_cli: Run) -> None:
    code, out, _ = run_cli("lint", BAD)
    assert code == 1
    assert "broadcom_bad_encoding.json:" in out and "error [scheduler-priority] SCHEDULER|scheduler.1.priority" in out


def test_fail_on_warning(run_cli: Run, tmp_path: Path) -> None:
    config = json.loads(Path(GOOD).read_text())
    del config["DSCP_TO_TC_MAP"]["AZURE"]["63"]  # dscp-map-incomplete: a warning
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(config))
    assert run_cli("lint", str(path))[0] == 0
    assert run_cli("lint", str(path), "--fail-on", "warning")[0] == 1


@pytest.mark.parametrize(("content", "message"), [
    ("{", "not JSON: Expecting property name enclosed in double quotes"),
    ("[]", "the top level is an array, not an object"),
    ('{"a": NaN}', "NaN is not valid JSON"),
])
def test_unusable_file_exits_2_with_one_line(run_cli: Run, tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, _out, err = run_cli("lint", str(path))
    assert code == 2 and message in err and err.count("\n") == 1 and err.startswith("error: ")
    _no_traceback(err)


def test_several_files_are_all_linted_and_the_worst_code_wins(run_cli: Run, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    code, out, err = run_cli("lint", BAD, str(broken), GOOD, str(tmp_path / "missing.json"), "--format", "json")
    assert code == 2
    payload = json.loads(out)
    assert payload["summary"]["files"] == 4
    assert {u["file"] for u in payload["summary"]["unusable"]} == {str(broken), str(tmp_path / "missing.json")}
    assert payload["summary"]["errors"] > 0  # BAD's findings are reported despite the broken files
    assert err.count("error: ") == 2 and "cannot read the file" in err
    _no_traceback(err)
    code, _out, _err = run_cli("lint", GOOD, BAD)
    assert code == 1


def test_options_errors_exit_2(run_cli: Run, tmp_path: Path) -> None:
    code, _, err = run_cli("lint", GOOD, "--profile", "tomahwak")
    assert code == 2 and "unknown vendor profile 'tomahwak'" in err and "did you mean 'broadcom-tomahawk'" in err
    bad_intent = tmp_path / "intent.yaml"
    bad_intent.write_text("apiVersion: qosforge/v1\nkind: Fabric\nmetadata: {name: x}\n")
    code, _, err = run_cli("lint", GOOD, "--intent", str(bad_intent))
    assert code == 2 and "intent.yaml:" in err
    for argv, text in ((("lint",), "give at least one FILE"), (("lint", GOOD, "-o", "x.json"), "only apply with --fix"),
                       (("lint", GOOD, BAD, "--fix", "-o", "x.json"), "-o/--output takes one FILE"),
                       (("lint", GOOD, "--switch", "tor1"), "--switch names a switch of an intent")):
        code, _, err = run_cli(*argv)
        assert code == 2 and text in err, (argv, err)
        _no_traceback(err)


def test_intent_rules_and_switch_from_the_folder(run_cli: Run, tmp_path: Path) -> None:
    folder = tmp_path / "out" / "tor1"
    folder.mkdir(parents=True)
    config = json.loads(Path(GOOD).read_text())
    config["WRED_PROFILE"]["bulk_ecn"].update(green_min_threshold="30000", green_max_threshold="30000")
    (folder / "config_db.json").write_text(json.dumps(config, indent=4))
    code, out, _ = run_cli("lint", str(folder / "config_db.json"), "--intent", INTENT, "--format", "json")
    payload = json.loads(out)
    assert code == 0  # dctcp-k is a warning
    assert [f["rule"] for f in payload["findings"]] == ["dctcp-k"]
    assert payload["summary"]["profile"] == "broadcom-tomahawk" and payload["summary"]["skipped"] == []
    code, out, err = run_cli("lint", str(folder / "config_db.json"), "--intent", INTENT, "--switch", "nope")
    assert code == 2 and "no switch named 'nope'" in err


@pytest.mark.parametrize("output_format", ["json", "sarif", "github", "text"])
def test_every_format_on_the_same_findings(run_cli: Run, output_format: str) -> None:
    code, out, _ = run_cli("lint", BAD, "--format", output_format)
    assert code == 1
    if output_format == "json":
        assert json.loads(out)["summary"]["exit_code"] == 1
    elif output_format == "sarif":
        log = json.loads(out)
        assert log["version"] == "2.1.0" and log["runs"][0]["results"]
    elif output_format == "github":
        assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in out.splitlines())
    else:
        assert "fixable: --fix" in out


def test_fix_refuses_files_with_duplicate_keys(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "config_db.json"
    shutil.copy(BAD, path)
    code, _out, err = run_cli("lint", str(path), "--fix")
    assert code == 2 and "--fix refuses: DSCP_TO_TC_MAP|AZURE|10 is given 2 times" in err
    assert not (tmp_path / "config_db.json.fixed.json").exists()


def test_fix_writes_a_copy_never_in_place(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "config_db.json"
    _fixable_copy(path)
    original = path.read_text()
    code, out, _ = run_cli("lint", str(path), "--fix")
    fixed = tmp_path / "config_db.json.fixed.json"
    assert path.read_text() == original and fixed.exists()
    assert code == 1  # the WRED window that cannot be fixed mechanically remains
    assert f"{fixed}:" in out and "[wred-min-gt-max] WRED_PROFILE|lone" in out
    # 5 numbers/booleans quoted, 1 bracket reference, 2 case fixes, 1 scheduler priority, 2 patterns,
    # 1 table renamed, 1 key split, 1 redis key, 1 WRED window swapped
    assert f"fixed: 15 mechanical fixes written to {fixed}" in out
    code, out, _ = run_cli("lint", str(fixed), "--format", "json")
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["wred-min-gt-max"]


def test_fix_to_output_and_in_place(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "config_db.json"
    _fixable_copy(path)
    target = tmp_path / "out.json"
    run_cli("lint", str(path), "--fix", "-o", str(target))
    assert target.exists() and not (tmp_path / "config_db.json.fixed.json").exists()
    run_cli("lint", str(path), "--fix", "--in-place")
    assert path.read_text() == target.read_text()
    # a clean file gets no copy
    clean = tmp_path / "clean.json"
    shutil.copy(GOOD, clean)
    assert run_cli("lint", str(clean), "--fix")[0] == 0 and not (tmp_path / "clean.json.fixed.json").exists()


def test_stdin(run_cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(Path(BAD).read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, _ = run_cli("lint", "-", "--format", "json")
    assert code == 1 and json.loads(out)["findings"][0]["file"] == "<stdin>"


def test_list_rules(run_cli: Run) -> None:
    code, out, _ = run_cli("lint", "--list-rules")
    assert code == 0 and out.splitlines()[0].split()[0] == "structure"
    code, out, _ = run_cli("lint", "--list-rules", "--format", "json")
    rules = json.loads(out)
    assert {"pfc-headroom", "tbtcp-red-fit", "lossless-chain"} <= {r["id"] for r in rules}


def test_garbage_never_shows_a_traceback(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "garbage.json"
    path.write_bytes(b'{"BUFFER_POOL": {"\xf0\x9f\x92\xa5\\ud800": {"size": 1e999, "type": [[[[{}]]]]}}, "QUEUE": 5}')
    code, out, err = run_cli("lint", str(path))
    assert code == 1 and "\\ud800" in out
    _no_traceback(err)


def test_unknown_asic_values_are_notes_not_silence(run_cli: Run) -> None:
    code, out, _ = run_cli("lint", GOOD, "--profile", "vs", "--format", "json")
    [note] = json.loads(out)["findings"]
    assert code == 0 and note["rule"] == "model-input-missing" and note["severity"] == "info"
    assert "buffer_bytes is unknown in vendor profile vs" in note["message"] and note["table"] == "BUFFER_POOL"


def test_any_bytes_through_the_cli(run_cli: Run, tmp_path: Path) -> None:
    """A few fixed nasty inputs end to end (the property tests cover the library)."""
    samples = [b"\x00\xff", b"{}" * 3, b'{"BUFFER_PG": {"|": {"profile": null}}}', b"{" + b'"a":{' * 40 + b"}",
               "{\"\u2028\": \"\\ud800\"}".encode(), b'{"QUEUE": {"Ethernet0|0-99999999999999999999999": {}}}']
    for index, data in enumerate(samples):
        path = tmp_path / f"s{index}.json"
        path.write_bytes(data)
        for output_format in ("text", "json", "sarif", "github"):
            code, _out, err = run_cli("lint", str(path), "--format", output_format)
            assert code in (0, 1, 2), (data, code, err)
            _no_traceback(err)


# --- CI life: baselines, several files, exit codes ---------------------------------------------


def test_baseline_fails_only_on_new_findings(run_cli: Run, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    code, _out, err = run_cli("lint", BAD, "--write-baseline", str(baseline))
    assert code == 0 and json.loads(baseline.read_text())["findings"]  # recording is not failing
    assert "recorded in baseline" in err
    code, out, err = run_cli("lint", BAD, "--baseline", str(baseline))
    assert code == 0 and "not shown" in err and "error [" not in out
    config = json.loads(Path(GOOD).read_text())
    config["SCHEDULER"][next(iter(config["SCHEDULER"]))]["priority"] = "1"
    changed = tmp_path / "good.json"
    changed.write_text(json.dumps(config, indent=2))
    code, out, _ = run_cli("lint", str(changed), "--baseline", str(baseline))
    assert code == 1 and "[scheduler-priority]" in out


def test_disable_and_unknown_rule_ids(run_cli: Run) -> None:
    code, out, _ = run_cli("lint", BAD, "--format", "json", "--disable", "duplicate-key,wred-min-gt-max",
                           "--disable", "value-not-string")
    rules = {f["rule"] for f in json.loads(out)["findings"]}
    assert not rules & {"duplicate-key", "wred-min-gt-max", "value-not-string"} and code == 1
    code, _out, err = run_cli("lint", BAD, "--disable", "no-such-rule")
    assert code == 2 and "unknown rule id(s) no-such-rule" in err
    _no_traceback(err)


def test_project_settings_file(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".qosforge-lint.toml").write_text('disable = ["duplicate-key"]\n[severity]\nwred-min-gt-max = "info"\n')
    code, out, _ = run_cli("lint", BAD, "--format", "json")
    findings = json.loads(out)["findings"]
    assert not any(f["rule"] == "duplicate-key" for f in findings)
    assert {f["severity"] for f in findings if f["rule"] == "wred-min-gt-max"} == {"info"}
    (tmp_path / ".qosforge-lint.toml").write_text('disable = "all"\n')
    code, _out, err = run_cli("lint", BAD)
    assert code == 2 and ".qosforge-lint.toml: disable" in err


def test_merge_lints_fragments_as_one_config(run_cli: Run, tmp_path: Path) -> None:
    config = json.loads(Path(GOOD).read_text())
    buffers = {name: table for name, table in config.items() if name.startswith(("BUFFER", "CABLE"))}
    qos = {name: table for name, table in config.items() if name not in buffers}
    (tmp_path / "buffers.json").write_text(json.dumps(buffers, indent=2))
    (tmp_path / "qos.json").write_text(json.dumps(qos, indent=2))
    code, out, _ = run_cli("lint", "--merge", str(tmp_path / "buffers.json"), str(tmp_path / "qos.json"),
                           "--format", "json")
    alone, _, _ = run_cli("lint", GOOD)
    assert code == alone == 0 and json.loads(out)["summary"]["files"] == 1
    code, _out, err = run_cli("lint", "--merge", GOOD)
    assert code == 2 and "--merge takes two or more files" in err


def test_a_folder_that_is_not_a_switch_of_the_intent_is_bad_input(run_cli: Run, tmp_path: Path) -> None:
    folder = tmp_path / "leaf99"
    folder.mkdir()
    shutil.copy(GOOD, folder / "config_db.json")
    code, _out, err = run_cli("lint", str(folder / "config_db.json"), "--intent", INTENT)
    assert code == 2 and "'leaf99' is not a switch of" in err
    _no_traceback(err)


def test_progress_over_many_files_only_when_drawing(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = []
    for index in range(25):
        copy = tmp_path / f"sw{index}" / "config_db.json"
        copy.parent.mkdir()
        shutil.copy(GOOD, copy)
        files.append(str(copy))
    monkeypatch.setenv("QOSFORGE_PROGRESS", "1")  # as on a terminal
    code, out, err = run_cli("lint", *files)
    assert code == 0 and "linting" in err and "linting" not in out
    monkeypatch.setenv("QOSFORGE_PROGRESS", "0")  # pipes and CI logs: nothing
    code, _out, err = run_cli("lint", *files)
    assert code == 0 and "linting" not in err


def test_configs_compiled_for_another_fabric_fail_the_intent_speed_check(run_cli: Run, tmp_path: Path) -> None:
    own = tmp_path / "fabric.yaml"  # init's defaults: Trident2 leaves at 40G, named leaf1.. like roce-pod's
    assert run_cli("init", "-o", str(own))[0] == 0
    assert run_cli("compile", str(own), "-o", str(tmp_path / "out"), "-q")[0] == 0
    configs = sorted(str(p) for p in (tmp_path / "out").glob("*/config_db.json"))
    code, out, _ = run_cli("lint", *configs, "--intent", str(own))
    assert "intent-port-speed" not in out
    roce_pod = Path(__file__).parents[2] / "examples" / "roce-pod.yaml"  # Spectrum-2 at 100G
    code, out, _ = run_cli("lint", *configs, "--intent", str(roce_pod))
    assert code == 1 and "[intent-port-speed]" in out and "run at 40G in this config" in out and "at 100G in the intent" in out


def test_fix_with_nothing_to_fix_says_so_and_writes_nothing(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps({"DSCP_TO_TC_MAP": {"AZURE": {"0": "0"}}}))
    code, _out, err = run_cli("lint", str(path), "--fix")
    assert code == 0 and "nothing to fix, no file written" in err and str(path) in err
    assert not (tmp_path / "config_db.json.fixed.json").exists()


def test_profile_contradicting_the_intent_is_an_error(run_cli: Run) -> None:
    """--profile mellanox-spectrum-2 with an intent whose switch is broadcom-tomahawk."""
    code, out, err = run_cli("lint", GOOD, "--intent", INTENT, "--switch", "tor1", "--profile", "mellanox-spectrum-2")
    assert code == 2 and out == ""
    assert "--profile mellanox-spectrum-2 contradicts the intent, which gives tor1: broadcom-tomahawk" in err
    code, _, err = run_cli("lint", GOOD, "--intent", INTENT, "--switch", "tor1", "--profile", "broadcom-tomahawk")
    assert code in (0, 1) and "contradicts" not in err


def test_lint_intent_counts_the_phy_delay_and_its_hint_reproduces_the_number(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A config compiled for 40 m cables, linted against an intent that declares 10 us of PHY
    delay on the fabric links: the headroom rule needs the wire both ways (SONiC's gearbox term),
    and the whatif command in its hint prints that number."""
    import json
    import shlex

    examples = Path(__file__).resolve().parents[2] / "examples"
    code, _, err = run_cli("compile", str(examples / "roce-pod.yaml"), "-o", str(tmp_path / "out"))
    assert code == 0, err
    geared = tmp_path / "geared.yaml"
    geared.write_text((examples / "roce-pod.yaml").read_text().replace("fabric_link: {speed: 100G, cable: 40m}", "fabric_link: {speed: 100G, cable: 40m, phy_delay: 10us}")
                      .replace("link_latency: 1us", "link_latency: 11us"))
    code, out, _ = run_cli("lint", "--intent", str(geared), str(tmp_path / "out" / "leaf1" / "config_db.json"), "--format", "json")
    assert code == 1
    headroom = [f for f in json.loads(out)["findings"] if f["rule"] == "pfc-headroom"]
    assert len(headroom) == 1 and headroom[0]["values"]["cable_m"] == 40.0
    command = shlex.split(headroom[0]["hint"].split("comes from ", 1)[1])
    assert "--phy-delay" in command
    code, out, err = run_cli(*command[1:], "--format", "json")
    assert code == 0, err
    assert json.loads(out)["xoff_bytes"] == headroom[0]["values"]["required_bytes"] > 25_000 + 53_248
