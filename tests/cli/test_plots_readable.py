"""Every plot the tool draws, read back from matplotlib's figure: the data lies inside the axes'
limits, no tick axis reads against an offset, and no legend covers the data.

Before: ``fit red --plot`` drew percentages (0..100) on a 0..1.05 axis, so every curve left the
chart at t_min; a campaign's constant goodput (9.65 and 9.65 + 1e-12) was drawn as swings around
an offset; the pause-storm legend sat on the trace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

Run = Callable[..., tuple[int, str, str]]

#: One sweep per calculator (the first axis is the x axis of the plot); the last two are a
#: two-axis grid (one line per value of the second axis, with a legend) and the physical model.
WHATIF_SWEEPS = {
    "buffer": ("buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:32:32"),
    "tlt": ("tlt", "--buffer", "12MB", "--threshold", "400kB", "--sweep", "congested-ports=1:32:32", "--allow-infeasible"),
    "dctcp": ("dctcp", "--speed", "100G", "--sweep", "rtt=5us:200us:40"),
    "d2tcp": ("d2tcp", "--remaining", "300kB", "--window", "20kB", "--rtt", "200us", "--sweep", "deadline=1ms:10ms:10"),
    "ear": ("ear", "--speed", "10G", "--base-rtt", "100us", "--sweep", "delay-threshold=60us:200us:8"),
    "dcqcn": ("dcqcn", "--sweep", "speed=10G:400G:40"),
    "tbtcp": ("tbtcp", "--speed", "40G", "--rtt", "160us", "--sweep", "flows=10:1000:100"),
    "fastlane": ("fastlane", "--speed", "10G", "--port-buffer", "128kB", "--sweep", "drop-probability=0%:100%:21"),
    "pfc-headroom": ("pfc-headroom", "--mode", "sonic", "--asic", "mellanox-spectrum-2", "--speed", "100G", "--sweep", "cable=5m:300m:60"),
    "buffer-grid": ("buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:32:32", "--sweep", "alpha=0.5:4:4"),
    "pfc-physical": ("pfc-headroom", "--speed", "100G", "--asic", "mellanox-spectrum-2", "--sweep", "cable=1m:300m:30"),
}


def test_every_calculator_has_a_plot_case() -> None:
    from qosforge.api.calculators import calculator_names

    assert set(calculator_names()) <= {argv[0] for argv in WHATIF_SWEEPS.values()}


@pytest.mark.parametrize("case", sorted(WHATIF_SWEEPS))
def test_whatif_sweep_plots_show_their_data(case: str, run_cli: Run, saved_figures: Any, tmp_path: Path) -> None:
    code, _, err = run_cli("whatif", *WHATIF_SWEEPS[case], "--plot", str(tmp_path / "sweep.png"))
    assert code == 0, err
    saved_figures.assert_readable()


TABLE_1 = ("--bdp", "180kB", "--t-min", "138kB", "--t-max", "550kB")


def test_fit_red_plot_draws_percent_on_a_percent_axis(run_cli: Run, saved_figures: Any, tmp_path: Path) -> None:
    code, _, err = run_cli("fit", "red", *TABLE_1, "--r", "4", "--plot", str(tmp_path / "fit.png"))
    assert code == 0, err
    saved_figures.assert_readable()
    axes = saved_figures.only().axes[0]
    # Before: (-0.02, 1.05) with the ideal curve reaching 50 % and the steps 100 % above t_max.
    low, high = axes.get_ylim()
    assert low <= 0 and 100 <= high <= 110
    assert max(float(np.max(line.get_ydata())) for line in axes.get_lines()) == pytest.approx(100.0)


@pytest.mark.parametrize(
    "argv",
    [
        ("--bdp", "180kB", "--t-min", "138kB", "--asic", "broadcom-trident", "--optimize-t-max"),  # the README's
        (*TABLE_1, "--sweep", "t-max=300kB:900kB:7"),
        (*TABLE_1, "--sweep", "r=1:4:4", "--sweep", "beta=0.05:0.2:3"),
    ],
    ids=["optimize-t-max", "sweep", "grid"],
)
def test_fit_red_plots_show_their_data(argv: tuple[str, ...], run_cli: Run, saved_figures: Any, tmp_path: Path) -> None:
    code, _, err = run_cli("fit", "red", *argv, "--plot", str(tmp_path / "fit.png"))
    assert code == 0, err
    saved_figures.assert_readable()


def test_simulate_plot_shows_the_queue(run_cli: Run, saved_figures: Any, tmp_path: Path) -> None:
    code, _, err = run_cli("simulate", "--scenario", "dumbbell", "--flows", "4", "--transport", "dctcp", "--speed", "10G", "--rtt", "100us",
                           "--ecn-threshold", "65pkt", "--duration", "5ms", "--warmup", "1ms", "--format", "json", "--plot", str(tmp_path / "q.png"))
    assert code == 0, err
    saved_figures.assert_readable()


def test_the_pause_storm_legend_does_not_cover_the_trace(saved_figures: Any, tmp_path: Path) -> None:
    from qosforge.cli.simulate import _plot

    # A storm trace: the queue climbs to its limit and stays there, filling the upper right where
    # the legend used to sit (loc="upper right").
    time_s = np.linspace(0.0, 50e-3, 501)
    monitors = [SimpleNamespace(port=port, queue=3, trace_time_s=time_s, trace_packets=np.minimum(time_s * 4e4 * (port + 1), 600.0))
                for port in range(3)]
    _plot(tmp_path / "storm.png", SimpleNamespace(monitors=monitors), "pause-storm: dcqcn, 8 flows",
          labels=("leaf1:Ethernet0", "leaf1:Ethernet4", "spine1:Ethernet0"))
    saved_figures.assert_readable()


def test_a_constant_campaign_output_is_not_drawn_as_swings(saved_figures: Any, tmp_path: Path) -> None:
    from qosforge.campaigns.grid import Axis
    from qosforge.campaigns.plot import plot_campaign
    from qosforge.campaigns.store import Row

    rows = []
    for index, flows in enumerate((2, 4, 8, 16)):
        # goodput is the link's, up to the last bits of a float: one value, not a trend.
        result = {"goodput_gbps": 9.65 + index * 1e-12, "queue_p99_packets": 10.0 * flows}
        rows.append(Row(str(flows), ("simulate",), {"flows": flows}, result, None, {"seconds": 0.1}))
    plot_campaign(tmp_path / "runs.png", "qosforge sweep simulate", (Axis("flows", (2, 4, 8, 16)),), rows)
    saved_figures.assert_readable()
    titles = [axes.get_title() for axes in saved_figures.only().axes if axes.axison]
    assert titles == ["queue_p99_packets"]  # goodput is listed as constant under the figure
