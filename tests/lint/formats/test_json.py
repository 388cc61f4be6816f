"""--format json: the stable {"findings": [...], "summary": {...}} shape."""

from __future__ import annotations

import json

from qosforge.lint.formats import Report
from qosforge.lint.formats import json as json_format

FINDING_KEYS = {"rule", "severity", "file", "line", "column", "table", "key", "field", "message", "hint", "values",
                "fixable"}
SUMMARY_KEYS = {"files", "findings", "errors", "warnings", "infos", "by_rule", "fail_on", "exit_code", "profile",
                "intent", "skipped", "unusable", "fixed"}


def test_json_shape_is_stable(report: Report) -> None:
    payload = json.loads(json_format.render(report))
    assert set(payload) == {"findings", "summary"}
    assert payload["findings"] and all(set(f) == FINDING_KEYS for f in payload["findings"])
    summary = payload["summary"]
    assert set(summary) == SUMMARY_KEYS
    assert summary["files"] == 2 and summary["exit_code"] == 2
    assert summary["errors"] == sum(1 for f in payload["findings"] if f["severity"] == "error")
    assert summary["unusable"] == [{"file": "broken.json", "message": report.unusable[0].message}]
    assert sum(summary["by_rule"].values()) == summary["findings"]
    assert summary["skipped"][0]["reason"] == "no --intent"
