"""Shared by the application layer's tests: run api code in a fresh interpreter and see what of
click and the CLI it loaded (the api needs neither: docs/architecture.md §1.1)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

_LIST_CLI_MODULES = "\nimport sys\nprint(sorted(m for m in sys.modules if m.startswith('qosforge.cli') or m == 'click'))"


@pytest.fixture
def run_isolated() -> Callable[..., tuple[list[str], list[str]]]:
    """``run(program, cwd=None)`` -> (the lines the program printed, the click and qosforge.cli
    modules loaded by the time it ended)."""

    def run(program: str, cwd: Path | None = None) -> tuple[list[str], list[str]]:
        done = subprocess.run([sys.executable, "-c", program + _LIST_CLI_MODULES], capture_output=True, text=True, check=True, cwd=cwd)
        *printed, modules = done.stdout.strip().split("\n")
        loaded = ast.literal_eval(modules)
        assert isinstance(loaded, list)
        return printed, [str(name) for name in loaded]

    return run
