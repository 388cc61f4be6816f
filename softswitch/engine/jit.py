"""The one place the engine's compiler options live.

``cache=True``: compiled code is cached next to the sources (numba recompiles after an install,
and :func:`qosforge.softswitch.engine.ensure_fresh_cache` after an engine edit).
``_nrt=False``: the kernel allocates nothing, and without numba's reference counting the state
tuple passes between functions without reference-count traffic (with it, refcounting took
~60 % of the run time).
``forceinline=True``: every engine function is inlined into its caller by LLVM
(``alwaysinline``), so the whole event core becomes one function. numba passes a tuple argument
as its flattened fields, and the world tuple is ``layout.W_LEN`` arrays (engine/state.py; each
an array struct of several machine words, hundreds in all): every call that was not inlined
copied all of them onto the stack (~120 ns a call, measured with ``perf`` when the tuple held 39
arrays; a packet crossed five to ten such calls). Inlined, only the arrays a path touches are
loaded. This is LLVM-level inlining of the compiled code, not numba's IR-level
``inline="always"`` (which re-types every copy and made the build ~10x slower), and it changes
no result: the same operations in the same order, no fast-math.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])

_njit: Any = numba.njit


def compiled(function: F) -> F:
    result: F = _njit(cache=True, _nrt=False, forceinline=True)(function)
    return result


World = tuple[Any, ...]
"""The kernel's state: one array per ``layout.W_*`` index."""

__all__ = ["World", "compiled"]
