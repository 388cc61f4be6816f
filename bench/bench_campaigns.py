"""Benchmark: the 64-point dumbbell campaign (docs/campaigns.md) and where its wall time goes.

Runs ``qosforge sweep simulate --scenario dumbbell --transport dctcp --flows 2:16:8
--ecn-threshold 20pkt:90pkt:8 --duration 1s --warmup 10ms`` (8 flow counts x 8 marking
thresholds = 64 points, 1 s simulated each) with each ``--workers`` count of ``--workers``
(default 1 and 2), ``--repeat`` times each (default 3) in alternation, every run a fresh process
with a fresh ``--out``. For each run it reads the sweep's own wall-time split (start-up,
scheduling, points, other) from its last stderr lines and adds the interpreter's start and
imports (the process's wall time minus the campaign's). Reports medians per worker count, whether
every run gave the same rows (``timing`` aside), and the per-worker start-up cost of the local
pool against a Dask ``LocalCluster`` whose workers are spawned (the alternative the local pool replaced), both
measured here: the time until W workers have each finished one short point.

Then the Amdahl model in CPU seconds, ``T(W) = F + s*(W-1) + makespan``: F the serial CPU of the
1-worker sweep (its process tree minus its points: interpreter, imports, warm-up, scheduling,
outputs), s the serial part of starting each extra worker, and the makespan of the measured
points' CPU times handed in grid order to W free cores (each worker's first point carrying the
rest of its start-up). Three cases: every start-up second serial; only the parent's fork serial;
and that with F scaled to the faster machine (by the ratio of the 16-core machine's 20.9 s of points to ours).
With the points as measured here and as a 16-core machine ran them, the projected
16-worker speed-up. It is a projection: this machine has 2 cores, shared.

Usage: ``nice python bench/bench_campaigns.py [--duration 1s] [--repeat 3] [--workers 1,2] [--startup-workers 2]``.
"""

from __future__ import annotations

import heapq
import json
import logging
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _usage import OneLineParser, positive_int

GRID = ["--scenario", "dumbbell", "--transport", "dctcp", "--flows", "2:16:8", "--ecn-threshold", "20pkt:90pkt:8", "--warmup", "10ms"]
#: A 16-core machine's measurement (spawned Dask workers): the 64 points' busy time with one
#: worker (s), docs/campaigns.md.
SIXTEEN_CORE_BUSY_1_WORKER_S = 20.9
#: The target for a worker's start-up (seconds per worker, wall and CPU, measured on 2 cores).
TARGET_STARTUP_PER_WORKER_S = 1.0
_SPLIT = re.compile(r"sweep: wall ([\d.]+) s = start-up ([\d.]+) s \+ scheduling ([\d.]+) s \+ points ([\d.]+) s \+ other ([\d.]+) s; "
                    r"points busy ([\d.]+) s on (\d+) worker")
