"""``qosforge tune`` on roce-pod: the improvement on held-out seeds, convergence from a
deliberately bad start, and the time a tune takes (docs/tune.md "Measured").

Runs two tunes of examples/roce-pod.yaml on examples/roce-pod-mixed.traffic.yaml with the same
budget, seeds and workers:

1. from the compiled start;
2. from bench/tune/roce-pod-ecn-10x.yaml (every ECN threshold 10x the compiled one), its stated
   DCQCN and ECN blocks freed with --free, so the search starts from them.

Both are scored on one scale: J = primary / primary_of_the_compiled_start + PENALTY x
violations (qosforge/api/tuning/objectives.py), per trial from its training-seed metrics. The
bad start has converged when its best-so-far J is within 10 % of the compiled-start tune's best
J; the bench prints the trials and simulations that took, and wall and CPU seconds (CPU from
getrusage of this process and its children: the worker processes).

    python bench/bench_tune.py [--budget 24] [--workers 2] [--out /tmp/bench-tune]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from qosforge.api.reporting import QuietReporter
from qosforge.api.tune import TuneRequest, tune
from qosforge.api.tuning.objectives import PENALTY
from qosforge.api.tuning.search import SAMPLER_SEED

ROOT = Path(__file__).resolve().parent.parent
INTENT = ROOT / "examples" / "roce-pod.yaml"
BAD = ROOT / "bench" / "tune" / "roce-pod-ecn-10x.yaml"
TRAFFIC = ROOT / "examples" / "roce-pod-mixed.traffic.yaml"


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _run(
    intent: Path,
    out: Path,
    budget: int,
    workers: int,
    free: tuple[str, ...],
    search_seed: int = SAMPLER_SEED,
) -> tuple[dict[str, Any], float, float]:
    wall, cpu = time.perf_counter(), _cpu_s()
    result = tune(
        TuneRequest(
            intent_path=str(intent),
            traffic_path=str(TRAFFIC),
            out_dir=str(out),
            budget=budget,
            workers=workers,
            free=free,
            search_seed=search_seed,
        ),
        QuietReporter(),
    )
    return result.document(), time.perf_counter() - wall, _cpu_s() - cpu


def _j(trial: dict[str, Any], reference: float) -> float | None:
    if trial["refused"] or trial["pruned"] or trial["primary"] is None:
        return None
    return float(trial["primary"]) / reference + PENALTY * float(trial["violation"] or 0.0)


def _convergence(
    bad: dict[str, Any],
    reference: float,
    best_good: float,
    wall: float,
    cpu: float,
    search_seed: int,
) -> dict[str, Any]:
    """Where the bad start's best-so-far J first came within 10 % of the compiled tune's best."""
    best_so_far, converged = float("inf"), None
    curve = []
    for trial in bad["trials"]:
        j = _j(trial, reference)
        if j is not None:
            best_so_far = min(best_so_far, j)
        curve.append((trial["trial"], trial["simulations_so_far"], round(best_so_far, 4)))
        if converged is None and best_so_far <= 1.1 * best_good:
            converged = (trial["trial"], trial["simulations_so_far"])
    fct = next(m for m in bad["held_out"]["metrics"] if m["name"] == "rdma.fct_p99_us")
    return {
        "search_seed": search_seed,
        "start_J": _j(bad["trials"][0], reference),
        "best_train_J": best_so_far,
        "converged_at_trial": converged[0] if converged else None,
        "converged_at_simulations": converged[1] if converged else None,
        "simulations": bad["simulations"],
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "held_out_rdma_fct_p99_us": [fct["before_mean"], fct["after_mean"]],
        "curve": curve,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=int, default=24)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-tune"))
    parser.add_argument(
        "--search-seeds",
        type=int,
        nargs="+",
        default=[1, 2, 3],
        help="Sampler seeds of the bad-start tunes (one tune each).",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)  # tune --out takes a folder in an existing one
    good, good_wall, good_cpu = _run(INTENT, args.out / "compiled", args.budget, args.workers, ())
    reference = float(good["trials"][0]["primary"])
    best_good = min(j for j in (_j(t, reference) for t in good["trials"]) if j is not None)
    bad_runs = []
    for search_seed in args.search_seeds:
        # Another sampler seed than the compiled start's tune: its random first trials differ,
        # so the bad start cannot reach the compiled tune's best by drawing the same points.
        bad, bad_wall, bad_cpu = _run(
            BAD,
            args.out / f"ecn-10x-{search_seed}",
            args.budget,
            args.workers,
            ("classes.rdma.dcqcn", "classes.tcp.ecn"),
            search_seed,
        )
        bad_runs.append(_convergence(bad, reference, best_good, bad_wall, bad_cpu, search_seed))
    summary = {
        "compiled_start": {
            "held_out_score": [good["held_out"]["score_before"], good["held_out"]["score_after"]],
            "best_train_J": best_good,
            "simulations": good["simulations"],
            "wall_s": round(good_wall, 1),
            "cpu_s": round(good_cpu, 1),
            "held_out_metrics": good["held_out"]["metrics"],
            "robustness": good["robustness"],
        },
        "bad_start": bad_runs,
    }
    json.dump(summary, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
