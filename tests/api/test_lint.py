"""``qosforge.api.lint``: a typed request in, the report and exit code out (no click in
between: test_no_cli.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from qosforge.api.lint import LintRequest, LintUsageError, lint
from qosforge.lint.findings import Severity

CONFIGS = Path(__file__).resolve().parents[1] / "lint" / "configs"


class _Notes:
    """A Reporter that keeps the notes (what the CLI prints on stderr)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def note(self, text: str) -> None:
        self.lines.append(text)

    def progress(self, description: str) -> object:
        raise AssertionError("lint counts its work; it never asks for a spinner")

    def engine_starting(self) -> None:
        raise AssertionError("lint runs no engine")


def _copy(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copy(CONFIGS / name, tmp_path / name))


def test_a_badly_encoded_file_gives_its_findings_and_exit_code_1(tmp_path: Path) -> None:
    path = _copy(tmp_path, "broadcom_bad_encoding.json")
    notes = _Notes()
    outcome = lint(LintRequest(files=(str(path),), jobs=1, settings_dir=tmp_path), notes)
    report = outcome.report
    assert outcome.exit_code == 1 and report.files == [str(path)] and report.unusable == [] and notes.lines == []
    located = {(f.rule, f.line) for f in report.findings}
    # The cable length written "40" (SONiC's CABLE_LENGTH wants "<meters>m") and a pool size as a JSON int.
    assert ("bad-pattern", 45) in located and ("value-not-string", 61) in located
    assert report.fail_on is Severity.ERROR and report.profile is None and report.fixed == {}


def test_fix_writes_a_copy_that_lints_clean_of_what_it_fixed(tmp_path: Path) -> None:
    config = json.loads((CONFIGS / "mellanox_whole.json").read_text())
    pool, fields = next(iter(config["BUFFER_POOL"].items()))
    size_text = fields["size"]
    fields["size"] = int(size_text)  # a JSON int where CONFIG_DB holds strings (SONiC's Redis values are strings)
    path = tmp_path / "int_size.json"
    path.write_text(json.dumps(config, indent=4))
    before = lint(LintRequest(files=(str(path),), jobs=1, settings_dir=tmp_path), _Notes()).report
    assert [f.key for f in before.findings if f.rule == "value-not-string"] == [pool]
    fixed_path = tmp_path / "fixed.json"
    outcome = lint(LintRequest(files=(str(path),), fix=True, output=str(fixed_path), jobs=1, settings_dir=tmp_path), _Notes())
    assert outcome.report.fixed == {str(fixed_path): 1}
    # Read back without qosforge: the size is the string it was, everything else untouched.
    fixed = json.loads(fixed_path.read_text())
    assert fixed["BUFFER_POOL"][pool]["size"] == size_text
    assert json.loads((CONFIGS / "mellanox_whole.json").read_text()) == fixed
    after = lint(LintRequest(files=(str(fixed_path),), jobs=1, settings_dir=tmp_path), _Notes()).report
    assert "value-not-string" not in {f.rule for f in after.findings}


def test_a_baseline_hides_what_it_recorded(tmp_path: Path) -> None:
    path = _copy(tmp_path, "broadcom_bad_encoding.json")
    baseline = tmp_path / "baseline.json"
    notes = _Notes()
    recorded = lint(LintRequest(files=(str(path),), write_baseline=str(baseline), jobs=1, settings_dir=tmp_path), notes)
    count = len(recorded.report.findings)
    assert recorded.exit_code == 0 and count > 0 and notes.lines == [f"note: {count} finding(s) recorded in baseline {baseline}"]
    notes = _Notes()
    again = lint(LintRequest(files=(str(path),), baseline=str(baseline), jobs=1, settings_dir=tmp_path), notes)
    assert again.exit_code == 0 and again.report.findings == []
    assert notes.lines == [f"note: {count} finding(s) in baseline {baseline} not shown"]


def test_an_unusable_file_is_exit_code_2_with_its_error_noted(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    notes = _Notes()
    outcome = lint(LintRequest(files=(str(garbage),), jobs=1, settings_dir=tmp_path), notes)
    assert outcome.exit_code == 2 and len(outcome.report.unusable) == 1
    assert len(notes.lines) == 1 and notes.lines[0].startswith("error: ") and "garbage.json" in notes.lines[0]


def test_stdin_is_read_through_the_callable_given(tmp_path: Path) -> None:
    data = (CONFIGS / "broadcom_bad_encoding.json").read_bytes()
    outcome = lint(LintRequest(files=("-",), settings_dir=tmp_path), _Notes(), read_stdin=lambda: data)
    assert outcome.report.files == ["<stdin>"] and ("bad-pattern", 45) in {(f.rule, f.line) for f in outcome.report.findings}


@pytest.mark.parametrize(("request_", "message"), [
    (LintRequest(files=()), "give at least one FILE (or - for stdin)"),
    (LintRequest(files=("a.json",), output="b.json"), "-o/--output and --in-place only apply with --fix"),
    (LintRequest(files=("-",), fix=True), "--fix on stdin needs -o/--output"),
    (LintRequest(files=("a.json",), merge_folders=True), "--merge-folders groups the files of --merge: give --merge too"),
])
def test_contradicting_options_are_refused_before_reading(request_: LintRequest, message: str) -> None:
    with pytest.raises(LintUsageError) as caught:
        lint(request_, _Notes(), read_stdin=lambda: pytest.fail("stdin read before the options were checked"))
    assert caught.value.message == message


def test_the_cli_renders_the_api_report(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from qosforge.cli import main
    from qosforge.lint.formats import json as json_format

    monkeypatch.chdir(tmp_path)
    _copy(tmp_path, "mellanox_whole.json")
    _copy(tmp_path, "broadcom_bad_encoding.json")
    files = ("mellanox_whole.json", "broadcom_bad_encoding.json")
    with pytest.raises(SystemExit) as exited:
        main(["lint", *files, "--profile", "mellanox-spectrum-2", "--format", "json", "--jobs", "1"])
    printed = capsys.readouterr().out
    outcome = lint(LintRequest(files=files, profile="mellanox-spectrum-2", jobs=1), _Notes())
    assert exited.value.code == outcome.exit_code == 1
    assert printed == json_format.render(outcome.report)
