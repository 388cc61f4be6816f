"""Dask: an existing cluster by address, and the errors for a bad or unreachable one."""

from __future__ import annotations

import os
import urllib.request

import pytest

from qosforge.campaigns import runner
from qosforge.campaigns.execute import PointOutcome
from qosforge.campaigns.local_pool import LocalPool
from qosforge.campaigns.point import PointSpec
from qosforge.campaigns.runner import ClusterChoice, check_scheduler_address, connect, run_points
from qosforge.errors import QosforgeError


def _specs() -> list[PointSpec]:
    return [PointSpec(("whatif", "dctcp"), {"rtt": rtt}, ("--speed", "10G", "--rtt", rtt), fields={"rate_bps": "10G", "rtt_s": rtt})
            for rtt in ("10us", "100us", "1ms")]


def test_points_run_on_an_existing_scheduler() -> None:
    from distributed import LocalCluster  # here, not at collection: ~0.3 CPU s in every worker

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, host="127.0.0.1", protocol="tcp://", dashboard_address=None) as cluster:
        outcomes: dict[str, PointOutcome] = {}
        with connect(ClusterChoice(workers=1, scheduler=cluster.scheduler_address)) as client:
            run_points(client, _specs(), lambda spec, outcome: outcomes.__setitem__(spec.params["rtt"], outcome))
    assert set(outcomes) == {"10us", "100us", "1ms"} and all(outcome.error is None for outcome in outcomes.values())
    # DCTCP §3.4 eq. 13: C·RTT/7 packets grows with the RTT.
    bounds = [outcomes[rtt].result["stability_bound_packets"] for rtt in ("10us", "100us", "1ms")]  # type: ignore[index]
    assert bounds[0] < bounds[1] < bounds[2]


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "http://h:1", "tcp://h", "tcp://h:99999", "tcp://a b:1"])
def test_malformed_addresses(address: str) -> None:
    with pytest.raises(QosforgeError, match="tcp://HOST:PORT"):
        check_scheduler_address(address)


def test_an_unreachable_scheduler_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", 0.5)
    with pytest.raises(QosforgeError, match="cannot reach the scheduler") as raised, connect(ClusterChoice(workers=1, scheduler="tcp://127.0.0.1:9")):
        pass
    assert raised.value.place == "--scheduler"


def test_the_dashboard_cluster_is_loopback_only_and_runs_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "LOCAL_PROCESSES", False)
    monkeypatch.setattr(runner, "DASHBOARD_ADDRESS", "127.0.0.1:0")
    outcomes: list[PointOutcome] = []
    with connect(ClusterChoice(workers=1, dashboard=True), _specs()) as point_runner:
        assert isinstance(point_runner, runner.DaskRunner)
        client = point_runner.client
        assert client.scheduler.address.startswith("tcp://127.0.0.1:")
        port = client.scheduler_info()["services"]["dashboard"]
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5).status == 200
        run_points(point_runner, _specs(), lambda spec, outcome: outcomes.append(outcome))
    assert len(outcomes) == 3 and all(outcome.error is None for outcome in outcomes)


def test_local_workers_are_forked_processes_without_dask() -> None:
    outcomes: list[PointOutcome] = []
    with connect(ClusterChoice(workers=2), _specs()) as point_runner:
        assert isinstance(point_runner, LocalPool) and point_runner.workers == 2
        run_points(point_runner, _specs(), lambda spec, outcome: outcomes.append(outcome))
    assert len(outcomes) == 3 and all(outcome.error is None for outcome in outcomes)
    assert all(not outcome.timing["worker"].endswith(f":{os.getpid()}") for outcome in outcomes)


def _die(spec: PointSpec) -> PointOutcome:
    os._exit(3)  # a worker killed mid-point (out of memory, kill -9)


def test_a_dead_local_worker_fails_its_points_and_the_sweep_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from qosforge.campaigns import local_pool

    monkeypatch.setattr(local_pool, "run_point", _die)
    outcomes: list[PointOutcome] = []
    with connect(ClusterChoice(workers=1), ()) as point_runner:
        run_points(point_runner, _specs(), lambda spec, outcome: outcomes.append(outcome))
    assert len(outcomes) == 3 and all(outcome.error is not None and outcome.error.startswith("worker failure (BrokenProcessPool") for outcome in outcomes)
