"""Lint many files on several cores (``qosforge lint --jobs N``), in input order.

A CI job lints hundreds of config_db files; each is independent, so they are shared among
worker processes. The workers are forked from the process that built the :class:`Linter`, so
the vendor profile and the compiled intent are inherited, not loaded again per worker. Each
worker returns, per file, the :class:`FileReport` and what the file added to the run summary
(rules skipped on it, profiles used); the parent merges them in input order, so the output is
the same, byte for byte, as a run with ``--jobs 1``.

The pool is used only where it is safe and pays off: ``fork`` is available (Linux; elsewhere
the ``spawn`` start-up would re-import and rebuild everything), more than one job, and at least
:data:`MIN_FILES_PER_JOB` files per job. If a worker dies (killed by the OOM killer, say), the
files are linted again in this process: a crash of the pool never loses or reorders a report.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from qosforge.lint.engine import FileReport, Linter, RunState

#: Below this many files per job, forking costs more than it saves (a fork and a pickled report
#: are ~10 ms; a 64-port file lints in ~20 ms).
MIN_FILES_PER_JOB = 4
#: Each worker takes its files in about this many chunks (fewer round trips, even finish).
_CHUNKS_PER_JOB = 8


@dataclass(frozen=True)
class FileTask:
    """One file to lint, and where its ``--fix`` copy goes (None: ``FILE.fixed.json``)."""

    path: Path
    fixed_path: Path | None = None


def default_jobs() -> int:
    """The cores this process may run on (the CPU affinity mask, as a CI container sets it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: The linter the forked workers inherit (set in the parent just before the pool forks).
_WORKER_LINTER: Linter | None = None
_WORKER_FIX = False


def _lint_one(task: FileTask) -> tuple[FileReport, RunState]:
    linter = _WORKER_LINTER
    assert linter is not None, "a worker runs only in a pool forked by lint_files"
    report = linter.lint_path(task.path, fix=_WORKER_FIX, fixed_path=task.fixed_path)
    return report, linter.take_run_state()


def _serial(linter: Linter, tasks: Sequence[FileTask], fix: bool,
            advance: Callable[[], None]) -> Iterator[FileReport]:
    for task in tasks:
        yield linter.lint_path(task.path, fix=fix, fixed_path=task.fixed_path)
        advance()


def _use_pool(jobs: int, files: int) -> bool:
    return jobs > 1 and files >= MIN_FILES_PER_JOB * 2 and "fork" in multiprocessing.get_all_start_methods()


def lint_files(linter: Linter, tasks: Sequence[FileTask], *, jobs: int, fix: bool = False,
               advance: Callable[[], None] = lambda: None) -> list[FileReport]:
    """The report of every task, in the order given; ``advance`` is called once per file done."""
    if not _use_pool(jobs, len(tasks)):
        return list(_serial(linter, tasks, fix, advance))
    global _WORKER_LINTER, _WORKER_FIX
    workers = min(jobs, len(tasks) // MIN_FILES_PER_JOB)
    chunk = max(1, len(tasks) // (workers * _CHUNKS_PER_JOB))
    reports: list[FileReport] = []
    states: list[RunState] = []
    _WORKER_LINTER, _WORKER_FIX = linter, fix
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            for report, state in pool.map(_lint_one, tasks, chunksize=chunk):
                reports.append(report)
                states.append(state)
                advance()
    except BrokenProcessPool:
        # A worker died mid-run; what it was doing is unknown, so lint what is left here.
        reports.extend(_serial(linter, tasks[len(reports):], fix, advance))
    finally:
        _WORKER_LINTER, _WORKER_FIX = None, False
    for state in states:
        linter.merge_run_state(state)
    return reports


__all__ = ["MIN_FILES_PER_JOB", "FileTask", "default_jobs", "lint_files"]
