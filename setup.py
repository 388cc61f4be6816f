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


def _current_core_in_place() -> bool:
    """Whether an editable install already has a core built from today's engine sources.

    An editable install builds the core into the checkout; reinstalling it (the README's second
    command adds the test extras) would spend minutes compiling the same code again. The core
    records the digest of the sources it was built from (engine/aot.py), so it is reused when that
    digest is the sources' own; any doubt (no core, another interpreter's, a load error) rebuilds."""
    import importlib.util
    import sysconfig

    if "editable_wheel" not in sys.argv:
        return False
    path = ROOT / "softswitch" / "engine" / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    if not path.exists():
        return False
    try:
        from qosforge.softswitch.engine import digest_word

        spec = importlib.util.spec_from_file_location("_core", path)
        if spec is None or spec.loader is None:
            return False
        core = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(core)
        return bool(core.core_digest() == digest_word())
    except Exception:  # anything unexpected means: rebuild
        return False


def _engine_extension() -> list[object]:
    for name, folder in (("qosforge", ROOT / "qosforge"), ("qosforge.softswitch", ROOT / "softswitch")):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(folder)]
            sys.modules[name] = package
    if _current_core_in_place():
        print("qosforge: the ahead-of-time event core is current (engine sources unchanged): not rebuilding it", file=sys.stderr)
        return []
    try:
        from qosforge.softswitch.engine.aot import extension
    except ImportError as error:  # no numba in the build environment: the JIT takes over at run time
        print(f"qosforge: not building the ahead-of-time event core ({error})", file=sys.stderr)
        return []
    return [extension()]


setup(ext_modules=_engine_extension())
