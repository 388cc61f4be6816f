"""A switch's counters as ``watch`` saw them: the samples a device published, folded per counter
and object (docs/telemetry.md, "Timestamps and intervals").

For each (counter, port, index) it keeps the first and the latest sample, the highest value and
the sample times, so the rules can ask for a change over the watch (cumulative counters), a peak
(watermarks) or a state (the PFC watchdog). ``once`` marks a single snapshot: a cumulative counter
is then judged on its value since the device last cleared it, as there is no earlier sample.
A counter the target never published is *unavailable*; the rules that need it do not run on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from qosforge.backends.counters import SPECS, Counter, CounterKey, Kind, Sample


@dataclass
class Series:
    """One counter of one object: the first and latest samples, the peak, and the history of
    (timestamp_ns, value) the storm rule reads (bounded: only the latest ``limit``)."""

    first: Sample
    last: Sample
    peak: int
    samples: int = 1
    later_peak: int | None = None
    """The highest value after the first sample: a watermark over the same window as a change."""
    history: list[tuple[int, int]] = field(default_factory=list)
    limit: int = 4096

    def add(self, sample: Sample) -> None:
        if sample.timestamp_ns >= self.last.timestamp_ns:
            self.last = sample
        if isinstance(sample.value, int):
            self.peak = max(self.peak, sample.value)
            self.later_peak = sample.value if self.later_peak is None else max(self.later_peak, sample.value)
            self.history.append((sample.timestamp_ns, sample.value))
            if len(self.history) > self.limit:
                del self.history[: len(self.history) - self.limit]
        self.samples += 1


@dataclass
class Observation:
    """Everything one switch published during a watch."""

    switch: str
    once: bool = False
    series: dict[tuple[Counter, CounterKey], Series] = field(default_factory=dict)
    seen: set[Counter] = field(default_factory=set)

    def add(self, samples: Iterable[Sample]) -> None:
        for sample in samples:
            self.seen.add(sample.counter)
            slot = (sample.counter, sample.key)
            current = self.series.get(slot)
            if current is None:
                value = sample.value if isinstance(sample.value, int) else 0
                self.series[slot] = Series(sample, sample, value, history=[(sample.timestamp_ns, value)] if isinstance(sample.value, int) else [])
            else:
                current.add(sample)

    def available(self, counter: Counter) -> bool:
        return counter in self.seen

    def get(self, counter: Counter, key: CounterKey) -> Series | None:
        return self.series.get((counter, key))

    def keys(self, counter: Counter) -> Iterator[CounterKey]:
        for (c, key) in sorted(self.series, key=lambda slot: (slot[0].value, slot[1].port, slot[1].index or 0)):
            if c is counter:
                yield key

    def change(self, counter: Counter, key: CounterKey) -> int | None:
        """How much a cumulative counter grew during the watch (its value since the device last
        cleared it for a single snapshot); None when the object has no such counter. A counter
        that went down was cleared on the device in between: its latest value is the change."""
        series = self.get(counter, key)
        if series is None or not isinstance(series.last.value, int) or not isinstance(series.first.value, int):
            return None
        if SPECS[counter].kind is not Kind.CUMULATIVE:
            raise ValueError(f"{counter} is not cumulative")
        if self.once or series.samples == 1:
            return series.last.value if self.once else 0
        return series.last.value - series.first.value if series.last.value >= series.first.value else series.last.value

    def peak_during(self, counter: Counter, key: CounterKey) -> int | None:
        """A watermark's peak over the window :meth:`change` covers: every sample for a snapshot;
        in a stream the highest sample after the first, and only if it rose above the first (the
        first one's peak may predate the watch)."""
        series = self.get(counter, key)
        if series is None:
            return None
        if self.once or series.samples == 1:
            return series.peak
        # A watermark that never rose after the first sample may be a peak from before the watch
        # (a device that does not clear it, or SONiC's periodic table): no evidence for the window.
        first = series.first.value if isinstance(series.first.value, int) else 0
        return series.later_peak if series.later_peak is not None and series.later_peak > first else None

    def elapsed_s(self, counter: Counter, key: CounterKey) -> float | None:
        series = self.get(counter, key)
        if series is None or series.samples < 2:
            return None
        return (series.last.timestamp_ns - series.first.timestamp_ns) / 1e9


__all__ = ["Observation", "Series"]
