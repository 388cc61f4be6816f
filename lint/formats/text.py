"""``--format text``: one line per finding, compiler style, then a summary line.

``file:line:col: severity [rule] TABLE|key.field: message`` and an indented ``fix:`` line, so
editors and terminals can jump to the place.
"""

from __future__ import annotations

from qosforge.lint.findings import Finding, printable
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


def render(report: Report) -> str:
    lines = [_line(finding) for finding in report.findings]
    counts = {level: sum(1 for f in report.findings if f.severity.value == level) for level in ("error", "warning", "info")}
    summary = (f"{_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, "
               f"{_count(counts['info'], 'note')} in {_count(len(report.files), 'file')}")
    if report.unusable:
        summary += f"; {len(report.unusable)} unusable"
    context = [f"profile: {report.profile or 'none'}", f"intent: {report.intent or 'none'}"]
    lines.append(f"{summary} ({'; '.join(context)})")
    for skipped in report.skipped:
        lines.append(f"not run: {len(skipped.rules)} rules ({', '.join(skipped.rules)}): {skipped.reason}")
    for path, count in report.fixed.items():
        lines.append(f"fixed: {_count(count, 'mechanical fix')} written to {printable(path)}")
    return "\n".join(lines) + "\n"


__all__ = ["render"]
