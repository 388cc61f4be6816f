"""The fabric report's per-queue statistics (softswitch/helper/fabric_report.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from qosforge.softswitch.helper.fabric_report import _queue_stats


def test_a_queue_deeper_than_the_histogram_reports_a_bound_not_a_depth() -> None:
    histograms = np.zeros((1, 1, 1024), dtype=np.int64)
    histograms[0, 0, 10] = 50
    histograms[0, 0, 1023] = 50  # samples of 1023 packets or more
    result = SimpleNamespace(queue_histograms=histograms, queue_max_cells=np.array([[20_000]]), queue_histogram_width=1)
    stats = _queue_stats(result, 0, 0, 1024.0)  # type: ignore[arg-type]
    assert stats == {"max_bytes": 20_000 * 1024.0, "max_packets_sampled": None, "p99_packets": None, "histogram_bin_packets": 1.0,
                     "packets_beyond_histogram": 1023.0}
    histograms[0, 0, 1023] = 0
    histograms[0, 0, 500] = 50
    assert _queue_stats(result, 0, 0, 1024.0) == {"max_bytes": 20_000 * 1024.0, "max_packets_sampled": 500.0, "p99_packets": 500.0,  # type: ignore[arg-type]
                                                  "histogram_bin_packets": 1.0}


def test_wide_bins_report_depths_in_packets() -> None:
    """A bin of 33 packets (roce-pod: a 34.3 MB buffer of 1024 B frames over 1,024 bins) reports
    its lower edge in packets."""
    histograms = np.zeros((1, 1, 1024), dtype=np.int64)
    histograms[0, 0, 3] = 99
    histograms[0, 0, 40] = 1
    result = SimpleNamespace(queue_histograms=histograms, queue_max_cells=np.array([[9_000]]), queue_histogram_width=33)
    stats = _queue_stats(result, 0, 0, 144.0)  # type: ignore[arg-type]
    assert stats["p99_packets"] == 99.0 and stats["max_packets_sampled"] == 40 * 33.0 and stats["histogram_bin_packets"] == 33.0


def test_the_histogram_reaches_a_whole_buffer_of_the_smallest_frames() -> None:
    from qosforge.softswitch.engine.build import queue_histogram_width

    chip = SimpleNamespace(asic=SimpleNamespace(buffer_bytes=34_340_832.0))
    flows = (SimpleNamespace(packet_bytes=1024), SimpleNamespace(packet_bytes=1500))
    width = queue_histogram_width((chip,), flows, 1024)  # type: ignore[arg-type]
    assert width * 1023 >= 34_340_832 / 1024 > (width - 1) * 1023
    assert queue_histogram_width((chip,), (SimpleNamespace(packet_bytes=34_340_832),), 1024) == 1  # type: ignore[arg-type]
