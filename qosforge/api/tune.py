"""``tune``: search the settings an intent leaves free for the operator's objectives on their
traffic, on the software switch, and report the change on seeds the search never saw.

The method (docs/tune.md): the free knobs (:mod:`qosforge.api.tuning.knobs`) start at the
compiled values; optuna's TPE proposes points, successive halving over the training seeds
spends the simulations (:mod:`qosforge.api.tuning.search`); every point is compiled and linted
before it is simulated (:mod:`qosforge.api.tuning.evaluate`). The best point on the training
seeds is then run with the start on the held-out seeds, and at 80 % and 120 % of the traffic's
load, and written to ``--out`` with its provenance and the configs it compiles to.
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from qosforge.api.reporting import QuietReporter, Reporter
from qosforge.api.tuning.evaluate import (
    CheckJob,
    SimulationJob,
    check_candidate,
    simulate_candidate,
)
from qosforge.api.tuning.from_gnmi import TRAFFIC_FILE, FromGnmi, GnmiSource
from qosforge.api.tuning.knobs import (
    ClassMarking,
    KnobSpace,
    apply_overrides,
    knob_space,
    overrides,
)
from qosforge.api.tuning.objectives import (
    ObjectiveSet,
    objective_set,
    primary_value,
    score,
    violations,
)
from qosforge.api.tuning.search import SAMPLER_SEED, SearchLog, Trial, best_trial, run_search
from qosforge.errors import QosforgeError
from qosforge.files import check_output_folder, write_text_atomically

#: Default training and held-out seeds: two to train on keeps a tune of roce-pod within minutes;
#: three held out give a spread.
DEFAULT_SEEDS = (1, 2)
DEFAULT_HOLDOUT = (101, 102, 103)
DEFAULT_BUDGET = 24
#: Robustness: the traffic's load scaled by these factors (the issue's ±20 %).
LOAD_FACTORS = (0.8, 1.2)
MAX_BUDGET = 10_000


@dataclass(frozen=True)
class TuneRequest:
    """Every ``qosforge tune`` input, as typed (paths, flag texts)."""

    intent_path: str
    traffic_path: str
    out_dir: str
    objectives: tuple[str, ...] = ()
    minimize: str | None = None
    budget: int = DEFAULT_BUDGET
    seeds: tuple[int, ...] = DEFAULT_SEEDS
    holdout: tuple[int, ...] = DEFAULT_HOLDOUT
    measure: str | None = None
    free: tuple[str, ...] = ()
    workers: int = 1
    scheduler: str | None = None
    robustness: bool = True
    search_seed: int = SAMPLER_SEED
    """The TPE sampler's seed (its first trials are random draws from it)."""
    from_gnmi: GnmiSource | None = None
    """Build the traffic from a running fabric's counters instead of ``traffic_path``."""


@dataclass(frozen=True)
class MetricChange:
    """One metric of one class, start and tuned, over the held-out seeds (mean and sample
    standard deviation; std 0 for a single seed)."""

    name: str
    before_mean: float | None
    before_std: float | None
    after_mean: float | None
    after_std: float | None


