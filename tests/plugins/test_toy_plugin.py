"""A plugin package outside the source tree adds a transport, a lint rule and a scenario through
its entry points alone (qosforge/plugins.py), and ``qosforge`` lists and runs them.

The plugin (tests/plugins/toy/: the package ``qosforge_toy`` and its ``.dist-info``) is copied to
a temporary folder put on ``sys.path`` of a fresh interpreter whose working directory is that
folder, as an installed distribution would be found by :func:`importlib.metadata.entry_points`;
nothing in qosforge names its units.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOY = Path(__file__).parent / "toy"
ENTRY_POINTS = "qosforge_toy-0.1.dist-info/entry_points.txt"

_RUN = """
import contextlib, io, json, sys
from qosforge.cli import main
results = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    results.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(results))
"""

CONFIG = {"SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "60"}}}


def _site(tmp_path: Path, entry_points: str | None = None) -> Path:
    site = tmp_path / "site"
    shutil.copytree(TOY, site, ignore=shutil.ignore_patterns("__pycache__"))
    if entry_points is not None:
        (site / ENTRY_POINTS).write_text(entry_points)
    return site


def _qosforge(site: Path, *argvs: list[str]) -> list[tuple[int, str, str]]:
    """Each command line run in one fresh interpreter with ``site`` on its path, outside the
    repository."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    completed = subprocess.run(
        [sys.executable, "-c", _RUN, json.dumps(list(argvs))],
        cwd=site.parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return [tuple(result) for result in json.loads(completed.stdout.strip().splitlines()[-1])]  # type: ignore[misc]


def test_the_plugins_units_are_listed_and_run(tmp_path: Path) -> None:
    site = _site(tmp_path)
    config = tmp_path / "config_db.json"
    config.write_text(json.dumps(CONFIG))
    schema, rules, simulate_help, lint, run = _qosforge(
        site,
        ["schema"],
        ["lint", "--list-rules"],
        ["simulate", "--help"],
        ["lint", str(config), "--format", "json"],
        [
            "simulate",
            "--scenario",
            "toy-plugin-link",
            "--flows",
            "2",
            "--duration",
            "10ms",
            "--warmup",
            "2ms",
            "--format",
            "json",
        ],
    )
    assert schema[0] == 0, schema[2]
    # The plugin's transport is in the intent's transport enum, after the built-ins, with its block.
    assert '"toycc"' in schema[1] and '"irn",\n' in schema[1].split('"toycc"')[0]
    assert rules[0] == 0 and "toy-plugin-weight" in rules[1], rules[2]
    assert (
        simulate_help[0] == 0
        and "toy-plugin-link" in simulate_help[1]
        and "--toy-rate" in simulate_help[1]
    )
    findings = json.loads(lint[1])
    assert [f["rule"] for f in findings["findings"] if f["rule"].startswith("toy")] == [
        "toy-plugin-weight"
    ], lint
    assert run[0] == 0, run[2]
    report = json.loads(run[1])
    # Two NewReno flows keep the 1G default link busy, never above its rate (the dumbbell).
    assert report["scenario"] == "toy-plugin-link" and 0.9 <= report["wire_gbps"] <= 1.0


def test_without_the_plugin_its_units_are_unknown() -> None:
    from qosforge.api.scenarios import SCENARIOS
    from qosforge.lint.rules import REGISTRY
    from qosforge.transports import transport_names

    assert (
        "toycc" not in transport_names()
        and "toy-plugin-weight" not in REGISTRY
        and "toy-plugin-link" not in SCENARIOS
    )


@pytest.mark.parametrize(
    ("entry_points", "expected"),
    [
        (
            "[qosforge.lint_rules]\nbroken = qosforge_toy.missing\n",
            "error: qosforge.lint_rules: cannot load entry point 'broken' of qosforge.lint_rules "
            "(qosforge-toy: qosforge_toy.missing): ModuleNotFoundError: "
            "No module named 'qosforge_toy.missing' "
            "(hint: fix or uninstall the plugin distribution 'qosforge-toy')",
        ),
        (
            "[qosforge.lint_rules]\nschema = qosforge_toy.rules\n",
            "error: qosforge.lint_rules: entry point 'schema' of qosforge.lint_rules "
            "(qosforge-toy: qosforge_toy.rules) reuses the name of entry point 'schema' of "
            "qosforge.lint_rules (qosforge: qosforge.lint.rules.schema) "
            "(hint: rename the plugin's entry point (and its unit), or uninstall one of the two)",
        ),
        (
            "[qosforge.lint_rules]\ntoy = qosforge_toy.transport:TOYCC\n",
            "error: qosforge.lint_rules: entry point 'toy' of qosforge.lint_rules "
            "(qosforge-toy: qosforge_toy.transport:TOYCC) "
            "names a unit called 'toycc' (hint: name the entry point 'toycc', as its unit)",
        ),
    ],
    ids=["missing-module", "a-built-in-name", "wrong-name"],
)
def test_a_broken_plugin_is_one_line_naming_it(
    tmp_path: Path, entry_points: str, expected: str
) -> None:
    [(code, out, error)] = _qosforge(_site(tmp_path, entry_points), ["lint", "--list-rules"])
    assert (code, out, error.strip()) == (2, "", expected)
