"""``compile``'s rendering on every core: contiguous runs of switches rendered by forked workers.

A switch's files depend on its IR alone (backends/registry.py: ``render`` maps switches to files,
sharing work between switches of one kind only as a cache), so a fabric's switches can be cut into
contiguous runs and each run rendered by its own process. Workers are forked once the fabric is
compiled (they share it copy-on-write, nothing is pickled to them), write each file straight into
the output spool under a name of their own, and hand back only the file's spool path and SHA-256.
The parent puts the runs back in order, so the files, their order and their bytes are those of
the serial loop; a run that fails for any reason (a value a target refuses, a worker killed) is
not reported from the worker: the parent renders serially instead, so an error is raised exactly
as the serial loop raises it.

Workers: ``--workers`` / ``QOSFORGE_WORKERS``, default the cores this process may run on; a
process that is itself a pool's worker (a ``sweep compile`` point) renders serially.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from qosforge.errors import QosforgeError
from qosforge.ir import FabricIR, SwitchIR
from qosforge.outputs import OutputSpool, RenderedFile, SpooledFile

#: Switches per worker below which forking costs more than it saves (a fork, the worker's first
#: render of each switch kind, and the result's return: tens of milliseconds against ~2 ms of
#: rendering per switch).
MIN_SWITCHES_PER_WORKER = 200
#: Runs per worker: more than one, so a worker that drew slow switches (or a busy core) does not
#: hold up the rest; few, because each run renders every switch kind it meets once more.
RUNS_PER_WORKER = 3
WORKERS_ENVIRONMENT = "QOSFORGE_WORKERS"


@dataclass(frozen=True)
class _Run:
    """Switches ``start:stop`` of target ``target`` (its index in the fabric's targets)."""

    index: int
    target: str
    start: int
    stop: int


#: Set in the parent just before the fork; the workers read it (never pickled).
_SHARED: dict[str, object] = {}


def usable_cores() -> int:
    """The cores this process may run on (a container's or taskset's share, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no sched_getaffinity (not Linux)
        return os.cpu_count() or 1


def resolve_workers(requested: int | None) -> int:
    """``requested`` (the flag), else ``QOSFORGE_WORKERS``, else every usable core; 1 inside a
    process pool's worker (its parent already uses the cores)."""
    if requested is None:
        text = os.environ.get(WORKERS_ENVIRONMENT, "").strip()
        if text:
            try:
                requested = int(text)
            except ValueError:
                raise QosforgeError(
                    f"{WORKERS_ENVIRONMENT}={text!r} is not a whole number",
                    place=WORKERS_ENVIRONMENT,
                    hint="set it to a count of processes, e.g. 4, or unset it for every core",
                ) from None
            place = WORKERS_ENVIRONMENT
        else:
            return 1 if multiprocessing.parent_process() is not None else usable_cores()
    else:
        place = "--workers"
    if requested < 1:
        raise QosforgeError(
            f"{requested} workers", place=place, hint="give at least 1 (1 renders in this process)"
        )
    return requested


def _runs(switch_counts: dict[str, int], workers: int) -> list[_Run]:
    runs: list[_Run] = []
    for target, count in switch_counts.items():
        pieces = max(1, min(workers * RUNS_PER_WORKER, count // MIN_SWITCHES_PER_WORKER))
        bounds = [count * piece // pieces for piece in range(pieces + 1)]
        runs.extend(
            _Run(len(runs), target, start, stop)
            for start, stop in itertools.pairwise(bounds)
            if stop > start
        )
    return runs


def _render_run(run: _Run) -> list[SpooledFile] | None:
    """In a worker: the run's files written to the spool, or ``None`` if anything failed."""
    from qosforge.backends.registry import get_target

    spool = _SHARED["spool"]
    switches = _SHARED["switches"]
    assert isinstance(spool, OutputSpool) and isinstance(switches, dict)
    chosen: tuple[SwitchIR, ...] = switches[run.target][run.start : run.stop]
    try:
        kept: list[SpooledFile] = []
        for number, output in enumerate(get_target(run.target).render(chosen)):
            item = spool.keep(
                RenderedFile(
                    f"{output.switch}/{output.file_name}", output.switch, run.target, output.text
                ),
                name=f"{run.index}.{number}",
            )
            assert isinstance(item, SpooledFile)
            kept.append(item)
        return kept
    except Exception:  # the parent renders serially and raises the error as the serial loop does
        return None


def render_in_pool(
    fabric: FabricIR,
    spool: OutputSpool,
    workers: int,
    advance: Callable[[], None],
    meanwhile: Callable[[], None] = lambda: None,
) -> list[SpooledFile] | None:
    """Every file of every target of ``fabric``, in the serial loop's order, rendered by up to
    ``workers`` forked processes into ``spool``; ``None`` where the pool is not worth it (too few
    switches, no spool folder, no fork) or any run failed: the caller then renders serially.
    ``meanwhile`` runs in this process once the runs are handed out (an error in it is the
    caller's to raise again, after the serial loop)."""
    switches = {target: fabric.for_target(target) for target in fabric.targets}
    workers = (
        min(workers, max(len(chosen) for chosen in switches.values()) // MIN_SWITCHES_PER_WORKER)
        if switches
        else 1
    )
    if workers < 2 or not spool.on_disk or "fork" not in multiprocessing.get_all_start_methods():
        return None
    runs = _runs({target: len(chosen) for target, chosen in switches.items()}, workers)
    _SHARED.update(spool=spool, switches=switches)
    # Objects alive now are never collected in the workers, so a collection there does not touch
    # (and copy) every page of the parent's fabric.
    gc.freeze()
    try:
        with ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("fork")
        ) as executor:
            files: list[SpooledFile] = []
            results = executor.map(_render_run, runs)  # every run submitted now
            meanwhile()  # the parent's own share, while the workers render
            for kept in results:
                if kept is None:
                    executor.shutdown(wait=True, cancel_futures=True)
                    return None
                files.extend(kept)
                for _ in kept:
                    advance()
            return files
    except Exception:  # a worker died (killed, out of memory): the serial loop decides
        return None
    finally:
        gc.unfreeze()
        _SHARED.clear()


__all__ = [
    "MIN_SWITCHES_PER_WORKER",
    "WORKERS_ENVIRONMENT",
    "render_in_pool",
    "resolve_workers",
    "usable_cores",
]
