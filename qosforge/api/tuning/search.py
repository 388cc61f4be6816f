"""The search: optuna's TPE sampler with successive halving over training seeds.

Each trial is a point of the knob space. It is first compiled and linted (a refused point is
told to the sampler as :data:`REFUSED_SCORE`, so TPE learns to avoid the region, and is never
simulated), then simulated seed after seed: after each seed its mean score so far is reported
and optuna's SuccessiveHalvingPruner stops a trial that ranks in the worse half of its rung
(Li et al., "Hyperband", JMLR 2018 §3; optuna.pruners.SuccessiveHalvingPruner), so most
simulations go to promising points. Trials run ``parallel`` at a time (ask/tell), each batch's
simulations together on the executor. The compiled start is trial 0 (added with its measured
score), so TPE starts from it and the result is never worse than the start on the training
seeds. The sampler's seed is fixed: a tune is reproducible for given seeds and workers.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from qosforge.api.tuning.evaluate import (
    CheckJob,
    CheckResult,
    SimulationJob,
    SimulationResult,
    check_candidate,
    simulate_candidate,
)
from qosforge.api.tuning.knobs import Knob, KnobSpace

#: What a candidate compile or lint refuses scores: far above any simulated one (a start with
#: every target met scores about 1; one missing each of five targets by 100 % about 51).
REFUSED_SCORE = 1000.0
#: The sampler's default seed: the same tune proposes the same points (``--search-seed``).
SAMPLER_SEED = 20151


@dataclass
class Trial:
    number: int
    values: dict[str, float]
    intent_text: str
    overrides: dict[str, Any]
    refused: str = ""
    scores: list[float] = field(default_factory=list)
    metrics: list[dict[str, dict[str, float | None]]] = field(default_factory=list)
    pruned: bool = False
    simulation_errors: list[str] = field(default_factory=list)
    simulations_so_far: int = 0
    """Simulations the tune had run when this trial finished (convergence curves)."""

    @property
    def score(self) -> float:
        if self.refused:
            return REFUSED_SCORE
        return statistics.fmean(self.scores) if self.scores else math.inf


@dataclass
class SearchLog:
    trials: list[Trial] = field(default_factory=list)
    simulations: int = 0
    simulation_cpu_s: float = 0.0
    check_cpu_s: float = 0.0


Candidate = Callable[[Mapping[str, float]], tuple[str, dict[str, Any]]]
"""Knob values -> (the candidate intent's text, its overrides)."""
Scorer = Callable[[Mapping[str, Mapping[str, float | None]]], float]


def _distribution(knob: Knob) -> Any:
    import optuna

    if knob.scale in ("int", "int-log"):
        return optuna.distributions.IntDistribution(
            int(knob.low), int(knob.high), log=knob.scale == "int-log"
        )
    return optuna.distributions.FloatDistribution(knob.low, knob.high, log=knob.scale == "log")


def simulation_jobs(
    intent_text: str,
    traffic_text: str,
    seeds: Sequence[int],
    load: float,
    measure: str,
    message_max_bytes: Mapping[str, float],
) -> list[SimulationJob]:
    return [
        SimulationJob(intent_text, traffic_text, seed, load, measure, dict(message_max_bytes))
        for seed in seeds
    ]


def run_search(
    space: KnobSpace,
    candidate: Candidate,
    start: Trial,
    *,
    budget: int,
    parallel: int,
    seeds: Sequence[int],
    job: Callable[[str, int], SimulationJob],
    scorer: Scorer,
    executor: Executor,
    intent_name: str,
    progress: Callable[[Trial, int], None],
    sampler_seed: int = SAMPLER_SEED,
    targets: tuple[str, ...] = ("sonic",),
) -> SearchLog:
    """Up to ``budget`` trials besides the start (already simulated on ``seeds``)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    distributions = {knob.name: _distribution(knob) for knob in space.knobs}
    study = optuna.create_study(
        direction="minimize",
        sampler=optuna.samplers.TPESampler(seed=sampler_seed, multivariate=True),
        pruner=optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=2),
    )
    start_params = {
        knob.name: (round(knob.start) if knob.scale != "log" else knob.start)
        for knob in space.knobs
    }
    study.add_trial(
        optuna.trial.create_trial(
            params=start_params,
            distributions=distributions,
            value=start.score,
            intermediate_values={
                i + 1: statistics.fmean(start.scores[: i + 1]) for i in range(len(start.scores))
            },
        )
    )
    log = SearchLog(trials=[start])
    done = 0
    while done < budget:
        batch = min(parallel, budget - done)
        asked = [study.ask(distributions) for _ in range(batch)]
        trials: list[tuple[Any, Trial]] = []
        for handle in asked:
            values = dict(handle.params)
            text, changes = candidate(values)
            trials.append((handle, Trial(handle.number, values, text, changes)))
        checks: list[CheckResult] = list(
            executor.map(
                check_candidate,
                [CheckJob(t.intent_text, intent_name, targets) for _, t in trials],
            )
        )
        alive: list[tuple[Any, Trial]] = []
        for (handle, trial), check in zip(trials, checks, strict=True):
            log.check_cpu_s += check.cpu_s
            if not check.ok:
                trial.refused = check.reason
                study.tell(handle, REFUSED_SCORE)
            else:
                alive.append((handle, trial))
        for step, seed in enumerate(seeds, start=1):
            if not alive:
                break
            results: list[SimulationResult] = list(
                executor.map(simulate_candidate, [job(t.intent_text, seed) for _, t in alive])
            )
            still: list[tuple[Any, Trial]] = []
            for (handle, trial), result in zip(alive, results, strict=True):
                log.simulations += 1
                log.simulation_cpu_s += result.cpu_s
                if result.error:
                    trial.simulation_errors.append(result.error)
                    trial.refused = f"simulate: {result.error}"
                    study.tell(handle, REFUSED_SCORE)
                    continue
                trial.metrics.append(result.metrics)
                trial.scores.append(scorer(result.metrics))
                handle.report(trial.score, step)
                if step < len(seeds) and handle.should_prune():
                    trial.pruned = True
                    study.tell(handle, state=optuna.trial.TrialState.PRUNED)
                    continue
                still.append((handle, trial))
            alive = still
        for handle, trial in alive:
            study.tell(handle, trial.score)
        for _, trial in trials:
            trial.simulations_so_far = len(start.scores) + log.simulations
            log.trials.append(trial)
            progress(trial, len(log.trials) - 1)
        done += batch
    return log


def best_trial(log: SearchLog, seeds: int) -> Trial:
    """The lowest mean score among trials simulated on every training seed (the start is one)."""
    complete = [t for t in log.trials if not t.refused and not t.pruned and len(t.scores) == seeds]
    return min(complete, key=lambda t: (t.score, t.number))


__all__ = [
    "REFUSED_SCORE",
    "SAMPLER_SEED",
    "SearchLog",
    "Trial",
    "best_trial",
    "run_search",
    "simulation_jobs",
]
