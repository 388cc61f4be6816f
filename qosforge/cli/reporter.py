"""The CLI's :class:`~qosforge.api.reporting.Reporter`: notes on stderr through click, progress
(a spinner) only on a terminal (qosforge/cli/progress.py)."""

from __future__ import annotations

from contextlib import AbstractContextManager

import click


class CliReporter:
    """What the application layer's functions report, as a command shows it."""

    def note(self, text: str) -> None:
        click.echo(text, err=True)

    def progress(self, description: str) -> AbstractContextManager[object]:
        from qosforge.cli.progress import progress

        return progress(description, total=None)

    def engine_starting(self) -> None:
        return None


__all__ = ["CliReporter"]
