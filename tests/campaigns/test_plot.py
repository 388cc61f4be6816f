"""The campaign plot: numeric outputs against the first swept parameter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qosforge.campaigns import plot
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


def test_the_title_clears_the_panels_of_a_tall_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 23 varying outputs (a fabric sweep's per-switch queues) make 8 rows of panels: the title
    # once sat on the first row's panel titles.
    rows = [Row(f"p{flows}", ("simulate",), {"flows": flows}, {f"out{i}": float(flows * (i + 1)) for i in range(23)}, None,
                {"seconds": 0.1}) for flows in (4, 8)]
    extents: list[Any] = []
    save = plot._save

    def measured(figure: Any, temporary: Path) -> None:
        save(figure, temporary)  # drawn: the extents are those of the saved image
        renderer = figure.canvas.get_renderer()
        extents.append(figure._suptitle.get_window_extent(renderer))
        extents.extend(axes.title.get_window_extent(renderer) for axes in figure.axes if axes.get_title())

    monkeypatch.setattr(plot, "_save", measured)
    plot_campaign(tmp_path / "tall.png", "qosforge sweep simulate", (Axis("flows", (4, 8)),), rows)
    title, *panels = extents
    assert len(panels) == 23 and not any(title.overlaps(panel) for panel in panels)


def test_a_count_axis_has_whole_ticks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [Row(f"p{flows}", ("simulate",), {"flows": flows}, {"queue": float(flows)}, None, {"seconds": 0.1})
            for flows in (4, 8)]
    ticks: list[float] = []
    save = plot._save

    def measured(figure: Any, temporary: Path) -> None:
        save(figure, temporary)
        ticks.extend(figure.axes[0].get_xticks())

    monkeypatch.setattr(plot, "_save", measured)
    plot_campaign(tmp_path / "flows.png", "t", (Axis("flows", (4, 8)),), rows)
    inside = [tick for tick in ticks if 4 <= tick <= 8]
    assert len(inside) >= 2 and all(tick == int(tick) for tick in inside)  # once 2.0, 2.5, ...
