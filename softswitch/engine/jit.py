"""The one place the engine's compiler options live.

``cache=True``: compiled code is cached next to the sources (numba recompiles after an install,
and :func:`qosforge.softswitch.engine.ensure_fresh_cache` after an engine edit).
``_nrt=False``: the kernel allocates nothing, and without numba's reference counting the state
tuple passes between functions for free (with it, refcounting took ~60 % of the run time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])

_njit: Any = numba.njit


def compiled(function: F) -> F:
    result: F = _njit(cache=True, _nrt=False)(function)
    return result


def compiled_inline(function: F) -> F:
    """For small helpers on the hot path: inlined at numba IR level."""
    result: F = _njit(cache=True, _nrt=False, inline="always")(function)
    return result


World = tuple[Any, ...]
"""The kernel's state: one array per ``layout.W_*`` index."""

__all__ = ["World", "compiled", "compiled_inline"]
