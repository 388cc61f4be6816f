"""One lint rule: DWRR weights of at most 50."""

from __future__ import annotations

from collections.abc import Iterator

from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.rules.base import rule
from qosforge.lint.rules.helpers import raw_entries


@rule(
    "toy-plugin-weight",
    Severity.WARNING,
    "consistency",
    "DWRR weights are at most 50",
    rationale="A plugin's toy rule (sonic-yang-models sonic-scheduler.yang allows 1..100).",
    fix="use a weight from 1 to 50",
)
def toy_plugin_weight(ctx: LintContext) -> Iterator[Finding]:
    for name, entry in raw_entries(ctx.tables, "SCHEDULER").items():
        if entry.get("type") == "DWRR" and int(entry.get("weight", "1")) > 50:
            yield toy_plugin_weight.report(
                ctx, "SCHEDULER", name, "weight", f"weight {entry['weight']} above 50"
            )
