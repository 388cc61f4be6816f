"""Device check: the speed-up of one fixed campaign at 1, 2, 4, 8 and 16 local workers.

The campaign is ``bench/bench_campaigns.py``'s: ``qosforge sweep simulate --scenario dumbbell
--transport dctcp --flows 2:16:8 --ecn-threshold 20pkt:90pkt:8 --warmup 10ms --duration 1s``
(64 points, 1 s simulated each), every run a fresh ``python -m qosforge`` process with a fresh
``--out``. Worker counts larger than the machine's usable cores are skipped. Per run: the
process's wall seconds, the sweep's own split (start-up, scheduling, points, other), the CPU of
the whole process tree, and whether its rows equal the 1-worker run's (``timing`` aside). Per
worker count: median wall, speed-up against the 1-worker median and parallel efficiency. Then
the pool's start-up (a fresh interpreter until each of W forked workers has run a 1 ms point)
at 1 and at the largest W, as ``bench_campaigns.py`` measures it on 2 cores.

Made for a lent machine without network, the repository and its venv copied, 10 minutes per
command: one short warm-up campaign first (page cache, numba's on-disk cache), then repeats that
alternate the worker counts, stopping before a repeat that would pass ``--budget-s``. Results
go to ``$OUT`` (or ``--out``) after every run, so a run cut short still leaves what it measured:
``campaign_scaling.json`` (machine, runs, summary) and ``campaign_scaling.csv`` (one row a run).

Usage (from the repository root, after ``pip install -e .``):
``OUT=/tmp/out .venv/bin/python bench/device_campaign_scaling.py [--workers 1,2,4,8,16]
[--repeat 3] [--duration 1s] [--budget-s 420]``. On 2 cores ``--workers 1,2 --duration 50ms``
checks the script itself in a minute.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bench_campaigns
from _usage import OneLineParser, fail, positive_int

_CSV_FIELDS = (
    "repeat",
    "workers",
    "process_s",
    "interpreter_and_imports_s",
    "startup_s",
    "scheduling_s",
    "points_s",
    "other_s",
    "busy_s",
    "points_cpu_s",
    "tree_cpu_s",
    "load_1min",
    "identical_rows",
    "error",
)


def _usable_cores() -> int:
    """Cores this process may run on (a container's cpuset, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _machine() -> dict[str, Any]:
    model = ""
    try:
        model = next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            "",
        )
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {
        "cpu_count": os.cpu_count(),
        "usable_cores": _usable_cores(),
        "cpu_model": model,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "commit": commit,
        "load_1min_at_start": os.getloadavg()[0],
    }


def _parse_counts(text: str) -> list[int]:
    try:
        counts = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        fail(f"--workers {text!r}: give whole numbers separated by commas, e.g. 1,2,4,8,16")
    if not counts or counts[0] < 1:
        fail(f"--workers {text!r}: every count must be at least 1, e.g. 1,2,4,8,16")
    return counts


def _summary(runs: list[dict[str, Any]], counts: list[int]) -> dict[str, Any]:
    good = [run for run in runs if not run.get("error")]
    median_wall = {
        count: statistics.median(run["process_s"] for run in good if run["workers"] == count)
        for count in counts
        if any(run["workers"] == count for run in good)
    }
    if not median_wall:
        return {}
    base = median_wall.get(1)
    table: dict[str, Any] = {}
    for count, wall in median_wall.items():
        group = [run for run in good if run["workers"] == count]
        row: dict[str, Any] = {
            "runs": len(group),
            "median_process_s": round(wall, 3),
            "median_points_s": round(statistics.median(run["points_s"] for run in group), 3),
            "median_startup_s": round(statistics.median(run["startup_s"] for run in group), 3),
            "median_tree_cpu_s": round(statistics.median(run["tree_cpu_s"] for run in group), 3),
        }
        if base is not None:
            row["speedup"] = round(base / wall, 2)
            row["efficiency"] = round(base / wall / count, 2)
        table[str(count)] = row
    return {
        "by_workers": table,
        "all_rows_identical_to_1_worker": all(run.get("identical_rows", True) for run in good),
        "failed_runs": len(runs) - len(good),
    }


