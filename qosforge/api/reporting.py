"""How the application layer tells the person running it something that is not the result.

A note (an approximation taken, a seed that had no effect) goes to stderr in the CLI and in a
campaign's worker alike; progress is drawn only by the CLI, on a terminal (cli/progress.py).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol


class Reporter(Protocol):
    def note(self, text: str) -> None:
        """One line on stderr for the person running the command."""

    def progress(self, description: str) -> AbstractContextManager[object]:
        """Around slow work whose amount is unknown (a spinner on a terminal)."""

    def engine_starting(self) -> None:
        """The engine is about to run (the CLI tells a terminal user when numba must compile it first)."""


class StderrReporter:
    """Notes on stderr, no progress: what a campaign's point (or any caller without a terminal) gets."""

    def note(self, text: str) -> None:
        print(text, file=sys.stderr)

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        yield

    def progress(self, description: str) -> AbstractContextManager[object]:
        return self._quiet()

    def engine_starting(self) -> None:
        return None


class QuietReporter(StderrReporter):
    """No notes at all: for runs whose notes another run already showed (a tune's candidates
    repeat its start's)."""

    def note(self, text: str) -> None:
        return None


class OnceEachReporter:
    """Another reporter's notes, each text once: for a command that runs several simulations of
    one intent (compare's modes), whose shared notes would repeat per run."""

    def __init__(self, inner: Reporter) -> None:
        self._inner = inner
        self._seen: set[str] = set()

    def note(self, text: str) -> None:
        if text not in self._seen:
            self._seen.add(text)
            self._inner.note(text)

    def progress(self, description: str) -> AbstractContextManager[object]:
        return self._inner.progress(description)

    def engine_starting(self) -> None:
        self._inner.engine_starting()


__all__ = ["OnceEachReporter", "QuietReporter", "Reporter", "StderrReporter"]
