"""``--help`` for the benchmark scripts that take positional sizes or durations (their module
docstrings describe them): ``-h``/``--help`` prints that docstring instead of failing to parse the
flag as a number, and an unknown option is a one-line error rather than a traceback."""

from __future__ import annotations

import sys


def exit_with_usage_if_asked(doc: str | None, argv: list[str], known: tuple[str, ...] = ()) -> None:
    """Print the script's docstring and exit 0 when ``argv`` asks for help; exit 2 naming the first
    option that is neither help nor one of the script's own (``known``)."""
    if "-h" in argv or "--help" in argv:
        print((doc or "").strip())
        sys.exit(0)
    unknown = next((arg for arg in argv if arg.startswith("-") and arg not in known), None)
    if unknown is not None:
        print(f"error: unknown option {unknown}; see --help", file=sys.stderr)
        sys.exit(2)
