"""Adding a rule is one module: a test-local module declares a toy rule with ``@rule`` and it
flows through lint end to end (text, JSON, SARIF, --list-rules, --disable, docs/rules.md),
with no other file edited (docs/extending/rule.md)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from qosforge.cli import main
from qosforge.lint.docs import render_rules_markdown
from qosforge.lint.rules import REGISTRY
from qosforge.lint.rules.base import unregister

TOY_MODULE = '''
from collections.abc import Iterator

from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.rules.base import rule
from qosforge.lint.rules.helpers import raw_entries


@rule("toy-scheduler-weight", Severity.WARNING, "consistency", "DWRR weights are at most 50",
      rationale="A toy rule for the extension test (sonic-yang-models sonic-scheduler.yang allows 1..100).",
      fix="use a weight from 1 to 50")
def toy_scheduler_weight(ctx: LintContext) -> Iterator[Finding]:
    for name, entry in raw_entries(ctx.tables, "SCHEDULER").items():
        if entry.get("type") == "DWRR" and int(entry.get("weight", "1")) > 50:
            yield toy_scheduler_weight.report(ctx, "SCHEDULER", name, "weight", f"weight {entry['weight']} above 50",
                                              values={"weight": int(entry["weight"])})
'''

CONFIG = {"SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "60"}}}


@pytest.fixture
def toy_rule(tmp_path: Path) -> Iterator[str]:
    """Import the toy module from a file of its own (as a new lint/rules/<area>.py would be
    imported); unregister it afterwards so other tests see the built-in registry."""
    module_path = tmp_path / "toy_rules.py"
    module_path.write_text(TOY_MODULE)
    spec = importlib.util.spec_from_file_location("toy_rules", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["toy_rules"] = module
    spec.loader.exec_module(module)
    try:
        yield "toy-scheduler-weight"
    finally:
        unregister("toy-scheduler-weight")
        sys.modules.pop("toy_rules", None)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    return int(exited.value.code or 0), capsys.readouterr().out


def _lint(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    config = tmp_path / "config_db.json"
    config.write_text(json.dumps(CONFIG))
    return _run(capsys, "lint", str(config), "-j", "1", *args)


def test_a_rule_from_one_module_flows_through_lint(toy_rule: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert list(REGISTRY)[-1] == toy_rule  # registered by the import alone
    code, text = _lint(tmp_path, capsys)
    assert code == 0  # a warning, below the default --fail-on error
    assert _lint(tmp_path, capsys, "--fail-on", "warning")[0] == 1
    assert f"warning [{toy_rule}] SCHEDULER|scheduler.0.weight: weight 60 above 50" in text
    assert "fix: use a weight from 1 to 50" in text
    _, out = _lint(tmp_path, capsys, "--format", "json")
    found = [f for f in json.loads(out)["findings"] if f["rule"] == toy_rule]
    assert len(found) == 1 and found[0]["severity"] == "warning" and found[0]["values"] == {"weight": 60}
    assert found[0]["line"] is not None  # located in the file by the shared machinery
    _, out = _lint(tmp_path, capsys, "--format", "sarif")
    sarif = json.loads(out)["runs"][0]
    assert toy_rule in [r["id"] for r in sarif["tool"]["driver"]["rules"]]
    assert any(r["ruleId"] == toy_rule for r in sarif["results"])
    code, out = _lint(tmp_path, capsys, "--format", "json", "--fail-on", "warning", "--disable", toy_rule)
    assert code == 0 and all(f["rule"] != toy_rule for f in json.loads(out)["findings"])
    listed = _run(capsys, "lint", "--list-rules")[1]
    assert toy_rule in listed
    docs = render_rules_markdown()
    assert f"### `{toy_rule}`: DWRR weights are at most 50" in docs and "sonic-scheduler.yang" in docs


def test_the_toy_rule_is_gone_afterwards() -> None:
    assert "toy-scheduler-weight" not in REGISTRY


def test_an_id_cannot_be_registered_twice(toy_rule: str) -> None:
    from qosforge.lint.findings import Severity
    from qosforge.lint.rules.base import declare

    with pytest.raises(RuntimeError, match="registered twice"):
        declare(toy_rule, Severity.INFO, "consistency", "again", rationale="a second declaration", fix="none")
