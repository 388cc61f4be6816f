"""docs/rules.md is generated from the registry; this fails when the committed file is stale.

Regenerate: ``.venv/bin/python -m qosforge.lint.docs docs/rules.md``.
"""

from __future__ import annotations

from pathlib import Path

from qosforge.lint.docs import main, render_rules_markdown, rules_json, rules_text
from qosforge.lint.rules import REGISTRY

ROOT = Path(__file__).parents[2]


def test_committed_rules_md_is_current() -> None:
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == render_rules_markdown(), (
        "docs/rules.md is stale: run .venv/bin/python -m qosforge.lint.docs docs/rules.md")


def test_every_rule_has_a_section_and_a_table_row() -> None:
    text = render_rules_markdown()
    for rule in REGISTRY.values():
        assert f"### `{rule.id}`: {rule.title}" in text
        assert f"| [`{rule.id}`](#{rule.id}) |" in text
        assert rule.rationale in text and rule.fix in text


def test_generator_writes_the_file(tmp_path: Path) -> None:
    assert main([str(tmp_path / "rules.md")]) == 0
    assert (tmp_path / "rules.md").read_text(encoding="utf-8") == render_rules_markdown()
    assert len(rules_json()) == len(REGISTRY) == len(rules_text().splitlines())