@dataclass
class TuneResult:
    objectives: ObjectiveSet
    space: KnobSpace
    start: Trial
    best: Trial
    log: SearchLog
    holdout_before: list[dict[str, dict[str, float | None]]]
    holdout_after: list[dict[str, dict[str, float | None]]]
    score_before: float
    score_after: float
    changes: list[MetricChange]
    robustness: dict[str, dict[str, float]]
    """load factor -> {"before": score, "after": score} on the held-out seeds."""
    wall_s: float
    cpu_s: float
    out_dir: Path
    notes: list[str] = field(default_factory=list)
    from_gnmi: FromGnmi | None = None

    def document(self) -> dict[str, Any]:
        """The JSON document ``--format json`` prints and ``tune.json`` holds."""
        return {
            **({"from_gnmi": self.from_gnmi.document()} if self.from_gnmi is not None else {}),
            "objectives": {"source": self.objectives.source, "targets": self.objectives.describe()},
            "knobs": [
                {
                    "name": k.name,
                    "low": k.low,
                    "high": k.high,
                    "start": k.start,
                    "scale": k.scale,
                    "unit": k.unit,
                }
                for k in self.space.knobs
            ],
            "left_out": list(self.space.left_out),
            "start": {"values": self.start.values, "train_score": self.start.score},
            "best": {
                "trial": self.best.number,
                "values": self.best.values,
                "overrides": self.best.overrides,
                "train_score": self.best.score,
            },
            "trials": [
                {
                    "trial": t.number,
                    "values": t.values,
                    "scores": t.scores,
                    "score": None if math.isinf(t.score) else t.score,
                    "primary": _mean_known([primary_value(self.objectives, m) for m in t.metrics]),
                    "violation": _mean_known(
                        [sum(violations(self.objectives, m).values()) for m in t.metrics]
                    ),
                    "simulations_so_far": t.simulations_so_far,
                    "refused": t.refused or None,
                    "pruned": t.pruned,
                }
                for t in self.log.trials
            ],
            "simulations": self.log.simulations,
            "held_out": {
                "score_before": self.score_before,
                "score_after": self.score_after,
                "metrics": [vars(change) for change in self.changes],
            },
            "robustness": self.robustness,
            "wall_seconds": self.wall_s,
            "cpu_seconds": self.cpu_s,
            "simulation_cpu_seconds": self.log.simulation_cpu_s,
            "check_cpu_seconds": self.log.check_cpu_s,
            "out": str(self.out_dir),
            "notes": self.notes,
        }


def _mean_known(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known and len(known) == len(values) else None


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.width = 4096
    return yaml


def _dump(document: Any) -> str:
    stream = io.StringIO()
    _yaml().dump(document, stream)
    return stream.getvalue()


def compiled_markings(fabric: Any) -> tuple[list[ClassMarking], float]:
    """Each class's compiled marking per port speed (its WRED green curve: the marking SAI
    programs) and the lossy dynamic-threshold alpha, from the first switch that has it."""
    from qosforge.defaults import DEFAULT_ALPHA

    seen: dict[tuple[str, float], ClassMarking] = {}
    alpha = DEFAULT_ALPHA
    for switch in fabric.switches:
        wred = {profile.name: profile for profile in switch.wred_profiles}
        bdp = {(c.name, c.rate_bps): c for c in switch.classes}
        for port in switch.ports:
            for queue in port.queues:
                key = (queue.class_name, port.speed_bps)
                if queue.wred_profile is None or key in seen or key not in bdp:
                    continue
                curve = next((c for c in wred[queue.wred_profile].curves if c.mark), None)
                if curve is None:
                    continue
                seen[key] = ClassMarking(
                    queue.class_name,
                    bdp[key].transport,
                    port.speed_bps,
                    curve.min_bytes.value,
                    curve.max_bytes.value,
                    curve.probability_percent.value,
                    bdp[key].bdp_bytes.value,
                )
        for profile in switch.buffer_profiles:
            if (
                profile.xoff_bytes is None
                and profile.dynamic_th is not None
                and profile.name.startswith("ingress_lossy")
            ):
                alpha = 2.0**profile.dynamic_th.value
    order = [c.name for c in fabric.switches[0].classes]
    markings = sorted(
        seen.values(),
        key=lambda m: (order.index(m.class_name) if m.class_name in order else 99, -m.speed_bps),
    )
    return markings, alpha


def _dask_executor(scheduler: str) -> Executor:
    """A Dask cluster's concurrent.futures executor (distributed.Client.get_executor); the
    client closes with the process."""
    from distributed import Client

    try:
        client = Client(scheduler, timeout=10, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as error:
        raise QosforgeError(
            f"cannot reach {scheduler}: {error}",
            place="--scheduler",
            hint="start a scheduler, or drop --scheduler for local workers (docs/campaigns.md)",
        ) from None
    executor: Executor = client.get_executor()  # type: ignore[no-untyped-call]
    return executor


@contextmanager
def default_executor(workers: int, scheduler: str | None) -> Iterator[Executor]:
    """Local worker processes (forked from this process, which has imported what a point needs,
    as campaigns/local_pool.py explains), or a Dask cluster's executor."""
    if scheduler is not None:
        yield _dask_executor(scheduler)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    if workers <= 1:
        with ThreadPoolExecutor(1) as executor:
            yield executor
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method)) as pool:
        yield pool


