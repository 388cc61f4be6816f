"""What ``qosforge compile`` prints: a summary by default, every table with --verbose, nothing
with --quiet; JSON keys only added; distinct labels for distinct thresholds; progress only on a
terminal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.cli.compile_summary import names_text

Run = Callable[..., tuple[int, str, str]]
REPO = Path(__file__).resolve().parents[2]
TLT_FABRIC = REPO / "examples" / "tlt-simulation.yaml"  # 16 switches of one kind, DCTCP + TLT


def test_default_is_a_short_fabric_summary(run_cli: Run, tmp_path: Path) -> None:
    code, out, err = run_cli("compile", str(TLT_FABRIC), "-o", str(tmp_path / "out"))
    assert code == 0, err
    assert "16 switches, 1 kind" in out
    assert "leaf1..leaf12," in out and "spine1..spine4" in out
    assert "ECN K 64.5 kB" in out and "TLT K 406.34 kB" in out
    assert len(out.splitlines()) < 40
    verbose = run_cli("compile", str(TLT_FABRIC), "-o", str(tmp_path / "out"), "--verbose")[1]
    assert len(verbose.splitlines()) > 10 * len(out.splitlines())  # every switch's tables
    assert "ecn_marking_threshold_bytes" in verbose
    assert "tlt_color_drop_threshold_bytes" in verbose


def test_quiet_prints_nothing_but_writes(run_cli: Run, tmp_path: Path) -> None:
    code, out, err = run_cli("compile", str(TLT_FABRIC), "-o", str(tmp_path / "out"), "--quiet")
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "out" / "leaf1" / "config_db.json").is_file()
    assert run_cli("compile", str(TLT_FABRIC), "-o", str(tmp_path / "o2"), "-q", "-v")[0] == 2


def test_json_keeps_its_keys_and_labels_thresholds(run_cli: Run, tmp_path: Path) -> None:
    code, out, _ = run_cli("compile", str(TLT_FABRIC), "-o", str(tmp_path / "out"), "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["schema"] == "qosforge.report/v1"
    bulk = next(cls for cls in report["switches"][0]["classes"] if cls["name"] == "bulk")
    thresholds = bulk["thresholds"]
    for item in thresholds:
        assert {"value", "unit", "quantity", "model", "formula", "source", "label"} <= set(item)
    labels = [item["label"] for item in thresholds]
    assert labels == ["ecn_marking_threshold_bytes", "tlt_color_drop_threshold_bytes"]
    assert [item["quantity"] for item in thresholds] == ["threshold_bytes", "threshold_bytes"]  # unchanged
    assert json.loads((tmp_path / "out" / "report.json").read_text()) == report


def test_progress_is_silent_without_a_terminal(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QOSFORGE_PROGRESS", raising=False)
    code, _out, err = run_cli("compile", str(TLT_FABRIC), "-o", str(tmp_path / "out"), "-q")
    assert (code, err) == (0, "")


def test_progress_draws_when_forced(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from qosforge.cli.progress import progress

    monkeypatch.setenv("QOSFORGE_PROGRESS", "1")
    with progress("rendering", total=3, units="switches") as advance:
        for _ in range(3):
            advance()
    monkeypatch.setenv("QOSFORGE_PROGRESS", "0")
    with progress("rendering", total=3) as advance:
        advance()


@pytest.mark.parametrize(
    ("names", "text"),
    [
        (("leaf1",), "leaf1"),
        (("leaf1", "leaf2", "leaf3", "spine1", "spine2"), "leaf1..leaf3, spine1..spine2"),
        (("a", "b"), "a, b"),
        (("leaf1", "leaf3"), "leaf1, leaf3"),
    ],
)
def test_switch_names_are_folded(names: tuple[str, ...], text: str) -> None:
    assert names_text(names) == text


def test_a_second_intent_into_the_same_folder_is_refused(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("compile", str(TLT_FABRIC), "-o", str(out), "-q")[0] == 0
    before = sorted(p.name for p in out.iterdir())
    code, _, err = run_cli("compile", str(REPO / "examples" / "tbtcp-testbed.yaml"), "-o", str(out), "-q")
    assert code == 2 and "holds the output of another intent" in err and "--force" in err
    assert sorted(p.name for p in out.iterdir()) == before  # untouched
    code, _, err = run_cli("compile", str(REPO / "examples" / "tbtcp-testbed.yaml"), "-o", str(out), "-q", "--force")
    assert code == 0, err
    assert "leaf1" not in {p.name for p in out.iterdir()} and (out / "report.json").is_file()


def test_too_many_ports_for_the_sai_layout_names_the_intent_line(run_cli: Run, tmp_path: Path) -> None:
    intent = tmp_path / "many.yaml"
    intent.write_text("""apiVersion: qosforge/v1
kind: Fabric
metadata: {name: many}
topology:
  switches:
    - name: tor
      profile: broadcom-trident2
      ports:
        - {name: "Ethernet[0-63]", speed: 10G, cable: 3m, peer: host}
classes:
  - {name: web, transport: dctcp, dscp: [0]}
targets: [sai]
""")
    code, _out, err = run_cli("compile", str(intent), "-o", str(tmp_path / "out"), "-q")
    assert code == 2 and err.startswith(f"error: {intent}:9:11: switch tor: the topology gives it 64 ports")
    assert "broken out 4x10G" in err and not (tmp_path / "out").exists()


def test_a_moved_copy_recompiles_into_its_own_output(run_cli: Run, tmp_path: Path) -> None:
    import shutil

    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(REPO / "examples" / "tbtcp-testbed.yaml", repo / "fabric.yaml")
    shutil.copy(REPO / "examples" / "tlt-simulation.yaml", repo / "other.yaml")
    assert run_cli("compile", str(repo / "fabric.yaml"), "-o", str(repo / "out"), "-q")[0] == 0
    moved = tmp_path / "moved"
    shutil.copytree(repo, moved)
    # The manifest names the intent relative to the output folder's parent: the copy is the same intent.
    code, _, err = run_cli("compile", str(moved / "fabric.yaml"), "-o", str(moved / "out"), "-q")
    assert code == 0, err
    code, _, err = run_cli("compile", str(moved / "other.yaml"), "-o", str(moved / "out"), "-q")
    assert code == 2 and "holds the output of another intent, fabric.yaml" in err


def test_the_summary_is_not_cut_without_a_terminal(run_cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    # Before: laid out at 110 columns in a pipe, the PFC headroom cell wrapped mid-value
    # ("xoff 68.976" / "kB, size 136.66 kB") at the right border.
    examples = Path(__file__).resolve().parents[2] / "examples"
    # The summary is the compile's, whatever the targets: SONiC's alone spares pyangbind's renders.
    intent = str(examples / "mixed-fabric.yaml")
    code, out, err = run_cli("compile", intent, "--target", "sonic", "-o", str(tmp_path / "out"))
    assert code == 0, err
    assert "100 Gbps 2 m: xoff 54.432 kB, size 107.71 kB" in out
    assert "100 Gbps 100 m: xoff 69.12 kB, size 136.94 kB" in out
