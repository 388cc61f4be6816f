"""Command-line handling shared by the benchmark scripts: ``--help`` prints the script's docstring,
and bad input (an unknown option, ``--runs 0``, a duration that is not a positive number, an
``--only`` that matches nothing) is a one-line ``error: ...`` on stderr with exit code 2, never a
traceback or argparse's usage block."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable
from typing import NoReturn


def fail(message: str) -> NoReturn:
    """Exit 2 with ``message`` as one line on stderr."""
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(2)


def exit_with_usage_if_asked(doc: str | None, argv: list[str], known: tuple[str, ...] = ()) -> None:
    """Print the script's docstring and exit 0 when ``argv`` asks for help; exit 2 naming the first
    option that is neither help nor one of the script's own (``known``)."""
    if "-h" in argv or "--help" in argv:
        print((doc or "").strip())
        sys.exit(0)
    unknown = next((arg for arg in argv if arg.startswith("-") and arg not in known), None)
    if unknown is not None:
        fail(f"unknown option {unknown}; see --help")


class OneLineParser(argparse.ArgumentParser):
    """``argparse`` with the script's docstring as ``--help`` and one-line usage errors (exit 2)."""

    def __init__(self, doc: str | None, **kwargs: object) -> None:
        super().__init__(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        fail(f"{message}; see --help")


def positive_int(text: str) -> int:
    """``type=`` for a count such as ``--runs``: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


def positive_seconds(text: str) -> float:
    """``type=`` for a simulated duration in seconds: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (e.g. 0.02)") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds (got {text})")
    return value


def require_match(only: str | None, names: Iterable[str]) -> list[str]:
    """The ``names`` containing ``only`` (all without it); exit 2 when ``--only`` matches none."""
    names = list(names)
    chosen = [name for name in names if only is None or only in name]
    if not chosen:
        fail(f"--only {only!r} matches none of: {', '.join(names)}")
    return chosen


__all__ = ["OneLineParser", "exit_with_usage_if_asked", "fail", "positive_int", "positive_seconds", "require_match"]
