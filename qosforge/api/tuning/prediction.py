"""Before ``tune --from-gnmi`` tunes: the simulator's prediction for today's config on the
traffic built from the counters, held against what the counters showed, per port and queue
(bytes/s, ECN marks/s, drops/s, share of time PFC-paused).

The prediction travels the same road as the observation: the simulated switches' counters at
the end of the run are published as the software switch publishes them over gNMI
(:func:`qosforge.softswitch.device.publish.samples`, the values ``simulate --serve-gnmi``
serves) and folded by ``watch``'s :class:`~qosforge.lint.watch.observation.Observation`, so
both sides are read by one function (:func:`qosforge.api.tuning.observed.queue_rates`) on the
counter catalogue's meaning of each counter.

A departure is a metric whose prediction and observation differ by more than the tolerance,
relative to the larger of the two, and by more than a floor below which counters say nothing:
1 % of the port's line rate (bytes), 1 % of the queue's packets (marks, drops), 1 % of the time
(pause).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from qosforge.api.tuning.observed import QueueRates, queue_rates

if TYPE_CHECKING:
    from qosforge.lint.watch.expectations import SwitchExpectation
    from qosforge.lint.watch.observation import Observation

#: Default tolerance: the prediction is a few simulated milliseconds of Poisson arrivals drawn
#: to carry the observed mean load; a queue's marks and pauses follow its bursts, which the
#: counters do not show, so only a factor-of-two disagreement is called a departure.
DEFAULT_TOLERANCE = 0.5
FLOOR_SHARE = 0.01


@dataclass(frozen=True)
class Departure:
    switch: str
    port: str
    queue: int
    class_name: str | None
    metric: str
    """``bytes_per_s``, ``marks_per_s``, ``drops_per_s`` or ``paused_share``."""
    observed: float
    predicted: float

    @property
    def relative(self) -> float:
        larger = max(abs(self.observed), abs(self.predicted))
        return abs(self.predicted - self.observed) / larger if larger > 0 else 0.0

    def line(self) -> str:
        where = f"{self.switch}|{self.port}.queue {self.queue}" + (
            f" ({self.class_name})" if self.class_name else ""
        )
        unit = {"bytes_per_s": " B/s", "marks_per_s": " /s", "drops_per_s": " /s"}.get(
            self.metric, ""
        )
        return (
            f"{where} {self.metric}: observed {self.observed:,.4g}{unit}, "
            f"predicted {self.predicted:,.4g}{unit} ({self.relative:.0%} apart)"
        )


@dataclass(frozen=True)
class PredictionCheck:
    compared: list[tuple[QueueRates, QueueRates]]
    """(observed, predicted) per queue that carried traffic on either side."""
    departures: list[Departure]
    tolerance: float
    simulated_s: float

    def document(self) -> dict[str, object]:
        return {
            "tolerance": self.tolerance,
            "simulated_seconds": self.simulated_s,
            "queues": [
                {
                    "switch": o.switch,
                    "port": o.port,
                    "queue": o.queue,
                    "class": o.class_name,
                    **{
                        f"{metric}_{side}": value
                        for side, rates in (("observed", o), ("predicted", p))
                        for metric, value in rates.metrics().items()
                    },
                }
                for o, p in self.compared
            ],
            "departures": [d.line() for d in self.departures],
        }


def predicted_observations(
    intent_path: Path, traffic_path: Path, switches: Sequence[str], seed: int, until_s: float
) -> tuple[dict[str, Observation], float]:
    """Run the traffic file on the intent (every switch, as ``simulate --traffic`` does) until
    ``until_s`` (the end of its arrivals: the busy part, as the fabric was busy while it was
    read) and publish the read switches' counters then: (observations, seconds counted)."""
    from qosforge.api.scenarios.traffic import DEFAULT_SAMPLE_S, intent_fabric
    from qosforge.lint.watch.observation import Observation
    from qosforge.softswitch.device.counters import switch_counters
    from qosforge.softswitch.device.publish import samples
    from qosforge.softswitch.helper.traffic_report import (
        Window,
        user_traffic_run,
        user_traffic_specs,
    )
    from qosforge.softswitch.helper.user_traffic import user_traffic
    from qosforge.softswitch.simulation import SegmentedRun
    from qosforge.softswitch.traffic.traffic_file import load_traffic

    fabric = intent_fabric(intent_path, (), {})
    traffic_file = load_traffic(traffic_path)
    assert traffic_file.measure_s is not None
    start_s, end_s = traffic_file.measure_s
    traffic = user_traffic(fabric, traffic_file, seed=seed)
    window = Window(start_s, end_s, min(DEFAULT_SAMPLE_S, end_s - start_s))
    run = user_traffic_run(fabric, traffic, window, seed=seed)
    segmented = SegmentedRun(
        fabric.configs, fabric.topology, user_traffic_specs(fabric, traffic), run
    )
    segmented.advance(min(until_s, end_s))
    observations: dict[str, Observation] = {}
    offset = 0
    for config in fabric.configs:
        if config.name in switches:
            counters = switch_counters(segmented.world, config, offset, segmented.now_s)
            observation = Observation(config.name, once=True)
            observation.add(samples(counters, 0))
            observations[config.name] = observation
        offset += len(config.ports)
    return observations, segmented.now_s - start_s


def compare_prediction(
    observed: Mapping[str, Observation],
    predicted: Mapping[str, Observation],
    simulated_s: float,
    expectations: Mapping[str, SwitchExpectation],
    speeds_bps: Mapping[tuple[str, str], float],
    tolerance: float = DEFAULT_TOLERANCE,
) -> PredictionCheck:
    """Per queue of every switch read: each metric observed and predicted, and the departures."""
    compared: list[tuple[QueueRates, QueueRates]] = []
    departures: list[Departure] = []
    for name, observation in observed.items():
        seen = {(r.port, r.queue): r for r in queue_rates(observation, expectations[name])}
        sim = {
            (r.port, r.queue): r
            for r in queue_rates(predicted[name], expectations[name], simulated_s)
        }
        for key in sorted(set(seen) | set(sim)):
            o, p = seen.get(key), sim.get(key)
            if o is None or p is None or (o.packets_per_s == 0 and p.packets_per_s == 0):
                continue
            compared.append((o, p))
            packets = max(o.packets_per_s, p.packets_per_s)
            floors = {
                "bytes_per_s": FLOOR_SHARE * speeds_bps.get((name, o.port), 0.0) / 8.0,
                "marks_per_s": FLOOR_SHARE * packets,
                "drops_per_s": FLOOR_SHARE * packets,
                "paused_share": FLOOR_SHARE,
            }
            seen_values, predicted_values = o.metrics(), p.metrics()
            for metric, floor in floors.items():
                a, b = seen_values[metric], predicted_values[metric]
                if a is None or b is None:
                    continue  # not published by one side: nothing to compare
                departure = Departure(name, o.port, o.queue, o.class_name, metric, a, b)
                if abs(a - b) > floor and departure.relative > tolerance:
                    departures.append(departure)
    return PredictionCheck(compared, departures, tolerance, simulated_s)


__all__ = [
    "DEFAULT_TOLERANCE",
    "Departure",
    "PredictionCheck",
    "compare_prediction",
    "predicted_observations",
]
