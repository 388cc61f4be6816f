"""Errors and files: help for bare groups, operating-system errors as one line with
exit 2, output folders complete or untouched, the manifest, --plot paths, file modes, bounds."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.errors import EXIT_BAD_INPUT

Run = Callable[..., tuple[int, str, str]]
REPO = Path(__file__).resolve().parents[2]
SMALL = REPO / "examples" / "tlt-softswitch.yaml"  # one switch, SAI only
FABRIC = REPO / "examples" / "roce-pod.yaml"  # leaf1..leaf4, spine1..spine2


@pytest.mark.parametrize("argv", [(), ("whatif",), ("profiles",), ("fit",)])
def test_bare_groups_print_normal_help(run_cli: Run, argv: tuple[str, ...]) -> None:
    code, out, err = run_cli(*argv)
    assert code == 0
    assert err == ""
    assert out.startswith("Usage: qosforge")
    assert "\nCommands:\n" in out  # multi-line help, not one squashed "error:" line


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


def test_output_under_a_regular_file_is_a_user_error(run_cli: Run, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _out, err = run_cli("compile", str(SMALL), "-o", str(blocker / "out"), "-q")
    assert code == EXIT_BAD_INPUT
    line = _one_error_line(err)
    assert str(blocker) in line
    assert blocker.read_text() == "x"


def test_output_that_is_a_file_is_a_user_error(run_cli: Run, tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_text("keep")
    code, _, err = run_cli("compile", str(SMALL), "-o", str(target), "-q")
    assert code == EXIT_BAD_INPUT
    assert "is a file" in _one_error_line(err)
    assert target.read_text() == "keep"


def test_full_disk_is_a_user_error_naming_the_path(run_cli: Run) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    code, _out, err = run_cli("schema", "-o", "/dev/full")
    assert code == EXIT_BAD_INPUT
    line = _one_error_line(err)
    assert "/dev/full" in line and "No space left on device" in line
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # written through, never replaced


@pytest.mark.parametrize(
    ("code", "cause"),
    [(errno.ENOSPC, "No space left on device"), (errno.EROFS, "Read-only file system"), (errno.EACCES, "Permission denied")],
)
def test_os_errors_while_writing_outputs_are_user_errors_and_leave_nothing(
    run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, cause: str
) -> None:
    # Works as root too: the failure is injected where the files are written.
    def fail(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError(code, os.strerror(code), str(self))

    monkeypatch.setattr(Path, "write_text", fail)
    out_dir = tmp_path / "out"
    exit_code, _, err = run_cli("compile", str(SMALL), "-o", str(out_dir), "-q")
    assert exit_code == EXIT_BAD_INPUT
    line = _one_error_line(err)
    assert cause in line and str(tmp_path) in line
    assert not out_dir.exists()
    assert list(tmp_path.iterdir()) == []  # no staging folder left behind


def test_permission_denied_on_the_plot_path(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    def denied(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    code, _, err = run_cli("whatif", "buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:4:4", "--plot", str(tmp_path / "p.png"))
    assert code == EXIT_BAD_INPUT
    assert "Permission denied" in _one_error_line(err)


@pytest.mark.parametrize(
    ("plot", "expected"),
    [("/nonexistent-qosforge/q.png", "does not exist"), ("{tmp}/q.xyz", "not a supported file type"), ("{tmp}", "is a folder")],
)
def test_bad_plot_paths_fail_before_work_and_create_nothing(run_cli: Run, tmp_path: Path, plot: str, expected: str) -> None:
    path = plot.format(tmp=tmp_path)
    code, _out, err = run_cli("whatif", "buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:4:4", "--plot", path)
    assert code == EXIT_BAD_INPUT
    line = _one_error_line(err)
    assert "--plot" in line and expected in line
    assert not Path("/nonexistent-qosforge").exists()
    assert list(tmp_path.iterdir()) == []


def test_plot_files_and_outputs_get_normal_modes(run_cli: Run, tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        plot = tmp_path / "share.png"
        code, _, err = run_cli("whatif", "buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:4:4", "--plot", str(plot))
        assert code == 0, err
        assert stat.S_IMODE(plot.stat().st_mode) == 0o644
        code, _, err = run_cli("compile", str(SMALL), "-o", str(tmp_path / "out"), "-q")
        assert code == 0, err
        modes = {stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "out").rglob("*")}
        assert modes == {0o644, 0o755}
        os.umask(0o027)
        os.chmod(plot, 0o600)  # an existing file keeps its mode
        code, _, _ = run_cli("whatif", "buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:4:4", "--plot", str(plot))
        assert stat.S_IMODE(plot.stat().st_mode) == 0o600
    finally:
        os.umask(previous)
        import qosforge.files

        qosforge.files._umask = None


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--flows", "100000000"), "--flows"),
        (("--duration", "1000s"), "--duration"),
        (("--speed", "1e300G"), "--speed"),
        (("--packet", "100000B"), "--packet"),
    ],
)
def test_simulate_inputs_are_bounded(run_cli: Run, argv: tuple[str, ...], flag: str) -> None:
    code, _out, err = run_cli("simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "20pkt", *argv)
    assert code == EXIT_BAD_INPUT
    assert _one_error_line(err).startswith(f"error: {flag}:")


def test_absurd_numbers_name_the_flag(run_cli: Run) -> None:
    code, _, err = run_cli("whatif", "tbtcp", "--speed", "10G", "--rtt", "1e300s", "--flows", "10")
    assert code == EXIT_BAD_INPUT
    assert _one_error_line(err).startswith("error: --rtt:")


def test_overflow_is_a_user_error(run_cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    import qosforge.api.calculators.buffer as buffer

    def overflow(values: dict[str, object]) -> object:
        raise OverflowError("cannot convert float infinity to integer")

    monkeypatch.setattr(buffer, "dynamic_threshold_share", lambda **kwargs: overflow(kwargs))
    code, _, err = run_cli("whatif", "buffer", "--buffer", "12MB")
    assert code == EXIT_BAD_INPUT
    assert "too large" in _one_error_line(err)


def test_a_real_bug_is_still_exit_70(run_cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    import qosforge.api.calculators.buffer as buffer

    def bug(**kwargs: object) -> object:
        raise KeyError("oops")

    monkeypatch.delenv("QOSFORGE_DEBUG", raising=False)
    monkeypatch.setattr(buffer, "dynamic_threshold_share", bug)
    code, _, err = run_cli("whatif", "buffer", "--buffer", "12MB")
    assert code == 70
    assert "qosforge bug" in err


# --- the output folder: complete or untouched, and the manifest ----------------------------------


def _manifest(root: Path) -> dict[str, object]:
    return json.loads((root / ".qosforge-manifest.json").read_text())


def test_failed_compile_leaves_an_existing_folder_untouched(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out_dir = tmp_path / "out"
    code, _, err = run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q")
    assert code == 0, err
    before = {p: p.read_bytes() for p in out_dir.rglob("*") if p.is_file()}
    calls = {"n": 0}
    real_write_text = Path.write_text

    def fail_late(self: Path, *args: object, **kwargs: object) -> int:
        calls["n"] += 1
        if calls["n"] > 5:
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real_write_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", fail_late)
    code, _, err = run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q", "--target", "sonic")
    assert code == EXIT_BAD_INPUT, err
    after = {p: p.read_bytes() for p in out_dir.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_recompiling_a_smaller_fabric_removes_stale_switches_but_not_foreign_files(run_cli: Run, tmp_path: Path) -> None:
    intent = tmp_path / "fabric.yaml"
    text = FABRIC.read_text()
    intent.write_text(text)
    out_dir = tmp_path / "out"
    assert run_cli("compile", str(intent), "-o", str(out_dir), "-q")[0] == 0
    assert (out_dir / "leaf4" / "config_db.json").is_file()
    (out_dir / "leaf4" / "notes.txt").write_text("mine")
    (out_dir / "README").write_text("mine too")
    smaller = text.replace("leaves: 4", "leaves: 2")
    assert smaller != text
    intent.write_text(smaller)
    code, _, err = run_cli("compile", str(intent), "-o", str(out_dir), "-q")
    assert code == 0, err
    assert not (out_dir / "leaf3").exists()
    assert not (out_dir / "leaf4" / "config_db.json").exists()
    assert (out_dir / "leaf4" / "notes.txt").read_text() == "mine"  # not qosforge's: kept
    assert (out_dir / "README").read_text() == "mine too"
    listed = {entry["path"] for entry in _manifest(out_dir)["files"]}  # type: ignore[index]
    assert "leaf3/config_db.json" not in listed and "leaf2/config_db.json" in listed


def test_switch_and_target_subsets_keep_the_rest(run_cli: Run, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    assert run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q")[0] == 0
    leaf2 = (out_dir / "leaf2" / "sai.json").read_bytes()
    code, _, err = run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q", "--switch", "leaf1", "--target", "sonic")
    assert code == 0, err
    assert (out_dir / "leaf1" / "sai.json").is_file()  # target sai was not asked for: stays
    assert (out_dir / "leaf2" / "sai.json").read_bytes() == leaf2
    manifest = _manifest(out_dir)
    assert manifest["last_run"]["switches"] == ["leaf1"]  # type: ignore[index]
    # per switch config_db.json, sai.json, sairedis.rec, openconfig.json; and report.json
    assert len(manifest["files"]) == 6 * 4 + 1  # type: ignore[arg-type]


def test_asked_target_that_is_no_longer_rendered_is_replaced(run_cli: Run, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    assert run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q", "--target", "sonic")[0] == 0
    (out_dir / "leaf1" / "config_db.json").write_text("{}")  # edited by hand after qosforge wrote it
    assert run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q", "--target", "sonic")[0] == 0
    assert json.loads((out_dir / "leaf1" / "config_db.json").read_text()) != {}


def test_user_modified_stale_file_is_kept_and_reported(run_cli: Run, tmp_path: Path) -> None:
    intent = tmp_path / "fabric.yaml"
    intent.write_text(FABRIC.read_text())
    out_dir = tmp_path / "out"
    assert run_cli("compile", str(intent), "-o", str(out_dir), "-q")[0] == 0
    (out_dir / "leaf4" / "config_db.json").write_text("{} ")
    intent.write_text(FABRIC.read_text().replace("leaves: 4", "leaves: 2"))
    code, out, _ = run_cli("compile", str(intent), "-o", str(out_dir))
    assert code == 0
    assert (out_dir / "leaf4" / "config_db.json").read_text() == "{} "
    assert "changed since qosforge wrote it" in out


def test_compiling_into_the_working_folder_works_in_place(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(SMALL, tmp_path / "intent.yaml")
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("compile", "intent.yaml", "-o", ".", "-q")
    assert code == 0, err
    assert (tmp_path / "tor1" / "sai.json").is_file() and (tmp_path / ".qosforge-manifest.json").is_file()


def test_a_corrupt_manifest_is_a_user_error(run_cli: Run, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / ".qosforge-manifest.json").write_text("not json")
    code, _, err = run_cli("compile", str(SMALL), "-o", str(out_dir), "-q")
    assert code == EXIT_BAD_INPUT
    assert ".qosforge-manifest.json" in _one_error_line(err)


def test_replacing_a_hand_edited_output_warns(run_cli: Run, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    assert run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q")[0] == 0
    edited = out_dir / "leaf1" / "config_db.json"
    edited.write_text(edited.read_text().replace('"', '"', 1) + "\n")  # an operator's edit
    code, _out, err = run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q")
    assert code == 0 and f"warning: replaced {edited}" in err
    code, _out, err = run_cli("compile", str(FABRIC), "-o", str(out_dir), "-q")  # nothing edited now
    assert code == 0 and "warning" not in err