#: A short point for the start-up measurement (its first run on a worker pays what is not preloaded).
_PROBE = ["--scenario", "dumbbell", "--transport", "dctcp", "--flows", "4", "--ecn-threshold", "40pkt", "--duration", "1ms", "--warmup", "0s"]


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_child(command: list[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run ``command``; its wall seconds and the CPU seconds of its whole process tree (the
    workers it forked or spawned and reaped included): on a shared machine the CPU figure is the
    one to read, the wall figure measures the load as much as the work."""
    cpu = _children_cpu_s()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return done, time.perf_counter() - started, _children_cpu_s() - cpu


def _campaign(workers: int, out: Path, duration: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "qosforge", "sweep", "simulate", *GRID, "--duration", duration, "--workers", str(workers), "--out", str(out)]
    done, process_s, tree_cpu_s = _run_child(command)
    match = _SPLIT.search(done.stderr)
    if match is None:
        raise SystemExit(f"no wall-time split in the sweep's output:\n{done.stderr}")
    wall, startup, scheduling, points, other, busy = (float(value) for value in match.groups()[:6])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return {"workers": workers, "process_s": process_s, "interpreter_and_imports_s": process_s - wall, "startup_s": startup,
            "scheduling_s": scheduling, "points_s": points, "other_s": other, "busy_s": busy,
            "points_cpu_s": sum(row["timing"]["cpu_seconds"] for row in rows), "tree_cpu_s": tree_cpu_s,
            "serial_cpu_s": tree_cpu_s - sum(row["timing"]["cpu_seconds"] for row in rows), "mean_point_s": busy / len(rows), "rows": rows,
            "load_1min": os.getloadavg()[0]}


def _without_timing(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(({key: value for key, value in row.items() if key != "timing"} for row in rows), key=lambda row: row["point"])


def _probe_specs(workers: int) -> list[Any]:
    from qosforge.campaigns.point import PointSpec

    return [PointSpec(("simulate",), {"i": index}, tuple(_PROBE)) for index in range(workers)]


def _startup_pool(workers: int) -> float:
    """Seconds until ``workers`` forked workers have each run one probe point (warm-up included)."""
    from qosforge.campaigns.runner import ClusterChoice, connect, run_points

    specs = _probe_specs(workers)
    started = time.perf_counter()
    with connect(ClusterChoice(workers=workers), specs) as runner:
        run_points(runner, specs, lambda spec, outcome: None)
        return time.perf_counter() - started


def _startup_fork(workers: int) -> float:
    """CPU seconds this (warmed-up) process spends forking ``workers`` workers: the part of a
    worker's start-up that is serial (what a child then does runs on its own core)."""
    from qosforge.campaigns.local_pool import LocalPool
    from qosforge.campaigns.warm import warm_up

    warm_up(_probe_specs(1))
    cpu = time.process_time()
    with LocalPool(workers):
        forked = time.process_time() - cpu
    return forked


def _startup_dask_spawn(workers: int) -> float:
    """The same with a Dask LocalCluster of spawned worker processes (the alternative to the pool)."""
    from distributed import Client, LocalCluster

    from qosforge.campaigns.execute import run_point

    started = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        client.gather(client.map(run_point, _probe_specs(workers), pure=False))
        return time.perf_counter() - started


def _startup_child(kind: str, workers: int) -> tuple[float, float]:
    """One start-up measurement in a fresh interpreter (nothing imported or warm yet): the wall
    seconds until each worker ran a probe point, and the CPU seconds of the whole process tree."""
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_campaigns as b; "
            f"print(b._startup_{kind}({workers}))")
    if kind == "dask_spawn":  # spawned workers re-import __main__: guard it
        code = f"if __name__ == '__main__':\n    {code}"
    done, _, tree_cpu_s = _run_child([sys.executable, "-c", code])
    return float(done.stdout.strip().splitlines()[-1]), tree_cpu_s


def _makespan(times: list[float], workers: int) -> float:
    """When the last of ``times`` ends if each goes, in order, to the first free of ``workers``."""
    free = [0.0] * workers
    for seconds in times:
        heapq.heapreplace(free, free[0] + seconds)
    return max(free)


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(run[key] for run in runs), 3)


