"""The README's "Using qosforge from Python" examples run as written, in a scratch folder that
sees the repository's ``examples/`` (what they print is checked by tests/api/)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_examples() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Using qosforge from Python", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_python_examples_run(tmp_path: Path) -> None:
    examples = python_examples()
    assert examples, "the README lost its Python examples"
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for code in examples:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False,
                              env={**os.environ, "QOSFORGE_PROGRESS": "0"}, timeout=300)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "report.json").is_file()
