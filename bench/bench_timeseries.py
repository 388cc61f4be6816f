"""Benchmark: what ``simulate --traffic --timeseries`` adds to a run, whole process.

Runs examples/dctcp-fig17.yaml with its traffic file for ``--duration`` (default 3 s: 30,000
samples at the default 100 us of 22 queues, 660,000 rows) as its own ``qosforge simulate``
process, without ``--timeseries``, with a CSV and with a Parquet file, interleaved ``--runs``
times (paired: all see the same machine load), and prints the median CPU seconds (user + system
of the child: the fair figure on a shared machine), peak RSS, and each against the run without.
Target: <= 1.3x the run without. Usage:

    python bench/bench_timeseries.py [--runs 3] [--duration 3s]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _usage import OneLineParser, positive_int

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TARGET = 1.3


def _cpu_and_rss(argv: list[str]) -> tuple[float, float]:
    """(CPU s, peak RSS MiB) of one child process."""
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"error: {' '.join(argv)} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--runs", type=positive_int, default=3,
                        help="paired runs of each case (default 3)")
    parser.add_argument("--duration", default="3s", help="simulated time (default 3s)")
    args = parser.parse_args()
    qosforge = str(Path(sys.executable).with_name("qosforge"))
    base = [qosforge, "simulate", str(EXAMPLES / "dctcp-fig17.yaml"),
            "--traffic", str(EXAMPLES / "dctcp-fig17.traffic.yaml"),
            "--duration", args.duration, "--format", "json"]
    results: dict[str, list[tuple[float, float]]] = {"none": [], "csv": [], "parquet": []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.runs):
            for case in results:
                series = Path(folder) / f"series.{case}"
                extra = [] if case == "none" else ["--timeseries", str(series)]
                results[case].append(_cpu_and_rss(base + extra))
                for leftover in Path(folder).iterdir():
                    leftover.unlink()
    without = statistics.median(cpu for cpu, _ in results["none"])
    print(f"| --timeseries | CPU s (median of {args.runs}) | x without | peak RSS MiB |")
    print("|---|---:|---:|---:|")
    for case, runs in results.items():
        cpu = statistics.median(c for c, _ in runs)
        verdict = "" if case == "none" else (" ok" if cpu <= TARGET * without else " MISSED")
        rss = max(r for _, r in runs)
        print(f"| {case} | {cpu:.2f} | {cpu / without:.2f}{verdict} | {rss:.0f} |")


if __name__ == "__main__":
    main()
