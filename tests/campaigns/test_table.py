"""Rows as Parquet columns."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from qosforge.campaigns.store import Row
from qosforge.campaigns.table import columns_of, flatten, write_parquet


def test_flatten_and_columns(sample_rows: list[Row]) -> None:
    assert flatten({"a": {"b": 1, "c": {"d": 2}}, "e": [1, 2]}) == {"a.b": 1, "a.c.d": 2, "e": [1, 2]}
    assert flatten({"s": [{"name": "tor1", "v": 1}, {"name": "tor2", "v": 2}]}) == {"s.tor1.name": "tor1", "s.tor1.v": 1, "s.tor2.name": "tor2", "s.tor2.v": 2}
    assert flatten({"p": [{"v": 1}, {"v": 2}], "q": []}) == {"p.0.v": 1, "p.1.v": 2, "q": []}
    # A fabric switch's ports are named by their port (as the text output and the switch config name them), not numbered.
    ports = {"switches": [{"name": "leaf1", "ports": [{"port": "Ethernet0", "drops": 1}, {"port": "Ethernet4", "drops": 2}]}]}
    assert flatten(ports) == {"switches.leaf1.name": "leaf1", "switches.leaf1.ports.Ethernet0.port": "Ethernet0", "switches.leaf1.ports.Ethernet0.drops": 1,
                              "switches.leaf1.ports.Ethernet4.port": "Ethernet4", "switches.leaf1.ports.Ethernet4.drops": 2}
    columns = columns_of(sample_rows)
    assert columns["params.rtt"] == ["10us", "40us", "10us", "40us", "80us"]
    assert columns["result.by.wred"] == [2, 2, 8, 8, None] and columns["status"][-1] == "failed"


def test_parquet_has_one_row_per_point(tmp_path: Path, sample_rows: list[Row]) -> None:
    path = tmp_path / "runs.parquet"
    write_parquet(path, sample_rows)
    table = pq.read_table(path)
    assert table.num_rows == 5
    assert table.column("result.queue_p99_packets").to_pylist() == [20.0, 80.0, 80.0, 320.0, None]
    assert table.column("error").to_pylist()[-1] == "--rtt: too long"
