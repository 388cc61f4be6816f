"""One campaign run: resume from ``--out``, run what is left on Dask, write Parquet and the plot.

Order matters for "no partial output": every input is checked (grid, output paths, the existing
rows, the cluster) before ``--out`` is opened; Parquet and the plot are written atomically at the
end, from the latest row of every grid point.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from qosforge.campaigns.build import Campaign
from qosforge.campaigns.execute import PointOutcome
from qosforge.campaigns.point import PointSpec
from qosforge.campaigns.runner import (
    ClusterChoice,
    DaskRunner,
    check_scheduler_address,
    connect,
    run_points,
)
from qosforge.campaigns.store import ResultStore, Row, row_for
from qosforge.errors import QosforgeError


@dataclass(frozen=True)
class Outputs:
    out: Path
    parquet: Path | None = None
    plot: Path | None = None


@dataclass(frozen=True)
class WallSplit:
    """Where a campaign's wall time went (seconds; bench/bench_campaigns.py reports it).

    ``startup_s``: importing what the points need and starting the workers; ``points_s``: from
    the first point's start to the last one's end; ``scheduling_s``: the rest of the time work
    was handed out and collected (before the first start, after the last end); ``other_s``:
    checks, resuming from ``--out`` and writing Parquet and the plot. ``busy_s`` sums the
    points' own run times: ``busy_s / (points_s * workers)`` is how well the workers were used.
    """

    startup_s: float = 0.0
    scheduling_s: float = 0.0
    points_s: float = 0.0
    other_s: float = 0.0
    busy_s: float = 0.0
    workers: int = 0

    def line(self) -> str:
        total = self.startup_s + self.scheduling_s + self.points_s + self.other_s
        use = f" ({100 * self.busy_s / (self.points_s * self.workers):.0f} % of the workers' time)" if self.points_s > 0 and self.workers else ""
        return (f"sweep: wall {total:.2f} s = start-up {self.startup_s:.2f} s + scheduling {self.scheduling_s:.2f} s + points {self.points_s:.2f} s"
                f" + other {self.other_s:.2f} s; points busy {self.busy_s:.2f} s on {self.workers} worker{'' if self.workers == 1 else 's'}{use}")


def _points_span_s(rows: list[Row]) -> float:
    """First start to last end of ``rows`` (their worker-side wall clocks)."""
    starts = [row.timing["started_unix_s"] for row in rows if "started_unix_s" in row.timing]
    ends = [row.timing["started_unix_s"] + row.timing["seconds"] for row in rows if "started_unix_s" in row.timing]
    return max(ends) - min(starts) if starts else 0.0


@dataclass(frozen=True)
class CampaignReport:
    points: int
    skipped: int
    ran: int
    failed: int
    seconds: float
    #: The most frequent errors of failed points with their counts, most frequent first.
    errors: tuple[tuple[str, int], ...] = ()
    #: The latest row of every grid point that has one, in grid order.
    rows: tuple[Row, ...] = ()
    split: WallSplit = WallSplit()
    #: The notes the points ran with, each text once, in the order they first came.
    notes: tuple[str, ...] = ()

    def lines(self, out: Path) -> list[str]:
        summary = (f"sweep: {self.points} point{'' if self.points == 1 else 's'}, {self.skipped} already done, {self.ran} run, {self.failed} failed "
                   f"in {self.seconds:.1f} s; rows in {out}")
        split = [self.split.line()] if self.ran else []
        return [*self.notes, summary, *split, *(f"sweep: {count} point(s) failed: {error}" for error, count in self.errors)]


def _check_suffix(path: Path | None, suffix: str, flag: str) -> None:
    """The file flag's suffix, and (as every qosforge file flag) a parent folder that exists: a
    sweep never creates folders, and learns of a missing one before it runs, not after."""
    if path is None:
        return
    if path.suffix.lower() != suffix:
        raise QosforgeError(f"{str(path)!r} does not end in {suffix}", place=flag, hint=f"e.g. {flag} campaign{suffix}")
    if path.is_dir():
        raise QosforgeError("is a folder", place=f"{flag} {path}", hint=f"give a file name, e.g. {flag} campaign{suffix}")
    from qosforge.files import check_output_file

    check_output_file(path, flag=flag)


def check_outputs(campaign: Campaign, outputs: Outputs) -> None:
    _check_suffix(outputs.out, ".jsonl", "--out")
    _check_suffix(outputs.parquet, ".parquet", "--parquet")
    _check_suffix(outputs.plot, ".png", "--plot")
    if outputs.plot is not None and not campaign.axes:
        raise QosforgeError("draws outputs against a swept parameter, and nothing is swept", place="--plot",
                            hint="give a flag a list a,b,c or a range START:STOP:N")


@contextmanager
def _progress(total: int) -> Iterator[Any]:
    """A progress bar on stderr when it is a terminal; nothing otherwise (logs, CI)."""
    if not sys.stderr.isatty() or total == 0:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failed]} failed"), TimeRemainingColumn(),
                  console=Console(stderr=True)) as bar:
        task = bar.add_task("points", total=total, failed=0)
        yield lambda failed: bar.update(task, advance=1, failed=failed)


def run_campaign(campaign: Campaign, outputs: Outputs, cluster: ClusterChoice) -> CampaignReport:
    """Run every point not already finished in ``outputs.out``; return the counts."""
    started = time.perf_counter()
    check_outputs(campaign, outputs)
    if cluster.scheduler is not None:
        check_scheduler_address(cluster.scheduler)
    store = ResultStore(outputs.out)
    store.load()
    todo = [spec for spec in campaign.points if not store.finished(spec.point_id)]
    startup_s = run_s = 0.0
    ran: list[Row] = []
    notes: dict[str, None] = {}  # insertion-ordered set
    if todo:
        if cluster.scheduler is None and cluster.workers > len(todo):
            cluster = replace(cluster, workers=len(todo))  # no idle worker processes for a small re-run
        connecting = time.perf_counter()
        with connect(cluster, todo) as runner:
            startup_s = time.perf_counter() - connecting
            if isinstance(runner, DaskRunner) and cluster.dashboard:
                print(f"sweep: Dask dashboard at {runner.client.dashboard_link}", file=sys.stderr)
            store.open()
            try:
                with _progress(len(todo)) as advance:
                    failed = 0

                    def record(spec: PointSpec, outcome: PointOutcome) -> None:
                        nonlocal failed
                        row = row_for(spec, outcome)
                        store.append(row)
                        ran.append(row)
                        failed += outcome.failed
                        notes.update(dict.fromkeys(outcome.notes))
                        if advance is not None:
                            advance(failed)

                    running = time.perf_counter()
                    run_points(runner, todo, record)
                    run_s = time.perf_counter() - running
            finally:
                store.close()
    rows = store.rows_for(campaign.points)
    if outputs.parquet is not None:
        from qosforge.campaigns.table import write_parquet

        write_parquet(outputs.parquet, rows)
    if outputs.plot is not None:
        from qosforge.campaigns.plot import plot_campaign

        plot_campaign(outputs.plot, campaign.title, campaign.axes, rows)
    errors = Counter(row.error for row in rows if row.error is not None)
    seconds = time.perf_counter() - started
    points_s = min(_points_span_s(ran), run_s)
    workers = len({row.timing.get("worker") for row in ran}) if cluster.scheduler is not None else (cluster.workers if todo else 0)
    split = WallSplit(startup_s=startup_s, scheduling_s=run_s - points_s, points_s=points_s, other_s=seconds - startup_s - run_s,
                      busy_s=sum(float(row.timing.get("seconds", 0.0)) for row in ran), workers=workers)
    return CampaignReport(points=len(campaign.points), skipped=len(campaign.points) - len(todo), ran=len(todo),
                          failed=sum(errors.values()), seconds=seconds, errors=tuple(errors.most_common(3)),
                          rows=tuple(rows), split=split, notes=tuple(notes))


__all__ = ["CampaignReport", "Outputs", "WallSplit", "check_outputs", "run_campaign"]
