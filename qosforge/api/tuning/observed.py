"""``tune --from-gnmi``: read a running fabric's counters over a window, with ``watch``'s own
machinery (devices resolved by :func:`qosforge.api.watch.prepare_watch`, counters read by
:mod:`qosforge.deliver.watch` and folded by :class:`qosforge.lint.watch.observation.Observation`),
and turn them into per-port, per-class rates.

Two snapshots (gNMI Subscribe ONCE, specification §3.5.1.5.1), ``window`` apart in wall time: a
cumulative counter's rate is its change over the span of the two samples' timestamps (the
time the target took each value, §2.2.1), so a device whose clock runs slower than the wall
(the software switch publishes simulated time) is measured on its own clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from qosforge.api.delivery import ConnectionRequest
from qosforge.backends.counters import Counter, CounterKey
from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.lint.watch.expectations import SwitchExpectation
    from qosforge.lint.watch.observation import Observation

#: The shortest window: SONiC refreshes COUNTERS_DB port counters every second
#: (sonic-swss orchagent/portsorch.cpp PORT_STAT_FLEX_COUNTER_POLLING_INTERVAL_MS 1000); a
#: shorter window reads the same poll twice.
MIN_WINDOW_S = 1.0
#: SONiC's queue counters are polled every 10 s (portsorch.cpp
#: QUEUE_STAT_FLEX_COUNTER_POLLING_INTERVAL_MS 10000): the default window spans three polls.
DEFAULT_WINDOW = "30s"


@dataclass(frozen=True)
class QueueRates:
    """One egress queue's rates over the window (per second of the device's clock)."""

    switch: str
    port: str
    queue: int
    class_name: str | None
    bytes_per_s: float
    packets_per_s: float
    marks_per_s: float | None
    drops_per_s: float | None
    paused_share: float | None
    """Share of the window the queue's PFC priority was paused by the peer (lossless classes
    where the switch publishes pause time), else None."""

    def metrics(self) -> dict[str, float | None]:
        """The rates the prediction check compares, by name."""
        return {
            "bytes_per_s": self.bytes_per_s,
            "marks_per_s": self.marks_per_s,
            "drops_per_s": self.drops_per_s,
            "paused_share": self.paused_share,
        }


@dataclass(frozen=True)
class ObservedFabric:
    observations: dict[str, Observation]
    window_s: float
    """The device-clock span of the two snapshots (the shortest over the switches)."""
    wall_window_s: float
    unavailable: dict[str, dict[str, str]]
    """Per switch: counter families the target does not serve, and why."""


def parse_window(text: str) -> float:
    from qosforge.units import parse_flag, parse_time_s

    window_s = float(parse_flag("--gnmi-window", parse_time_s, text))
    if window_s < MIN_WINDOW_S:
        raise QosforgeError(
            f"{text} is too short to see counters change: SONiC refreshes its port counters "
            f"every {MIN_WINDOW_S:g} s and its queue counters every 10 s",
            place="--gnmi-window",
            hint=f"give at least {MIN_WINDOW_S:g}s (default {DEFAULT_WINDOW})",
        )
    return window_s


def read_fabric(
    configs_dir: Path,
    connection: ConnectionRequest,
    switches: tuple[str, ...],
    window_s: float,
    password: str | None,
    sleep: Callable[[float], None] = time.sleep,
) -> ObservedFabric:
    """Two snapshots of every switch's counters, ``window_s`` apart."""
    from qosforge.api.watch import WatchRequest, prepare_watch
    from qosforge.deliver.gnmi import GnmiSession
    from qosforge.deliver.watch import FAMILIES, families, snapshot
    from qosforge.lint.watch.observation import Observation

    plan = prepare_watch(
        WatchRequest(output_dir=configs_dir, connection=connection, switches=switches)
    )
    observations = {d.name: Observation(d.name) for d in plan.devices}
    unavailable: dict[str, dict[str, str]] = {}
    started = time.monotonic()
    for round_ in range(2):
        if round_:
            sleep(max(0.0, window_s - (time.monotonic() - started)))
        for device in plan.devices:
            try:
                with GnmiSession(device, password) as session:
                    states = families(session, FAMILIES)
                    observations[device.name].add(snapshot(session, states))
            except QosforgeError as error:
                raise QosforgeError(
                    f"{device.name} ({device.address}): {error.message}",
                    place="--from-gnmi",
                    hint=error.hint or "check the address and TLS flags (as for watch)",
                ) from None
            unavailable[device.name] = {s.name: s.unavailable for s in states if s.unavailable}
    wall_window_s = time.monotonic() - started
    spans: list[float] = []
    for name, observation in observations.items():
        keys = list(observation.keys(Counter.QUEUE_TRANSMIT_BYTES))
        if not keys:
            raise QosforgeError(
                f"{name} publishes no per-queue transmitted bytes (openconfig-qos "
                "transmit-octets, or SONiC's SAI_QUEUE_STAT_BYTES)",
                place="--from-gnmi",
                hint="enable the QUEUE flex-counter group on the switch, or give --traffic FILE",
            )
        elapsed = [observation.elapsed_s(Counter.QUEUE_TRANSMIT_BYTES, key) for key in keys]
        span = max((e for e in elapsed if e is not None), default=0.0)
        moved = any(observation.change(Counter.QUEUE_TRANSMIT_BYTES, key) for key in keys)
        if span <= 0 or not moved:
            raise QosforgeError(
                f"{name}'s queue counters did not change in {wall_window_s:.1f} s "
                f"(device clock: {span:.3g} s): the window is shorter than the switch refreshes "
                "them, or nothing was sent",
                place="--gnmi-window",
                hint="give a longer window (SONiC polls queue counters every 10 s), or read "
                "switches that carry traffic",
            )
        spans.append(span)
    return ObservedFabric(observations, min(spans), wall_window_s, unavailable)


