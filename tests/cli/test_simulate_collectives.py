"""``simulate --traffic`` with collectives: steps start when the flows they wait for finish, the
job completion time is the slowest rank's, and a per-step CSV trace of the same schedule runs the
same job."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qosforge.softswitch.traffic.collectives import collective_dependencies, collective_steps

Run = Callable[..., tuple[int, str, str]]
ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "tests" / "validation" / "fabrics" / "lossless-watchdog.yaml")
RING = (
    "apiVersion: qosforge/v1\nkind: Traffic\ncollectives:\n"
    "  - {group: ar, collective: ring-allreduce, hosts: [0, 2, 4, 1], size: 400kB, class: rdma}\n"
)


def _run(run_cli: Run, tmp_path: Path, text: str, name: str) -> dict[str, Any]:
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run_cli(
        "simulate", SMALL, "--traffic", str(path), "--duration", "3ms", "--format", "json"
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def _run_module(*argv: str) -> tuple[int, str, str]:
    """run_cli for a module-scoped fixture (capsys is per test): the run is shared by three tests."""
    import contextlib
    import io

    from qosforge.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        pytest.raises(SystemExit) as exited,
    ):
        main(list(argv))
    return int(exited.value.code or 0), out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def ring(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _run(_run_module, tmp_path_factory.mktemp("ring"), RING, "ring.yaml")


def test_each_step_starts_when_the_flows_it_waits_for_finish(ring: dict[str, Any]) -> None:
    flows = ring["flows"]
    steps = collective_steps("ring-allreduce", 4, 400_000)
    assert len(flows) == len(steps) == 24
    finish = [f["start_s"] + f["fct_s"] for f in flows]
    for flow, step, after in zip(flows, steps, collective_dependencies(steps), strict=True):
        assert flow["size_bytes"] == step.size_bytes == 100_000
        if after:
            assert flow["start_s"] == pytest.approx(max(finish[a] for a in after), abs=1e-12)
        else:
            assert flow["start_s"] == 0.0


def test_job_completion_time_is_the_slowest_rank_and_above_the_wire_bound(
    ring: dict[str, Any],
) -> None:
    (job,) = ring["collectives"]
    assert (job["collective"], job["ranks"], job["flows"], job["unfinished_flows"]) == (
        "ring-allreduce",
        4,
        24,
        0,
    )
    finishes = [f["start_s"] + f["fct_s"] for f in ring["flows"]]
    assert job["jct_s"] == pytest.approx(max(finishes))
    # 2(N-1) = 6 steps of 100 kB, each at most at the 40G host link rate.
    assert job["jct_s"] > 6 * 100_000 * 8 / 40e9
    slowest = max(ring["flows"], key=lambda f: f["start_s"] + f["fct_s"])
    assert job["slowest_rank"] == slowest["src"]


def test_a_per_step_csv_trace_runs_the_same_job(
    run_cli: Run, tmp_path: Path, ring: dict[str, Any]
) -> None:
    order = [0, 2, 4, 1]
    rows = ["group,src,dst,size,class,step"]
    for step in collective_steps("ring-allreduce", 4, 400_000):
        rows.append(f"ar,{order[step.src]},{order[step.dst]},{step.size_bytes}B,rdma,{step.step}")
    trace = _run(run_cli, tmp_path, "\n".join(rows) + "\n", "trace.csv")
    (job,) = trace["collectives"]
    assert (job["collective"], job["flows"], job["unfinished_flows"]) == ("trace", 24, 0)
    assert job["jct_s"] == pytest.approx(ring["collectives"][0]["jct_s"], rel=1e-12)


def test_a_step_of_a_long_lived_flow_is_refused(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "apiVersion: qosforge/v1\nkind: Traffic\nflows:\n  - {group: g, src: 0, dst: 1, class: rdma, step: 0}\n"
    )
    code, _, err = run_cli("simulate", SMALL, "--traffic", str(path), "--duration", "1ms")
    assert (
        code == 2 and "bad.yaml:4" in err and "'step' must finish" in err and "Traceback" not in err
    )


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        (
            "{group: x, collective: ring-allreduce, hosts: [0], size: 1MB, class: rdma}",
            "at least 2 distinct hosts",
        ),
        (
            "{group: x, collective: ring-allreduce, hosts: [0, 1], size: 1MB}",
            "exactly one of 'class'",
        ),
        (
            "{group: x, collective: broadcast, hosts: [0, 1], size: 1MB, class: rdma}",
            "ring-allreduce",
        ),
        (
            "{group: x, collective: all-to-all, host: [0, 1], size: 1MB, class: rdma}",
            "did you mean 'hosts'",
        ),
    ],
)
def test_bad_collectives_name_the_line_and_the_fix(
    run_cli: Run, tmp_path: Path, entry: str, fragment: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(f"apiVersion: qosforge/v1\nkind: Traffic\ncollectives:\n  - {entry}\n")
    code, _, err = run_cli("simulate", SMALL, "--traffic", str(path), "--duration", "1ms")
    assert code == 2 and "bad.yaml:4" in err and fragment in err and "Traceback" not in err
