"""Every ``qosforge ...`` command in the docs pages' shell blocks runs as the page says.

Each page runs on its own, its commands in order (later ones read what earlier ones wrote), in a
scratch folder that sees the repository's ``examples/`` and the validation fabrics, after the
README's install line: a reader who comes from the README already has ``out/`` holding
tlt-simulation's configs, so a page that compiles another intent into ``out`` is refused there
(exit 2), as it once was for docs/hosts.md, docs/telemetry.md and docs/openconfig.md. A command
that cannot run here is listed in :data:`SKIPPED` with the reason; one that exits other than 0
by design, in :data:`EXIT_CODES`. The README's own commands: tests/cli/test_readme.py.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from qosforge.campaigns import runner
from tests.cli.test_readme import _run, readme_commands

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"^```(?:sh|bash|console)\n(.*?)^```", re.MULTILINE | re.DOTALL)

_DEVICE = "needs a gNMI device; tests/deliver and tests/cli/test_watch_cli.py run it on 127.0.0.1"
_LONG = "minutes of simulation; the README's shorter form of the same command is run"

#: Commands (exact text after joining continuations and dropping comments) not run, with why.
SKIPPED: dict[str, str] = {
    "qosforge sweep simulate --scenario dumbbell --transport dctcp --flows 2,4,8,16 --ecn-threshold"
    " 20pkt:60pkt:3 --seeds 2 --duration 0.3s --warmup 10ms --workers 2 --out dumbbell.jsonl"
    " --parquet dumbbell.parquet --plot dumbbell.png": _LONG,
    "qosforge check deadlock big-fabric.yaml --fail-links 2 --max-failures 100000"
    " --time-limit 300s":
        "an operator's own fabric; bench/bench_deadlock.py runs a 1,000-switch Clos",
    "qosforge compile fabric.yaml --switch leaf1 --base running.json -o out":
        "needs a switch's running config; the README runs examples/running/roce-pod-leaf1.json",
    "qosforge compile fabric.yaml --base running-configs/ -o out":
        "needs the switches' running configs; tests/cli/test_compile_base.py runs synthetic ones",
    "qosforge lint configs/*.json --disable dscp-map-incomplete,map-unbound":
        "an operator's own configs; tests/cli/test_lint_cli.py runs --disable",
    "qosforge lint configs/*.json --write-baseline lint-baseline.json":
        "an operator's own configs; tests/cli/test_lint_cli.py runs the baseline",
    "qosforge lint configs/*.json --baseline lint-baseline.json":
        "an operator's own configs; tests/cli/test_lint_cli.py runs the baseline",
    "qosforge lint --merge --merge-folders out/*/buffers.json out/*/qos.json":
        "SONiC's rendered buffers.json/qos.json (qosforge writes none); tests/lint run them",
    "qosforge lint --merge --merge-folders /tmp/corpus/*/*/*/*/buffers.json"
    " /tmp/corpus/*/*/*/*/qos.json": "needs the SONiC corpus tools/render_sonic_corpus.py renders",
    "qosforge push --config oc-out/leaf1/openconfig.json --address 10.0.0.1:9339 --tls-ca ca.pem"
    " --username netops": _DEVICE,
    "qosforge push examples/openconfig-fabric.yaml --inventory inventory.yaml": _DEVICE,
    "qosforge diff examples/openconfig-fabric.yaml --inventory inventory.yaml"
    " --format json": _DEVICE,
    "qosforge watch roce-out --switch leaf1 --address 10.0.0.1:9339 --tls-ca ca.pem --username"
    " netops --once": _DEVICE,
    "qosforge watch roce-out --inventory fabric-inventory.yaml --interval 1s --duration 10m"
    " --format sarif > watch.sarif": _DEVICE,
    "qosforge watch roce-out --switch leaf1 --address 10.0.0.1:9339 --tls-ca ca.pem": _DEVICE,
    "qosforge simulate examples/openconfig-fabric.yaml --scenario incast --switch leaf1 --flows 8"
    " --duration 50ms --serve-gnmi 127.0.0.1:50051 --tls-cert server.pem --tls-key server.key"
    " --username netops":
        "serves until Ctrl-C; tests/cli/test_simulate_serve.py runs --serve-gnmi with --serve-for",
    "qosforge watch oc-out --switch leaf1 --address 127.0.0.1:50051 --tls-ca ca.pem --username"
    " netops --once": "needs the served switch above; tests/softswitch/device run it",
    "qosforge tune examples/roce-pod.yaml --traffic examples/roce-pod-mixed.traffic.yaml"
    " --out tuned": _LONG,
    "qosforge tune examples/roce-pod.yaml --traffic examples/roce-pod-mixed.traffic.yaml"
    " --out tuned --push --switch leaf1 --switch leaf2 --inventory fabric-inventory.yaml --apply":
        _DEVICE,
    "qosforge tune examples/roce-pod.yaml --from-gnmi leaf1,leaf2 --inventory"
    " fabric-inventory.yaml --gnmi-window 30s --out tuned --push --switch leaf1 --switch leaf2"
    " --apply": _DEVICE,
    "qosforge tune examples/mixed-fabric.yaml --traffic examples/mixed-fabric.traffic.yaml"
    " --out tuned-mf --objective class=storage,max_kb=1000,lossless_drops<=0,pfc_pause_percent<=10"
    " --minimize storage.fct_p99_us --free classes.storage.dcqcn --budget 12 --workers 2":
        "the page's measurement (a minute of simulation); tests/api/test_tune.py runs --free",
}

#: Commands whose page says they exit other than 0, with the code it says.
EXIT_CODES: dict[str, int] = {
    # docs/deadlock.md: under shortest paths a double failure closes a cycle (exit 1).
    "qosforge check deadlock examples/roce-pod.yaml --fail-links 2 --routing shortest-path": 1,
}


def page_commands(text: str) -> list[str]:
    """The ``qosforge`` command lines of a page's ``sh``, ``bash`` and ``console`` blocks."""
    commands = []
    for block in _BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line.removeprefix("$ "), comments=True)
            if words and words[0] == "qosforge":  # as written: SKIPPED keys read as the page
                commands.append(" ".join(words))
    return commands