def queue_rates(
    observation: Observation, expectation: SwitchExpectation, window_s: float | None = None
) -> list[QueueRates]:
    """Every egress queue's rates; ``window_s`` for a single snapshot (its values count from the
    device's last clear: a simulated run's measured window), else each series' own span."""
    out: list[QueueRates] = []
    for key in observation.keys(Counter.QUEUE_TRANSMIT_BYTES):
        assert key.index is not None
        span = window_s if window_s is not None else observation.elapsed_s(
            Counter.QUEUE_TRANSMIT_BYTES, key
        )
        if not span:
            continue
        cls = expectation.class_of_queue(key.index)

        def rate(counter: Counter, at: CounterKey = key, per_s: float = span) -> float | None:
            change = observation.change(counter, at)
            return None if change is None else change / per_s

        paused: float | None = None
        if cls is not None and cls.lossless and cls.priority_group is not None:
            paused_us = rate(Counter.PFC_RX_PAUSE_US, CounterKey(key.port, cls.priority_group))
            paused = None if paused_us is None else paused_us / 1e6
        out.append(
            QueueRates(
                observation.switch,
                key.port,
                key.index,
                cls.name if cls is not None else None,
                rate(Counter.QUEUE_TRANSMIT_BYTES) or 0.0,
                rate(Counter.QUEUE_TRANSMIT_PACKETS) or 0.0,
                rate(Counter.QUEUE_ECN_MARKED_PACKETS),
                rate(Counter.QUEUE_DROPPED_PACKETS),
                paused,
            )
        )
    return out


def in_packets_per_s(observations: Mapping[str, Observation]) -> dict[str, float]:
    """``switch:port`` -> packets received per second, where the switch publishes in-pkts."""
    out: dict[str, float] = {}
    for name, observation in observations.items():
        for key in observation.keys(Counter.PORT_IN_PACKETS):
            change = observation.change(Counter.PORT_IN_PACKETS, key)
            span = observation.elapsed_s(Counter.PORT_IN_PACKETS, key)
            if change is not None and span:
                out[f"{name}:{key.port}"] = change / span
    return out


__all__ = [
    "DEFAULT_WINDOW",
    "MIN_WINDOW_S",
    "ObservedFabric",
    "QueueRates",
    "in_packets_per_s",
    "parse_window",
    "queue_rates",
    "read_fabric",
]
