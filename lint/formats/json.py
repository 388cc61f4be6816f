"""``--format json``: ``{"findings": [...], "summary": {...}}`` (stable; documented in docs/rules.md)."""

from __future__ import annotations

import json
from typing import Any

from qosforge.lint.findings import summary_json
from qosforge.lint.formats import Report
from qosforge.presentation import tidy


def report_json(report: Report) -> dict[str, Any]:
    return {
        "findings": [finding.to_json() for finding in report.findings],
        "summary": summary_json(
            report.findings, files=len(report.files), unusable=report.unusable, skipped=report.skipped,
            profile=report.profile, intent=report.intent, fail_on=report.fail_on, fixed=report.fixed),
    }


def render(report: Report) -> str:
    return json.dumps(tidy(report_json(report)), indent=2) + "\n"


__all__ = ["render", "report_json"]
