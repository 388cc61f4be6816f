"""The layering in docs/architecture.md, checked by import-linter (contracts in pyproject.toml).

grimp, import-linter's graph builder, finds a package's modules by walking its folder, and
qosforge's subpackages live in top-level folders mapped by ``package-dir``; so the check runs
over a scratch copy of the Python files laid out as installed (``qosforge/compiler/...``).
import-linter is in the test extra: without it these tests fail, they are never skipped.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_RUN = """
import sys
from importlinter.cli import lint_imports
sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True))
"""


def installed_layout(destination: Path) -> Path:
    """Copy every mapped package's ``.py`` files to ``destination/qosforge/...``."""
    package_dirs: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in package_dirs.items():
        target = destination.joinpath(*package.split("."))
        shutil.copytree(ROOT / folder, target, ignore=shutil.ignore_patterns("__pycache__", "*.txt", "*.yaml", "*.j2", "*.json"),
                        dirs_exist_ok=True)
    return destination


def _lint_imports(layout: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _RUN, str(ROOT / "pyproject.toml")],
        cwd=layout, env={"PYTHONPATH": str(layout), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, check=False, timeout=120,
    )


def test_import_layers_hold(tmp_path: Path) -> None:
    completed = _lint_imports(installed_layout(tmp_path / "view"))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"Contracts: {len(contracts)} kept, 0 broken." in completed.stdout


def test_a_cli_module_importing_the_compiler_breaks_the_cli_contract(tmp_path: Path) -> None:
    layout = installed_layout(tmp_path / "view")
    (layout / "qosforge" / "cli" / "probe.py").write_text("from qosforge.compiler.loader import load_intent\n")
    completed = _lint_imports(layout)
    assert completed.returncode == 1
    assert "the CLI imports only the application layer and the shared base BROKEN" in completed.stdout
    assert "qosforge.cli.probe -> qosforge.compiler.loader" in completed.stdout
    assert "Contracts: " in completed.stdout and " kept, 1 broken." in completed.stdout


def test_the_cli_contract_has_no_exception(tmp_path: Path) -> None:
    """simulate's gNMI serving runs in qosforge/api/serve.py: the CLI module that reads its flags
    breaks the contract as soon as it reaches below the application layer."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    cli = next(c for c in contracts if c["name"].startswith("the CLI imports only"))
    assert "ignore_imports" not in cli
    layout = installed_layout(tmp_path / "view")
    serve = layout / "qosforge" / "cli" / "serve_gnmi.py"
    serve.write_text(serve.read_text() + "\nfrom qosforge.deliver.devices import GnmiConnection\n")
    completed = _lint_imports(layout)
    assert completed.returncode == 1
    assert "qosforge.cli.serve_gnmi -> qosforge.deliver.devices" in completed.stdout
