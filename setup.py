"""Builds the software switch's ahead-of-time event core during ``pip install``.

Everything else lives in pyproject.toml. The core is compiled by numba.pycc from the engine
sources (softswitch/engine/aot.py, docs/softswitch.md "Start-up"); the import shim below lets
the build import the engine without importing the rest of qosforge.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def _engine_extension() -> list[object]:
    for name, folder in (("qosforge", ROOT / "qosforge"), ("qosforge.softswitch", ROOT / "softswitch")):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(folder)]
            sys.modules[name] = package
    try:
        from qosforge.softswitch.engine.aot import extension
    except ImportError as error:  # no numba in the build environment: the JIT takes over at run time
        print(f"qosforge: not building the ahead-of-time event core ({error})", file=sys.stderr)
        return []
    return [extension()]


setup(ext_modules=_engine_extension())
