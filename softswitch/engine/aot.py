"""Ahead-of-time compilation of the event core into a plain extension module (``_core``).

Why (docs/softswitch-engine.md "Start-up"): with numba at run time every ``simulate`` pays for
importing numba (~0.5-0.9 s) and for numba's target context, which imports all of its NumPy
lowering and SciPy's BLAS on the first cache load (~1-2 s), before a single event runs. The same
kernel compiled once at install by ``numba.pycc`` is an ordinary CPython extension: it needs
only NumPy to import, runs the identical LLVM code (same numba, same sources, so the same
results), and ``qosforge simulate`` then never imports numba.

``setup.py`` calls :func:`extension` during ``pip install``; :func:`compile_core` does the same by
hand (``python -m qosforge.softswitch.engine.aot DIR``). The module records the digest of the
engine sources it was built from (:func:`qosforge.softswitch.engine.engine_digest`), so an
engine edit falls back to the numba JIT instead of running stale code.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from qosforge.softswitch.engine import digest_word
from qosforge.softswitch.engine.state import numba_signature

MODULE_NAME = "_core"


def _private_numba_cache() -> None:
    """Compile every engine function afresh, in an empty cache that is removed afterwards.

    numba's cache is keyed by each function's own source file, so a cached caller can hold an
    old copy of a callee edited since; and a function loaded from the cache is machine code,
    which LLVM cannot inline into the core (jit.py). The build therefore never reads the
    checkout's cache. It must run before the engine modules are imported: numba picks a
    function's cache directory when the function is defined."""
    import atexit
    import shutil
    import tempfile

    if any(name in sys.modules for name in ("qosforge.softswitch.engine.kernel", "qosforge.softswitch.engine.heap")):
        raise RuntimeError("build the ahead-of-time core in a fresh process (the engine was already imported with its cache)")
    config: Any = importlib.import_module("numba.core.config")
    folder = tempfile.mkdtemp(prefix="qosforge-core-build-")
    atexit.register(shutil.rmtree, folder, True)
    config.CACHE_DIR = folder


def _core_compiler(output_dir: str | None) -> Any:
    """The numba.pycc CC with the kernel's entry points and the source digest."""
    import warnings

    # numba is untyped: everything from it is Any here.
    types: Any = importlib.import_module("numba.core.types")
    _private_numba_cache()
    with warnings.catch_warnings():
        # numba.pycc warns that it is deprecated; see docs/softswitch-engine.md "Start-up"
        warnings.simplefilter("ignore")
        CC: Any = importlib.import_module("numba.pycc").CC
    heap: Any = importlib.import_module("qosforge.softswitch.engine.heap")
    kernel: Any = importlib.import_module("qosforge.softswitch.engine.kernel")

    # The world tuple's type, from the one declaration of the engine's state (engine/state.py).
    world = types.Tuple([types.Array(getattr(types, dtype), ndim, "C") for dtype, ndim in numba_signature()])
    compiler = CC(MODULE_NAME)
    if output_dir is not None:
        compiler.output_dir = output_dir
    # Built where it runs (pip builds on the installing machine), as the JIT would compile it.
    compiler.target_cpu = "host"
    # As jit.py: the kernel allocates nothing, and without numba's reference counting the world
    # tuple passes between functions for free (pycc turns NRT on by default).
    compiler.use_nrt = False
    compiler.verbose = False
    word = digest_word()

    def core_digest() -> int:
        return word

    compiler.export("run_kernel", types.void(world))(kernel.run_kernel.py_func)
    compiler.export("seed_kernel", types.void(types.int64))(kernel.seed_kernel.py_func)
    # heap_push(keys, slots, free, slot_f, slot_i, st, time, kind, a, b, value): build.py schedules the initial events with it.
    compiler.export("heap_push", types.void(types.float64[::1], types.int64[::1], types.int64[::1], types.float64[::1], types.int64[:, ::1],
                                            types.int64[::1], types.float64, types.int64, types.int64, types.int64, types.float64))(heap.heap_push.py_func)
    ports: Any = importlib.import_module("qosforge.softswitch.engine.ports")
    # queue_members(qi, pki, ports, queues, members, counts): softswitch/pfc_deadlock.py reads the
    # paused queues' packets with it.
    compiler.export("queue_members", types.void(types.int64[:, :, ::1], types.int32[:, ::1], types.int64[::1], types.int64[::1],
                                                types.int64[::1], types.int64[::1]))(ports.queue_members.py_func)
    compiler.export("core_digest", types.int64())(core_digest)
    return compiler


def extension() -> Any:
    """A setuptools Extension that builds ``qosforge.softswitch.engine._core`` in build_ext."""
    compiler = _core_compiler(None)
    built = compiler.distutils_extension()
    built.name = f"qosforge.softswitch.engine.{MODULE_NAME}"
    return built


def compile_core(output_dir: str) -> None:
    _core_compiler(output_dir).compile()


if __name__ == "__main__":
    compile_core(sys.argv[1])
