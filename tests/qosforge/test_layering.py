"""The layering in docs/architecture.md, checked by import-linter (contracts in pyproject.toml).

grimp, import-linter's graph builder, finds a package's modules by walking its folder, and
qosforge's subpackages live in top-level folders mapped by ``package-dir``; so the check runs
over a scratch copy of the Python files laid out as installed (``qosforge/compiler/...``).
import-linter is in the test extra: without it these tests fail, they are never skipped.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERING_TOOL = ROOT / "tools" / "layering.py"
_SPEC = importlib.util.spec_from_file_location("qosforge_tools_layering", LAYERING_TOOL)
assert _SPEC is not None and _SPEC.loader is not None
_LAYERING = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_LAYERING)
installed_layout = _LAYERING.installed_layout
_lint_imports = _LAYERING.lint_imports


def test_import_layers_hold() -> None:
    """``python tools/layering.py`` is what README tells contributors to run instead of a bare
    ``lint-imports``, which cannot see the package-dir mapping."""
    completed = subprocess.run([sys.executable, str(LAYERING_TOOL)], capture_output=True,
                               text=True, check=False, timeout=180)
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