def parse_seeds(text: str, flag: str) -> tuple[int, ...]:
    """``N`` (seeds 1..N) or ``a,b,c``; every seed within the engine's 32 bits."""
    from qosforge.softswitch.traffic.spec import MAX_SEED

    items = [item.strip() for item in text.split(",") if item.strip()]
    try:
        numbers = [int(item) for item in items]
    except ValueError:
        raise QosforgeError(
            f"{text!r} is not N or a list of seeds",
            place=flag,
            hint="e.g. 2 (seeds 1, 2) or 101,102,103",
        ) from None
    if not numbers:
        raise QosforgeError("no seed given", place=flag, hint="e.g. 2 (seeds 1, 2) or 101,102,103")
    seeds = (
        tuple(range(1, numbers[0] + 1))
        if len(numbers) == 1 and flag == "--seeds"
        else tuple(numbers)
    )
    if (
        not seeds
        or any(not 0 <= seed <= MAX_SEED for seed in seeds)
        or len(set(seeds)) != len(seeds)
    ):
        raise QosforgeError(
            f"{text!r}: seeds are distinct numbers 0 to {MAX_SEED}"
            + (" (N at least 1)" if flag == "--seeds" else ""),
            place=flag,
            hint="e.g. 2 (seeds 1, 2) or 101,102,103",
        )
    return seeds


def _check_request(request: TuneRequest) -> None:
    if not 0 <= request.budget <= MAX_BUDGET:
        raise QosforgeError(
            f"must be 0 to {MAX_BUDGET:,} trials (got {request.budget})",
            place="--budget",
            hint="e.g. --budget 24",
        )
    if not request.seeds:
        raise QosforgeError("no training seed", place="--seeds", hint="e.g. --seeds 1,2")
    if set(request.seeds) & set(request.holdout):
        raise QosforgeError(
            f"seeds {sorted(set(request.seeds) & set(request.holdout))} are both trained on "
            "and held out",
            place="--holdout",
            hint="held-out seeds must be ones the search never saw, e.g. --holdout 101,102,103",
        )
    if not request.holdout:
        raise QosforgeError(
            "no held-out seed", place="--holdout", hint="e.g. --holdout 101,102,103"
        )
    if request.workers < 1:
        raise QosforgeError(
            f"must be at least 1 (got {request.workers})",
            place="--workers",
            hint="e.g. --workers 2",
        )
    if not request.out_dir.strip():
        raise QosforgeError(
            "the output folder is empty", place="--out", hint="name a folder, e.g. --out tuned"
        )
    out = Path(request.out_dir)
    if out.exists() and (
        not out.is_dir() or (any(out.iterdir()) and not (out / "tune.json").is_file())
    ):
        raise QosforgeError(
            f"{out} exists and is not an earlier tune's folder",
            place="--out",
            hint="give a new folder, or an earlier tune's to replace it",
        )
    # Before the search, not after it: a folder the results cannot go to would otherwise be
    # found only once every simulation has run (a missing parent, /proc, a read-only mount).
    check_output_folder(out, flag="--out")


