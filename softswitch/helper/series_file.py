"""``simulate --traffic --timeseries``: the sampled queues as a CSV or Parquet file, built column by
column.

One row per (sample, monitored queue): ``time_s``, ``switch``, ``port``, ``queue``,
``queue_bytes``, ``queue_packets``, ``paused_s`` (docs/softswitch-reports.md "Time series and
plots"). The CSV holds the bytes Python's :mod:`csv` writer gives for those rows
(QUOTE_MINIMAL, ``\\r\\n`` line ends, numbers as ``repr``), but no row passes through Python:
each distinct number and each monitored queue's ``switch,port,queue`` is formatted once, and
pyarrow's C kernels gather the pieces (``take``) and join each row (``binary_join_element_wise``).
A row by row ``csv.writer`` cost ~1.7 us a row (1 s for the 660,000 rows of 3 s of
examples/dctcp-fig17.yaml).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from qosforge.files import write_atomically

if TYPE_CHECKING:
    from qosforge.softswitch.helper.fabric import Fabric
    from qosforge.softswitch.helper.user_traffic import UserTraffic
    from qosforge.softswitch.sampling import SampledRun

COLUMNS = ("time_s", "switch", "port", "queue", "queue_bytes", "queue_packets", "paused_s")
#: Rows joined per pyarrow call: bounds the text held at once (~15 MB of CSV).
CHUNK_ROWS = 1 << 18


def write_series(path: Path, fabric: Fabric, traffic: UserTraffic, sampled: SampledRun) -> None:
    """Write the run's time series to ``path`` (``.parquet``: a Parquet table, else CSV), in one
    step (:func:`qosforge.files.write_atomically`)."""
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        table = series_table(fabric, traffic, sampled)
        write_atomically(path, lambda temporary: pq.write_table(table, temporary))
        return
    text = _Rows(fabric, traffic, sampled)

    def write_csv(temporary: Any) -> None:
        with open(temporary, "wb") as handle:
            handle.write(_csv_line(COLUMNS).encode("utf-8"))
            for start in range(0, text.rows, CHUNK_ROWS):
                handle.write(text.csv_bytes(start, min(start + CHUNK_ROWS, text.rows)))

    write_atomically(path, write_csv)


def series_table(fabric: Fabric, traffic: UserTraffic, sampled: SampledRun) -> Any:
    """The series as a pyarrow table (the Parquet file's: plain string columns, no dictionaries)."""
    import pyarrow as pa

    series = sampled.series
    samples, monitors = series.queue_bytes.shape
    refs = [fabric.port_ref(port) for port, _ in traffic.monitors]
    monitor = pa.array(np.tile(np.arange(monitors, dtype=np.int64), samples))
    return pa.table(
        {
            "time_s": pa.array(np.repeat(series.time_s, monitors)),
            "switch": pa.array([ref.switch for ref in refs], pa.string()).take(monitor),
            "port": pa.array([ref.port for ref in refs], pa.string()).take(monitor),
            "queue": pa.array(
                np.array([queue for _, queue in traffic.monitors], dtype=np.int64)
            ).take(monitor),
            "queue_bytes": pa.array(series.queue_bytes.reshape(-1)),
            "queue_packets": pa.array(series.queue_packets.reshape(-1)),
            "paused_s": pa.array(series.paused_s.reshape(-1)),
        }
    )


class _Rows:
    """The CSV text of the series' rows, formatted once per distinct value."""

    def __init__(self, fabric: Fabric, traffic: UserTraffic, sampled: SampledRun) -> None:
        import pyarrow as pa

        series = sampled.series
        self.samples, self.monitors = series.queue_bytes.shape
        self.rows = self.samples * self.monitors
        refs = [fabric.port_ref(port) for port, _ in traffic.monitors]
        # time_s; switch,port,queue as one piece per monitored queue (csv's own quoting); the
        # three numbers as one piece per distinct (bytes, packets, paused): a queue takes few.
        self._times = pa.array(_reprs(series.time_s.tolist()), pa.string())
        self._queues = pa.array(
            [
                _csv_line((ref.switch, ref.port, queue))[:-2]
                for ref, (_, queue) in zip(refs, traffic.monitors, strict=True)
            ],
            pa.string(),
        )
        self._values, self._value_of_row = _distinct_rows(
            (series.queue_bytes, series.queue_packets, series.paused_s)
        )

    def csv_bytes(self, start: int, stop: int) -> memoryview:
        """Rows ``start``..``stop`` (sample-major, as the table's) as CSV bytes, each line ended."""
        import pyarrow as pa
        import pyarrow.compute as pc

        row = np.arange(start, stop, dtype=np.int64)
        pieces = (
            self._times.take(pa.array(row // self.monitors)),
            self._queues.take(pa.array(row % self.monitors)),
            self._values.take(pa.array(self._value_of_row[start:stop])),
        )
        lines = pc.binary_join_element_wise(*pieces, ",")
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
        first, last = int(offsets[lines.offset]), int(offsets[lines.offset + len(lines)])
        return memoryview(lines.buffers()[2].slice(first, last - first))


def _distinct_rows(columns: tuple[np.ndarray, ...]) -> tuple[Any, np.ndarray]:
    """(the text ``a,b,c\r\n`` of each distinct row of the float ``columns``, the index of each
    row's text). Values are told apart by bit pattern (hash encoding, no sort), so -0.0 keeps the
    sign ``repr`` writes; a text is formatted once per distinct row, not per row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = np.zeros(columns[0].size, dtype=np.int64)
    texts = [""]
    for position, column in enumerate(columns):
        encoded = pc.dictionary_encode(
            pa.array(np.ascontiguousarray(column, dtype=np.float64).reshape(-1).view(np.int64))
        )
        values = _reprs(encoded.dictionary.to_numpy().view(np.float64).tolist())
        # Re-encoded after each column, so a code stays below rows x distinct values.
        pairs = pc.dictionary_encode(pa.array(kind * len(values) + encoded.indices.to_numpy()))
        codes = pairs.dictionary.to_numpy()
        comma = "," if position else ""
        texts = [
            texts[before] + comma + values[value]
            for before, value in zip(
                (codes // len(values)).tolist(), (codes % len(values)).tolist(), strict=True
            )
        ]
        kind = pairs.indices.to_numpy().astype(np.int64)
    return pa.array([text + "\r\n" for text in texts], pa.string()), kind


def _reprs(values: list[float]) -> list[str]:
    return list(map(repr, values))


def _csv_line(fields: tuple[object, ...]) -> str:
    """One line as :func:`csv.writer` writes it (QUOTE_MINIMAL, ``\\r\\n``)."""
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerow(fields)
    return buffer.getvalue()


__all__ = ["COLUMNS", "series_table", "write_series"]
