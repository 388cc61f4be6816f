"""``--format text``: one line per finding, compiler style, then a summary line.

``file:line:col: severity [rule] TABLE|key.field: message`` and an indented ``fix:`` line, so
editors and terminals can jump to the place.
"""

from __future__ import annotations

import re

from qosforge.lint.findings import Finding, Skipped, printable
from qosforge.lint.formats import Report


def _line(finding: Finding) -> str:
    place = printable(finding.file)
    if finding.line is not None:
        place += f":{finding.line}:{finding.column or 1}"
    mark = " (fixable: --fix)" if finding.fixable else ""
    return (f"{place}: {finding.severity.value} [{finding.rule}] {finding.where or '(file)'}: {printable(finding.message)}{mark}\n"
            f"    fix: {printable(finding.hint)}")


def _count(number: int, noun: str) -> str:
    plural = noun + ("es" if noun.endswith(("s", "x")) else "s")
    return f"{number} {noun if number == 1 else plural}"


def _reason(skipped: Skipped) -> str:
    """The gist of a skip reason (the full reasons, with the rules and files, are in --format json)."""
    reason = skipped.reason
    if "has no " in reason:
        table = reason.split("has no ", 1)[1].split(" ", 1)[0].rstrip(":")
        files = reason.rsplit(": ", 1)[-1]
        count = files.count(", ") + 1 + sum(int(n) for n in re.findall(r"\(\+([0-9]+) more\)", files))
        return f"no {table} in {count} file{'s' if count > 1 else ''}"
    if "vendor" in reason:
        return "ASIC vendor unknown"
    return reason.split(" (", 1)[0]


def _not_run(skipped: list[Skipped]) -> str:
    """One line, however many reasons: every run of a fragment or without --profile/--intent has some."""
    rules = {rule for item in skipped for rule in item.rules}
    if len(skipped) == 1:
        return f"not run: {len(rules)} rules ({_reason(skipped[0])}; --format json lists them)"
    parts = "; ".join(f"{len(item.rules)} {_reason(item)}" for item in skipped)
    return f"not run: {len(rules)} rules ({parts}; --format json lists them)"


def render(report: Report) -> str:
    lines = [_line(finding) for finding in report.findings]
    counts = {level: sum(1 for f in report.findings if f.severity.value == level) for level in ("error", "warning", "info")}
    # A --merge config is named "a.json + b.json" (lint/merge.py): count switches and their files.
    parts = sum(len(name.split(" + ")) for name in report.files)
    inputs = _count(len(report.files), "file") if parts == len(report.files) else \
        f"{_count(len(report.files), 'merged config')} ({_count(parts, 'file')})"
    summary = (f"{_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, "
               f"{_count(counts['info'], 'note')} in {inputs}")
    if report.unusable:
        summary += f"; {len(report.unusable)} unusable"
    context = [f"profile: {report.profile or 'none'}", f"intent: {report.intent or 'none'}"]
    lines.append(f"{summary} ({'; '.join(context)})")
    if report.skipped:
        lines.append(_not_run(report.skipped))
    for path, count in report.fixed.items():
        lines.append(f"fixed: {_count(count, 'mechanical fix')} written to {printable(path)}")
    return "\n".join(lines) + "\n"


__all__ = ["render"]
