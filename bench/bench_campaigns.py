"""Benchmark: the 24-point dumbbell campaign on 1 and 2 local Dask workers (issue 15 figures).

Runs ``qosforge sweep simulate --scenario dumbbell`` over flows 2,4,8,16 x K 20..60 packets x
seeds 1..2 (24 points) once with ``--workers 1`` and once with ``--workers 2``, each in a fresh
process and a fresh --out file; reports wall time, speed-up, the mean per-point time from the rows'
``timing``, and whether both runs gave identical rows (``timing`` aside). Then measures Dask's
per-task overhead on this machine: N no-op tasks through a 1-worker local cluster (throughput,
i.e. the scheduler's serial cost per task) and single-task round trips (latency). Those two
numbers feed the 10^4-point, 16-node estimate in docs/campaigns.md.

Usage: ``nice python bench/bench_campaigns.py [--duration 50ms] [--noop-tasks 2000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GRID = ["--scenario", "dumbbell", "--transport", "dctcp", "--flows", "2,4,8,16", "--ecn-threshold", "20pkt:60pkt:3", "--seeds", "2"]


def _campaign(workers: int, out: Path, duration: str) -> tuple[float, list[dict[str, Any]]]:
    command = [sys.executable, "-m", "qosforge", "sweep", "simulate", *GRID, "--duration", duration, "--warmup", "10ms",
               "--workers", str(workers), "--out", str(out)]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started, [json.loads(line) for line in out.read_text().splitlines()]


def _without_timing(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(({key: value for key, value in row.items() if key != "timing"} for row in rows), key=lambda row: row["point"])


def _noop(index: int) -> int:
    return index


def _dask_overhead(tasks: int) -> tuple[float, float, float]:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.submit(_noop, -1).result()  # warm the worker
        # CPU seconds, not wall: on a loaded machine the wall figure measures the load. The
        # scheduler of a LocalCluster lives in this (the client's) process, so the first term
        # is scheduler + client; the second is the worker's side of each task.
        cpu_before = time.process_time() + sum(client.run(time.process_time).values())
        started = time.perf_counter()
        client.gather(client.map(_noop, range(tasks), pure=False))
        throughput_s = (time.perf_counter() - started) / tasks
        cpu_per_task_s = (time.process_time() + sum(client.run(time.process_time).values()) - cpu_before) / tasks
        round_trips = []
        for index in range(50):
            started = time.perf_counter()
            client.submit(_noop, index, pure=False).result()
            round_trips.append(time.perf_counter() - started)
    return throughput_s, statistics.median(round_trips), cpu_per_task_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", default="300ms", help="simulated time per point")
    parser.add_argument("--noop-tasks", type=int, default=2000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        results = {workers: _campaign(workers, Path(folder) / f"w{workers}.jsonl", options.duration) for workers in (1, 2)}
    (one_s, one_rows), (two_s, two_rows) = results[1], results[2]
    per_point = statistics.mean(row["timing"]["seconds"] for row in one_rows)
    median_point = statistics.median(row["timing"]["seconds"] for row in one_rows)
    throughput_s, round_trip_s, cpu_per_task_s = _dask_overhead(options.noop_tasks)
    report = {
        "cores": os.cpu_count(),
        "load_average_1min_at_end": round(os.getloadavg()[0], 2),
        "points": len(one_rows),
        "wall_s": {"1_worker": round(one_s, 2), "2_workers": round(two_s, 2)},
        "speedup": round(one_s / two_s, 2),
        # Busy seconds per wall second (points in progress), and CPU seconds per wall second: how
        # many cores the campaign actually got on a shared machine.
        "parallelism": {workers: round(sum(row["timing"]["seconds"] for row in rows) / wall, 2) for workers, (wall, rows) in results.items()},
        "cores_obtained": {workers: round(sum(row["timing"]["cpu_seconds"] for row in rows) / wall, 2) for workers, (wall, rows) in results.items()},
        "cpu_per_point_s": {workers: round(statistics.median(row["timing"]["cpu_seconds"] for row in rows), 3) for workers, (_, rows) in results.items()},
        "identical_rows": _without_timing(one_rows) == _without_timing(two_rows),
        "per_point_s": {"mean": round(per_point, 3), "median": round(median_point, 3),
                        "first_on_a_worker": round(max(row["timing"]["seconds"] for row in one_rows), 3)},
        "dask_overhead_per_task_ms": round(throughput_s * 1e3, 3),
        "dask_round_trip_ms": round(round_trip_s * 1e3, 3),
        "dask_cpu_per_task_ms": round(cpu_per_task_s * 1e3, 3),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
