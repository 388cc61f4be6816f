"""lint_files: several processes give the same reports, in the same order, as one process."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from qosforge.lint import parallel
from qosforge.lint.engine import Linter
from qosforge.lint.parallel import FileTask, lint_files

CONFIGS = Path(__file__).parent / "configs"
_SOURCES = ("broadcom_traditional.json", "broadcom_bad_encoding.json", "mellanox_dynamic.json", "mellanox_whole.json")


def _corpus(folder: Path, files: int) -> list[FileTask]:
    """``files`` configs, each in a folder of its own (the four test configs in turn; one not JSON,
    one a fragment)."""
    tasks = []
    for index in range(files):
        target = folder / f"sw{index:02}" / "config_db.json"
        target.parent.mkdir()
        shutil.copy(CONFIGS / _SOURCES[index % len(_SOURCES)], target)
        tasks.append(FileTask(target))
    tasks[5].path.write_text("{not json")
    tasks[7].path.write_text(json.dumps({"DSCP_TO_TC_MAP": {"AZURE": {str(d): "0" for d in range(64)}}}))
    return tasks


def _outcome(linter: Linter, tasks: list[FileTask], jobs: int) -> tuple[list[object], list[object], set[str]]:
    done: list[int] = []
    reports = lint_files(linter, tasks, jobs=jobs, advance=lambda: done.append(1))
    assert len(done) == len(tasks)
    return ([(r.file, [f.to_json() for f in r.findings], r.unusable) for r in reports],
            [(s.rules, s.reason) for s in linter.skipped], linter.profiles_used)


def test_two_jobs_give_what_one_gives(tmp_path: Path) -> None:
    tasks = _corpus(tmp_path, 12)
    one = _outcome(Linter(profile="broadcom-tomahawk"), tasks, jobs=1)
    two = _outcome(Linter(profile="broadcom-tomahawk"), tasks, jobs=2)
    assert json.dumps(one, default=repr) == json.dumps(two, default=repr)
    reports, skipped, profiles = two
    assert [file for file, _, _ in reports] == [str(task.path) for task in tasks]
    assert reports[5][2] is not None and reports[1][1]  # the broken file is unusable; bad_encoding has findings
    assert any("sw07" in reason for _, reason in skipped)  # the workers' skip notes reached the parent
    assert profiles == {"broadcom-tomahawk"}


def test_few_files_stay_in_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "ProcessPoolExecutor", None)  # would raise if used
    tasks = _corpus(tmp_path, 12)[: 2 * parallel.MIN_FILES_PER_JOB - 1]
    assert len(lint_files(Linter(), tasks, jobs=2)) == len(tasks)


def test_a_dead_worker_loses_no_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = _corpus(tmp_path, 12)
    expected = _outcome(Linter(), tasks, jobs=1)
    real = Linter.lint_path

    def dying(self: Linter, path: Path, **options: object) -> object:
        if path == tasks[9].path and os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would
        return real(self, path, **options)  # type: ignore[arg-type]

    parent = os.getpid()
    monkeypatch.setattr(Linter, "lint_path", dying)
    assert _outcome(Linter(), tasks, jobs=2) == expected