def _write(out: Path, report: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "campaign_scaling.json").write_text(json.dumps(report, indent=2) + "\n")
    with (out / "campaign_scaling.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=_CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for run in report["runs"]:
            writer.writerow({key: run.get(key, "") for key in _CSV_FIELDS})


def main() -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--workers", default="1,2,4,8,16", help="worker counts, e.g. 1,2,4,8,16")
    parser.add_argument(
        "--repeat", type=positive_int, default=3, help="repeats of every worker count"
    )
    parser.add_argument("--duration", default="1s", help="simulated time per point")
    parser.add_argument(
        "--budget-s",
        type=positive_int,
        default=420,
        help="start no repeat that would end after this",
    )
    parser.add_argument(
        "--out", default=os.environ.get("OUT"), help="folder for the results (default: $OUT)"
    )
    options = parser.parse_args()
    if not options.out:
        fail("no output folder: set OUT or give --out FOLDER")
    out = Path(options.out)
    usable = _usable_cores()
    wanted = _parse_counts(options.workers)
    counts = [count for count in wanted if count <= usable]
    started = time.perf_counter()
    report: dict[str, Any] = {
        "campaign": " ".join(
            ["qosforge sweep simulate", *bench_campaigns.GRID, "--duration", options.duration]
        ),
        "points": 64,
        "machine": _machine(),
        "skipped_worker_counts_over_usable_cores": [c for c in wanted if c > usable],
        "runs": [],
        "summary": {},
        "pool_startup": {},
    }
    _write(out, report)
    reference: list[dict[str, Any]] | None = None
    with tempfile.TemporaryDirectory() as folder:
        # Warm-up: a short campaign at the most workers (files into the page cache, numba's cache).
        try:  # 20 ms: the grid's 10 ms warm-up must be shorter than the duration
            warm = bench_campaigns._campaign(counts[-1], Path(folder) / "warm.jsonl", "20ms")
        except subprocess.CalledProcessError as error:
            report["error"] = (error.stderr or "").strip()[-600:]
            _write(out, report)
            last = report["error"].splitlines()[-1] if report["error"] else str(error)
            fail(f"the warm-up campaign failed: {last}")
        report["warm_up_process_s"] = round(warm["process_s"], 3)
        repeat_s: list[float] = []
        for repeat in range(options.repeat):
            elapsed = time.perf_counter() - started
            if repeat_s and elapsed + max(repeat_s) > options.budget_s:
                report["stopped_early"] = (
                    f"after {repeat} repeat(s): another would pass --budget-s {options.budget_s}"
                )
                break
            repeat_start = time.perf_counter()
            for count in counts:
                path = Path(folder) / f"w{count}-{repeat}.jsonl"
                try:
                    run = bench_campaigns._campaign(count, path, options.duration)
                except subprocess.CalledProcessError as error:
                    report["runs"].append(
                        {
                            "repeat": repeat,
                            "workers": count,
                            "error": (error.stderr or "").strip()[-400:],
                        }
                    )
                    _write(out, report)
                    continue
                rows = bench_campaigns._without_timing(run.pop("rows"))
                if reference is None and count == counts[0]:
                    reference = rows
                run.update(repeat=repeat, identical_rows=rows == reference)
                report["runs"].append(
                    {
                        key: round(value, 4) if isinstance(value, float) else value
                        for key, value in run.items()
                    }
                )
                report["summary"] = _summary(report["runs"], counts)
                _write(out, report)
                print(
                    f"repeat {repeat} workers {count:>2}: {run['process_s']:.2f} s wall, "
                    f"{run['tree_cpu_s']:.2f} CPU s",
                    file=sys.stderr,
                    flush=True,
                )
            repeat_s.append(time.perf_counter() - repeat_start)
    # The local pool's start-up in a fresh interpreter: until each of W workers ran a 1 ms point.
    for count in sorted({1, counts[-1]}):
        wall, cpu = bench_campaigns._startup_child("pool", count)
        report["pool_startup"][str(count)] = {"wall_s": round(wall, 3), "tree_cpu_s": round(cpu, 3)}
        _write(out, report)
    report["script_wall_s"] = round(time.perf_counter() - started, 1)
    _write(out, report)
    print(json.dumps(report["summary"], indent=2))


if __name__ == "__main__":
    main()
