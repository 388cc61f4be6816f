"""Builds the software switch's ahead-of-time event core during ``pip install``.

Everything else lives in pyproject.toml. The core is compiled by numba.pycc from the engine
sources (softswitch/engine/aot.py, docs/softswitch-engine.md "Start-up"); the import shim below lets
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
    # The engine's traffic spec reads the DCQCN host constants from models/ (one source for the
    # simulated and the rendered hosts), so that folder is mapped too.
    for name, folder in (("qosforge", ROOT / "qosforge"), ("qosforge.softswitch", ROOT / "softswitch"), ("qosforge.models", ROOT / "models")):
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
    print("qosforge: compiling the software switch's event core ahead of time with numba "
          "(2-7 minutes and up to ~2.6 GB on a 2-core machine; once per checkout)", file=sys.stderr)
    return [_paths_inside_relative(extension())]


def _paths_inside_relative(extension: object) -> object:
    """The extension's source and dependency paths that lie inside this checkout, made relative.

    numba.pycc names its C helpers by absolute path in the numba package. setuptools lists every
    extension source in the egg-info manifest and refuses an absolute path there that lies inside
    the project ("setup script specifies an absolute path", setuptools command/build_py.py
    assert_relative); paths outside the project are dropped from the manifest first. Under pip's
    build isolation numba sits in a temporary environment outside the checkout; with
    ``--no-build-isolation`` and the README's ``.venv`` inside it, the paths are inside, so the first
    install failed after compiling the core. Relative to the checkout (pip builds from its root)
    they compile the same and pass the check."""
    def relative(path: str) -> str:
        resolved = Path(path).resolve()
        return resolved.relative_to(ROOT).as_posix() if Path(path).is_absolute() and ROOT in resolved.parents else path

    for field in ("sources", "depends"):
        setattr(extension, field, [relative(path) for path in getattr(extension, field)])
    return extension


setup(ext_modules=_engine_extension())
