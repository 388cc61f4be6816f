"""Atomic output: a failed run leaves no partial files (DESIGN.md §7)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and an atomic rename."""
    def write(temporary: Path) -> None:
        temporary.write_text(text, encoding="utf-8")

    write_atomically(path, write)


def write_atomically(path: Path, writer: Callable[[Path], None]) -> None:
    """Let ``writer`` fill a temporary sibling of ``path``, then rename it into place.

    The temporary file keeps ``path``'s suffix so format-sniffing writers (matplotlib) behave.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary_name = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent
    )
    os.close(handle)
    temporary = Path(temporary_name)
    try:
        writer(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
