"""Capture what a command prints to stdout, per thread.

A Dask worker may run several points at once in threads (``dask worker --nthreads``, or the
in-process cluster the tests use); ``contextlib.redirect_stdout`` swaps ``sys.stdout`` for the
whole process, so two points would interleave their JSON. This proxy sends each thread's writes
to that thread's buffer while it captures, and everything else to the stream it replaced.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

_install_lock = threading.Lock()


class _PerThreadStdout(io.TextIOBase):
    def __init__(self, fallback: TextIO) -> None:
        super().__init__()
        self.fallback = fallback
        self.local = threading.local()

    def _target(self) -> TextIO:
        buffer: TextIO | None = getattr(self.local, "buffer", None)
        return buffer if buffer is not None else self.fallback

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        return self._target().isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._target(), "encoding", None) or "utf-8"


def _proxy() -> _PerThreadStdout:
    with _install_lock:
        current = sys.stdout
        if not isinstance(current, _PerThreadStdout):
            current = _PerThreadStdout(current)
            sys.stdout = current
        return current


@contextmanager
def captured_stdout() -> Iterator[io.StringIO]:
    """Collect this thread's stdout in a StringIO for the duration of the block."""
    proxy = _proxy()
    buffer = io.StringIO()
    previous = getattr(proxy.local, "buffer", None)
    proxy.local.buffer = buffer
    try:
        yield buffer
    finally:
        proxy.local.buffer = previous


__all__ = ["captured_stdout"]
