"""Compiled intents kept on disk between runs, found by content, so a short ``simulate`` of an
unchanged intent skips loading and compiling it.

An entry is the pickled result of a compile step, stored under the SHA-256 of everything that
step reads: the intent file's bytes, what is asked of it (``kind``), qosforge's version, the
interpreter's version, every source and data file of the installed package (path, size and
modification time: a checkout edited in place, the bundled vendor and NIC profiles included)
and the installed plugins that add transports or targets (name, reference, distribution and its
version). A change to any of them is a different key, so an entry is never stale; old entries
are simply no longer asked for, and the oldest beyond :data:`MAX_ENTRIES` are removed. Only
successful compiles are stored: a bad intent is compiled (and refused) every time.

The folder is ``$QOSFORGE_CACHE_DIR`` if set (empty or ``off``: no cache), else
``$XDG_CACHE_HOME/qosforge/compiled`` (XDG Base Directory Specification 0.8, default
``~/.cache``). An entry that cannot be read or unpickled is a miss and is written again; a
folder that cannot be written leaves the run uncached, never failed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

Value = TypeVar("Value")

CACHE_ENVIRONMENT = "QOSFORGE_CACHE_DIR"
#: Entries kept (a compiled two-switch intent is ~100 kB; a 1,000-switch one a few MB).
MAX_ENTRIES = 64
#: The package's file kinds that shape a compile (code, profiles, templates).
_SOURCE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".j2", ".txt", ".so")


def cache_folder() -> Path | None:
    """Where entries live, or ``None`` when caching is off."""
    chosen = os.environ.get(CACHE_ENVIRONMENT)
    if chosen is not None:
        text = chosen.strip()
        return None if text in ("", "off") else Path(text)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    # XDG: a relative path in XDG_CACHE_HOME is invalid and must be ignored.
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "qosforge" / "compiled"


def _package_roots() -> list[Path]:
    """The folders the ``qosforge.*`` packages are installed from (an editable install maps
    each top-level folder of the checkout)."""
    import qosforge

    roots = {Path(qosforge.__file__).resolve().parent}
    for name in (
        "compiler",
        "ir",
        "models",
        "fitting",
        "backends",
        "templates",
        "vendor_profiles",
        "softswitch",
        "transports",
    ):
        spec = importlib.util.find_spec(f"qosforge.{name}")  # located, not imported
        if spec is not None:
            roots.update(Path(folder).resolve() for folder in spec.submodule_search_locations or ())
    return sorted(roots)


def _source_fingerprint() -> bytes:
    digest = hashlib.sha256()
    for root in _package_roots():
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in sorted(files):
                if name.endswith(_SOURCE_SUFFIXES):
                    state = os.stat(os.path.join(folder, name))
                    digest.update(
                        f"{folder}/{name}\0{state.st_size}\0{state.st_mtime_ns}\n".encode()
                    )
    return digest.digest()


def _plugins() -> bytes:
    """Installed transports and targets beyond the built-ins (a plugin's upgrade changes them)."""
    from importlib import metadata

    from qosforge.plugins import BUILTIN_DISTRIBUTION, TARGETS, TRANSPORTS, references

    lines = []
    for group in (TRANSPORTS, TARGETS):
        for reference in references(group):
            if reference.distribution == BUILTIN_DISTRIBUTION:
                continue
            try:
                version = metadata.version(reference.distribution)
            except metadata.PackageNotFoundError:
                version = "?"
            lines.append(
                f"{group}\0{reference.name}\0{reference.value}\0{reference.distribution}\0{version}"
            )
    return "\n".join(lines).encode()


def cache_key(kind: str, intent_bytes: bytes) -> str:
    """The entry name for compiling ``intent_bytes`` as ``kind`` with this installation."""
    from qosforge import __version__

    digest = hashlib.sha256()
    for part in (
        kind.encode(),
        intent_bytes,
        __version__.encode(),
        sys.version.encode(),
        _source_fingerprint(),
        _plugins(),
    ):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.pickle"), key=lambda path: path.stat().st_mtime_ns)
    for stale in entries[:-MAX_ENTRIES]:
        stale.unlink(missing_ok=True)


def cached(kind: str, intent_path: Path, build: Callable[[], Value]) -> Value:
    """``build()``'s value for the intent at ``intent_path``, from the cache when this
    installation compiled the same bytes the same way before; stored after a successful build."""
    folder = cache_folder()
    if folder is None:
        return build()
    try:
        intent_bytes = intent_path.read_bytes()
    except OSError:
        return build()  # the build reports the unreadable file as it always does
    entry = folder / f"{cache_key(kind, intent_bytes)}.pickle"
    try:
        with entry.open("rb") as handle:
            value: Value = pickle.load(handle)
        os.utime(entry)  # recently used: pruned last
        return value
    except Exception:  # absent, truncated, or pickled by code since changed: a miss
        pass
    value = build()
    _store(folder, entry, value)
    return value


def _store(folder: Path, entry: Path, value: object) -> None:
    part: str | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, suffix=".part", delete=False) as handle:
            part = handle.name
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(part, entry)  # whole or absent, never half written
        part = None
        _prune(folder)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass  # a read-only or full disk, or a value that does not pickle: this run is not cached
    finally:
        if part is not None:
            Path(part).unlink(missing_ok=True)


__all__ = ["CACHE_ENVIRONMENT", "MAX_ENTRIES", "cache_folder", "cache_key", "cached"]