def _cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (the local worker
    processes, joined when their pool closes)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _existing(name: str, place: str, hint: str) -> Path:
    path = Path(name)
    if not path.is_file():
        raise QosforgeError(f"no such file: {path}", place=place, hint=hint)
    return path


def _mean_std(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    known = [v for v in values if v is not None]
    if not known or len(known) < len(values):
        return None, None
    return statistics.fmean(known), statistics.stdev(known) if len(known) > 1 else 0.0


def _changes(
    objectives: ObjectiveSet,
    before: list[dict[str, dict[str, float | None]]],
    after: list[dict[str, dict[str, float | None]]],
) -> list[MetricChange]:
    out: list[MetricChange] = []
    names = sorted({name for run in before for name in run})
    for name in names:
        for metric in (
            "fct_p99_us",
            "goodput_percent",
            "lossless_drops",
            "pfc_pause_percent",
            "queue_delay_p99_us",
        ):
            b = _mean_std([run.get(name, {}).get(metric) for run in before])
            a = _mean_std([run.get(name, {}).get(metric) for run in after])
            out.append(MetricChange(f"{name}.{metric}", b[0], b[1], a[0], a[1]))
    return out


def tune(
    request: TuneRequest,
    reporter: Reporter,
    executor_factory: Callable[[int, str | None], Any] = default_executor,
) -> TuneResult:
    """Search, evaluate on held-out seeds, and write ``--out`` (module docstring); with
    ``from_gnmi``, first build the traffic from the fabric's counters and compare today's
    prediction with them (:mod:`qosforge.api.tuning.from_gnmi`)."""
    from qosforge.api.compile import compile_fabric

    wall_started, cpu_started = time.perf_counter(), _cpu_s()
    _check_request(request)
    if request.from_gnmi is not None and request.traffic_path:
        raise QosforgeError(
            "give the traffic to tune for once: a traffic file or the switches to read",
            place="--from-gnmi",
            hint="drop --traffic or --from-gnmi",
        )
    intent_path = _existing(
        request.intent_path, "INTENT", "give an intent YAML, e.g. examples/roce-pod.yaml"
    )
    compiled = compile_fabric(str(intent_path))
    if request.from_gnmi is None:
        return _tune(request, reporter, executor_factory, compiled, (wall_started, cpu_started))
    from qosforge.api.tuning.from_gnmi import traffic_from_gnmi

    with tempfile.TemporaryDirectory(prefix="qosforge-tune-gnmi-") as folder:
        with reporter.progress(
            f"reading {', '.join(request.from_gnmi.switches)} for {request.from_gnmi.window}, "
            "then simulating today's config on the traffic built from it"
        ):
            gnmi = traffic_from_gnmi(
                request.from_gnmi, intent_path, compiled, request.seeds[0], Path(folder)
            )
        reporter.note(
            f"tune: {gnmi.built.flows} flows built from the counters of "
            f"{', '.join(request.from_gnmi.switches)} ({gnmi.observed.window_s:.6g} s of device "
            f"time); today's prediction compared on {len(gnmi.check.compared)} queues"
        )
        warning = gnmi.warning()
        if warning is not None:
            reporter.note(warning)
        return _tune(
            replace(request, traffic_path=str(gnmi.traffic_path)),
            reporter,
            executor_factory,
            compiled,
            (wall_started, cpu_started),
            gnmi,
        )


def _tune(
    request: TuneRequest,
    reporter: Reporter,
    executor_factory: Callable[[int, str | None], Any],
    compiled: Any,
    started: tuple[float, float],
    gnmi: FromGnmi | None = None,
) -> TuneResult:
    from qosforge.softswitch.traffic.traffic_file import load_traffic

    wall_started, cpu_started = started
    intent_path = Path(request.intent_path)
    traffic_path = _existing(
        request.traffic_path,
        "--traffic",
        'give a traffic file (docs/softswitch.md "Your own traffic")',
    )
    traffic_file = load_traffic(traffic_path)
    if traffic_path.suffix.lower() == ".csv":
        raise QosforgeError(
            "tune scales a YAML traffic file's arrival windows; a CSV has none",
            place="--traffic",
            hint='give the traffic as YAML entries (docs/softswitch.md "Your own traffic")',
        )
    measure = request.measure or "0s:10ms"
    if request.measure is None and traffic_file.measure_s is not None:
        start_s, end_s = traffic_file.measure_s
        measure = f"{start_s * 1e6:.9g}us:{end_s * 1e6:.9g}us"
    intent_text = intent_path.read_text(encoding="utf-8")
    # The compiler loader's own round-trip document (comments and order kept; its duplicate-key
    # and field checks already passed): every candidate is a copy of it with the knobs set.
    intent_yaml = compiled.source_map.root
    # Every target the intent deploys to, and SONiC for lint: a target's capability view or
    # renderer may refuse a point another takes, at little cost (roce-pod: 45 ms of CPU per
    # candidate for sonic, sai and openconfig, 24 ms for sonic alone).
    targets = tuple(dict.fromkeys(("sonic", *compiled.intent.targets)))
    classes = [(spec.name, spec.lossless) for spec in compiled.intent.classes]
    objectives = objective_set(
        request.objectives, request.minimize, compiled.intent.objectives, classes
    )
    markings, alpha = compiled_markings(compiled.fabric)
    space = knob_space(intent_yaml, markings, alpha, request.free)
    if not space.knobs:
        raise QosforgeError(
            "the intent leaves no knob free: every marking and design.alpha is stated",
            place="INTENT",
            hint="remove a stated block, or give --free classes.NAME.dcqcn|ecn "
            "or --free design.alpha",
        )
    traffic_text = traffic_path.read_text(encoding="utf-8")
    message_max = {name: objectives.message_max_bytes(name) for name, _ in classes}

    def candidate(values: Mapping[str, float]) -> tuple[str, dict[str, Any]]:
        changes = overrides(space, values)
        document = copy.deepcopy(intent_yaml)
        apply_overrides(document, changes)
        return _dump(document), changes

    def job(text: str, seed: int, load: float = 1.0) -> SimulationJob:
        return SimulationJob(text, traffic_text, seed, load, measure, message_max)

    start_text, start_changes = candidate(space.start())
    start = Trial(0, space.start(), start_text, start_changes)
    notes: list[str] = []
    if gnmi is not None and gnmi.warning() is not None:
        notes.append(
            f"today's prediction departs from the counters on {len(gnmi.check.departures)} "
            f"metric(s) beyond {gnmi.check.tolerance:.0%}: "
            + "; ".join(d.line() for d in gnmi.check.departures[:3])
        )
    with executor_factory(request.workers, request.scheduler) as executor:
        check = check_candidate(CheckJob(intent_text, intent_path.name, targets))
        if not check.ok:
            raise QosforgeError(
                f"the intent itself does not pass: {check.reason}",
                place="INTENT",
                hint="fix it with qosforge compile and qosforge lint --intent first",
            )
        reporter.note(
            f"tune: {len(space.knobs)} knobs ({', '.join(k.name for k in space.knobs)}); "
            f"objectives from {objectives.source}: " + "; ".join(objectives.describe())
        )
        with reporter.progress(
            f"simulating the start on seeds {', '.join(map(str, request.seeds))}"
        ):
            start_runs = list(
                executor.map(simulate_candidate, [job(start_text, seed) for seed in request.seeds])
            )
        errors = [run.error for run in start_runs if run.error]
        if errors:
            raise QosforgeError(
                f"the traffic does not run on the intent: {errors[0]}",
                place="--traffic",
                hint="check it with qosforge simulate INTENT --traffic FILE",
            )
        start.metrics = [run.metrics for run in start_runs]
        primaries = [primary_value(objectives, metrics) for metrics in start.metrics]
        if any(value is None for value in primaries):
            name, metric = objectives.minimize
            raise QosforgeError(
                f"{name}.{metric} is not measured on the start: the traffic has no finished "
                f"message of class {name!r} "
                f"up to {objectives.message_max_bytes(name) / 1e3:g} kB",
                place="--minimize",
                hint="minimise a metric the traffic measures, or add short messages of the "
                "class to the traffic file",
            )
        primary_at_start = statistics.fmean(value for value in primaries if value is not None)

        def scorer(metrics: Mapping[str, Mapping[str, float | None]]) -> float:
            return score(objectives, metrics, primary_at_start)

        start.scores = [scorer(metrics) for metrics in start.metrics]
        log = SearchLog(
            simulations=len(start_runs), simulation_cpu_s=sum(run.cpu_s for run in start_runs)
        )
        start.simulations_so_far = log.simulations

        def progress(trial: Trial, index: int) -> None:
            state = (
                f"refused ({trial.refused})"
                if trial.refused
                else "pruned"
                if trial.pruned
                else f"score {trial.score:.3f}"
            )
            reporter.note(f"tune: trial {index}/{request.budget}: {state}")

        searched = run_search(
            space,
            candidate,
            start,
            budget=request.budget,
            parallel=request.workers,
            seeds=request.seeds,
            job=job,
            scorer=scorer,
            executor=executor,
            intent_name=intent_path.name,
            progress=progress,
            sampler_seed=request.search_seed,
            targets=targets,
        )
        log.trials = searched.trials
        log.simulations += searched.simulations
        log.simulation_cpu_s += searched.simulation_cpu_s
        log.check_cpu_s += searched.check_cpu_s + check.cpu_s
        best = best_trial(log, len(request.seeds))
        with reporter.progress(f"held-out seeds {', '.join(map(str, request.holdout))}"):
            jobs = [
                job(text, seed)
                for text in (start_text, best.intent_text)
                for seed in request.holdout
            ]
            runs = list(executor.map(simulate_candidate, jobs))
        log.simulations += len(runs)
        log.simulation_cpu_s += sum(run.cpu_s for run in runs)
        failed = [run.error for run in runs if run.error]
        if failed:
            raise QosforgeError(
                f"a held-out run failed: {failed[0]}",
                place="--holdout",
                hint="check the traffic with qosforge simulate",
            )
        holdout_before = [run.metrics for run in runs[: len(request.holdout)]]
        holdout_after = [run.metrics for run in runs[len(request.holdout) :]]
        score_before = statistics.fmean(scorer(m) for m in holdout_before)
        score_after = statistics.fmean(scorer(m) for m in holdout_after)
        robustness: dict[str, dict[str, float]] = {}
        if request.robustness:
            with reporter.progress("robustness at 80 % and 120 % load"):
                jobs = [
                    job(text, seed, load)
                    for load in LOAD_FACTORS
                    for text in (start_text, best.intent_text)
                    for seed in request.holdout
                ]
                runs = list(executor.map(simulate_candidate, jobs))
            log.simulations += len(runs)
            log.simulation_cpu_s += sum(run.cpu_s for run in runs)
            size = len(request.holdout)
            for index, load in enumerate(LOAD_FACTORS):
                part = runs[index * 2 * size : (index + 1) * 2 * size]
                if any(run.error for run in part):
                    notes.append(
                        f"at {load:.0%} load a run failed: "
                        f"{next(run.error for run in part if run.error)}"
                    )
                    continue
                robustness[f"{load:g}"] = {
                    "before": statistics.fmean(scorer(run.metrics) for run in part[:size]),
                    "after": statistics.fmean(scorer(run.metrics) for run in part[size:]),
                }
    if best.number == 0:
        notes.append("no trial beat the compiled start on the training seeds: the start is kept")
    result = TuneResult(
        objectives,
        space,
        start,
        best,
        log,
        holdout_before,
        holdout_after,
        score_before,
        score_after,
        _changes(objectives, holdout_before, holdout_after),
        robustness,
        time.perf_counter() - wall_started,
        0.0,
        Path(request.out_dir),
        notes,
        gnmi,
    )
    # The cluster's processes are not ours to measure: add the CPU each job reported (the first
    # check ran here and is in _cpu_s already).
    remote_cpu_s = (
        log.simulation_cpu_s + log.check_cpu_s - check.cpu_s
        if request.scheduler is not None
        else 0.0
    )
    result.cpu_s = _cpu_s() - cpu_started + remote_cpu_s
    _write_out(result, request, intent_yaml)
    result.wall_s = time.perf_counter() - wall_started
    result.cpu_s = _cpu_s() - cpu_started + remote_cpu_s  # with the final compile, for the summary
    # tune.json is the document --format json prints: the same seconds, the final compile's
    # included (written in place: the folder itself is complete already).
    write_text_atomically(Path(request.out_dir) / "tune.json", _document_text(result))
    return result


def _document_text(result: TuneResult) -> str:
    return json.dumps(result.document(), indent=2, default=str) + "\n"


def provenance_lines(result: TuneResult, request: TuneRequest) -> list[str]:
    seeds = ", ".join(map(str, request.seeds))
    holdout = ", ".join(map(str, request.holdout))
    lines = [
        f"found by qosforge tune: {result.log.simulations} simulations of "
        f"{Path(request.traffic_path).name} "
        f"({len(result.log.trials) - 1} trials, trial {result.best.number} best)",
        f"objective ({'; '.join(result.objectives.describe())}): "
        f"score {result.score_before:.3f} -> {result.score_after:.3f} on held-out seeds {holdout} "
        f"(trained on seeds {seeds}; lower is better, the start's primary metric is 1)",
    ]
    gnmi = result.from_gnmi
    if gnmi is not None and request.from_gnmi is not None:
        departures = len(gnmi.check.departures)
        lines.append(
            f"traffic built from the counters of {', '.join(request.from_gnmi.switches)} over "
            f"{gnmi.observed.window_s:.6g} s of their clocks; today's prediction "
            + (
                f"departed from them on {departures} metric(s) beyond "
                f"{gnmi.check.tolerance:.0%}"
                if departures
                else f"agreed with them within {gnmi.check.tolerance:.0%}"
            )
            + " (tune.json from_gnmi)"
        )
    return lines


def _write_out(result: TuneResult, request: TuneRequest, intent_yaml: Any) -> None:
    """Everything ``--out`` holds, written to a sibling folder first and moved into place, so a
    failed tune leaves no partial folder: overrides.yaml, tuned-intent.yaml, configs/ and
    tune.json."""
    from qosforge.api.compile import CompileRequest, compile_to_folder

    out = Path(request.out_dir)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        header = "".join(f"# {line}\n" for line in provenance_lines(result, request))
        (staging / "overrides.yaml").write_text(
            header + _dump(result.best.overrides or {}), encoding="utf-8"
        )
        document = copy.deepcopy(intent_yaml)
        apply_overrides(document, result.best.overrides)
        tuned = staging / "tuned-intent.yaml"
        tuned.write_text(header + _dump(document), encoding="utf-8")
        compile_to_folder(
            CompileRequest(intent_path=str(tuned), output_dir=str(staging / "configs")),
            QuietReporter(),
        )
        if result.from_gnmi is not None:
            (staging / TRAFFIC_FILE).write_text(result.from_gnmi.traffic_text, encoding="utf-8")
        (staging / "tune.json").write_text(_document_text(result), encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_HOLDOUT",
    "DEFAULT_SEEDS",
    "LOAD_FACTORS",
    "MetricChange",
    "TuneRequest",
    "TuneResult",
    "compiled_markings",
    "default_executor",
    "parse_seeds",
    "provenance_lines",
    "tune",
]
