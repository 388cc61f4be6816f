"""One flag name per concept across commands, with the old names kept as hidden aliases.

| concept | flag |
|---|---|
| a port's or link's rate | ``--speed`` (was also ``--rate``, ``--bandwidth``) |
| a switch's shared buffer | ``--buffer`` |
| simulate's bottleneck queue limit | ``--queue-limit`` (was ``--buffer``) |
| the dynamic-threshold alpha | ``--alpha`` (D2TCP's DCTCP estimate is ``--dctcp-alpha``) |

An old name still works, is not shown in ``--help``, and giving both names is an error.

Every command's ``--format`` is :func:`format_option`: the command's own choices, each described
in the same words (:data:`FORMATS`), the first the default.

Every option that names a file or folder a command writes uses :class:`OutputPath`, which refuses
an empty value (``-o ""`` would be ``Path("")``, the current folder) before any work is done.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from qosforge.errors import QosforgeError

F = TypeVar("F", bound=Callable[..., Any])


#: What each ``--format`` choice prints on stdout, the same words in every command's help.
FORMATS = {
    "text": "readable text",
    "table": "readable tables",
    "json": "one JSON document with stable keys",
    "sarif": "SARIF 2.1.0 for code-scanning tools",
    "github": "GitHub Actions annotations",
}


#: The readable output's two names: commands that print tables call it ``table``, the others
#: ``text``; each command takes either name for its own.
_READABLE = ("text", "table")


class FormatChoice(click.Choice):  # type: ignore[type-arg]
    """``click.Choice`` of a command's formats that also takes the readable output's other name."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in _READABLE and value not in self.choices:
            value = next((name for name in _READABLE if name in self.choices), value)
        return super().convert(value, param, ctx)


def _format_settings(choices: tuple[str, ...], json_is: str | None) -> dict[str, Any]:
    unknown = [choice for choice in choices if choice not in FORMATS]
    if not choices or unknown:
        raise ValueError(f"--format choices must be among {', '.join(FORMATS)}: {unknown}")
    described = {**FORMATS, **({"json": json_is} if json_is else {})}
    listed = "; ".join(f"{choice}: {described[choice]}" for choice in choices)
    readable = next((name for name in _READABLE if name in choices), None)
    other = next((name for name in _READABLE if name != readable), None) if readable else None
    also = f"; {other} is taken for {readable}" if other else ""
    return {"type": FormatChoice(list(choices)), "default": choices[0], "show_default": True,
            "help": f"Output on stdout ({listed}{also})."}


def format_option(*choices: str, json_is: str | None = None) -> Callable[[F], F]:
    """The ``--format`` option (parameter ``output_format``) of a command that prints ``choices``,
    the first its default; ``json_is`` says what its JSON is where that is a named document."""
    return click.option("--format", "output_format", **_format_settings(choices, json_is))


def format_parameter(*choices: str, json_is: str | None = None) -> click.Option:
    """:func:`format_option` as a ``click.Option``, for a command built from a parameter list."""
    return click.Option(["--format", "output_format"], **_format_settings(choices, json_is))


class RegistryChoice(click.Choice):  # type: ignore[type-arg]
    """A ``click.Choice`` whose names are read from a registry when click checks or shows them, so
    a target registered after the CLI was imported (a plugin, a test's target) is accepted."""

    def __init__(self, names: Callable[[], tuple[str, ...]]) -> None:
        self._names = names
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return self._names()

    @choices.setter
    def choices(self, value: object) -> None:
        pass  # click's __init__ stores its argument; the registry is the one list


class OutputPath(click.Path):
    """``click.Path`` for a path the command writes: empty or blank is a one-line error naming the
    flag (exit 2, via :class:`~qosforge.errors.QosforgeError`), with ``example`` in the hint."""

    def __init__(self, example: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.example = example

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            flag = "/".join(param.opts) if param is not None else "path"
            kind = "folder" if not self.file_okay else "file"
            raise QosforgeError(f"the output {kind} is empty", place=flag,
                                hint=f"name a {kind}, e.g. {param.opts[-1] if param is not None else ''} {self.example}")
        return super().convert(value, param, ctx)


@dataclass(frozen=True)
class Rename:
    old: str
    new: str
    dest: str
    """The parameter name (click ``dest``) of the new flag."""

    @property
    def alias_dest(self) -> str:
        return f"{self.dest}__{self.old.lstrip('-').replace('-', '_')}"


def hidden_alias_option(rename: Rename) -> click.Option:
    return click.Option([rename.old, rename.alias_dest], hidden=True, default=None)


def merge_renamed(values: dict[str, Any], renames: tuple[Rename, ...], ctx: click.Context) -> dict[str, Any]:
    """Move each alias's value (when given) onto its new name; both given is a usage error."""
    for rename in renames:
        old_value = values.pop(rename.alias_dest, None)
        if old_value is None:
            continue
        if ctx.get_parameter_source(rename.dest) not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None):
            raise click.UsageError(f"{rename.old} is the old name of {rename.new}: give only {rename.new}")
        values[rename.dest] = old_value
    return values


def renamed_options(*renames: Rename) -> Callable[[F], F]:
    """Decorator (below ``@click.command``): accept each ``rename.old`` as a hidden alias."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(**kwargs: Any) -> Any:
            return function(**merge_renamed(kwargs, renames, click.get_current_context()))

        decorated: Any = wrapper
        for rename in renames:
            decorated = click.option(rename.old, rename.alias_dest, hidden=True, default=None)(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate


__all__ = ["FORMATS", "OutputPath", "Rename", "format_option", "format_parameter",
           "hidden_alias_option", "merge_renamed", "renamed_options"]
