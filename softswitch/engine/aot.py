"""Ahead-of-time compilation of the event core into a plain extension module (``_core``).

Why (docs/softswitch.md "Start-up"): with numba at run time every ``simulate`` pays for
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
from qosforge.softswitch.engine import layout as L

MODULE_NAME = "_core"

#: (dtype, ndim) of every array of the world tuple, by ``layout.W_*`` index; build.build_world
#: creates exactly these (tests/softswitch/test_core.py checks the two agree).
WORLD_ARRAYS: dict[int, tuple[str, int]] = {
    L.W_PKI: ("int32", 2), L.W_PKF: ("float64", 2), L.W_FREE: ("int64", 1), L.W_ST: ("int64", 1),
    L.W_STF: ("float64", 1), L.W_HT: ("float64", 1), L.W_HI: ("int64", 1), L.W_TXF: ("float64", 2),
    L.W_TXI: ("int64", 2), L.W_QI: ("int64", 3), L.W_QF: ("float64", 3), L.W_GI: ("int64", 3),
    L.W_GF: ("float64", 3), L.W_PO: ("int64", 2), L.W_WRI: ("int64", 3), L.W_WRF: ("float64", 4),
    L.W_WRP: ("float64", 4), L.W_FLI: ("int64", 2), L.W_FLF: ("float64", 2), L.W_RCV: ("int8", 2),
    L.W_PRMF: ("float64", 1), L.W_PRMI: ("int64", 1), L.W_CNT: ("int64", 1), L.W_DROP: ("int64", 3),
    L.W_MARK: ("int64", 3), L.W_DROPC: ("int64", 3), L.W_ENQ: ("int64", 2), L.W_DEQB: ("int64", 2),
    L.W_MON: ("int64", 2), L.W_MONS: ("float64", 2), L.W_HIST: ("int64", 2), L.W_RING: ("float64", 2),
    L.W_RINGT: ("float64", 1), L.W_BAND: ("int64", 5), L.W_PAUSE: ("float64", 2), L.W_PGMAX: ("int64", 3),
    L.W_QMAX: ("int64", 2), L.W_PFCPRIO: ("int64", 2), L.W_EVENT: ("int64", 1),
    L.W_LINK: ("int64", 2), L.W_ROUTE: ("int64", 3), L.W_ECMP: ("int64", 1), L.W_SWI: ("int64", 2), L.W_CLS: ("int64", 3),
    L.W_PFCS: ("int64", 3), L.W_PFCT: ("float64", 3), L.W_QHIST: ("int64", 2),
    L.W_SLOTF: ("float64", 1), L.W_SLOTI: ("int64", 2), L.W_SLOTFREE: ("int64", 1),
    L.W_START_S: ("float64", 1), L.W_START_FLOW: ("int64", 1),
    L.W_LANE_T: ("float64", 2), L.W_LANE_S: ("int64", 2), L.W_LANE_N: ("int64", 2),
    L.W_PORTSTAT: ("int64", 3),
    L.W_DEP_WAIT: ("int64", 1),
    L.W_DEP_PTR: ("int64", 1),
    L.W_DEP_NEXT: ("int64", 1),
    L.W_QHIST_ROW: ("int64", 2),
}


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
    """The numba.pycc CC with the kernel's three entry points and the source digest."""
    import warnings

    # numba is untyped: everything from it is Any here.
    types: Any = importlib.import_module("numba.core.types")
    _private_numba_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc warns that it is deprecated; see docs/softswitch.md
        CC: Any = importlib.import_module("numba.pycc").CC
    heap: Any = importlib.import_module("qosforge.softswitch.engine.heap")
    kernel: Any = importlib.import_module("qosforge.softswitch.engine.kernel")

    world = types.Tuple([types.Array(getattr(types, dtype), ndim, "C") for dtype, ndim in (WORLD_ARRAYS[i] for i in range(L.W_LEN))])
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