PAGES = sorted(page for page in DOCS.rglob("*.md") if page_commands(page.read_text()))


def test_the_pages_have_commands_and_every_skip_is_one_of_them() -> None:
    commands = {c for page in PAGES for c in page_commands(page.read_text())}
    assert len(PAGES) >= 8 and len(commands) >= 30
    assert set(SKIPPED) <= commands and set(EXIT_CODES) <= commands


def test_a_shell_line_is_split_as_a_shell_splits_it() -> None:
    text = (
        "```console\n$ qosforge lint 'a*.json' \\\n    --fix  # repair\n```\n"
        "```yaml\nqosforge: 1\n```\n"
    )
    assert page_commands(text) == ["qosforge lint a*.json --fix"]


# Each page's commands in sequence (seconds of CPU each, the whole ~40 CPU s): the slow tier
# (pyproject.toml), as the README's commands.
@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(DOCS)) for page in PAGES])
def test_every_command_of_a_docs_page_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "tests" / "validation").mkdir(parents=True)
    (tmp_path / "tests" / "validation" / "fabrics").symlink_to(
        ROOT / "tests" / "validation" / "fabrics"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QOSFORGE_PROGRESS", "0")
    monkeypatch.setattr(runner, "LOCAL_PROCESSES", False)  # as tests/cli/test_readme.py says why
    install = readme_commands((ROOT / "README.md").read_text())[0]
    assert install.startswith("qosforge compile ") and _run(install)[0] == 0
    failures = []
    for command in page_commands(page.read_text()):
        if command in SKIPPED:
            continue
        code, err = _run(command)
        if code != EXIT_CODES.get(command, 0):
            failures.append(f"{command}\n    exit {code}: {err.strip()[:300]}")
    assert not failures, f"{page.name} commands that fail:\n" + "\n".join(failures)
