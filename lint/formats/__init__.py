"""Output formats of ``qosforge lint``: ``text`` (people), ``json`` (scripts), ``sarif`` (code
scanning) and ``github`` (workflow annotations). Each takes the same :class:`Report`."""

from __future__ import annotations

from dataclasses import dataclass, field

from qosforge.lint.findings import Finding, Severity, Skipped, UnusableInput


@dataclass(frozen=True)
class Report:
    """Everything one run found, for any format."""

    findings: list[Finding]
    files: list[str]
    unusable: list[UnusableInput]
    skipped: list[Skipped]
    fail_on: Severity
    profile: str | None = None
    intent: str | None = None
    fixed: dict[str, int] = field(default_factory=dict)
    """Fixed file path -> number of mechanical fixes applied."""


FORMATS = ("text", "json", "sarif", "github")

__all__ = ["FORMATS", "Report"]
