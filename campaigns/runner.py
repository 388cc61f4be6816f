"""Where points run: local worker processes forked from this one (the default), or Dask.

Locally, ``--workers N`` forks N single-threaded processes from the sweep's own process once it
has imported everything a point needs (campaigns/local_pool.py says why not a Dask
``LocalCluster``: start-up). ``--scheduler ADDRESS`` submits to an existing Dask cluster, which
does the distribution (scheduling, retries of lost workers) across machines; ``--dashboard``
runs a local Dask cluster, workers forked the same way, to watch it in Dask's dashboard. Either
way one task per point, handed back as it completes.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from qosforge.campaigns.execute import PointOutcome, run_point
from qosforge.campaigns.local_pool import LocalPool
from qosforge.campaigns.point import PointSpec
from qosforge.campaigns.warm import warm_up
from qosforge.errors import QosforgeError

#: Local workers are processes; the tests switch this off to run workers as threads in-process.
LOCAL_PROCESSES = True
#: Where ``--dashboard`` serves Dask's dashboard (the tests move it to a free port).
DASHBOARD_ADDRESS = "127.0.0.1:8787"
#: How long to wait for a remote scheduler to answer, and for it to have a worker.
CONNECT_TIMEOUT_S = 10.0

_SCHEDULER_ADDRESS = re.compile(r"^(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")
_SCHEDULER_HINT = "start one with 'dask scheduler' and 'dask worker tcp://HOST:8786' (docs/campaigns.md), or drop --scheduler to run locally"


@dataclass(frozen=True)
class ClusterChoice:
    """``--workers N`` for a local cluster, or ``--scheduler ADDRESS`` for an existing one."""

    workers: int
    scheduler: str | None = None
    dashboard: bool = False


def check_scheduler_address(address: str) -> None:
    match = _SCHEDULER_ADDRESS.match(address)
    if match is None or not 0 < int(match.group(3)) < 65536:
        raise QosforgeError(f"{address!r} is not tcp://HOST:PORT", place="--scheduler", hint="e.g. --scheduler tcp://10.0.0.5:8786")


class DaskRunner:
    """Points as Dask tasks on ``client``'s cluster, keyed by the point's id."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def run(self, specs: Sequence[PointSpec], on_done: Callable[[PointSpec, PointOutcome], None]) -> None:
        from distributed import as_completed

        by_key = {f"qosforge-point-{spec.point_id}": spec for spec in specs}
        futures = self.client.map(run_point, list(by_key.values()), key=list(by_key))
        for future in as_completed(futures, loop=self.client.loop):
            spec = by_key[future.key]
            try:
                outcome: PointOutcome = future.result()
            except Exception as error:  # the worker died or the task could not run: this point failed
                outcome = PointOutcome(point_id=spec.point_id, result=None, error=f"worker failure ({type(error).__name__}: {error})",
                                       timing={"worker": "unknown"})
            on_done(spec, outcome)


PointRunner = LocalPool | DaskRunner


@contextmanager
def connect(choice: ClusterChoice, specs: Sequence[PointSpec] = ()) -> Iterator[PointRunner]:
    """Where ``choice`` runs points; unreachable or empty clusters are bad input. Local workers
    are forked after what ``specs`` will import is imported in this process."""
    if choice.scheduler is not None:
        from distributed import Client

        check_scheduler_address(choice.scheduler)
        try:
            client = Client(choice.scheduler, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise QosforgeError(f"cannot reach the scheduler {choice.scheduler} ({' '.join(str(error).split())[:160]})",
                                place="--scheduler", hint=_SCHEDULER_HINT) from None
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except TimeoutError:
            client.close()
            raise QosforgeError(f"the scheduler {choice.scheduler} has no worker after {CONNECT_TIMEOUT_S:g} s", place="--scheduler",
                                hint=f"start workers with 'dask worker {choice.scheduler}'") from None
        try:
            yield DaskRunner(client)
        finally:
            client.close()
        return
    if choice.workers < 1:
        raise QosforgeError(f"must be at least 1 (got {choice.workers})", place="--workers", hint="e.g. --workers 2")
    warm_up(specs)
    if not choice.dashboard:
        with LocalPool(choice.workers, processes=LOCAL_PROCESSES) as pool:
            yield pool
        return
    import dask
    from distributed import Client, LocalCluster

    # Dask's nanny forks its worker from this warmed-up process too (it spawns by default).
    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
        cluster = LocalCluster(n_workers=choice.workers, threads_per_worker=1, processes=LOCAL_PROCESSES, host="127.0.0.1", protocol="tcp://",
                               scheduler_kwargs={"dashboard": True, "dashboard_address": DASHBOARD_ADDRESS}, silence_logs=logging.ERROR)
    try:
        with Client(cluster, set_as_default=False) as client:
            yield DaskRunner(client)
    finally:
        cluster.close()


def run_points(runner: PointRunner, specs: Sequence[PointSpec], on_done: Callable[[PointSpec, PointOutcome], None]) -> None:
    """Submit every point (grid order) and call ``on_done`` as each finishes, in any order."""
    runner.run(specs, on_done)


__all__ = ["CONNECT_TIMEOUT_S", "DASHBOARD_ADDRESS", "LOCAL_PROCESSES", "ClusterChoice", "DaskRunner", "PointRunner", "check_scheduler_address",
           "connect", "run_points"]
