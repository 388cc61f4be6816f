"""The README's "Using qosforge from Python" examples run as written, in a scratch folder that
sees the repository's ``examples/`` (what they print is checked by tests/api/)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def python_examples() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Using qosforge from Python", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


# Every Python example in a fresh interpreter (~2 CPU s): the slow tier (pyproject.toml), as
# the README's commands (tests/cli/test_readme.py).
@pytest.mark.slow
def test_the_python_examples_run(tmp_path: Path) -> None:
    """After the README's install line (its `compile ... -o out`), as a reader follows it; what
    the lint example prints is the comment beside it."""
    from qosforge.cli import main
    from tests.cli.test_readme import readme_commands

    examples = python_examples()
    assert examples, "the README lost its Python examples"
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    first = readme_commands((ROOT / "README.md").read_text())[0]
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(SystemExit) as done_first:
            main(first.split()[1:])
    finally:
        os.chdir(here)
    assert done_first.value.code in (0, None) and (tmp_path / "out" / "report.json").is_file()
    for code in examples:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False,
                              env={**os.environ, "QOSFORGE_PROGRESS": "0"}, timeout=300)
        assert done.returncode == 0, done.stderr
        claimed = [c for c in code.splitlines() if c.startswith("print(") and "  # " in c]
        for line, printed in zip(claimed, done.stdout.splitlines(), strict=False):
            claim = line.split("  # ", 1)[1]
            if claim.startswith("0 ["):  # the lint example's exit code and rules, exactly
                assert printed == claim.split(" —")[0], (line, printed)
    assert (tmp_path / "roce-api" / "report.json").is_file()
