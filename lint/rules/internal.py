"""The rule a crash inside another rule becomes: lint never shows a traceback."""

from __future__ import annotations

from qosforge.lint.findings import Severity
from qosforge.lint.rules.base import declare

#: Raised exceptions inside a rule become a finding of this rule instead of a crash, so a config
#: that trips a qosforge bug still gets every other rule's findings; the tests assert it never
#: fires. Emitted by :func:`qosforge.lint.rules.run_rules`.
INTERNAL_ERROR = declare(
    "internal-error", Severity.ERROR, "encoding", "a rule failed (qosforge bug)",
    rationale="A rule raised an unexpected exception on this file. The other rules still ran; the finding names "
    "the rule and the exception so it can be reported as a qosforge bug. Lint never shows a traceback; "
    "the property tests assert this rule never fires.",
    fix="report it with the file (or a minimal part of it) at the qosforge issue tracker")

__all__ = ["INTERNAL_ERROR"]
