"""Check the layering contracts in pyproject.toml ([tool.importlinter]) with import-linter.

Running ``lint-imports`` in the source tree fails with "Missing layer 'qosforge.campaigns'":
grimp, import-linter's graph builder, finds a package's modules by walking its folder, and
qosforge's subpackages live in top-level folders mapped by setuptools' ``package-dir``. So this
copies the Python files, laid out as installed (``qosforge/compiler/...``), into a scratch folder
and runs import-linter there. Usage: ``python tools/layering.py`` (exit code is lint-imports').
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"

_RUN = """
import sys
from importlinter.cli import lint_imports
sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True))
"""


def installed_layout(destination: Path) -> Path:
    """Copy every mapped package's ``.py`` files to ``destination/qosforge/...``."""
    setuptools = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]
    package_dirs: dict[str, str] = setuptools["package-dir"]
    not_python = shutil.ignore_patterns("__pycache__", "*.txt", "*.yaml", "*.j2", "*.json", "*.so")
    for package, folder in package_dirs.items():
        target = destination.joinpath(*package.split("."))
        shutil.copytree(ROOT / folder, target, ignore=not_python, dirs_exist_ok=True)
    return destination


def lint_imports(layout: Path) -> subprocess.CompletedProcess[str]:
    """import-linter over ``layout`` with the contracts of this repository's pyproject.toml."""
    return subprocess.run(
        [sys.executable, "-c", _RUN, str(PYPROJECT)],
        cwd=layout, env={"PYTHONPATH": str(layout), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=False, timeout=120,
    )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="qosforge-layering-") as scratch:
        completed = lint_imports(installed_layout(Path(scratch)))
    sys.stdout.write(completed.stdout)
    sys.stderr.write(completed.stderr)
    return completed.returncode


if __name__ == "__main__":
    raise SystemExit(main())
