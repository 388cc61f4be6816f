"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

``::error file=F,line=L,col=C,title=T::message`` (``warning`` for warnings, ``notice`` for
notes), escaped as the runner requires: ``%``, CR and LF in the message; also ``:`` and ``,`` in
properties (GitHub docs, "Workflow commands for GitHub Actions").
"""

from __future__ import annotations

from qosforge.lint.findings import Finding, printable
from qosforge.lint.formats import Report

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(finding: Finding) -> str:
    properties = [f"file={escape_property(printable(finding.file))}"]
    if finding.line is not None:
        properties.append(f"line={finding.line}")
        if finding.column is not None:
            properties.append(f"col={finding.column}")
    properties.append(f"title={escape_property(f'qosforge lint [{finding.rule}] {finding.where}')}")
    message = "".join(ch if ch in "\r\n" else printable(ch) for ch in f"{finding.message} (fix: {finding.hint})")
    return f"::{_COMMAND[finding.severity.value]} {','.join(properties)}::{escape_data(message)}"


def render(report: Report) -> str:
    lines = [_annotation(finding) for finding in report.findings]
    for item in report.unusable:
        lines.append(f"::error file={escape_property(item.file)},title=qosforge lint::{escape_data(item.message)}")
    return "".join(line + "\n" for line in lines)


__all__ = ["escape_data", "escape_property", "render"]
