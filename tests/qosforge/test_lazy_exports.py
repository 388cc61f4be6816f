"""Lazy package exports stay in step: a package that serves its API through
``qosforge.lazy_exports`` names each export three times — the ``TYPE_CHECKING`` import (for
type checkers and editors), the lazy map (for the interpreter) and ``__all__`` (for
``import *`` and documentation tools). This test fails when the three drift apart."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAZY_PACKAGES = ("qosforge.backends.sai", "qosforge.backends.openconfig")


def _source(package: str) -> str:
    return Path(importlib.import_module(package).__file__ or "").read_text(encoding="utf-8")


def _declarations(package: str, source: str) -> tuple[dict[str, str], dict[str, str], set[str]]:
    tree = ast.parse(source)
    typed: dict[str, str] = {}
    lazy: dict[str, str] = {}
    exported: set[str] = set()
    for node in tree.body:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module
                submodule = statement.module.removeprefix(f"{package}.")
                typed.update({alias.name: submodule for alias in statement.names})
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == "__getattr__" and isinstance(node.value, ast.Call):
                lazy = ast.literal_eval(node.value.args[1])
            elif node.targets[0].id == "__all__":
                exported = set(ast.literal_eval(node.value))
    return typed, lazy, exported


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_type_checking_imports_lazy_map_and_all_agree(package: str) -> None:
    typed, lazy, exported = _declarations(package, _source(package))
    assert lazy, f"{package} has no lazy export map"
    assert typed == lazy
    assert exported == set(lazy)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_lazy_export_resolves_to_its_submodule(package: str) -> None:
    module = importlib.import_module(package)
    _, lazy, _ = _declarations(package, _source(package))
    for name, submodule in lazy.items():
        assert getattr(module, name) is getattr(
            importlib.import_module(f"{package}.{submodule}"), name
        )


def test_the_drift_check_sees_a_missing_export() -> None:
    package = LAZY_PACKAGES[0]
    source = _source(package)
    broken = source.replace('    "validate_program",\n]', "]")
    assert broken != source
    typed, lazy, exported = _declarations(package, broken)
    assert typed == lazy and exported != set(lazy)
