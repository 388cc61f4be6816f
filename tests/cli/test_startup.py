"""Import only what a command uses: light commands must not load the heavy stack.

Each case runs in a fresh interpreter (the test process has everything imported already) and
lists which of the heavy modules ended up in ``sys.modules``. Timings are in
bench/bench_startup.py, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "scipy", "pydantic", "numba", "matplotlib", "jinja2")

_PROBE = """
import contextlib, io, json, sys
from qosforge.cli import main
heavy = json.loads(sys.argv[2])
sys.argv = ["qosforge", *json.loads(sys.argv[1])]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
print(json.dumps(sorted(name for name in heavy if name in sys.modules)))
"""


def _heavy_modules_loaded(argv: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(argv), json.dumps(heavy)], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["--version"], [], ["compile", "--help"], ["simulate", "--help"], ["lint", "--help"], ["fit", "--help"], ["profiles", "--help"]],
)
def test_help_and_version_import_no_heavy_module(argv: list[str]) -> None:
    assert _heavy_modules_loaded(argv) == []


def test_profiles_list_needs_only_the_profile_schema() -> None:
    # The vendor-profile schema is pydantic (every value validated with its source); nothing else.
    assert _heavy_modules_loaded(["profiles", "list"]) in ([], ["pydantic"])


def test_the_probe_sees_heavy_imports() -> None:
    # Guard against a probe that can never fail: a what-if calculation does load numpy.
    assert "numpy" in _heavy_modules_loaded(["whatif", "buffer", "--buffer", "12MB"])


def test_listed_short_help_matches_the_command() -> None:
    from qosforge.cli.fit import red_command
    from qosforge.cli.groups import fit_group

    assert red_command.help is not None
    assert fit_group.short_helps["red"] == red_command.help.strip().splitlines()[0]  # type: ignore[attr-defined]
