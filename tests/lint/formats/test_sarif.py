"""--format sarif: SARIF 2.1.0 that code-scanning UIs accept."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from qosforge.lint.formats import Report, sarif
from qosforge.lint.rules import REGISTRY

CONFIGS = Path(__file__).parents[1] / "configs"


def _uri_ok(uri: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9._~!$&'()*+,;=:@%/-]+", uri))


def test_sarif_has_the_required_structure(report: Report) -> None:
    log: dict[str, Any] = json.loads(sarif.render(report))
    assert log["version"] == "2.1.0"
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] and driver["version"]
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert rule_ids == list(REGISTRY) and len(set(rule_ids)) == len(rule_ids)
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert run["results"], "the bad config must produce results"
    for result in run["results"]:
        assert result["ruleId"] in rule_ids
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert result["message"]["text"]
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "tests/lint/configs/broadcom_bad_encoding.json" or \
            physical["artifactLocation"]["uri"].endswith("broadcom_bad_encoding.json")
        assert _uri_ok(physical["artifactLocation"]["uri"])
        assert isinstance(physical["region"]["startLine"], int) and physical["region"]["startLine"] >= 1
        assert "logicalLocations" not in location or location["logicalLocations"][0]["fullyQualifiedName"]
        assert result["partialFingerprints"]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["level"] == "error"


def test_sarif_region_is_the_line_of_the_offending_key(report: Report) -> None:
    lines = (CONFIGS / "broadcom_bad_encoding.json").read_text().split("\n")
    log = json.loads(sarif.render(report))
    results = log["runs"][0]["results"]
    [priority] = [r for r in results if r["ruleId"] == "scheduler-priority"]
    region = priority["locations"][0]["physicalLocation"]["region"]
    assert lines[region["startLine"] - 1][region["startColumn"] - 1:].startswith('"priority"')
    [dup] = [r for r in results if r["ruleId"] == "duplicate-key"]
    region = dup["locations"][0]["physicalLocation"]["region"]
    assert lines[region["startLine"] - 1].strip().startswith('"10"')


def test_sarif_uri_outside_the_working_directory(tmp_path: Path) -> None:
    uri = sarif.artifact_uri(str(tmp_path / "a b.json"))
    assert uri.startswith("file:///") and uri.endswith("a%20b.json")
