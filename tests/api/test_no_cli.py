"""The application layer needs neither click nor the CLI (docs/architecture.md §1.1): each of its
entry points run in turn in one fresh interpreter, the click and ``qosforge.cli`` modules loaded
read after each. One interpreter for all of them, not one each: a name that loads the CLI shows
after the first entry point that loads it (none may), and seven interpreters importing the same
compiler and pydantic schema again cost ~2 CPU s more and checked nothing more."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROCE = str(ROOT / "examples" / "roce-pod.yaml")
XOFF = "BUFFER_PROFILE/pg_lossless_100000_40m_profile/xoff"
CLEAN_CONFIG = ROOT / "tests" / "lint" / "configs" / "mellanox_whole.json"

#: Entry point -> (the program that runs it, printing its result; what it must print).
ENTRY_POINTS: dict[str, tuple[str, list[str]]] = {
    "compile": (
        "from qosforge.api.compile import CompileRequest, compile_to_folder\n"
        "from qosforge.api.reporting import StderrReporter\n"
        f"done = compile_to_folder(CompileRequest({ROCE!r}, 'out'), StderrReporter())\n"
        "print(done.report['fabric'])",
        ["roce-pod"],
    ),
    "check deadlock": (
        "from qosforge.api.check import DeadlockRequest, check_deadlock\n"
        f"print(check_deadlock(DeadlockRequest({ROCE!r}, 2, 1)).verdict)",
        ["not_proven"],
    ),
    "explain": (
        "from qosforge.api.explain import ExplainRequest, explain\n"
        f"request = ExplainRequest(intent_path={ROCE!r}, value_path={XOFF!r}, switch='leaf1')\n"
        "print(explain(request).explanation.rendered)",
        ["53248"],
    ),
    "simulate": (
        "from qosforge.api.simulate import SimulateRequest, simulate\n"
        "from qosforge.api.reporting import StderrReporter\n"
        "simulate(SimulateRequest(scenario='dumbbell', transport='newreno', flows=1,"
        " duration='1ms'), StderrReporter())",
        [],
    ),
    # A clean config: exit code 0, as the CLI gives.
    "lint": (
        "from qosforge.api.lint import LintRequest, lint\n"
        "from qosforge.api.reporting import StderrReporter\n"
        "print(lint(LintRequest(files=('config.json',), jobs=1), StderrReporter()).exit_code)",
        ["0"],
    ),
    "fit red": (
        "from qosforge.api.fit import FitRedRequest, fit_red\n"
        "request = FitRedRequest(bdp='180kB', t_min='138kB', t_max='550kB', r='4')\n"
        "print(float(fit_red(request).result.p_max))",
        ["0.18"],
    ),
    # --flows' default.
    "whatif": (
        "from qosforge.api.whatif import WhatIfRequest, whatif\n"
        "from qosforge.api.reporting import StderrReporter\n"
        "request = WhatIfRequest('tbtcp', {'rate_bps': '10G', 'rtt_s': '1ms'})\n"
        "print(whatif(request, StderrReporter()).document()['flows'])",
        ["100.0"],
    ),
}

#: Runs each program in its own namespace, then prints one JSON line: its printed lines and the
#: click and CLI modules loaded by then.
_DRIVER = """
import contextlib, io, json, sys
for name, program in json.loads(sys.argv[1]).items():
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(program, name, "exec"), {"__name__": "__main__"})
    loaded = sorted(m for m in sys.modules if m.startswith("qosforge.cli") or m == "click")
    print(json.dumps({"name": name, "printed": printed.getvalue().splitlines(), "cli": loaded}))
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("no-cli")
    shutil.copy(CLEAN_CONFIG, folder / "config.json")
    programs = {name: program for name, (program, _) in ENTRY_POINTS.items()}
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, json.dumps(programs)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return {line["name"]: line for line in lines}


@pytest.mark.parametrize("entry_point", sorted(ENTRY_POINTS))
def test_the_entry_point_runs_and_loads_no_click(
    runs: dict[str, dict[str, Any]], entry_point: str
) -> None:
    run = runs[entry_point]
    assert run["printed"] == ENTRY_POINTS[entry_point][1]
    assert run["cli"] == []
