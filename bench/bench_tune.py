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

ROOT = Path(__file__).resolve().parent.parent
INTENT = ROOT / "examples" / "roce-pod.yaml"
BAD = ROOT / "bench" / "tune" / "roce-pod-ecn-10x.yaml"
TRAFFIC = ROOT / "examples" / "roce-pod-mixed.traffic.yaml"


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _run(intent: Path, out: Path, budget: int, workers: int, free: tuple[str, ...]) -> tuple[dict[str, Any], float, float]:
    wall, cpu = time.perf_counter(), _cpu_s()
    result = tune(TuneRequest(intent_path=str(intent), traffic_path=str(TRAFFIC), out_dir=str(out), budget=budget,
                              workers=workers, free=free), QuietReporter())
    return result.document(), time.perf_counter() - wall, _cpu_s() - cpu


def _j(trial: dict[str, Any], reference: float) -> float | None:
    if trial["refused"] or trial["pruned"] or trial["primary"] is None:
        return None
    return float(trial["primary"]) / reference + PENALTY * float(trial["violation"] or 0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=int, default=24)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-tune"))
    args = parser.parse_args()
    good, good_wall, good_cpu = _run(INTENT, args.out / "compiled", args.budget, args.workers, ())
    reference = float(good["trials"][0]["primary"])
    best_good = min(j for j in (_j(t, reference) for t in good["trials"]) if j is not None)
    bad, bad_wall, bad_cpu = _run(BAD, args.out / "ecn-10x", args.budget, args.workers, ("classes.rdma.dcqcn", "classes.tcp.ecn"))
    best_so_far, converged = float("inf"), None
    curve = []
    for trial in bad["trials"]:
        j = _j(trial, reference)
        if j is not None:
            best_so_far = min(best_so_far, j)
        curve.append((trial["trial"], trial["simulations_so_far"], best_so_far))
        if converged is None and best_so_far <= 1.1 * best_good:
            converged = (trial["trial"], trial["simulations_so_far"])
    summary = {
        "compiled_start": {"held_out_score": [good["held_out"]["score_before"], good["held_out"]["score_after"]],
                           "best_train_J": best_good, "simulations": good["simulations"],
                           "wall_s": round(good_wall, 1), "cpu_s": round(good_cpu, 1),
                           "held_out_metrics": good["held_out"]["metrics"], "robustness": good["robustness"]},
        "bad_start": {"start_J": _j(bad["trials"][0], reference), "best_train_J": best_so_far,
                      "converged_at_trial": converged[0] if converged else None,
                      "converged_at_simulations": converged[1] if converged else None,
                      "simulations": bad["simulations"], "wall_s": round(bad_wall, 1), "cpu_s": round(bad_cpu, 1),
                      "held_out_score": [bad["held_out"]["score_before"], bad["held_out"]["score_after"]],
                      "curve": curve},
    }
    json.dump(summary, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
