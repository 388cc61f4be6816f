"""Parquet columns and the campaign plot, from rows."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from qosforge.campaigns.grid import Axis
from qosforge.campaigns.plot import numeric_outputs, plot_campaign
from qosforge.campaigns.store import Row
from qosforge.campaigns.table import columns_of, flatten, write_parquet


def _rows() -> list[Row]:
    rows = []
    for flows in (2, 8):
        for rtt in ("10us", "40us"):
            result = {"flows": flows, "queue_p99_packets": flows * float(rtt[:-2]), "drops": 0, "ok": True, "by": {"wred": flows}, "name": "x"}
            rows.append(Row(f"{flows}{rtt}", ("simulate",), {"rtt": rtt, "flows": flows}, result, None, {"seconds": 0.5}))
    rows.append(Row("bad", ("simulate",), {"rtt": "80us", "flows": 2}, None, "--rtt: too long", {"seconds": 0.1}))
    return rows


def test_flatten_and_columns() -> None:
    assert flatten({"a": {"b": 1, "c": {"d": 2}}, "e": [1, 2]}) == {"a.b": 1, "a.c.d": 2, "e": [1, 2]}
    assert flatten({"s": [{"name": "tor1", "v": 1}, {"name": "tor2", "v": 2}]}) == {"s.tor1.name": "tor1", "s.tor1.v": 1, "s.tor2.name": "tor2", "s.tor2.v": 2}
    assert flatten({"p": [{"v": 1}, {"v": 2}], "q": []}) == {"p.0.v": 1, "p.1.v": 2, "q": []}
    columns = columns_of(_rows())
    assert columns["params.rtt"] == ["10us", "40us", "10us", "40us", "80us"]
    assert columns["result.by.wred"] == [2, 2, 8, 8, None] and columns["status"][-1] == "failed"


def test_parquet_has_one_row_per_point(tmp_path: Path) -> None:
    path = tmp_path / "runs.parquet"
    write_parquet(path, _rows())
    table = pq.read_table(path)
    assert table.num_rows == 5
    assert table.column("result.queue_p99_packets").to_pylist() == [20.0, 80.0, 80.0, 320.0, None]
    assert table.column("error").to_pylist()[-1] == "--rtt: too long"


def test_numeric_outputs_skip_bools_and_text() -> None:
    outputs = numeric_outputs(_rows()[:4])
    assert set(outputs) == {"flows", "queue_p99_packets", "drops", "by.wred"}


def test_plot_writes_a_png(tmp_path: Path) -> None:
    path = tmp_path / "runs.png"
    plot_campaign(path, "qosforge sweep simulate", (Axis("rtt", ("10us", "40us")), Axis("flows", (2, 8))), _rows())
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    categorical = tmp_path / "transports.png"
    plot_campaign(categorical, "t", (Axis("flows", (2, 8)), Axis("rtt", ("10us", "40us"))), _rows())
    assert categorical.stat().st_size > 10_000
