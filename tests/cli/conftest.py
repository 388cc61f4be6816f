"""Shared CLI test helper: run the console-script entry point the way a user would."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from qosforge.cli import main


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``qosforge ARGV...`` through :func:`qosforge.cli.main` (which maps user errors to one
    line and exit code 2) and return (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        arguments = list(argv)
        if (
            arguments[:1] in (["push"], ["diff"])
            and "--timeout" not in arguments
            and "--inventory" not in arguments
        ):
            # The test targets validate every Set against the OpenConfig models (seconds of CPU);
            # on a loaded CI runner that can exceed the 10 s default RPC deadline, which would turn
            # a correct push into a timeout. Tests of the deadline itself pass --timeout.
            arguments += ["--timeout", "60s"]
        with pytest.raises(SystemExit) as exited:
            main(arguments)
        captured = capsys.readouterr()
        return int(exited.value.code or 0), captured.out, captured.err

    return run
