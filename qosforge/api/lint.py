"""``lint``: SONiC config_db files checked against the rules, as a typed request and its report.

:func:`lint` checks the request's options against each other (a :class:`LintUsageError` names the
conflict), lints every file or merged group (in processes, qosforge/lint/parallel.py), writes the
fixed copies and the baseline asked for, and returns the run's :class:`~qosforge.lint.formats.Report`
with the exit code (0 clean, 1 findings at or above ``fail_on``, 2 unusable input; docs/rules.md).
Rendering the report (text, JSON, SARIF, GitHub annotations) is the caller's: qosforge/cli/lint.py
picks the format and prints :func:`render_report`'s text (qosforge.lint.formats renders it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from qosforge.api.reporting import Reporter
from qosforge.errors import EXIT_BAD_INPUT, QosforgeError
from qosforge.lint.formats import Report

#: The file name that stands for stdin (read bounded like a file, qosforge.lint.load.MAX_CONFIG_BYTES).
STDIN = "-"

#: ``counter(description, total=..., units=..., minimum=...)``: a context around counted work
#: yielding ``advance()``; the CLI's draws a bar on a terminal (qosforge/cli/progress.py).
Counter = Callable[..., AbstractContextManager[Callable[..., None]]]


class LintUsageError(QosforgeError):
    """Options that contradict each other (the CLI shows it as a usage error, exit code 2)."""


@dataclass(frozen=True)
class LintRequest:
    """Every input of ``qosforge lint`` (None: not given). ``files`` may hold ``-`` for stdin and,
    with ``merge``, ``A+B`` for one merged config; ``settings_dir`` is where the project's
    ``.qosforge-lint.toml`` / pyproject.toml is looked for (None: the working directory)."""

    files: tuple[str, ...]
    profile: str | None = None
    intent: str | None = None
    hosts: str | None = None
    switch: str | None = None
    fail_on: Literal["error", "warning"] = "error"
    fix: bool = False
    output: str | None = None
    in_place: bool = False
    merge: bool = False
    merge_folders: bool = False
    disable: tuple[str, ...] = ()
    write_baseline: str | None = None
    baseline: str | None = None
    jobs: int | None = None
    target: str | None = None
    settings_dir: Path | None = None


@dataclass(frozen=True)
class LintOutcome:
    """The run's report (what every format renders) and its exit code."""

    report: Report
    exit_code: int


def merge_groups(files: tuple[str, ...], *, by_folder: bool) -> list[list[Path]]:
    """The configs ``--merge`` lints: a FILE written ``A+B`` (whose parts exist) is one config; with
    ``by_folder`` the other FILEs form one config per folder, else one config together (the
    sonic-cfggen merge of every file, as before). Order inside a config is the order given."""
    groups: list[list[Path]] = []
    plain: dict[str, list[Path]] = {}
    for name in files:
        parts = name.split("+")
        if len(parts) > 1 and not Path(name).exists() and all(Path(part).exists() for part in parts):
            groups.append([Path(part) for part in parts])
            continue
        folder = str(Path(name).parent) if by_folder else ""
        plain.setdefault(folder, []).append(Path(name))
    return [*plain.values(), *groups]


def check_lint_target(target: str | None) -> None:
    """Refuse a target without a lint phase before any file is read (backends/phases.py)."""
    if target is not None:
        from qosforge.backends.registry import require_phase

        require_phase(target, "lint")


def _groups(request: LintRequest) -> list[list[Path]]:
    """The merged configs, after refusing options that contradict each other."""
    files = request.files
    if not files:
        raise LintUsageError("give at least one FILE (or - for stdin)")
    if (request.output or request.in_place) and not request.fix:
        raise LintUsageError("-o/--output and --in-place only apply with --fix")
    if request.output and request.in_place:
        raise LintUsageError("give either -o/--output or --in-place, not both")
    if request.output and len(files) != 1:
        raise LintUsageError("-o/--output takes one FILE; with several, each is written to FILE.fixed.json")
    if request.fix and STDIN in files and not request.output:
        raise LintUsageError("--fix on stdin needs -o/--output")
    if request.merge_folders and not request.merge:
        raise LintUsageError("--merge-folders groups the files of --merge: give --merge too")
    # Before linting: a file lint cannot write is named by its flag, not found at the end.
    from qosforge.files import check_output_file

    written = ((request.output, "-o/--output"), (request.write_baseline, "--write-baseline"))
    for path, flag in written:
        if path and path != STDIN:
            check_output_file(Path(path), flag=flag)
    groups = merge_groups(files, by_folder=request.merge_folders) if request.merge else []
    # A folder holding one file of the fabric is linted as that file (its switch rendered only one).
    if request.merge and (request.fix or STDIN in files or not groups or (len(groups) == 1 and len(groups[0]) < 2)):
        raise LintUsageError("--merge takes two or more files (not stdin; A+B for one config, --merge-folders for "
                             "one config per folder) and does not combine with --fix")
    return groups


@contextmanager
def _uncounted(description: str, **_: object) -> Iterator[Callable[..., None]]:
    yield lambda steps=1: None


