"""--format text: one line per finding, a fix line, a summary; nothing unsafe for terminals."""

from __future__ import annotations

import re

from qosforge.lint.findings import Finding, Severity
from qosforge.lint.formats import Report, text


def test_text_is_one_line_per_finding_with_a_fix_line(report: Report) -> None:
    output = text.render(report)
    lines = output.splitlines()
    finding_lines = [
        line for line in lines if re.match(r"\S+:\d+:\d+: (error|warning|info) \[", line)
    ]
    assert len(finding_lines) == len(report.findings)
    assert all(lines[lines.index(line) + 1].startswith("    fix: ") for line in finding_lines)
    assert re.search(r"\d+ errors, \d+ warnings?, \d+ notes? in 2 files; 1 unusable", output)
    assert "not run: 11 rules" in output and "no --intent" in output


def test_control_characters_never_reach_the_terminal() -> None:
    finding = Finding(
        "bad-key", Severity.ERROR, "f.json", "T\x1b[31m", "k\nx", None, "m\ud800", "h"
    )
    output = text.render(Report([finding], ["f.json"], [], [], Severity.ERROR))
    assert "\x1b" not in output and "\ud800" not in output and "k\nx" not in output
    output.encode("utf-8")
