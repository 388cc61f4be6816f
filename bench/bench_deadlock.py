"""Benchmark: deadlock freedom of a three-tier Clos, healthy and under every single link failure
(target: a 1,000-switch Clos under every single link failure finishes in minutes, so a check is
part of every compile of a real fabric).

For each size the ``clos`` intent of ``bench/fabrics.py`` (1,000 switches = 32 pods of 20 leaves
+ 10 spines and 40 super-spines, 7,680 links) is resolved and checked in-process, as
``qosforge check deadlock INTENT --fail-links 1`` does: the healthy buffer dependency graph
(what ``compile`` adds), then every single link failure (compiler/deadlock/failures.py).
Reported: wall and CPU seconds of each phase, milliseconds per failure, the failures that close a
cycle and those whose graph had to be rebuilt in full.

Usage: ``python bench/bench_deadlock.py [SWITCHES ...] [--fail-links 1|2] [--max-failures N]``
(default 1000; ``--max-failures`` bounds the sweep, e.g. for double failures).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _usage import OneLineParser, positive_int
from fabrics import clos_shape

from qosforge.compiler.deadlock.check import fabric_cycles
from qosforge.compiler.deadlock.failures import Limits, sweep_failures
from qosforge.compiler.deadlock.links import fabric_links
from qosforge.compiler.loader import load_intent
from qosforge.compiler.topology import resolve_topology

HOSTS_PER_LEAF = 16


def intent_text(switches: int) -> str:
    return ("apiVersion: qosforge/v1\nkind: Fabric\nmetadata: {name: clos-deadlock}\ntopology:\n"
            + clos_shape(switches).yaml(HOSTS_PER_LEAF)
            + "classes:\n  - {name: rdma, transport: dcqcn, dscp: [26], lossless: true}\n")


def timed(function, *args):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("switches", nargs="*", type=positive_int, default=[1000])
    parser.add_argument("--fail-links", type=int, choices=(1, 2), default=1)
    parser.add_argument("--max-failures", type=positive_int, default=None)
    options = parser.parse_args()
    print("| switches | links | healthy wall s | healthy CPU s | failure sets | sweep wall s | sweep CPU s | ms/failure | cycles | rebuilt |")
    print("|---------:|------:|---------------:|--------------:|-------------:|-------------:|------------:|-----------:|-------:|--------:|")
    for switches in options.switches:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "clos.yaml"
            path.write_text(intent_text(switches))
            intent, source_map = load_intent(path)
            links = fabric_links(resolve_topology(intent, source_map))
        healthy, healthy_wall, healthy_cpu = timed(fabric_cycles, links)
        if healthy:
            raise SystemExit(f"the healthy {switches}-switch Clos has a cycle: {healthy[0].describe()}")
        result, wall, cpu = timed(sweep_failures, links, options.fail_links, Limits(max_sets=options.max_failures))
        print(f"| {links.n_switches:>8,} | {links.n_cables:>5,} | {healthy_wall:>14.2f} | {healthy_cpu:>13.2f} | {result.checked:>12,} | "
              f"{wall:>12.1f} | {cpu:>11.1f} | {1000 * wall / max(result.checked, 1):>10.2f} | {len(result.deadlocks):>6} | "
              f"{result.exact_rebuilds:>7} |", flush=True)


if __name__ == "__main__":
    main()
