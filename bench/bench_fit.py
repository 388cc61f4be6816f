"""Benchmark the RED fit: 10^5 TBTCP parameter sets through the batch API (target < 1 s), and one
``qosforge fit red`` command-line invocation in a fresh process (start-up included).

Run: .venv/bin/python bench/bench_fit.py
"""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
from _usage import exit_with_usage_if_asked

from qosforge.fitting.least_squares import fit_red_batch
from qosforge.fitting.targets import tbtcp_target

SETS = 100_000
BATCH_TARGET_S = 1.0
KB = 1e3
CLI_ARGS = [
    "fit",
    "red",
    "--bdp",
    "180kB",
    "--t-min",
    "138kB",
    "--t-max",
    "550kB",
    "--r",
    "4",
    "--format",
    "json",
]


def random_parameter_sets(count: int, seed: int = 1) -> tuple[np.ndarray, ...]:
    """BDP 10 kB..2 MB, l 0..500 kB, t_max l + 10 kB..3 MB, r 1..8: the ranges a sweep covers."""
    rng = np.random.default_rng(seed)
    bdp = rng.uniform(10, 2000, count) * KB
    start = rng.uniform(0, 500, count) * KB
    t_max = start + rng.uniform(10, 3000, count) * KB
    r = rng.integers(1, 9, count).astype(np.float64)
    return bdp, start, t_max, r


def bench_batch(repeats: int = 3) -> float:
    bdp, start, t_max, r = random_parameter_sets(SETS)
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        fit = fit_red_batch(tbtcp_target(bdp, start), start, t_max, r)
        best = min(best, time.perf_counter() - began)
    assert fit.p_max.shape == (SETS,)
    return best


def bench_cli(repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "qosforge", *CLI_ARGS], check=True, capture_output=True
        )
        best = min(best, time.perf_counter() - began)
    return best


def main() -> None:
    exit_with_usage_if_asked(__doc__, sys.argv[1:])
    batch_s = bench_batch()
    verdict = "OK" if batch_s < BATCH_TARGET_S else "SLOWER THAN TARGET"
    print(
        f"batch fit of {SETS:,} parameter sets: {batch_s:.3f} s "
        f"({batch_s / SETS * 1e6:.2f} us/set; target < {BATCH_TARGET_S:g} s: {verdict})"
    )
    cli_s = bench_cli()
    print(f"one 'qosforge {' '.join(CLI_ARGS)}' subprocess: {cli_s:.3f} s (best of 3)")


if __name__ == "__main__":
    main()
