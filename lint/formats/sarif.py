"""``--format sarif``: SARIF 2.1.0 (OASIS), as GitHub code scanning and other UIs consume it.

One run; ``tool.driver.rules`` lists every rule of the registry (so ``ruleIndex`` is stable across
runs); each result has ``ruleId``/``ruleIndex``, ``level`` (error, warning, note), a message, a
physical location (file URI relative to the working directory, line and column of the offending
JSON key; line 1 when the key cannot be found) and a logical location ``TABLE|key.field``, plus a
``partialFingerprints`` entry that stays put when lines move. Unusable inputs are
``toolExecutionNotifications`` and make ``executionSuccessful`` false.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from qosforge._version import __version__
from qosforge.lint.findings import Finding
from qosforge.lint.formats import Report
from qosforge.lint.rules import REGISTRY, Rule

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "qosforge lint"
FINGERPRINT = "qosforgeFinding/v1"


def artifact_uri(file: str) -> str:
    """A relative URI for files under the working directory, else an absolute file:// URI."""
    path = Path(file)
    try:
        relative = Path(os.path.relpath(path.resolve(), Path.cwd().resolve()))
    except ValueError:  # another drive (Windows)
        relative = None
    if relative is not None and not str(relative).startswith(".."):
        return quote(relative.as_posix(), safe="/")
    return path.resolve().as_uri()


def _rule_name(rule_id: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[-_]", rule_id))


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": _rule_name(rule.id),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": f"Fix: {rule.fix}", "markdown": f"**Fix:** {rule.fix}\n\n{rule.rationale}"},
        "defaultConfiguration": {"level": rule.severity.sarif_level},
        "properties": {"tags": [rule.category, f"needs-{rule.needs}"], "origin": rule.origin},
    }


def _fingerprint(finding: Finding) -> str:
    text = "\x1f".join((finding.rule, finding.table, finding.key, finding.field or ""))
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:32]


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": finding.line or 1}
    if finding.column is not None:
        region["startColumn"] = finding.column
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": {"uri": artifact_uri(finding.file)}, "region": region},
    }
    if finding.where:
        location["logicalLocations"] = [{"fullyQualifiedName": finding.where, "kind": "member"}]
    prefix = f"{finding.where}: " if finding.where else ""
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": finding.severity.sarif_level,
        "message": {"text": f"{prefix}{finding.message} (fix: {finding.hint})"},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT: _fingerprint(finding)},
        "properties": {"table": finding.table, "key": finding.key, "field": finding.field,
                       "values": dict(finding.values), "fixable": finding.fixable},
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    return result


def report_sarif(report: Report, *, rules: list[Rule] | None = None, tool: str = TOOL_NAME) -> dict[str, Any]:
    """The SARIF log of a run; ``rules`` (default: the whole registry) and ``tool`` let
    ``qosforge watch`` report with its own rule list under its own name."""
    rules = list(REGISTRY.values()) if rules is None else rules
    index = {rule.id: position for position, rule in enumerate(rules)}
    notifications = [{
        "level": "error",
        "message": {"text": item.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(item.file)}}}],
    } for item in report.unusable]
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": tool,
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [rule_descriptor(rule) for rule in rules],
            }},
            "invocations": [{
                "executionSuccessful": not report.unusable,
                "toolExecutionNotifications": notifications,
            }],
            "columnKind": "unicodeCodePoints",
            "results": [_result(finding, index) for finding in report.findings],
        }],
    }


def render(report: Report) -> str:
    return json.dumps(report_sarif(report), indent=2) + "\n"


__all__ = ["SARIF_SCHEMA", "SARIF_VERSION", "artifact_uri", "render", "report_sarif", "rule_descriptor"]
