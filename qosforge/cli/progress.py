"""Progress on slow work, on a terminal only.

A bar (or a spinner when the amount is unknown) is drawn on stderr with rich, and only when
stderr is a terminal: piped or redirected output, CI logs and ``--format json`` consumers see
nothing. ``QOSFORGE_PROGRESS=0`` turns it off on a terminal too, ``=1`` forces it (tests).
The bar is transient: it disappears when the work is done.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def progress_enabled() -> bool:
    forced = os.environ.get("QOSFORGE_PROGRESS")
    if forced in ("0", "1"):
        return forced == "1"
    return sys.stderr.isatty() and sys.stdout.isatty()


def _nothing(steps: int = 1) -> None:
    return None


@contextmanager
def progress(
    description: str, *, total: int | None, units: str = "items", minimum: int = 2
) -> Iterator[Callable[..., None]]:
    """Yield ``advance(steps=1)``; draw a bar for ``total`` steps (a spinner for ``None``).

    Nothing is drawn for fewer than ``minimum`` steps: one switch needs no bar.
    """
    if not progress_enabled() or (total is not None and total < minimum):
        yield _nothing
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn(), TextColumn(units), TimeRemainingColumn()]
    else:
        columns += [TimeElapsedColumn()]
    console = Console(
        stderr=True, force_terminal=True if os.environ.get("QOSFORGE_PROGRESS") == "1" else None
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)

        def advance(steps: int = 1) -> None:
            bar.advance(task, steps)

        yield advance


def announce(message: str) -> None:
    """A one-off note on stderr for a terminal user (e.g. a one-time compilation)."""
    if progress_enabled():
        print(message, file=sys.stderr, flush=True)


__all__ = ["announce", "progress", "progress_enabled"]
