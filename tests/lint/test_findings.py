"""Findings: severities, exit codes, safe text."""

from __future__ import annotations

from qosforge.errors import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK
from qosforge.lint.findings import Finding, Severity, clip, exit_code, printable


def _finding(severity: Severity) -> Finding:
    return Finding("r", severity, "f", "T", "k", "x", "m", "h")


def test_exit_codes() -> None:
    warning, info = _finding(Severity.WARNING), _finding(Severity.INFO)
    assert exit_code([], Severity.ERROR, 0) == EXIT_OK
    assert exit_code([warning, info], Severity.ERROR, 0) == EXIT_OK
    assert exit_code([warning], Severity.WARNING, 0) == EXIT_FINDINGS
    assert exit_code([info], Severity.WARNING, 0) == EXIT_OK
    assert exit_code([_finding(Severity.ERROR)], Severity.ERROR, 0) == EXIT_FINDINGS
    assert exit_code([], Severity.ERROR, 1) == EXIT_BAD_INPUT


def test_where_and_json() -> None:
    finding = Finding("bad-key", Severity.ERROR, "f.json", "BUFFER_PG", "Ethernet0|3", "profile", "m", "h", 3, 5,
                      {"n": 1})
    assert finding.where == "BUFFER_PG|Ethernet0|3.profile"
    assert finding.to_json()["values"] == {"n": 1} and finding.to_json()["severity"] == "error"
    assert Finding("unknown-table", Severity.ERROR, "f", "X", "", None, "m", "h").where == "X"


def test_printable_and_clip() -> None:
    assert printable("plain é") == "plain é"
    assert printable("a\nb\x1b\ud800") == "a\\nb\\x1b\\ud800"
    assert clip("x" * 1000, 100).endswith("(+915 chars)") and len(clip("x" * 1000, 100)) < 120
