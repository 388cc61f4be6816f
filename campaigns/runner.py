"""Run points on Dask ``distributed``: a local cluster by default, or an existing scheduler.

Dask does the distribution (scheduling, worker processes, retries of lost workers); this module
only opens the cluster, submits one task per point (keyed by the point's id) and hands each
outcome back as it completes. The local cluster binds to 127.0.0.1 and serves no dashboard unless
asked; each worker is a process with one thread, since a point is CPU-bound Python and numba.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from qosforge.campaigns.execute import PointOutcome, run_point
from qosforge.campaigns.point import PointSpec
from qosforge.errors import QosforgeError

#: Local workers are processes; the tests switch this off to run workers as threads in-process.
LOCAL_PROCESSES = True
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


@contextmanager
def connect(choice: ClusterChoice) -> Iterator[Any]:
    """A ``distributed.Client`` for ``choice``; unreachable or empty clusters are bad input."""
    from distributed import Client, LocalCluster

    if choice.scheduler is not None:
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
            yield client
        finally:
            client.close()
        return
    if choice.workers < 1:
        raise QosforgeError(f"must be at least 1 (got {choice.workers})", place="--workers", hint="e.g. --workers 2")
    # The scheduler always serves HTTP (health, metrics); without --dashboard it serves no
    # dashboard pages and takes a free loopback port instead of 8787.
    http = {"dashboard": True, "dashboard_address": "127.0.0.1:8787"} if choice.dashboard else {"dashboard": False, "dashboard_address": "127.0.0.1:0"}
    cluster = LocalCluster(n_workers=choice.workers, threads_per_worker=1, processes=LOCAL_PROCESSES, host="127.0.0.1", protocol="tcp://",
                           scheduler_kwargs=http, silence_logs=logging.ERROR)
    try:
        with Client(cluster, set_as_default=False) as client:
            yield client
    finally:
        cluster.close()


def run_points(client: Any, specs: Sequence[PointSpec], on_done: Callable[[PointSpec, PointOutcome], None]) -> None:
    """Submit every point (grid order) and call ``on_done`` as each finishes, in any order."""
    from distributed import as_completed

    by_key = {f"qosforge-point-{spec.point_id}": spec for spec in specs}
    futures = client.map(run_point, list(by_key.values()), key=list(by_key))
    for future in as_completed(futures, loop=client.loop):
        spec = by_key[future.key]
        try:
            outcome: PointOutcome = future.result()
        except Exception as error:  # the worker died or the task could not run: this point failed
            outcome = PointOutcome(point_id=spec.point_id, result=None, error=f"worker failure ({type(error).__name__}: {error})",
                                   timing={"worker": "unknown"})

        on_done(spec, outcome)


__all__ = ["CONNECT_TIMEOUT_S", "LOCAL_PROCESSES", "ClusterChoice", "check_scheduler_address", "connect", "run_points"]
