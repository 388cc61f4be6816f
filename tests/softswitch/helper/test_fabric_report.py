"""The fabric report's per-queue statistics (softswitch/helper/fabric_report.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from qosforge.softswitch.helper.fabric_report import _queue_stats


def test_a_queue_deeper_than_the_histogram_reports_a_bound_not_a_depth() -> None:
    histograms = np.zeros((1, 1, 1024), dtype=np.int64)
    histograms[0, 0, 10] = 50
    histograms[0, 0, 1023] = 50  # samples of 1023 packets or more
    result = SimpleNamespace(queue_histograms=histograms, queue_max_cells=np.array([[20_000]]))
    stats = _queue_stats(result, 0, 0, 1024.0)  # type: ignore[arg-type]
    assert stats == {"max_bytes": 20_000 * 1024.0, "max_packets_sampled": None, "p99_packets": None, "packets_beyond_histogram": 1023.0}
    histograms[0, 0, 1023] = 0
    histograms[0, 0, 500] = 50
    assert _queue_stats(result, 0, 0, 1024.0) == {"max_bytes": 20_000 * 1024.0, "max_packets_sampled": 500.0, "p99_packets": 500.0}  # type: ignore[arg-type]
