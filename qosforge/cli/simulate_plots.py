"""``simulate --traffic ... --plot``: queue length over time for the monitored queues and, for
lossless classes, the PFC pause timeline per port (which ports were paused when)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: Queues drawn (the deepest by mean); every queue is in --timeseries and the JSON.
PLOTTED_QUEUES = 8


def plot_traffic(path: Path, report: dict[str, Any], series: Any, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from qosforge.files import write_atomically
    from qosforge.plotting import legend_beside, plain_ticks

    ports = report["ports"]
    order = sorted(range(len(ports)), key=lambda m: -ports[m]["mean_queue_bytes"])[:PLOTTED_QUEUES]
    paused = [m for m in range(len(ports)) if float(np.sum(series.paused_s[:, m])) > 0.0]
    panels = 2 if paused else 1
    figure, axes = plt.subplots(panels, 1, figsize=(9, 3.4 * panels), sharex=True, squeeze=False)
    time_ms = series.time_s * 1e3
    queue_axis = axes[0][0]
    for m in order:
        queue_axis.plot(time_ms, series.queue_bytes[:, m] / 1e3, linewidth=0.8, label=f"{ports[m]['switch']}:{ports[m]['port']} q{ports[m]['queue']}")
    queue_axis.set_ylabel("queue (kB)")
    shown = f"the {len(order)} deepest of {len(ports)} queues" if len(ports) > len(order) else f"{len(ports)} queues"
    queue_axis.set_title(f"{title}: {shown}, sampled every {report['sample_s'] * 1e6:g} us")
    queue_axis.set_ylim(bottom=0.0)
    plain_ticks(queue_axis)
    if order:
        legend_beside(queue_axis)
    if paused:
        timeline = axes[1][0]
        step_ms = report["sample_s"] * 1e3
        for row, m in enumerate(paused):
            # Each sample interval's paused seconds, drawn at the end of that interval (to the
            # sample interval's resolution; the seconds themselves are exact: softswitch/sampling.py).
            spans = [((t - p * 1e3), p * 1e3) for t, p in zip(time_ms, series.paused_s[:, m], strict=True) if p > 0.0]
            timeline.broken_barh(spans, (row - 0.4, 0.8), facecolors="tab:red")
        timeline.set_yticks(range(len(paused)), [f"{ports[m]['switch']}:{ports[m]['port']}" for m in paused])
        timeline.set_ylim(-0.6, len(paused) - 0.4)
        timeline.set_title("PFC: paused by the peer (lossless queues)")
        timeline.set_xlim(time_ms[0] - step_ms, time_ms[-1] + step_ms)
        plain_ticks(timeline)
    axes[-1][0].set_xlabel("time (ms)")
    figure.tight_layout()
    write_atomically(path, lambda temporary: figure.savefig(temporary, dpi=120))
    plt.close(figure)


__all__ = ["plot_traffic"]
