"""Local workers: processes forked from the warmed-up ``sweep`` process, one point at a time each.

Why not a Dask ``LocalCluster``: its workers are spawned,
so each starts a fresh interpreter, imports Dask and qosforge and loads the engine's core before
its first point. Measured on the 2-core bench machine: 1.9 s to start one worker and 3.9 s for
two, then 0.5-1.2 s more for each worker's first point; 16 workers on a 16-core machine spent
more than half of a 7.2 s campaign starting. Forked from a parent that has already imported
everything a point needs (:mod:`qosforge.campaigns.warm`), a worker is ready in about 10 ms and
its first point runs as fast as its last. Threads would start faster still but do not help: the
event core holds the GIL (two threads ran four dumbbell points in 1.26 s wall against 1.12 s for
one thread), so local workers are processes.

Rows do not depend on which worker ran a point, or how many there were: a point is the same
click command with the same seed in a fresh output buffer (campaigns/execute.py).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import (
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    as_completed,
)
from types import TracebackType

from qosforge.campaigns.execute import PointOutcome, run_point
from qosforge.campaigns.point import PointSpec


class LocalPool:
    """``workers`` forked processes (or, for tests, threads of this process) running points."""

    def __init__(self, workers: int, *, processes: bool = True) -> None:
        self.workers = workers
        # Fork where the platform has it (Linux, the target); elsewhere (Windows) spawn, which
        # works but pays the imports in every worker again.
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self._executor: Executor = (ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method)) if processes
                                    else ThreadPoolExecutor(workers))

    def __enter__(self) -> LocalPool:
        # With fork, the first submission forks every worker at once (before the executor starts
        # its manager thread, so no thread is copied into a child): start-up ends here.
        self._executor.submit(os.getpid).result()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def run(self, specs: Sequence[PointSpec], on_done: Callable[[PointSpec, PointOutcome], None]) -> None:
        """Submit every point (grid order) and call ``on_done`` as each finishes, in any order."""
        futures: dict[Future[PointOutcome], PointSpec] = {self._executor.submit(run_point, spec): spec for spec in specs}
        for future in as_completed(futures):
            spec = futures[future]
            try:
                outcome = future.result()
            except Exception as error:  # a worker died (killed, out of memory: BrokenProcessPool): its points failed, a re-run retries them
                outcome = PointOutcome(point_id=spec.point_id, result=None, error=f"worker failure ({type(error).__name__}: {error})",
                                       timing={"worker": "unknown"})
            on_done(spec, outcome)


__all__ = ["LocalPool"]
