"""The CI integration the README documents: the pre-commit hook definition and the README section."""

from __future__ import annotations

import re
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).parents[2]


def test_pre_commit_hook_definition() -> None:
    [hook] = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "qosforge-lint" and hook["entry"] == "qosforge lint" and hook["language"] == "python"
    files = re.compile(hook["files"])
    for name in ("config_db.json", "out/leaf1/config_db.json", "sonic/config_db.leaf1.json"):
        assert files.search(name), name
    for name in ("intent.yaml", "out/report.json", "config_db.json.fixed.yaml"):
        assert not files.search(name), name


def test_readme_documents_usage_exit_codes_formats_and_ci() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Linting fabric configs in CI: `qosforge lint`")[1].split("## Development")[0]
    for needle in ("--profile", "--intent", "--fix", "Exit codes", "`2` unusable input", "--format sarif",
                   "upload-sarif", "--format github", ".pre-commit-hooks.yaml", "docs/rules.md"):
        assert needle in section, needle
