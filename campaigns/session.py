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
from qosforge.campaigns.runner import ClusterChoice, check_scheduler_address, connect, run_points
from qosforge.campaigns.store import ResultStore, Row, row_for
from qosforge.errors import QosforgeError


@dataclass(frozen=True)
class Outputs:
    out: Path
    parquet: Path | None = None
    plot: Path | None = None


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

    def lines(self, out: Path) -> list[str]:
        summary = (f"sweep: {self.points} point{'' if self.points == 1 else 's'}, {self.skipped} already done, {self.ran} run, {self.failed} failed "
                   f"in {self.seconds:.1f} s; rows in {out}")
        return [summary, *(f"sweep: {count} point(s) failed: {error}" for error, count in self.errors)]


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
    if todo:
        if cluster.scheduler is None and cluster.workers > len(todo):
            cluster = replace(cluster, workers=len(todo))  # no idle worker processes for a small re-run
        with connect(cluster) as client:
            if cluster.dashboard:
                print(f"sweep: Dask dashboard at {client.dashboard_link}", file=sys.stderr)
            store.open()
            try:
                with _progress(len(todo)) as advance:
                    failed = 0

                    def record(spec: PointSpec, outcome: PointOutcome) -> None:
                        nonlocal failed
                        store.append(row_for(spec, outcome))
                        failed += outcome.failed
                        if advance is not None:
                            advance(failed)

                    run_points(client, todo, record)
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
    return CampaignReport(points=len(campaign.points), skipped=len(campaign.points) - len(todo), ran=len(todo),
                          failed=sum(errors.values()), seconds=time.perf_counter() - started, errors=tuple(errors.most_common(3)),
                          rows=tuple(rows))


__all__ = ["CampaignReport", "Outputs", "check_outputs", "run_campaign"]
