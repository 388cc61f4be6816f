"""What ``qosforge lint`` reports: findings, their severities, and the run summary.

The JSON shape of a finding (:meth:`Finding.to_json`) and of the summary (:func:`summary_json`)
is stable and documented in docs/rules.md; CI scripts depend on it (docs/architecture.md §7).
"""

from __future__ import annotations

import dataclasses
import enum
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from qosforge.errors import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK

#: Findings are one line; longer messages (e.g. a huge non-string value echoed back) are cut.
MAX_MESSAGE_CHARS = 400


class Severity(enum.Enum):
    """How bad a finding is. ``--fail-on`` picks the lowest severity that fails the run."""

    INFO = "info"
    """A check could not run, or something worth knowing that is not wrong."""
    WARNING = "warning"
    """SONiC accepts it but it works against the design (lost throughput, silent no-ops)."""
    ERROR = "error"
    """SONiC rejects it, or the switch will drop what it must not (lossless drops, overcommit)."""

    @property
    def rank(self) -> int:
        return _RANK[self]

    @property
    def sarif_level(self) -> str:
        return {"info": "note", "warning": "warning", "error": "error"}[self.value]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def printable(text: str) -> str:
    """``text`` safe for one line of terminal / CI-log output: control characters and lone
    surrogates (JSON can encode them) are escaped, never passed to the terminal."""
    if text.isprintable():
        return text
    escaped = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
    return escaped.encode("utf-8", "backslashreplace").decode("utf-8")


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 15] + f"... (+{len(text) - limit + 15} chars)"


@dataclass(frozen=True)
class Finding:
    """One problem in one file, located at ``table|key.field`` (and a line when known)."""

    rule: str
    severity: Severity
    file: str
    table: str
    key: str
    field: str | None
    message: str
    hint: str
    line: int | None = None
    column: int | None = None
    values: Mapping[str, float | str] = dataclasses.field(default_factory=dict)
    """The numbers the message names, for scripts (e.g. configured_bytes, required_bytes)."""
    fixable: bool = False
    """``--fix`` can repair it mechanically."""

    @property
    def where(self) -> str:
        text = self.table
        if self.key:
            text += f"|{self.key}"
        if self.field is not None:
            text += f".{self.field}"
        return printable(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "table": self.table,
            "key": self.key,
            "field": self.field,
            "message": self.message,
            "hint": self.hint,
            "values": dict(self.values),
            "fixable": self.fixable,
        }


def sort_key(finding: Finding) -> tuple[str, int, int, str, str, str, str]:
    return (finding.file, finding.line or 0, -finding.severity.rank, finding.table, finding.key,
            finding.field or "", finding.rule)


def exit_code(findings: Iterable[Finding], fail_on: Severity, unusable: int) -> int:
    """0 clean, 1 findings at or above ``fail_on``, 2 when any input was unusable (the worst)."""
    if unusable:
        return EXIT_BAD_INPUT
    return EXIT_FINDINGS if any(f.severity.rank >= fail_on.rank for f in findings) else EXIT_OK


@dataclass(frozen=True)
class UnusableInput:
    """A file that could not be linted at all (exit code 2), with the one-line reason."""

    file: str
    message: str


@dataclass(frozen=True)
class Skipped:
    """Rules that did not run, and why (no --profile, no --intent)."""

    rules: tuple[str, ...]
    reason: str


def summary_json(
    findings: list[Finding],
    *,
    files: int,
    unusable: list[UnusableInput],
    skipped: list[Skipped],
    profile: str | None,
    intent: str | None,
    fail_on: Severity,
    fixed: Mapping[str, int],
) -> dict[str, Any]:
    by_severity = Counter(f.severity.value for f in findings)
    return {
        "files": files,
        "findings": len(findings),
        "errors": by_severity.get("error", 0),
        "warnings": by_severity.get("warning", 0),
        "infos": by_severity.get("info", 0),
        "by_rule": dict(sorted(Counter(f.rule for f in findings).items())),
        "fail_on": fail_on.value,
        "exit_code": exit_code(findings, fail_on, len(unusable)),
        "profile": profile,
        "intent": intent,
        "skipped": [{"rules": list(s.rules), "reason": s.reason} for s in skipped],
        "unusable": [{"file": u.file, "message": u.message} for u in unusable],
        "fixed": dict(fixed),
    }


__all__ = [
    "MAX_MESSAGE_CHARS",
    "Finding",
    "Severity",
    "Skipped",
    "UnusableInput",
    "clip",
    "exit_code",
    "printable",
    "sort_key",
    "summary_json",
]
