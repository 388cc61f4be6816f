"""What ``simulate`` and every scenario share: the request, what a scenario's builder gets, its
outcome, and the bound on the work a run may do.

It sits below both :mod:`qosforge.api.simulate` (which checks a request and picks its scenario)
and the scenarios (:mod:`qosforge.api.scenarios`, which build and run it), so neither imports
the other to share them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from qosforge.api.reporting import Reporter
from qosforge.errors import QosforgeError
from qosforge.units import format_value

if TYPE_CHECKING:
    from qosforge.api.serve import ServeOptions
    from qosforge.softswitch.metrics import SimulationResult
    from qosforge.softswitch.sampling import QueueSeries

#: Packets a run may carry at line rate on the bottleneck (duration × rate / packet): at the
#: engine's ~1.5 M events/s (bench/bench_softswitch.py) and a few events per packet, 100 M packets
#: are several minutes of wall time, beyond which a run is a batch job, not a command.
MAX_LINE_RATE_PACKETS = 100_000_000
#: Largest frame the engine models (jumbo frames, 9216 B on most datacenter ASICs).
MAX_PACKET_BYTES = 9216


@dataclass(frozen=True)
class SimulateRequest:
    """Every flag of ``qosforge simulate`` as given (None: not given), plus which were typed.

    ``typed``: the request fields the user typed (a sweep point: those whose value is not the
    flag's default); a typed flag the scenario does not read is refused. ``operator_typed``: those
    a person typed, whom notes such as "--seed has no effect" are for (empty for a sweep point:
    the sweep says it once). ``serve``: given the scenario's name, the gNMI serving settings
    (qosforge/api/serve.py) or None. ``extra``: the values of flags that a
    registered scenario adds (``Scenario.flags``)."""

    scenario: str | None = None
    intent: str | None = None
    traffic_path: str | None = None
    measure_text: str | None = None
    sample_text: str | None = None
    timeseries_path: str | None = None
    switch_names: tuple[str, ...] = ()
    class_name: str | None = None
    port_name: str | None = None
    flows: int | None = None
    load_text: str | None = None
    flow_size_dist: str | None = None
    fail_links: tuple[str, ...] = ()
    no_watchdog: bool = False
    stall_text: str | None = None
    transport: str | None = None
    bandwidth: str = "10G"
    rtt: str = "100us"
    buffer_text: str = "1000pkt"
    ecn_threshold: str | None = None
    red_min: str | None = None
    red_max: str | None = None
    red_pmax: str | None = None
    packet_text: str | None = None
    flow_size: str | None = None
    beta: float = 0.1
    window_r: float = 4.0
    rto_min: str | None = None
    duration: str | None = None
    warmup: str | None = None
    seed: int = 1
    assumptions: tuple[str, ...] = ()
    hosts_path: str | None = None
    plot_path: str | None = None
    typed: frozenset[str] = frozenset()
    operator_typed: frozenset[str] = frozenset()
    serve: Callable[[str], ServeOptions | None] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScenarioInput:
    """What a scenario's builder gets: the request, checked and parsed where every scenario
    shares it."""

    request: SimulateRequest
    reporter: Reporter
    packet_bytes: float
    """``--packet`` or 1500 B (a scenario on an intent uses ``packet_given`` to tell them apart)."""
    rto_min_s: float | None
    serve: ServeOptions | None

    @property
    def packet_given(self) -> int | None:
        return int(self.packet_bytes) if self.request.packet_text else None


@dataclass(frozen=True)
class PlotData:
    """What ``--plot`` draws: the monitored queues (one label each) and, for the deadlock
    scenario, the delivered throughput under them."""

    title: str
    labels: tuple[str, ...]
    throughput: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class SimulationOutcome:
    """``report``: the keys ``--format json`` prints, in order. ``result``: what ``--plot``
    draws: the engine's SimulationResult for a scenario, the sampled queues (QueueSeries) for a
    traffic file's run (``kind`` says which)."""

    report: dict[str, Any]
    result: SimulationResult | QueueSeries | None = None
    plot: PlotData | None = None
    kind: Literal["scenario", "traffic"] = "scenario"


def assumptions(items: tuple[str, ...]) -> dict[str, str]:
    """``--assume FIELD=VALUE`` items as a mapping."""
    result = {}
    for item in items:
        if "=" not in item:
            raise QosforgeError(
                f"{item!r} is not FIELD=VALUE", place="--assume", hint="e.g. --assume red.steps=8"
            )
        key, value = item.split("=", 1)
        result[key.strip()] = value.strip()
    return result


def check_work(
    duration_s: float, line_rate_bps: float, packet_bytes: int, *, place: str = "--duration"
) -> None:
    """Refuse runs that would not finish in reasonable time (the bound is stated in the error)."""
    packets = duration_s * line_rate_bps / (8 * packet_bytes)
    what = f"{format_value(duration_s, 's')} at {format_value(line_rate_bps, 'bps')}"
    check_packets(packets, duration_s, what, packet_bytes, place=place)


def check_packets(
    packets: float, duration_s: float, what: str, packet_bytes: int, *, place: str
) -> None:
    """Refuse a run of more than :data:`MAX_LINE_RATE_PACKETS` packets: ``what`` says whose
    (``10 ms at 400 Gb/s``), ``place`` the flag that sized it; the hint scales ``duration_s``
    down in proportion."""
    if packets > MAX_LINE_RATE_PACKETS:
        longest = duration_s * MAX_LINE_RATE_PACKETS / packets
        raise QosforgeError(
            f"{what} is {packets:,.0f} packets of {packet_bytes} B, more than the "
            f"{MAX_LINE_RATE_PACKETS:,} a run may simulate",
            place=place,
            hint=f"simulate at most {format_value(longest, 's')} at this rate; steady state is "
            "usually reached within a few hundred RTTs",
        )


__all__ = [
    "MAX_LINE_RATE_PACKETS",
    "MAX_PACKET_BYTES",
    "PlotData",
    "ScenarioInput",
    "SimulateRequest",
    "SimulationOutcome",
    "assumptions",
    "check_packets",
    "check_work",
]
