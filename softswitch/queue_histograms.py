"""The sampled depth histogram of every switch queue, held as the kernel holds it: one row per
queue that was ever found holding packets at a sample, and the depth-0 bin implied.

A fabric run samples every switch queue every ``sample_interval_s`` (engine/kernel.py
``_sample``). A dense ``[port, queue, bin]`` array of 1,024 int64 bins is 64 KiB per port (768
MiB at 4,096 hosts), and counting the empty queues' samples into bin 0 touched all of it at
every sample, though in a fabric most queues are empty at most samples and many never hold a
packet. The kernel therefore visits only the non-empty queues (the ports' ``TXI_NONEMPTY``
masks), gives a queue a row of the histogram the first time it is non-empty at a sample, and
counts the samples; bin 0 is the samples not counted in any other bin. :meth:`row` and
:meth:`dense` give exactly the numbers the dense array held (bench/engine_fingerprint.py hashes
the dense form, :meth:`dense_chunks`, so the fingerprints did not move).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class QueueHistograms:
    """``[switch port, queue, depth bin]`` sample counts; bin i holds depths i*width ..
    (i+1)*width - 1 packets (``SimulationResult.queue_histogram_width``)."""

    rows: np.ndarray
    """int64 [rows used, bins]: the counts of bins 1.. of each queue that has a row (bin 0
    counts only the samples with 1 .. width - 1 packets; the empty ones are implied)."""
    row_of: np.ndarray
    """int64 [switch port, queue]: the queue's row in ``rows``, -1 if it never held a packet at
    a sample."""
    samples: int
    """Samples taken in the measured window (every queue is sampled each time)."""

    @property
    def shape(self) -> tuple[int, int, int]:
        ports, queues = self.row_of.shape
        return ports, queues, int(self.rows.shape[1])

    def row(self, port: int, queue: int) -> np.ndarray:
        """One queue's histogram (int64 [bins]), bin 0 included."""
        bins = self.shape[2]
        index = int(self.row_of[port, queue])
        histogram = np.zeros(bins, dtype=np.int64) if index < 0 else self.rows[index].copy()
        histogram[0] = self.samples - int(histogram[1:].sum())
        return histogram

    def port(self, port: int) -> np.ndarray:
        """One port's histograms (int64 [queues, bins])."""
        _, queues, bins = self.shape
        block = np.zeros((queues, bins), dtype=np.int64)
        held = self.row_of[port] >= 0
        block[held] = self.rows[self.row_of[port][held]]
        block[:, 0] = self.samples - block[:, 1:].sum(axis=1)
        return block

    def dense_chunks(self) -> Iterator[np.ndarray]:
        """The dense array, port by port (C order: their bytes joined are the dense array's)."""
        for port in range(self.shape[0]):
            yield self.port(port)

    def dense(self) -> np.ndarray:
        """The whole ``[port, queue, bin]`` array (64 KiB per port of 8 queues: small runs only)."""
        if not self.shape[0]:
            return np.zeros(self.shape, dtype=np.int64)
        return np.stack(list(self.dense_chunks()))

    def __getitem__(self, index: tuple[int, int]) -> np.ndarray:
        port, queue = index
        return self.row(int(port), int(queue))

    def __array__(self, dtype: np.dtype[Any] | None = None, copy: bool | None = None) -> np.ndarray:
        """The dense array (``np.asarray``, ``np.testing``); always a new array."""
        dense = self.dense()
        return dense if dtype is None else dense.astype(dtype)


__all__ = ["QueueHistograms"]
