"""Package exports loaded on first use (PEP 562 module ``__getattr__``).

A backend package's ``__init__`` names its public API, but importing a single submodule (the
target registry imports ``backends/<name>/capabilities.py`` to list targets and approximations
for ``qosforge compile --help``) must not load the whole renderer, its vendor profiles (pydantic)
and its model bindings. ``tests/cli/test_startup.py`` checks what ``--help`` loads.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``exports`` (name -> submodule of ``package``) on demand."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{exports[name]}"), name)

    return __getattr__


__all__ = ["lazy_exports"]
