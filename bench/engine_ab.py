"""Compare the speed of two builds of the event core on the same world, interleaved (A B A B ...).

On a shared machine the load changes from minute to minute, so two variants benchmarked one after
the other are not comparable; run back to back in one process, each on a fresh copy of the same
world, they see the same conditions. Each argument is a compiled ``_core`` extension: the
installed one (``softswitch/engine/_core*.so``) or one built from other sources with
``python -m qosforge.softswitch.engine.aot DIR`` (run from a checkout of those sources; both
builds must share the world layout, engine/layout.py). The world is ``bench/bench_softswitch.py``'s
scenario; the script prints each core's packet events per CPU second of the loop (median and
all runs) and checks that both produced the same packet events, drops and marks.

    nice python bench/engine_ab.py A.so B.so [--runs 5] [--duration 0.02]

Arguments: ``A.so B.so``, the two compiled ``_core`` extension files (A is the baseline; the last
line is B's rate over A's); ``--runs N``, A/B pairs to run (default 5, at least 1); ``--duration
SECONDS``, simulated seconds of the world per run (default 0.02, a positive number).
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _usage import OneLineParser, fail, positive_int, positive_seconds


def load_core(path: Path) -> ModuleType:
    """The ``_core`` extension at ``path``; exit 2 (one line) when it is missing or not one."""
    if not path.is_file():
        fail(f"{path}: no such file (give a compiled _core extension, e.g. softswitch/engine/_core*.so)")
    spec = importlib.util.spec_from_file_location("_core", path)
    if spec is None or spec.loader is None:
        fail(f"{path}: not an extension module (a _core*.so built by python -m qosforge.softswitch.engine.aot)")
    try:
        module = importlib.util.module_from_spec(spec)  # an extension is loaded here, not in exec_module
        spec.loader.exec_module(module)
    except ImportError as error:
        fail(f"{path}: cannot be loaded as the event core ({error})")
    if not all(hasattr(module, name) for name in ("seed_kernel", "run_kernel")):
        fail(f"{path}: not the event core (no seed_kernel/run_kernel)")
    return module


def main(argv: list[str]) -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("cores", nargs=2, type=Path, metavar="CORE.so", help="the two compiled _core extensions, A (baseline) then B")
    parser.add_argument("--runs", type=positive_int, default=5, help="A/B pairs to run (default 5)")
    parser.add_argument("--duration", type=positive_seconds, default=0.02, metavar="SECONDS", help="simulated seconds per run (default 0.02)")
    args = parser.parse_args(argv)
    cores = [load_core(path) for path in args.cores]

    import bench_softswitch

    from qosforge.softswitch.engine import layout as L
    from qosforge.softswitch.engine.build import build_world

    config, flows, run = bench_softswitch.scenario(args.duration)
    rates: list[list[float]] = [[] for _ in cores]
    outcomes: list[set[tuple[int, int, int]]] = [set() for _ in cores]
    for _ in range(args.runs):
        for index, core in enumerate(cores):
            world = build_world(config, flows, run)  # the bench has no scripted pauses to push
            core.seed_kernel(run.seed)
            start = time.process_time()
            core.run_kernel(world)
            cpu = time.process_time() - start
            counters = world[L.W_CNT]
            rates[index].append(counters[L.C_PKT_EVENTS] / cpu)
            outcomes[index].add((int(counters[L.C_PKT_EVENTS]), int(counters[L.C_DROP]), int(counters[L.C_MARKS])))
    for path, runs, outcome in zip(args.cores, rates, outcomes, strict=True):
        print(f"{statistics.median(runs) / 1e6:6.3f} M packet events per CPU s (runs: {', '.join(f'{r / 1e6:.2f}' for r in runs)})  {path}  {sorted(outcome)}")
    print(f"B / A: {statistics.median(rates[1]) / statistics.median(rates[0]):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
