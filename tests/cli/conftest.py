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
        with pytest.raises(SystemExit) as exited:
            main(list(argv))
        captured = capsys.readouterr()
        return int(exited.value.code or 0), captured.out, captured.err

    return run