def main() -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--duration", default="1s", help="simulated time per point")
    parser.add_argument("--repeat", type=positive_int, default=3)
    parser.add_argument("--workers", default="1,2", help="worker counts to run, e.g. 1,2")
    parser.add_argument("--startup-workers", type=positive_int, default=2, help="workers for the start-up comparison")
    options = parser.parse_args()
    counts = [int(text) for text in options.workers.split(",")]
    runs: dict[int, list[dict[str, Any]]] = {count: [] for count in counts}
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(options.repeat):
            for count in counts:
                runs[count].append(_campaign(count, Path(folder) / f"w{count}-{repeat}.jsonl", options.duration))
    reference = _without_timing(runs[counts[0]][0]["rows"])
    identical = all(_without_timing(run["rows"]) == reference for group in runs.values() for run in group)
    keys = ("process_s", "interpreter_and_imports_s", "startup_s", "scheduling_s", "points_s", "other_s", "busy_s", "points_cpu_s", "tree_cpu_s",
            "serial_cpu_s", "mean_point_s", "load_1min")
    per_count: dict[int, dict[str, float]] = {count: {key: _median(group, key) for key in keys} for count, group in runs.items()}
    for figures in per_count.values():
        figures["cores_obtained"] = round(figures["tree_cpu_s"] / figures["process_s"], 2)
    w = options.startup_workers
    kinds = [(kind, count) for kind in ("pool", "dask_spawn", "fork") for count in (1, w)]
    measured = {f"{kind}_{count}": [_startup_child(kind, count) for _ in range(options.repeat)] for kind, count in kinds}
    startup = {name: {"wall_s": round(statistics.median(wall for wall, _ in values), 3), "cpu_s": round(statistics.median(cpu for _, cpu in values), 3)}
               for name, values in measured.items()}

    def per_extra_worker(kind: str, figure: str) -> float:
        return round(max(0.0, (startup[f"{kind}_{w}"][figure] - startup[f"{kind}_1"][figure]) / max(w - 1, 1)), 3)

    # Amdahl in CPU seconds (what free cores turn into wall seconds): F the serial CPU of the
    # 1-worker run (interpreter, imports, warm-up, scheduling, outputs: the sweep's process tree
    # minus its points), S the CPU per extra worker, B the points' CPU with one worker.
    one = per_count[min(counts)]
    serial_s, per_worker_s = one["serial_cpu_s"], per_extra_worker("pool", "cpu_s")
    # The parent's CPU for each fork (the "wall_s" the fork child printed is CPU seconds).
    fork_s = per_extra_worker("fork", "wall_s")

    # The points' CPU seconds in submission (grid) order, median over the 1-worker runs: one
    # worker finishes them in the order they were submitted, so its rows are in that order.
    by_point: dict[str, list[float]] = {row["point"]: [] for row in runs[min(counts)][0]["rows"]}
    for run in runs[min(counts)]:
        for row in run["rows"]:
            by_point[row["point"]].append(row["timing"]["cpu_seconds"])
    point_cpu = [statistics.median(times) for times in by_point.values()]

    def model(busy_s: float, workers: int, serial_start_s: float, scale_fixed: bool) -> float:
        """Serial CPU, then each extra worker's serial start, then the points on W cores; the
        rest of a worker's start (``per_worker_s - serial_start_s``) runs before its first point."""
        scale = busy_s / sum(point_cpu)
        fixed = serial_s * (scale if scale_fixed else 1.0)
        first = [max(per_worker_s - serial_start_s, 0.0) if index < workers else 0.0 for index in range(len(point_cpu))]
        return fixed + serial_start_s * (workers - 1) + _makespan([scale * t + extra for t, extra in zip(point_cpu, first, strict=True)], workers)

    def projection(busy_s: float) -> dict[str, dict[str, float]]:
        cases = {"all_start_up_serial": (per_worker_s, False), "fork_serial_rest_parallel": (fork_s, False),
                 "fork_serial_and_fixed_cost_at_that_machine_speed": (fork_s, True)}
        out: dict[str, dict[str, float]] = {}
        for name, (serial_start_s, scale_fixed) in cases.items():
            t1, t16 = model(busy_s, 1, serial_start_s, scale_fixed), model(busy_s, 16, serial_start_s, scale_fixed)
            out[name] = {"T1_s": round(t1, 2), "T16_s": round(t16, 2), "speedup": round(t1 / t16, 2),
                         "speedup_vs_sixteen_core_1_worker_24s": round(24.0 / t16, 2)}
        return {"busy_1_worker_s": {"s": round(busy_s, 2)}, **out}

    report = {
        "cores": os.cpu_count(), "points": len(reference), "simulated_per_point": options.duration, "repeats": options.repeat,
        "identical_rows_across_all_runs": identical,
        "median_by_workers": per_count,
        "startup_until_each_worker_ran_a_point": startup,
        # The target: "overhead <= 1 s, measured on 2 cores as start-up seconds per worker".
        "startup_target_per_worker_s": TARGET_STARTUP_PER_WORKER_S,
        "startup_target_met": max(per_extra_worker("pool", "wall_s"), per_worker_s) <= TARGET_STARTUP_PER_WORKER_S,
        "startup_per_extra_worker": {"local_pool": {"wall_s": per_extra_worker("pool", "wall_s"), "cpu_s": per_worker_s},
                                     "dask_spawn": {"wall_s": per_extra_worker("dask_spawn", "wall_s"), "cpu_s": per_extra_worker("dask_spawn", "cpu_s")}},
        "amdahl_projection_16_workers": {
            "note": "projection, not a measurement: T(W) = F + S*(W-1) + makespan of the points' CPU times handed in grid order to W "
                    "free workers; this machine has 2 shared cores and the 16-core machine was not lent to this task",
            "point_cpu_s": {"min": round(min(point_cpu), 3), "median": round(statistics.median(point_cpu), 3), "max": round(max(point_cpu), 3)},
            "F_serial_cpu_s": serial_s, "S_per_worker_cpu_s": per_worker_s, "fork_cpu_s_per_worker": fork_s,
            "with_B_measured_here": projection(one["points_cpu_s"]),
            "with_B_of_the_sixteen_core_machine": projection(SIXTEEN_CORE_BUSY_1_WORKER_S),
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
