"""The event core of the software switch: a numba-compiled discrete-event loop over arrays.

numba caches compiled code per source file (``cache=True``) and checks only the file that
defines each function, so an edit to ``hosts.py`` would not invalidate the cached
``run_kernel`` that inlined it. :func:`ensure_fresh_cache` keeps a digest of all engine sources
next to the cache and drops the engine's cache files when any source changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: Engine modules numba never compiles: they do not enter the digest, so editing them keeps the
#: ahead-of-time core current. Every other module here (a new one too) counts. state.py may stay
#: out because all the core takes from it (each world array's index, dtype and shape) is written
#: into layout.py's generated block, which counts.
NOT_COMPILED = frozenset({"__init__.py", "aot.py", "build.py", "core.py", "state.py"})


def engine_digest() -> str:
    """SHA-256 of the sources numba compiles into the event core."""
    digest = hashlib.sha256()
    for source in sorted(p for p in _HERE.glob("*.py") if p.name not in NOT_COMPILED):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def digest_word() -> int:
    """The first 60 bits of :func:`engine_digest`, which the ahead-of-time core records."""
    return int(engine_digest()[:15], 16)


def ensure_fresh_cache() -> None:
    """Drop numba's cached engine code if any engine source changed since it was compiled."""
    cache = _HERE / "__pycache__"
    stamp = cache / "engine.digest"
    current = engine_digest()
    try:
        if stamp.read_text() == current:
            return
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for stale in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            stale.unlink()
        stamp.write_text(current)
    except OSError:
        return  # a read-only install: numba then caches elsewhere or not at all


__all__ = ["digest_word", "engine_digest", "ensure_fresh_cache"]
