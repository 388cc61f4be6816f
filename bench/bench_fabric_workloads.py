"""Benchmark: generating fabric workloads (all-to-all arrivals, flow-size sampling).

The fabric scenarios of ``qosforge simulate`` build their flow lists with
``softswitch/traffic/fabric_workloads.py`` before the engine starts; this measures that set-up
cost against the simulated time: all-to-all arrivals for a 4-leaf fabric of 16 hosts per leaf
(64 hosts) at 100 Gb/s, 60 % load, web-search and data-mining sizes, plus raw inverse-transform
sampling. Reports flows generated per second of wall time (best of ``--repeat``).

Usage: ``nice python bench/bench_fabric_workloads.py [--simulated 50ms] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from qosforge.softswitch.traffic.fabric_workloads import HostSite, all_to_all_arrivals
from qosforge.softswitch.traffic.flow_sizes import DISTRIBUTIONS
from qosforge.units import parse_time_s

#: Sizes drawn per sampling measurement.
SAMPLES = 1_000_000


Result = TypeVar("Result")


def _best_of(repeat: int, work: Callable[[], Result]) -> tuple[float, Result]:
    """The shortest wall time of ``repeat`` runs of ``work`` (at least one) and its result."""
    started = time.perf_counter()
    result = work()
    best = time.perf_counter() - started
    for _ in range(repeat - 1):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulated", default="50ms", help="simulated duration of the arrivals")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    duration_s = parse_time_s(args.simulated)
    hosts = tuple(
        HostSite(host=leaf * 16 + i, switch=f"leaf{leaf}", port=f"Ethernet{4 * i}")
        for leaf in range(4) for i in range(16)
    )
    for name, distribution in DISTRIBUTIONS.items():
        seconds, flows = _best_of(
            args.repeat,
            lambda distribution=distribution: all_to_all_arrivals(hosts, 100e9, 0.6, distribution, duration_s, seed=1),
        )
        count = len(flows)
        print(f"all-to-all {name}: {count} flows over {duration_s * 1e3:g} ms simulated, 64 hosts: "
              f"{seconds * 1e3:.1f} ms wall, {count / seconds:,.0f} flows/s")
        seconds, _ = _best_of(args.repeat, lambda distribution=distribution: distribution.sample(np.random.default_rng(1), SAMPLES))
        print(f"sample {name}: {SAMPLES} sizes in {seconds * 1e3:.1f} ms, {SAMPLES / seconds:,.0f} sizes/s")


if __name__ == "__main__":
    main()
