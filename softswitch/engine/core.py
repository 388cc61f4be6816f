"""The kernel's entry points, from the ahead-of-time core when it is current.

``pip install`` builds ``_core`` (engine/aot.py): then a run imports no numba at all. Without it
(a build without a C compiler) or when the engine sources changed since it was built (an edit in
a development checkout), the same functions come from the numba JIT, which compiles them on the
first run and caches them; that first run says so on stderr because it takes one to two minutes
(the whole core is inlined into one function, engine/jit.py).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qosforge.softswitch.engine import digest_word, ensure_fresh_cache


@dataclass(frozen=True)
class Kernel:
    run_kernel: Any
    seed_kernel: Any
    heap_push: Any
    queue_members: Any
    ahead_of_time: bool


_loaded: list[Kernel] = []


def _ahead_of_time() -> Kernel | None:
    try:
        from qosforge.softswitch.engine import _core  # type: ignore[attr-defined]
    except ImportError:
        return None
    if _core.core_digest() != digest_word():
        return None
    return Kernel(_core.run_kernel, _core.seed_kernel, _core.heap_push, _core.queue_members, True)


def _jit() -> Kernel:
    ensure_fresh_cache()
    cache = Path(__file__).resolve().parent / "__pycache__"
    if not any(cache.glob("kernel.run_kernel*.nbi")):
        print("qosforge: compiling the software switch's event core with numba (first run after an install or an engine edit; "
              "one to two minutes, cached afterwards)", file=sys.stderr, flush=True)
    from qosforge.softswitch.engine.heap import heap_push
    from qosforge.softswitch.engine.kernel import run_kernel, seed_kernel
    from qosforge.softswitch.engine.ports import queue_members

    return Kernel(run_kernel, seed_kernel, heap_push, queue_members, False)


def kernel(*, allow_ahead_of_time: bool = True) -> Kernel:
    """The event core (loaded once per process)."""
    if not allow_ahead_of_time:
        return _jit()
    if not _loaded:
        _loaded.append(_ahead_of_time() or _jit())
    return _loaded[0]


__all__ = ["Kernel", "kernel"]