def _read_stdin() -> bytes:
    from qosforge.lint.load import MAX_CONFIG_BYTES

    return sys.stdin.buffer.read(MAX_CONFIG_BYTES + 1)


def lint(request: LintRequest, reporter: Reporter, *, counter: Counter = _uncounted,
         read_stdin: Callable[[], bytes] = _read_stdin) -> LintOutcome:
    """Lint the request's files; fixed copies and the baseline are written, notes go to ``reporter``."""
    check_lint_target(request.target)
    groups = _groups(request)

    from qosforge.files import write_text_atomically
    from qosforge.lint.baseline import baseline_text, fingerprint, read_baseline
    from qosforge.lint.engine import FileReport, Linter
    from qosforge.lint.findings import Severity, exit_code, sort_key
    from qosforge.lint.parallel import FileTask, default_jobs, lint_files
    from qosforge.lint.project import load_settings
    from qosforge.lint.rules import REGISTRY

    settings = load_settings(request.settings_dir or Path.cwd(), frozenset(REGISTRY))
    disabled = frozenset(rule.strip() for item in request.disable for rule in item.split(",") if rule.strip())
    known = read_baseline(Path(request.baseline)) if request.baseline is not None else frozenset()
    linter = Linter(profile=request.profile, intent=Path(request.intent) if request.intent is not None else None,
                    switch=request.switch, disable=disabled, settings=settings,
                    hosts=Path(request.hosts) if request.hosts is not None else None, target=request.target or "sonic")
    reports: list[FileReport] = []
    with counter("linting", total=len(groups), units="configs", minimum=20) as advance:
        for group in groups:  # one process: the start-up is paid once for a whole fabric
            reports.append(linter.lint_merged(group))
            advance()
    files = () if request.merge else request.files
    output, fix = request.output, request.fix
    with counter("linting", total=len(files), units="files", minimum=20) as advance:
        tasks = [FileTask(Path(name), Path(output) if output else (Path(name) if request.in_place else None)) for name in files]
        if STDIN in request.files:  # one process, in the order given
            for task in tasks:
                if task.path == Path(STDIN):
                    reports.append(linter.lint_bytes(read_stdin(), "<stdin>", fix=fix, fixed_path=task.fixed_path))
                else:
                    reports.append(linter.lint_path(task.path, fix=fix, fixed_path=task.fixed_path))
                advance()
        else:
            reports.extend(lint_files(linter, tasks, jobs=request.jobs or default_jobs(), fix=fix, advance=advance))

    fixed: dict[str, int] = {}
    for report in reports:
        if report.fixed_text is not None and report.fixed_path is not None:
            write_text_atomically(Path(report.fixed_path), report.fixed_text)
            fixed[report.fixed_path] = len(report.fixes)
        elif fix and report.unusable is None:
            # lint_path writes no copy when nothing is mechanical; say so instead of silence.
            reporter.note(f"note: {report.file}: nothing to fix, no file written")
    unusable = [r.unusable for r in reports if r.unusable is not None]
    for item in unusable:
        reporter.note(f"error: {' '.join(item.message.split())}")
    findings = sorted((f for r in reports for f in r.findings), key=sort_key)
    if request.write_baseline is not None and not unusable:
        write_text_atomically(Path(request.write_baseline), baseline_text(findings))
        reporter.note(f"note: {len(findings)} finding(s) recorded in baseline {request.write_baseline}")
    baselined = [f for f in findings if fingerprint(f) in known]
    if baselined:
        findings = [f for f in findings if fingerprint(f) not in known]
        reporter.note(f"note: {len(baselined)} finding(s) in baseline {request.baseline} not shown")
    severity = Severity(request.fail_on)
    run = Report(
        findings=findings, files=[r.file for r in reports], unusable=unusable, skipped=linter.skipped,
        fail_on=severity, profile=", ".join(sorted(linter.profiles_used)) or None,
        intent=request.intent, fixed=fixed,
    )
    if unusable:
        code = EXIT_BAD_INPUT
    elif request.write_baseline is not None:
        code = 0  # recording today's findings is the job asked for; --baseline fails on new ones later
    else:
        code = exit_code(findings, severity, 0)
    return LintOutcome(report=run, exit_code=code)


ReportFormat = Literal["text", "json", "sarif", "github"]


def render_report(report: Report, output_format: ReportFormat) -> str:
    """The report in one of lint's formats (docs/rules.md: SARIF 2.1.0, GitHub annotations)."""
    from qosforge.lint.formats import github, sarif, text
    from qosforge.lint.formats import json as json_format

    renderer = {"text": text.render, "json": json_format.render, "sarif": sarif.render, "github": github.render}
    return renderer[output_format](report)


def rules_listing(output_format: Literal["text", "json"]) -> str:
    """``--list-rules``: every registered rule (id, severity, category, title; JSON with all fields)."""
    import json

    from qosforge.lint.docs import rules_json, rules_text

    return json.dumps(rules_json(), indent=2) + "\n" if output_format == "json" else rules_text()


__all__ = ["STDIN", "Counter", "LintOutcome", "LintRequest", "LintUsageError", "ReportFormat", "check_lint_target", "lint",
           "merge_groups", "render_report", "rules_listing"]
