"""Subcommands loaded on first use (the ``LazyGroup`` pattern from click's documentation,
"Complex Applications: Lazily Loading Subcommands").

``qosforge --help`` and ``qosforge --version`` must not pay for numpy, pydantic, numba or
matplotlib: each subcommand's module is imported only when click asks for that command. Command
modules keep their own heavy imports inside the command function, so listing the commands for
``--help`` (which imports every command module for its short help) stays cheap;
tests/cli/test_startup.py checks that no heavy module is loaded.
"""

from __future__ import annotations

import importlib

import click


class LazyGroup(click.Group):
    """A click group whose subcommands are ``"module:attribute"`` references, imported on use."""

    def __init__(self, *args: object, lazy_subcommands: dict[str, str] | None = None,
                 short_helps: dict[str, str] | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy_subcommands = dict(lazy_subcommands or {})
        #: Help-listing text for subcommands whose module is heavy (listed without importing it).
        self.short_helps = dict(short_helps or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_subcommands:
            return self._load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in self.short_helps:
                rows.append((name, self.short_helps[name]))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append(
                    (
                        name,
                        command.get_short_help_str(
                            formatter.width - 6 - max(len(n) for n in self.list_commands(ctx))
                        ),
                    )
                )
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _load(self, cmd_name: str) -> click.Command:
        module_name, attribute = self.lazy_subcommands[cmd_name].split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):  # a wiring mistake, not user input
            raise TypeError(f"{module_name}:{attribute} is not a click command")
        return command


class HelpWhenBareGroup(LazyGroup):
    """A group that prints its normal help (exit 0) when called without a subcommand, instead of
    click 8.2's usage error (which qosforge's one-line error printer would squash into one line)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and not ctx.resilient_parsing:  # shell completion parses resiliently
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        return super().parse_args(ctx, args)


__all__ = ["HelpWhenBareGroup", "LazyGroup"]
