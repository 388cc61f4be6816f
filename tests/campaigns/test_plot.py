"""The campaign plot: numeric outputs against the first swept parameter."""

from __future__ import annotations

from pathlib import Path

from qosforge.campaigns.grid import Axis
from qosforge.campaigns.plot import numeric_outputs, plot_campaign
from qosforge.campaigns.store import Row


def test_numeric_outputs_skip_bools_and_text(sample_rows: list[Row]) -> None:
    outputs = numeric_outputs(sample_rows[:4])
    assert set(outputs) == {"flows", "queue_p99_packets", "drops", "by.wred"}


def test_plot_writes_a_png(tmp_path: Path, sample_rows: list[Row]) -> None:
    path = tmp_path / "runs.png"
    plot_campaign(path, "qosforge sweep simulate", (Axis("rtt", ("10us", "40us")), Axis("flows", (2, 8))), sample_rows)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    categorical = tmp_path / "transports.png"
    plot_campaign(categorical, "t", (Axis("flows", (2, 8)), Axis("rtt", ("10us", "40us"))), sample_rows)
    assert categorical.stat().st_size > 10_000
