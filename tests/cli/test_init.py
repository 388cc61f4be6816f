"""`qosforge init`: a starter intent that compiles as written; shell completion."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from qosforge.cli import cli
from qosforge.cli import init as init_module

Run = Callable[..., tuple[int, str, str]]


def _load(path: Path) -> dict:
    return YAML(typ="safe").load(path.read_text())


def test_defaults_without_a_terminal_ask_nothing_and_compile(tmp_path: Path, run_cli: Run) -> None:
    intent = tmp_path / "fabric.yaml"
    code, out, err = run_cli("init", "-o", str(intent))
    assert code == 0, err
    assert "?" not in out and "[" not in out  # no prompt was shown
    document = _load(intent)
    assert document["topology"]["leaf_spine"]["leaf_profile"] == init_module.DEFAULT_PROFILE
    assert document["topology"]["leaf_spine"]["host_link"]["speed"] == "40G"  # broadcom-trident2's 32 x 40G
    assert [c["name"] for c in document["classes"]] == ["rdma", "tcp"] and document["classes"][0]["lossless"] is True
    assert "# One-way latency of every link" in intent.read_text()  # comments from the intent model
    assert "one of tcp, dctcp" in intent.read_text() and "hpcc" not in intent.read_text()  # refused by the compiler
    code, _, err = run_cli("compile", str(intent), "-o", str(tmp_path / "out"), "--format", "json")
    assert code == 0, err
    assert (tmp_path / "out" / "leaf1" / "config_db.json").exists()


def test_flags_become_the_intent_and_it_compiles(tmp_path: Path, run_cli: Run) -> None:
    intent = tmp_path / "pod.yaml"
    code, _, err = run_cli(
        "init", "-o", str(intent), "--profile", "mellanox-spectrum-2", "--leaves", "2", "--spines", "1",
        "--hosts-per-leaf", "4", "--speed", "100G", "--class", "roce:dcqcn:24-26:lossless", "--class", "web:dctcp:0,10",
    )
    assert code == 0, err
    document = _load(intent)
    fabric = document["topology"]["leaf_spine"]
    assert (fabric["leaves"], fabric["spines"], fabric["hosts_per_leaf"], fabric["fabric_link"]["speed"]) == (2, 1, 4, "100G")
    assert document["classes"][0] == {"name": "roce", "transport": "dcqcn", "dscp": [24, 25, 26], "lossless": True, "weight": 1}
    assert "lossless" not in document["classes"][1]
    code, _, err = run_cli("compile", str(intent), "-o", str(tmp_path / "out"), "--format", "json")
    assert code == 0, err
    assert sorted(p.parent.name for p in (tmp_path / "out").glob("*/config_db.json")) == ["leaf1", "leaf2", "spine1"]


def test_an_existing_file_is_kept_unless_force(tmp_path: Path, run_cli: Run) -> None:
    intent = tmp_path / "mine.yaml"
    intent.write_text("# my hand-written intent\n")
    code, _, err = run_cli("init", "-o", str(intent))
    assert code == 2 and f"error: {intent}: the file exists and is kept (hint: pass --force" in err
    assert intent.read_text() == "# my hand-written intent\n"
    code, _, err = run_cli("init", "-o", str(intent), "--force")
    assert code == 0, err and _load(intent)["kind"] == "Fabric"


@pytest.mark.parametrize(("flags", "message"), [(["--class", "rdma:dcqcn"], "--class rdma:dcqcn"), (["--speed", "100"], "--speed"),
                                               (["--profile", "trident9"], "trident9")])
def test_flags_are_checked_before_the_existing_file(flags: list[str], message: str, tmp_path: Path, run_cli: Run) -> None:
    # A wrong flag used to hide behind "the file exists": fixing --force then met the flag error.
    intent = tmp_path / "mine.yaml"
    intent.write_text("# kept\n")
    code, _, err = run_cli("init", "-o", str(intent), *flags)
    assert code == 2 and message in err and "the file exists" not in err
    assert intent.read_text() == "# kept\n"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("rdma:dcqcn", "expected NAME:TRANSPORT:DSCPS[:lossless]"),
        ("rdma:dcqcn:26:yes", "expected NAME:TRANSPORT:DSCPS[:lossless]"),
        ("rdma:quic:26", "unknown transport 'quic' (hint: accepted transports: tcp, dctcp, tbtcp, d2tcp, ear, dcqcn, irn (dcqcn or irn for RoCE); hpcc is refused: "),
        ("rdma:dcqcn:64", "outside 0..63"),
        ("rdma:dcqcn:x", "is not numbers"),
        ("1st:dcqcn:26", "must start with a letter"),
    ],
)
def test_bad_class_is_a_clear_error_and_writes_nothing(spec: str, message: str, tmp_path: Path, run_cli: Run) -> None:
    intent = tmp_path / "x.yaml"
    code, _, err = run_cli("init", "-o", str(intent), "--class", spec)
    assert code == 2 and f"--class {spec}" in err and message in err
    assert not intent.exists()


def test_bad_speed_names_the_flag(tmp_path: Path, run_cli: Run) -> None:
    code, _, err = run_cli("init", "-o", str(tmp_path / "x.yaml"), "--speed", "100")
    assert code == 2 and err.startswith("error: --speed: ") and not (tmp_path / "x.yaml").exists()


def test_unknown_profile_is_exit_2(tmp_path: Path, run_cli: Run) -> None:
    code, _, err = run_cli("init", "-o", str(tmp_path / "x.yaml"), "--profile", "trident9")
    assert code == 2 and "trident9" in err and not (tmp_path / "x.yaml").exists()


def test_on_a_terminal_the_missing_answers_are_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(init_module, "_interactive", lambda: True)
    intent = tmp_path / "asked.yaml"
    answers = "\n".join(["softswitch", "web:dctcp:10", "3", "1", "40G"]) + "\n"
    result = CliRunner().invoke(cli, ["init", "-o", str(intent), "--spines", "1"], input=answers)
    assert result.exit_code == 0, result.output
    assert "Vendor profile" in result.output and "Spine switches" not in result.output  # flags are not asked
    fabric = _load(intent)["topology"]["leaf_spine"]
    assert (fabric["leaf_profile"], fabric["leaves"], fabric["spines"], fabric["hosts_per_leaf"]) == ("softswitch", 3, 1, 1)


@pytest.mark.parametrize(("shell", "marker"), [("bash", "complete -o nosort -F _qosforge_completion qosforge"), ("zsh", "#compdef qosforge"), ("fish", "complete --no-files --command qosforge")])
def test_shell_completion_script_is_produced(shell: str, marker: str, monkeypatch: pytest.MonkeyPatch, run_cli: Run) -> None:
    monkeypatch.setenv("_QOSFORGE_COMPLETE", f"{shell}_source")
    code, out, _ = run_cli()
    assert code == 0 and marker in out


def test_completion_offers_the_init_command(monkeypatch: pytest.MonkeyPatch, run_cli: Run) -> None:
    monkeypatch.setenv("_QOSFORGE_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "qosforge in")
    monkeypatch.setenv("COMP_CWORD", "1")
    code, out, _ = run_cli()
    assert code == 0 and "plain,init" in out.splitlines()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--class", "rdma:irn:26:lossless"], "IRN is meant to run without PFC"),
        (["--profile", "broadcom-trident2", "--speed", "100G"], "a speed no front-panel port of broadcom-trident2 runs at"),
        (["--class", "a:dctcp:1", "--class", "b:dctcp:1"], "DSCP"),
    ],
)
def test_answers_that_would_not_compile_write_nothing(tmp_path: Path, run_cli: Run, flags: list[str], message: str) -> None:
    target = tmp_path / "fabric.yaml"
    code, _out, err = run_cli("init", "-o", str(target), *flags)
    assert code == 2 and "would not compile" in err and message in err, err
    assert not target.exists()


@pytest.mark.parametrize(("classes", "place"), [
    (["web:dctcp:0", "rdma:hpcc:26"], "--class rdma:hpcc:26: "),
    (["a:dctcp:1", "b:dctcp:1"], "--class b:dctcp:1: "),
])
def test_a_class_that_would_not_compile_is_named_by_its_flag(tmp_path: Path, run_cli: Run,
                                                            classes: list[str], place: str) -> None:
    # It was "qosforge init: ... the starter intent:18:5: classes[1]...": a line of a file the
    # user never sees, not the --class they typed.
    target = tmp_path / "fabric.yaml"
    code, _out, err = run_cli("init", "-o", str(target), *(f"--class={text}" for text in classes))
    assert code == 2, err
    assert err.startswith(f"error: {place}the starter intent would not compile: "), err
    assert "starter intent:" not in err and not target.exists()


def test_the_suggested_compile_uses_a_folder_of_its_own(tmp_path: Path, run_cli: Run) -> None:
    # `-o out` for every intent would now be refused once out holds another intent's output.
    intent = tmp_path / "pod.yaml"
    code, out, _ = run_cli("init", "-o", str(intent))
    assert code == 0 and out.strip().endswith(f"next: qosforge compile {intent} -o pod-out")
