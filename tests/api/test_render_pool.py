"""``compile`` by a process pool: the bytes one process writes, its errors as it raises them."""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import multiprocessing
import types
from pathlib import Path

import pytest

from qosforge.api import render_pool
from qosforge.api.compile import CompileRequest, compile_to_folder
from qosforge.api.reporting import StderrReporter
from qosforge.backends.sai import recording
from qosforge.errors import QosforgeError

#: 3 pods x (4 leaves + 2 spines) + 4 super-spines: 22 switches, two leaf kinds (two host speeds).
CLOS = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: clos}
topology:
  clos:
    pods: 3
    leaves_per_pod: 4
    spines_per_pod: 2
    super_spines: 4
    hosts_per_leaf: 6
    host_link: {speed: 40G, cable: 3m}
    fabric_link: {speed: 40G, cable: 10m}
    link_latency: 2us
    leaf_profile: broadcom-trident2
classes:
  - {name: rpc, transport: d2tcp, dscp: [34], weight: 30}
  - {name: bulk, transport: dctcp, dscp: [10], weight: 70}
targets: [sonic, sai]
"""


def _folder_bytes(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


class _Midnight(dt.datetime):
    """sairedis.rec's timestamps start at the time of rendering: held at one instant here, so
    that two compiles can be compared byte for byte (the workers are forked with it)."""

    @classmethod
    def now(cls, tz: dt.tzinfo | None = None) -> _Midnight:
        return cls(2026, 1, 1, tzinfo=tz)


def _pool_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every switch gets a worker's attention (the floor is for 10,000-switch fabrics) and the
    clock stands still; returns the worker counts pools were started with."""
    monkeypatch.setattr(render_pool, "MIN_SWITCHES_PER_WORKER", 1)
    monkeypatch.setattr(
        recording,
        "dt",
        types.SimpleNamespace(datetime=_Midnight, timedelta=dt.timedelta, UTC=dt.UTC),
    )
    started: list[int] = []
    real = render_pool.ProcessPoolExecutor

    def counting(workers: int, **options: object) -> object:
        started.append(workers)
        return real(workers, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(render_pool, "ProcessPoolExecutor", counting)
    return started


def test_pool_writes_the_bytes_one_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    intent = tmp_path / "clos.yaml"
    intent.write_text(CLOS)
    started = _pool_calls(monkeypatch)
    folders = {}
    for workers in (1, 3, 7):
        folders[workers] = tmp_path / f"out{workers}"
        compile_to_folder(
            CompileRequest(str(intent), str(folders[workers]), workers=workers), StderrReporter()
        )
    assert started == [3, 7]  # the pool ran (one process renders in place)
    serial = _folder_bytes(folders[1])
    assert len([name for name in serial if name.endswith("config_db.json")]) == 22
    assert len([name for name in serial if name.endswith("sairedis.rec")]) == 22
    assert _folder_bytes(folders[3]) == serial
    assert _folder_bytes(folders[7]) == serial  # more runs than some workers' share: order kept


def test_runs_cover_every_switch_once_in_order() -> None:
    runs = render_pool._runs({"sonic": 10_000, "sai": 450}, workers=16)
    sonic = [(run.start, run.stop) for run in runs if run.target == "sonic"]
    assert (
        sonic[0][0] == 0
        and sonic[-1][1] == 10_000
        and all(a[1] == b[0] for a, b in itertools.pairwise(sonic))
    )
    assert len(sonic) == 16 * render_pool.RUNS_PER_WORKER
    # 450 switches at 200 per worker at least: two runs, not 48 slivers.
    assert [(run.start, run.stop) for run in runs if run.target == "sai"] == [(0, 225), (225, 450)]
    assert [run.index for run in runs] == list(range(len(runs)))


def test_a_run_that_fails_in_a_worker_is_rendered_by_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pool_calls(monkeypatch)
    failing = render_pool._render_run

    def fail_one(run: render_pool._Run) -> object:
        return None if run.index == 1 else failing(run)

    # A run that fails in a worker is rendered again by the parent, which produces what it produces
    # serially: here (nothing wrong with the intent) the same folder as one process.
    monkeypatch.setattr(render_pool, "_render_run", fail_one)
    intent = tmp_path / "clos.yaml"
    intent.write_text(CLOS)
    compile_to_folder(
        CompileRequest(str(intent), str(tmp_path / "pool"), workers=2), StderrReporter()
    )
    compile_to_folder(
        CompileRequest(str(intent), str(tmp_path / "one"), workers=1), StderrReporter()
    )
    assert _folder_bytes(tmp_path / "pool") == _folder_bytes(tmp_path / "one")
    assert not list(tmp_path.glob(".pool.qosforge-spool-*"))  # the spool is gone


def test_workers_come_from_the_flag_then_the_environment_then_the_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(render_pool.WORKERS_ENVIRONMENT, raising=False)
    assert render_pool.resolve_workers(None) == render_pool.usable_cores()
    monkeypatch.setenv(render_pool.WORKERS_ENVIRONMENT, "3")
    assert render_pool.resolve_workers(None) == 3
    assert render_pool.resolve_workers(5) == 5
    monkeypatch.setenv(render_pool.WORKERS_ENVIRONMENT, "many")
    with pytest.raises(QosforgeError, match="QOSFORGE_WORKERS='many' is not a whole number"):
        render_pool.resolve_workers(None)
    monkeypatch.setenv(render_pool.WORKERS_ENVIRONMENT, "0")
    with pytest.raises(QosforgeError, match="0 workers"):
        render_pool.resolve_workers(None)


def _workers_in_a_child(queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    queue.put(render_pool.resolve_workers(None))


def test_a_pool_worker_renders_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``sweep compile`` point runs in a campaign worker: its compile forks no pool of its own."""
    monkeypatch.delenv(render_pool.WORKERS_ENVIRONMENT, raising=False)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_workers_in_a_child, args=(queue,))
    child.start()
    child.join(30)
    assert queue.get(timeout=5) == 1


def test_a_refused_value_is_reported_as_one_process_reports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """42 ports on a leaf whose SAI switch layout (BCM56850) lists 32: the SAI target refuses the
    port list, placed at the intent's line, with the pool as without it, and nothing is written."""
    started = _pool_calls(monkeypatch)
    intent = tmp_path / "clos.yaml"
    intent.write_text(
        CLOS.replace("hosts_per_leaf: 6", "hosts_per_leaf: 40").replace(
            "host_link: {speed: 40G", "host_link: {speed: 10G"
        )
    )
    shown = []
    for workers in (1, 3):
        with pytest.raises(QosforgeError) as caught:
            compile_to_folder(
                CompileRequest(str(intent), str(tmp_path / f"out{workers}"), workers=workers),
                StderrReporter(),
            )
        shown.append(caught.value.one_line())
        assert not (tmp_path / f"out{workers}").exists()
    assert started == [3]
    assert shown[0] == shown[1]
    assert shown[0].startswith(
        f"{intent}:11:5: switch pod1-leaf1: the topology gives it 42 ports, "
        "but its switch layout BCM56850"
    )
