"""The declared style, kept: ruff (with its line length, E501, on every file but the listed ones
from before it was enforced) and vulture (no unused code beyond its whitelist). Both are in the
test extra, so these tests fail, never skip, without them."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LONG_LINES = ROOT / "tools" / "ruff_long_lines.toml"
#: Every folder of Python the repository holds (the package folders of pyproject.toml's
#: package-dir, the tests, the benchmarks and the tools).
SOURCES = (
    *dict.fromkeys(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
            "package-dir"
        ].values()
    ),
    "tests",
    "bench",
    "tools",
)


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_ruff_passes() -> None:
    completed = _run("ruff", "check", "--no-cache", ".")
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_a_new_long_line_fails_ruff(tmp_path: Path) -> None:
    # The same settings on a file outside the long-lines list: E501 is on for it.
    probe = ROOT / "tools" / "_style_probe.py"
    probe.write_text(f'"""A probe."""\n\nTEXT = "{"x" * 120}"\n')
    try:
        completed = _run("ruff", "check", "--no-cache", "--select", "E501", str(probe))
    finally:
        probe.unlink()
    assert completed.returncode == 1 and "E501" in completed.stdout


def test_the_long_lines_list_only_holds_files_that_need_it() -> None:
    listed = [
        path.removeprefix("../")
        for path in tomllib.loads(LONG_LINES.read_text())["lint"]["per-file-ignores"]
    ]
    missing = [path for path in listed if not (ROOT / path).is_file()]
    assert not missing, f"remove these lines from {LONG_LINES.name}: the files are gone: {missing}"
    within = [
        path
        for path in listed
        if max(map(len, (ROOT / path).read_text().splitlines()), default=0) <= 100
    ]
    assert not within, (
        f"remove these lines from {LONG_LINES.name} (python tools/ruff_long_lines.py does): "
        f"no line of theirs is over 100 characters now: {within}"
    )


def test_vulture_finds_no_unused_code() -> None:
    completed = _run("vulture", *SOURCES, "tools/vulture_whitelist.py", "--min-confidence", "60")
    assert completed.returncode == 0, completed.stdout + completed.stderr
