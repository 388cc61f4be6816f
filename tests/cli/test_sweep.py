"""`qosforge sweep` through the console entry point: grids, determinism, resume, bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from qosforge.campaigns import runner

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DUMBBELL = ["sweep", "simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--duration", "4ms", "--warmup", "1ms"]

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local workers as threads in this process (no fork), and a short scheduler timeout."""
    monkeypatch.setattr(runner, "LOCAL_PROCESSES", False)
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", 0.5)
    yield


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _without_timing(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(({key: value for key, value in row.items() if key != "timing"} for row in rows), key=lambda row: row["point"])


# Three sweeps forking up to three workers (~2 CPU s): the slow tier (pyproject.toml); the
# default tier forks local workers in test_local_worker_processes below.
@pytest.mark.slow
def test_same_grid_same_rows_whatever_the_number_of_worker_processes(run_cli: Run, tmp_path: Path) -> None:
    """Rows depend on the points alone: 1, 2 and 3 forked worker processes (not threads) give the same rows, timing aside."""
    grid = [*DUMBBELL, "--flows", "2,6", "--ecn-threshold", "10pkt:30pkt:2", "--seeds", "2"]
    code, out, err = run_cli(*grid, "--workers", "1", "--out", str(tmp_path / "one.jsonl"))
    assert code == 0, err
    code, _, err = run_cli(*grid, "--workers", "2", "--out", str(tmp_path / "two.jsonl"), "--parquet", str(tmp_path / "two.parquet"),
                           "--plot", str(tmp_path / "two.png"))
    assert code == 0, err
    code, _, err3 = run_cli(*grid, "--workers", "3", "--out", str(tmp_path / "three.jsonl"))
    assert code == 0, err3
    one, two, three = _rows(tmp_path / "one.jsonl"), _rows(tmp_path / "two.jsonl"), _rows(tmp_path / "three.jsonl")
    assert len(one) == 8 and _without_timing(one) == _without_timing(two) == _without_timing(three)
    # Each run used as many distinct processes as workers, none of them this one.
    for rows, workers in ((one, 1), (two, 2), (three, 3)):
        names = {row["timing"]["worker"] for row in rows}
        assert len(names) == workers and all(not name.endswith(f":{os.getpid()}") for name in names)
    assert out == "" and "8 points, 0 already done, 8 run, 0 failed" in err
    # The wall-time split adds up to the run's wall time.
    split = re.search(r"sweep: wall ([\d.]+) s = start-up ([\d.]+) s \+ scheduling ([\d.]+) s \+ points ([\d.]+) s \+ other ([\d.]+) s; "
                      r"points busy ([\d.]+) s on 3 workers", err3)
    assert split is not None, err3
    wall, *parts = (float(value) for value in split.groups()[:5])
    assert abs(wall - sum(parts)) <= 0.02 and all(part >= 0 for part in parts)
    # Seeds the sweep chose are listed, and the per-point "--seed has no effect" note (a DCTCP step at K) is not repeated:
    # nobody typed --seed.
    assert "sweep: seeds 1, 2 (--seeds 2)" in err and "no effect" not in err
    # The grid is the product; a lower K gives a shorter queue (DCTCP §3.4).
    by_k: dict[str, list[float]] = {}
    for row in one:
        assert row["params"]["transport"] == "dctcp" and row["params"]["rtt"] == "100us"  # defaults are part of the point
        by_k.setdefault(row["params"]["ecn-threshold"], []).append(row["result"]["queue_p99_packets"])
    assert set(by_k) == {"10pkt", "30pkt"} and max(by_k["10pkt"]) < min(by_k["30pkt"])
    table = pq.read_table(tmp_path / "two.parquet")
    assert table.num_rows == 8 and "result.queue_p99_packets" in table.column_names and "timing.seconds" in table.column_names
    assert (tmp_path / "two.png").read_bytes()[:4] == b"\x89PNG"


def test_a_rerun_skips_finished_points_and_retries_failed_ones(run_cli: Run, threads: None, tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    # 5000 packets of K do not fit the 1000-packet buffer: that point fails, the campaign goes on.
    grid = [*DUMBBELL, "--flows", "2", "--ecn-threshold", "20pkt,5000pkt", "--workers", "1", "--out", str(out)]
    code, _, err = run_cli(*grid)
    assert code == 1 and "2 points, 0 already done, 2 run, 1 failed" in err
    assert "sweep: 1 point(s) failed: --ecn-threshold" in err
    failed = [row for row in _rows(out) if row["status"] == "failed"]
    assert len(failed) == 1 and failed[0]["error"].startswith("--ecn-threshold") and failed[0]["result"] is None
    code, _, err = run_cli(*grid)
    assert code == 1 and "2 points, 1 already done, 1 run, 1 failed" in err
    assert sorted(row["status"] for row in _rows(out)) == ["failed", "failed", "ok"]  # appended, never rewritten
    code, _, err = run_cli(*DUMBBELL, "--flows", "2", "--ecn-threshold", "20pkt", "--workers", "1", "--out", str(out))
    assert code == 0 and "1 point, 1 already done, 0 run, 0 failed" in err


def test_the_seed_note_is_said_once_and_only_for_a_typed_seed(run_cli: Run, threads: None, tmp_path: Path) -> None:
    grid = [*DUMBBELL, "--flows", "2,4", "--ecn-threshold", "20pkt", "--workers", "1"]
    code, _, err = run_cli(*grid, "--seed", "3", "--out", str(tmp_path / "typed.jsonl"))
    assert code == 0, err
    assert err.count("no effect") == 1 and "sweep: note: --seed has no effect on 2 of 2 point(s)" in err
    code, _, err = run_cli(*grid, "--out", str(tmp_path / "default.jsonl"))
    assert code == 0, err
    assert "no effect" not in err and "sweep: seed 1 (the command's default --seed)" in err


def test_whatif_and_compile_campaigns(run_cli: Run, threads: None, tmp_path: Path) -> None:
    code, _, err = run_cli("sweep", "whatif", "dctcp", "--speed", "10G,100G", "--rtt", "10us:100us:4", "--workers", "1", "--out", str(tmp_path / "w.jsonl"))
    assert code == 0, err
    rows = _rows(tmp_path / "w.jsonl")
    assert len(rows) == 8 and {tuple(row["command"]) for row in rows} == {("whatif", "dctcp")}
    intent = str(EXAMPLES / "tlt-softswitch.yaml")
    code, _, err = run_cli("sweep", "compile", intent, "--set", "design.alpha=1,2", "--workers", "1", "--out", str(tmp_path / "c.jsonl"))
    assert code == 0, err
    rows = _rows(tmp_path / "c.jsonl")
    assert sorted(row["params"]["design.alpha"] for row in rows) == [1, 2]
    assert all(row["params"]["intent"] == intent and row["result"]["source_file"] == intent for row in rows)
    assert rows[0]["result"] != rows[1]["result"]  # alpha reaches the compiled buffer profiles


@pytest.mark.parametrize(("argv", "place"), [
    ([*DUMBBELL, "--rtt", "10us:1ms:3"], "--rtt"),
    ([*DUMBBELL, "--flows", "2,x"], "--flows"),
    ([*DUMBBELL, "--transport", "dctcp,bbr"], "--transport"),
    ([*DUMBBELL, "--bogus", "1"], "--bogus"),
    ([*DUMBBELL, "--seeds", "2", "--seed", "3"], "--seeds"),
    ([*DUMBBELL, "--scheduler", "tcp://127.0.0.1:9"], "--scheduler"),
    ([*DUMBBELL, "--scheduler", "localhost"], "--scheduler"),
    ([*DUMBBELL, "--workers", "0"], "--workers"),
    ([*DUMBBELL, "--plot", "PLOT"], "--plot"),
    (["sweep", "compile", str(EXAMPLES / "tlt-softswitch.yaml"), "--set", "design.alfa=1,2"], "--set design.alfa=1"),
    (["sweep", "compile", str(EXAMPLES / "tlt-softswitch.yaml"), "--set", "design.alpha=nope"], "--set design.alpha=nope"),
    (["sweep", "simulate", "--scenario", "dumbbell", "--set", "design.alpha=1"], "--set"),
    (["sweep", "whatif", "nope"], "nope"),
    # A repeatable flag's value is checked as the command checks it, before any point runs.
    (["sweep", "compile", str(EXAMPLES / "tlt-softswitch.yaml"), "--target", "sonic,sai"], "--target: 'sonic,sai' is not one of"),
])
def test_bad_input_is_one_line_exit_2_and_no_files(run_cli: Run, threads: None, tmp_path: Path, argv: list[str], place: str) -> None:
    outputs = {"--out": tmp_path / "runs.jsonl", "--parquet": tmp_path / "runs.parquet"}
    argv = [str(tmp_path / "runs.png") if item == "PLOT" else item for item in argv]
    code, out, err = run_cli(*argv, *(item for flag, path in outputs.items() for item in (flag, str(path))))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and place in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_local_worker_processes(run_cli: Run, tmp_path: Path) -> None:
    """The default: local worker processes forked from the sweep's, named HOST:PID in the rows."""
    out = tmp_path / "runs.jsonl"
    code, _, err = run_cli("sweep", "whatif", "buffer", "--buffer", "12MB", "--congested-ports", "1:16:4", "--workers", "2", "--out", str(out))
    assert code == 0, err
    rows = _rows(out)
    assert all(re.fullmatch(r"[^:]+:\d+", row["timing"]["worker"]) for row in rows)
    shares = [row["result"]["per_port_share_bytes"] for row in sorted(rows, key=lambda row: int(row["params"]["congested-ports"]))]
    # Dynamic threshold (Choudhury-Hahne): alpha·B/(1+alpha·M) falls as M grows.
    assert len(shares) == 4 and shares == sorted(shares, reverse=True)


def test_other_commands_do_not_import_dask_or_pyarrow() -> None:
    code = ("import sys\nfrom qosforge.cli import cli\nfrom click.testing import CliRunner\n"
            "assert CliRunner().invoke(cli, ['sweep', 'simulate', '--help']).exit_code == 0\n"
            "print(sorted({name.split('.')[0] for name in sys.modules} & {'dask', 'distributed', 'pyarrow'}))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert shown == "[]"


def test_sweep_alone_prints_its_help(run_cli: Run) -> None:
    code, out, err = run_cli("sweep")
    assert code == 0 and out.startswith("Usage: qosforge sweep") and "simulate" in out and err == ""


def test_the_help_says_where_points_run(run_cli: Run) -> None:
    # Local workers are processes forked from the sweep (campaigns/runner.py), not Dask's: only
    # --scheduler and --dashboard use Dask.
    code, out, _ = run_cli("sweep", "--help")
    assert code == 0 and "local worker processes (--workers) or an existing Dask cluster" in " ".join(out.split())
    code, out, _ = run_cli("sweep", "whatif", "buffer", "--help")
    flat = " ".join(out.split())
    assert code == 0 and "--workers N Local worker processes" in flat and "Dask workers" not in flat


def test_a_note_every_point_gives_is_printed_once(run_cli: Run, threads: None, tmp_path: Path) -> None:
    # Each roce-pod point runs Spectrum-2's unpublished RED steps as SAI's linear curve and says
    # so; a campaign says it once, not once per point (the rows' approximations hold it).
    code, _, err = run_cli("sweep", "simulate", str(EXAMPLES / "roce-pod.yaml"), "--scenario", "incast", "--flows", "2,4,8",
                           "--duration", "1ms", "--warmup", "0s", "--workers", "2", "--out", str(tmp_path / "runs.jsonl"))
    assert code == 0, err
    assert err.count("red-linear") == 1 and err.startswith("note: software switch: red-linear: ")
    rows = _rows(tmp_path / "runs.jsonl")
    assert len(rows) == 3 and all(row["result"]["approximations"] == ["red-linear"] for row in rows)
