"""Every ``qosforge ...`` command in the README's ``sh`` code blocks runs and exits 0.

The commands run in order (later ones read what earlier ones wrote, e.g. ``lint out/...`` after
``compile ... -o out``; the install line's own compile included), in-process through :func:`qosforge.cli.main`, in a scratch folder that
sees the repository's ``examples/``. Shell syntax the README uses is interpreted here: comments,
``\\`` continuations, glob patterns and ``> FILE`` redirection. A command that cannot run here
must be listed in :data:`SKIPPED` with the reason (today: those that need a switch's running config, gNMI devices or a remote cluster).
"""

from __future__ import annotations

import contextlib
import glob
import io
import re
import shlex
from pathlib import Path

import pytest

from qosforge.campaigns import runner
from qosforge.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"

#: Commands (exact text after joining continuations and dropping comments) not run, with why.
SKIPPED: dict[str, str] = {
    "qosforge push --config oc-out/leaf1/openconfig.json --address 10.0.0.1:9339 --tls-ca ca.pem --username netops":
        "needs a gNMI device; tests/deliver run push against a gNMI target on 127.0.0.1",
    "qosforge diff examples/openconfig-fabric.yaml --inventory examples/inventories/openconfig-fabric.yaml --format json":
        "needs gNMI devices; tests/deliver run diff against a gNMI target on 127.0.0.1",
    "qosforge watch roce-out --switch leaf1 --address 10.0.0.1:9339 --tls-ca ca.pem --once --format json":
        "needs a gNMI device; tests/cli/test_watch_cli.py runs watch against a counter-publishing gNMI target on 127.0.0.1",
    "qosforge watch roce-out --inventory examples/inventories/roce-pod.yaml --interval 1s --duration 10m":
        "needs gNMI devices and ten minutes; tests/cli/test_watch_cli.py streams from a gNMI target on 127.0.0.1",
    "qosforge simulate examples/openconfig-fabric.yaml --scenario incast --switch leaf1 --flows 8 --duration 50ms --serve-gnmi 127.0.0.1:50051 --insecure":
        "serves until Ctrl-C; tests/cli/test_simulate_serve.py runs --serve-gnmi with --serve-for",
    "qosforge watch oc-out --switch leaf1 --address 127.0.0.1:50051 --insecure --once":
        "needs the simulation above serving; tests/softswitch/device run clients against a served switch",
    "qosforge compile fabric.yaml --base running-configs/ -o out":
        "needs the switches' running configs; tests/cli/test_compile_base.py runs it on synthetic ones",
    "qosforge tune examples/roce-pod.yaml --from-gnmi leaf1,leaf2 --inventory examples/inventories/roce-pod.yaml --gnmi-window 30s --out tuned-live --push --switch leaf1 --switch leaf2 --apply":
        "needs gNMI devices; tests/api/tuning/test_from_gnmi.py runs it against a served switch on 127.0.0.1",
    "qosforge sweep compile examples/tlt-softswitch.yaml --set design.alpha=1,2,4 --scheduler tcp://HOST:8786 --out alpha.jsonl":
        "needs a running Dask cluster at HOST; tests/cli/test_sweep.py runs sweep compile on a local one",
}


def readme_commands(text: str) -> list[str]:
    """The ``qosforge`` command lines of every ``sh`` block, in order."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        joined = block.replace("\\\n", " ")
        for line in joined.splitlines():
            # The install lines end in `&& .venv/bin/qosforge ...`: a user runs that step too, so
            # its output folder is part of the sequence (it once made later `-o out` refused).
            for step in line.split("&&"):
                words = shlex.split(step, comments=True)
                if words and words[0] in ("qosforge", ".venv/bin/qosforge"):
                    commands.append(shlex.join(["qosforge", *words[1:]]))
    return commands


def _run(command: str) -> tuple[int, str]:
    words = shlex.split(command)[1:]
    redirect: Path | None = None
    if ">" in words:
        at = words.index(">")
        redirect, words = Path(words[at + 1]), words[:at]
    argv: list[str] = []
    for word in words:
        argv.extend(sorted(glob.glob(word)) or [word] if any(c in word for c in "*?[") else [word])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exited:
            code = int(exited.code or 0)
    if redirect is not None:
        redirect.write_text(out.getvalue())
    return code, err.getvalue()


def test_readme_has_commands() -> None:
    commands = readme_commands(README.read_text())
    assert len(commands) >= 20
    assert all(command.startswith("qosforge ") for command in commands)


def test_every_readme_command_exits_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(README.parent / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QOSFORGE_PROGRESS", "0")
    # `sweep`'s local workers as threads of this process: the same Dask scheduler and points,
    # without starting worker processes that import qosforge again (~10 s of the test);
    # test_sweep.py::test_local_worker_processes runs the default, worker processes.
    monkeypatch.setattr(runner, "LOCAL_PROCESSES", False)
    failures = []
    for command in readme_commands(README.read_text()):
        if command in SKIPPED:
            continue
        code, err = _run(command)
        if code != 0:
            failures.append(f"{command}\n    exit {code}: {err.strip()[:300]}")
    assert not failures, "README commands that fail:\n" + "\n".join(failures)


def test_the_readme_tlt_sweep_comment_matches_the_model() -> None:
    # The comment once said K = 400 kB "leaves no headroom above M = 16"; the model says M = 28.
    from qosforge.models.tlt import tlt_headroom

    claim = re.search(r"K = 400 kB leaves headroom up to M = (\d+)", README.read_text())
    assert claim is not None
    last = int(claim.group(1))
    def flows(ports: int) -> float:
        result = tlt_headroom(buffer_bytes=12e6, alpha=1.0, congested_ports=ports, threshold_bytes=400e3,
                              important_packet_bytes=1500.0, allow_infeasible=True)
        return float(result.flows_per_port)
    assert flows(last) > 0 and flows(last + 1) == 0
