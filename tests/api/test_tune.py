"""``qosforge.api.tune``: a small tune end to end, the search's guarantees, and bad input."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from qosforge.api.reporting import QuietReporter
from qosforge.api.tune import TuneRequest, parse_seeds, tune
from qosforge.api.tuning import search
from qosforge.api.tuning.evaluate import CheckResult, SimulationJob, SimulationResult
from qosforge.api.tuning.knobs import ClassMarking, knob_space
from qosforge.compiler.loader import load_intent
from qosforge.errors import QosforgeError

ROOT = Path(__file__).resolve().parents[2]
ROCE_POD = ROOT / "examples" / "roce-pod.yaml"
TRAFFIC = ROOT / "examples" / "roce-pod-mixed.traffic.yaml"


def test_a_small_tune_writes_compiling_overrides_with_provenance(tmp_path: Path) -> None:
    out = tmp_path / "tuned"
    result = tune(
        TuneRequest(
            intent_path=str(ROCE_POD),
            traffic_path=str(TRAFFIC),
            out_dir=str(out),
            budget=2,
            seeds=(1,),
            holdout=(101,),
            workers=1,
            robustness=False,
        ),
        QuietReporter(),
    )
    document = result.document()
    start, trials = document["trials"][0], document["trials"]
    # Trial 0 is the compiled start: DCQCN 12.5 kB / 500 kB / 1 % and DCTCP's K of 64.5 kB.
    assert (
        start["values"]["rdma.dcqcn.min"] == 12500 and start["values"]["tcp.ecn@100G.min"] == 64500
    )
    assert (
        len(trials) == 3
        and document["simulations"] == 1 + sum(len(t["scores"]) for t in trials[1:]) + 2
    )
    assert (
        result.best.score <= result.start.score
    )  # the start competes, so the result is never worse on training seeds
    assert {path.name for path in out.iterdir()} == {
        "overrides.yaml",
        "tuned-intent.yaml",
        "configs",
        "tune.json",
    }
    header = (out / "overrides.yaml").read_text().splitlines()[0]
    assert (
        header == f"# found by qosforge tune: {document['simulations']} simulations of "
        f"roce-pod-mixed.traffic.yaml (2 trials, trial {result.best.number} best)"
    )
    tuned, _ = load_intent(out / "tuned-intent.yaml")
    rdma = next(spec for spec in tuned.classes if spec.name == "rdma")
    assert rdma.dcqcn is not None and rdma.dcqcn.kmin == round(result.best.values["rdma.dcqcn.min"])
    assert (out / "configs" / "leaf1" / "config_db.json").is_file() and (
        out / "configs" / "leaf1" / "sai.json"
    ).is_file()
    before = result.holdout_before[0]["rdma"]["fct_p99_us"]
    assert before is not None and before > 0
    # The held-out score: the start's metric on seed 101 relative to its mean on the training seed.
    assert result.score_before == pytest.approx(
        before / result.start.metrics[0]["rdma"]["fct_p99_us"], rel=1e-9
    )


def test_a_refused_candidate_is_never_simulated(monkeypatch: pytest.MonkeyPatch) -> None:
    simulated: list[SimulationJob] = []
    checked: list[Any] = []

    def refuse(job: Any) -> CheckResult:
        checked.append(job)
        return CheckResult(False, "lint: pfc-headroom: too small", 0.0)

    def run(job: SimulationJob) -> SimulationResult:
        simulated.append(job)
        return SimulationResult({"rdma": {"fct_p99_us": 1.0}}, 0.0)

    monkeypatch.setattr(search, "check_candidate", refuse)
    monkeypatch.setattr(search, "simulate_candidate", run)
    space = knob_space(
        YAML().load(ROCE_POD.read_text()),
        (ClassMarking("rdma", "dcqcn", 100e9, 12500, 500000, 1, 106336),),
        1.0,
    )
    start = search.Trial(0, space.start(), "", {}, scores=[1.0])
    with ThreadPoolExecutor(2) as executor:
        log = search.run_search(
            space,
            lambda values: ("intent", {}),
            start,
            budget=4,
            parallel=2,
            seeds=(1, 2),
            job=lambda text, seed: SimulationJob(text, "", seed, 1.0, "0s:1ms", {}),
            scorer=lambda m: 1.0,
            executor=executor,
            intent_name="i.yaml",
            progress=lambda trial, index: None,
            targets=("sonic", "sai", "openconfig"),
        )
    assert simulated == [] and log.simulations == 0
    assert [job.targets for job in checked] == [("sonic", "sai", "openconfig")] * 4
    assert [t.refused for t in log.trials[1:]] == ["lint: pfc-headroom: too small"] * 4
    assert search.best_trial(log, 1) is start


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"budget": -1}, "--budget: must be 0 to 10,000 trials (got -1)"),
        (
            {"seeds": (1, 2), "holdout": (2, 3)},
            "--holdout: seeds [2] are both trained on and held out",
        ),
        ({"workers": 0}, "--workers: must be at least 1 (got 0)"),
        (
            {"objectives": ("class=bulk,fct_p99_us<=5",)},
            "--objective: no class 'bulk' in the intent",
        ),
        ({"traffic_path": "missing.yaml"}, "--traffic: no such file: missing.yaml"),
    ],
)
def test_bad_requests_name_the_flag_and_write_nothing(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    out = tmp_path / "tuned"
    request = TuneRequest(
        **{
            "intent_path": str(ROCE_POD),
            "traffic_path": str(TRAFFIC),
            "out_dir": str(out),
            **change,
        }
    )
    with pytest.raises(QosforgeError) as caught:
        tune(request, QuietReporter())
    assert f"{caught.value.place}: {caught.value.message}" == message
    assert list(tmp_path.iterdir()) == []


def test_an_out_folder_that_is_not_a_tune_is_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(QosforgeError, match="is not an earlier tune's folder"):
        tune(
            TuneRequest(
                intent_path=str(ROCE_POD), traffic_path=str(TRAFFIC), out_dir=str(tmp_path)
            ),
            QuietReporter(),
        )
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    ("text", "flag", "seeds"),
    [("3", "--seeds", (1, 2, 3)), ("5,9", "--seeds", (5, 9)), ("7", "--holdout", (7,))],
)
def test_seeds_are_a_count_or_a_list(text: str, flag: str, seeds: tuple[int, ...]) -> None:
    assert parse_seeds(text, flag) == seeds


@pytest.mark.parametrize("text", ["", "a", "1,1", "-1,2", "0"])
def test_bad_seeds_are_refused(text: str) -> None:
    with pytest.raises(QosforgeError):
        parse_seeds(text, "--seeds")


def test_a_tune_runs_on_a_dask_cluster(tmp_path: Path) -> None:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        result = tune(
            TuneRequest(
                intent_path=str(ROCE_POD),
                traffic_path=str(TRAFFIC),
                out_dir=str(tmp_path / "tuned"),
                budget=1,
                seeds=(1,),
                holdout=(101,),
                robustness=False,
                scheduler=cluster.scheduler_address,
            ),
            QuietReporter(),
        )
    # The start, one trial on the training seed at most, and two held-out runs, all on the cluster.
    assert 3 <= result.log.simulations <= 4 and (tmp_path / "tuned" / "tune.json").is_file()
    assert result.holdout_before[0]["rdma"]["fct_p99_us"] is not None
