"""The --timeseries file (softswitch/helper/series_file.py) against Python's own csv module: the
column-wise writer must give the bytes ``csv.writer`` gives for the same rows, whatever the
numbers (signed zeros, exponents, repeats) and names (commas and quotes need csv's quoting);
the Parquet table holds the same rows."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.softswitch.helper import series_file
from qosforge.softswitch.helper.series_file import COLUMNS, write_series
from qosforge.softswitch.sampling import QueueSeries

_FLOATS = st.one_of(
    st.floats(allow_nan=False), st.sampled_from([0.0, -0.0, 1e-05, 1.5e-07, 1e16, 9000.0, 3.0])
)


def _run(names: list[tuple[str, str, int]], series: QueueSeries) -> tuple[Any, Any, Any]:
    """A fabric, traffic and sampled run with just what the writer reads."""
    refs = {
        index: SimpleNamespace(switch=switch, port=port)
        for index, (switch, port, _) in enumerate(names)
    }
    fabric = SimpleNamespace(port_ref=lambda port: refs[port])
    traffic = SimpleNamespace(
        monitors=tuple((index, queue) for index, (_, _, queue) in enumerate(names))
    )
    return fabric, traffic, SimpleNamespace(series=series)


def _csv_module_bytes(names: list[tuple[str, str, int]], series: QueueSeries) -> bytes:
    """The rows as csv.writer writes them, one by one (the referee)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    for sample, at in enumerate(series.time_s.tolist()):
        for monitor, (switch, port, queue) in enumerate(names):
            writer.writerow(
                [
                    at,
                    switch,
                    port,
                    queue,
                    float(series.queue_bytes[sample, monitor]),
                    float(series.queue_packets[sample, monitor]),
                    float(series.paused_s[sample, monitor]),
                ]
            )
    return buffer.getvalue().encode("utf-8")


@st.composite
def _series(draw: st.DrawFn) -> tuple[list[tuple[str, str, int]], QueueSeries]:
    monitors = draw(st.integers(1, 4))
    samples = draw(st.integers(0, 6))
    text = st.text(st.sampled_from('ab,"\n é'), min_size=1, max_size=5)
    names = [(draw(text), draw(text), draw(st.integers(0, 7))) for _ in range(monitors)]
    cells = st.lists(_FLOATS, min_size=samples * monitors, max_size=samples * monitors)
    grid = [np.array(draw(cells), dtype=np.float64).reshape(samples, monitors) for _ in range(3)]
    times = np.array(draw(st.lists(_FLOATS, min_size=samples, max_size=samples)), dtype=np.float64)
    return names, QueueSeries(times, grid[0], grid[1], grid[2])


@settings(max_examples=60, deadline=None)
@given(_series())
def test_the_csv_is_what_the_csv_module_writes(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[list[tuple[str, str, int]], QueueSeries]
) -> None:
    names, series = case
    path = tmp_path_factory.mktemp("series") / "q.csv"
    write_series(path, *_run(names, series))
    assert path.read_bytes() == _csv_module_bytes(names, series)


def test_rows_in_many_chunks_are_the_rows_in_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(7)
    names = [("leaf1", "Ethernet0", 3), ("leaf,2", 'Eth"4', 1), ("spine1", "Ethernet8", 0)]
    grid = [
        np.round(rng.exponential(3000.0, (50, 3))) * (rng.random((50, 3)) < 0.6) for _ in range(2)
    ]
    series = QueueSeries(
        np.arange(50) * 1e-4,
        grid[0],
        grid[1],
        -rng.random((50, 3)) * 1e-6 * (rng.random((50, 3)) < 0.3),
    )
    monkeypatch.setattr(series_file, "CHUNK_ROWS", 7)
    write_series(tmp_path / "q.csv", *_run(names, series))
    assert (tmp_path / "q.csv").read_bytes() == _csv_module_bytes(names, series)


def test_the_parquet_table_holds_the_same_rows(tmp_path: Path) -> None:
    names = [("leaf1", "Ethernet0", 3), ("leaf2", "Ethernet4", 1)]
    series = QueueSeries(
        np.array([0.0, 1e-4, 2e-4]),
        np.array([[0.0, 1500.0], [3000.0, 0.0], [-0.0, 9000.0]]),
        np.array([[0.0, 1.0], [2.0, 0.0], [0.0, 6.0]]),
        np.array([[0.0, 5e-5], [0.0, 0.0], [1e-4, 0.0]]),
    )
    write_series(tmp_path / "q.parquet", *_run(names, series))
    rows = pq.read_table(tmp_path / "q.parquet").to_pylist()
    expected = list(
        csv.DictReader(io.StringIO(_csv_module_bytes(names, series).decode(), newline=""))
    )
    assert [list(row) for row in rows] == [list(COLUMNS)] * 6
    assert [{key: str(value) for key, value in row.items()} for row in rows] == expected
