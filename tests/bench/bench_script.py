"""A benchmark script run as ``python bench/SCRIPT ARGS`` runs it (``__main__``, its folder first
on sys.path), in the test's own process: a second interpreter per run cost ~0.7 CPU s of start-up
and checked nothing more, since an exception that escapes the script fails the test here as a
traceback would there."""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def run_script(script: str, *argv: str) -> tuple[int, str, str]:
    """The script's exit status, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(BENCH / script), *argv]
    sys.path.insert(0, str(BENCH))
    code: int = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_path(str(BENCH / script), run_name="__main__")
            except SystemExit as exited:
                status = exited.code
                code = status if isinstance(status, int) else (0 if status is None else 1)
                if isinstance(status, str):
                    err.write(status + "\n")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return code, out.getvalue(), err.getvalue()
