"""Benchmark: a 10^6-point TLT what-if sweep (README figure).

Evaluates ``tlt_headroom`` over a 1000 x 1000 grid of congested ports M (1..64) and buffer B
(1..64 MB) in one vectorised call, and the same sweep through the CLI in a subprocess
(``qosforge whatif tlt --sweep ... --sweep ...`` with JSON output). Reports wall time (best of 5)
and peak memory (tracemalloc for the model call, ru_maxrss for the CLI process).
Usage: ``python bench/bench_whatif.py``.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
import tracemalloc

import numpy as np
from _usage import exit_with_usage_if_asked

from qosforge.models.tlt import tlt_headroom

POINTS_PER_AXIS = 1000


def model_sweep() -> tuple[float, float]:
    ports, buffers = np.meshgrid(np.linspace(1, 64, POINTS_PER_AXIS).round(), np.linspace(1e6, 64e6, POINTS_PER_AXIS), indexing="ij")
    ports, buffers = ports.ravel(), buffers.ravel()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        result = tlt_headroom(buffers, 1.0, ports, 10_000.0, 1500.0, allow_infeasible=True)
        best = min(best, time.perf_counter() - start)
    assert result.total_flows.shape == (POINTS_PER_AXIS**2,)
    tracemalloc.start()
    tlt_headroom(buffers, 1.0, ports, 10_000.0, 1500.0, allow_infeasible=True)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, peak / 2**20


def cli_sweep() -> tuple[float, float]:
    command = [
        sys.executable, "-m", "qosforge", "whatif", "tlt", "--threshold", "10kB", "--packet", "1500B", "--buffer", "12MB",
        "--sweep", f"congested-ports=1:1000:{POINTS_PER_AXIS}", "--sweep", f"buffer=1MB:64MB:{POINTS_PER_AXIS}",
        "--allow-infeasible", "--format", "json",
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return elapsed, peak_mib


def main() -> None:
    exit_with_usage_if_asked(__doc__, sys.argv[1:])
    seconds, peak_mib = model_sweep()
    print(f"tlt_headroom, {POINTS_PER_AXIS**2:,} points in one call: {seconds * 1000:.1f} ms (best of 5), peak {peak_mib:.1f} MiB allocated")
    seconds, rss_mib = cli_sweep()
    print(f"qosforge whatif tlt --sweep x2 ({POINTS_PER_AXIS**2:,} points, JSON to /dev/null): {seconds:.2f} s wall, peak RSS {rss_mib:.0f} MiB")


if __name__ == "__main__":
    main()
