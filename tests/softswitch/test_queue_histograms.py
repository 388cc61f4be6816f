"""The every-queue depth histograms (softswitch/queue_histograms.py, engine/kernel.py
``_sample_every_queue``): rows only for the queues that held packets at a sample, bin 0 implied,
and exactly the counts a dense ``[port, queue, bin]`` array held."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.helper.fabric import Fabric, compile_fabric
from qosforge.softswitch.helper.fabric_scenarios import all_to_all_run, fabric_traffic
from qosforge.softswitch.queue_histograms import QueueHistograms
from qosforge.softswitch.simulation import SegmentedRun
from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH

SMALL = Path(__file__).resolve().parents[1] / "validation" / "fabrics" / "lossless-watchdog.yaml"


@st.composite
def _dense_and_sparse(draw: st.DrawFn) -> tuple[np.ndarray, QueueHistograms]:
    """A dense histogram whose queues each count ``samples``, and the kernel's form of it with
    rows for the queues that counted deeper than bin 0 (and a few that did not), in any order."""
    ports, queues, bins = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(2, 6))
    samples = draw(st.integers(0, 50))
    dense = np.zeros((ports, queues, bins), dtype=np.int64)
    for port in range(ports):
        for queue in range(queues):
            deeper = draw(st.lists(st.integers(0, samples), min_size=bins - 1, max_size=bins - 1))
            # bins - 1 counts summing to at most ``samples``
            counts = np.diff(np.concatenate([[0], np.sort(deeper)]))
            dense[port, queue, 1:] = counts
            dense[port, queue, 0] = samples - counts.sum()
    held = [(p, q) for p in range(ports) for q in range(queues)
            if dense[p, q, 1:].any() or draw(st.booleans())]
    order = draw(st.permutations(held))
    row_of = np.full((ports, queues), -1, dtype=np.int64)
    rows = np.zeros((len(order), bins), dtype=np.int64)
    for row, (p, q) in enumerate(order):
        row_of[p, q] = row
        rows[row, 1:] = dense[p, q, 1:]
        # The stored bin 0 counts only non-empty samples below one bin's width: never read.
        rows[row, 0] = draw(st.integers(0, int(dense[p, q, 0])))
    return dense, QueueHistograms(rows=rows, row_of=row_of, samples=samples)


@settings(max_examples=60, deadline=None)
@given(_dense_and_sparse())
def test_the_rows_stand_for_exactly_the_dense_array(
    case: tuple[np.ndarray, QueueHistograms],
) -> None:
    dense, histograms = case
    assert histograms.shape == dense.shape
    np.testing.assert_array_equal(histograms.dense(), dense)
    np.testing.assert_array_equal(np.asarray(histograms), dense)
    assert b"".join(chunk.tobytes() for chunk in histograms.dense_chunks()) == dense.tobytes()
    for port in range(dense.shape[0]):
        np.testing.assert_array_equal(histograms.port(port), dense[port])
        for queue in range(dense.shape[1]):
            np.testing.assert_array_equal(histograms[port, queue], dense[port, queue])


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return compile_fabric(SMALL, ())


def test_a_fabric_run_keeps_rows_only_for_queues_that_held_packets(fabric: Fabric) -> None:
    """All-to-all on a small fabric: the every-queue histogram of the monitored queue is its
    monitor's histogram (a separate count of one-packet bins) in the every-queue bins; each
    queue counts every sample; only queues that carried packets have rows, far fewer than a
    dense array."""
    traffic = fabric_traffic(fabric, None, "dctcp", None)
    built = all_to_all_run(fabric, traffic, load=0.6, distribution=WEB_SEARCH, duration_s=2e-3,
                           warmup_s=0.0, seed=1)
    # Bins of one packet (a 12 MB buffer of 1,024 B frames), so the monitor's one-packet bins
    # and these compare bin for bin.
    spec = dataclasses.replace(built.run, queue_histogram_packets=16_384)
    run = SegmentedRun(fabric.configs, fabric.topology, built.flows, spec)
    result = run.result()
    histograms = result.queue_histograms
    assert isinstance(histograms, QueueHistograms)
    monitor = result.monitors[0]
    assert histograms.samples == monitor.samples > 100
    dense = histograms.dense()
    assert (dense.sum(axis=2) == histograms.samples).all()
    ports, queues, bins = dense.shape
    held = histograms.row_of >= 0
    assert 0 < held.sum() == histograms.rows.shape[0] < ports * queues / 2
    # A queue never found holding a packet has every sample in bin 0 and no row.
    assert (dense[~held][:, 0] == histograms.samples).all()
    # Each queue that held packets, counted again by a monitor (its own code path, one-packet bins)
    # in a second run of the same events.
    held_queues = tuple((int(p), int(q)) for p, q in zip(*np.nonzero(held), strict=True))
    assert result.queue_histogram_width == 1
    monitored = dataclasses.replace(spec, monitors=held_queues)
    again = SegmentedRun(fabric.configs, fabric.topology, built.flows, monitored)
    assert again.result().counters == result.counters
    for m, (port, queue) in enumerate(held_queues):
        by_monitor = again.world[L.W_HIST][m][:bins]
        np.testing.assert_array_equal(dense[port, queue], by_monitor, err_msg=f"{port}, {queue}")
    assert histograms.rows[:, 1:].sum() > 0  # queues did fill
