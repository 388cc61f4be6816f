"""``tune --from-gnmi``: the traffic to tune for, from a running fabric's counters, and the
simulator's prediction for today's config held against them before the tune starts.

1. Compile today's intent (its report.json holds each class's queue, as ``watch`` reads it).
2. Read the switches twice, ``--gnmi-window`` apart (:mod:`qosforge.api.tuning.observed`).
3. Per class and host port, the offered load; sources by a gravity model; flow sizes from the
   operator's CDF or DCTCP's web-search distribution; Poisson arrivals
   (:mod:`qosforge.api.tuning.gnmi_traffic`), written as a normal traffic file.
4. Simulate today's config on it and compare, per port and queue
   (:mod:`qosforge.api.tuning.prediction`).
"""

from __future__ import annotations

import io
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qosforge.api.delivery import ConnectionRequest
from qosforge.api.tuning.gnmi_traffic import (
    ARRIVAL_SHARE,
    BuiltTraffic,
    ClassLoad,
    HostPort,
    build_traffic,
    source_weights,
)
from qosforge.api.tuning.observed import DEFAULT_WINDOW, ObservedFabric
from qosforge.api.tuning.prediction import DEFAULT_TOLERANCE, PredictionCheck
from qosforge.errors import QosforgeError

#: The simulated window of the built traffic: as long as roce-pod's mixed traffic file (docs/
#: tune.md), which keeps a tune of roce-pod within minutes.
DEFAULT_DURATION = "3ms"
DEFAULT_FLOW_SIZES = "web-search"
TRAFFIC_FILE = "from-gnmi.traffic.yaml"


@dataclass(frozen=True)
class GnmiSource:
    """Where and how to read the fabric, and how to turn what is read into traffic."""

    switches: tuple[str, ...]
    connection: ConnectionRequest
    window: str = DEFAULT_WINDOW
    flow_sizes: str | None = None
    """A CDF file (``bytes cumulative_probability`` per line) or a built-in name."""
    duration: str = DEFAULT_DURATION
    password: str | None = None
    tolerance: float = DEFAULT_TOLERANCE


@dataclass
class FromGnmi:
    traffic_path: Path
    traffic_text: str
    built: BuiltTraffic
    observed: ObservedFabric
    loads: list[ClassLoad]
    check: PredictionCheck
    assumptions: list[str] = field(default_factory=list)

    def warning(self) -> str | None:
        """The loud line when the prediction departs from the observation, else None."""
        if not self.check.departures:
            return None
        first = self.check.departures[0].line()
        return (
            f"WARNING: the simulator's prediction for today's config departs from the counters "
            f"on {len(self.check.departures)} metric(s) by more than "
            f"{self.check.tolerance:.0%} (first: {first}); the tune goes on, but its result is "
            "only as good as the simulator's model of this traffic: check the assumptions in "
            "tune.json (from_gnmi) before pushing"
        )

    def document(self) -> dict[str, Any]:
        return {
            "traffic_file": TRAFFIC_FILE,
            "window_seconds": self.observed.window_s,
            "wall_window_seconds": self.observed.wall_window_s,
            "flows": self.built.flows,
            "loads": [
                {
                    "destination": load.destination.name,
                    "class": load.class_name,
                    "payload_bps": load.payload_bps,
                    "wire_bps": load.wire_bps,
                    "packets_per_s": load.packets_per_s,
                    "dropped_per_s": load.dropped_per_s,
                    "file_offered_bps": self.built.offered_bps.get(
                        (load.destination.name, load.class_name)
                    ),
                }
                for load in self.loads
            ],
            "unavailable": self.observed.unavailable,
            "assumptions": self.assumptions,
            "prediction": self.check.document(),
        }


def _duration_s(text: str) -> float:
    from qosforge.units import parse_flag, parse_time_s

    return float(parse_flag("--gnmi-duration", parse_time_s, text))


def _header_bytes(transport: str) -> int:
    """Headers in each packet of a class (softswitch traffic/spec.py HEADER_BYTES), by the flow
    kind its hosts run (IRN runs DCQCN, D2TCP runs DCTCP, ...)."""
    from qosforge.softswitch.helper.compiled import transport_hosts
    from qosforge.softswitch.traffic.spec import HEADER_BYTES

    kind = transport_hosts().get(transport)
    return HEADER_BYTES[kind] if kind is not None else HEADER_BYTES["dctcp"]


def class_loads(
    observed: ObservedFabric, expectations: dict[str, Any], hosts: list[HostPort]
) -> list[ClassLoad]:
    """Each class's offered payload rate to each host port read."""
    from qosforge.api.tuning.observed import queue_rates

    by_name = {host.name: host for host in hosts}
    loads: list[ClassLoad] = []
    for name, observation in observed.observations.items():
        expectation = expectations[name]
        transports = {c.name: c.transport for c in expectation.classes}
        for rates in queue_rates(observation, expectation):
            host = by_name.get(f"{name}:{rates.port}")
            if host is None or rates.class_name is None:
                continue
            header = _header_bytes(transports[rates.class_name])
            payload_per_packet = (
                rates.bytes_per_s / rates.packets_per_s - header if rates.packets_per_s else 0.0
            )
            dropped = rates.drops_per_s or 0.0
            payload_bps = 8.0 * (
                rates.bytes_per_s - rates.packets_per_s * header + dropped * payload_per_packet
            )
            loads.append(
                ClassLoad(
                    host,
                    rates.class_name,
                    max(payload_bps, 0.0),
                    8.0 * rates.bytes_per_s,
                    rates.packets_per_s,
                    dropped,
                )
            )
    return loads


def _host_ports(compiled: Any, switches: tuple[str, ...]) -> list[HostPort]:
    return [
        HostPort(switch.name, port.name, float(port.speed_bps))
        for switch in compiled.fabric.switches
        if switch.name in switches
        for port in switch.ports
        if port.peer == "host"
    ]


def _dump(document: dict[str, object]) -> str:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.width = 4096
    stream = io.StringIO()
    yaml.dump(document, stream)
    return stream.getvalue()


def traffic_from_gnmi(
    source: GnmiSource, intent_path: Path, compiled: Any, seed: int, folder: Path
) -> FromGnmi:
    """Read the fabric, build the traffic file into ``folder`` and check today's prediction."""
    from qosforge.api.compile import CompileRequest, compile_to_folder
    from qosforge.api.reporting import QuietReporter
    from qosforge.api.tuning.observed import in_packets_per_s, parse_window, read_fabric
    from qosforge.api.tuning.prediction import compare_prediction, predicted_observations
    from qosforge.lint.watch.expectations import load_expectations
    from qosforge.softswitch.traffic.flow_sizes import flow_size_distribution
    from qosforge.softswitch.traffic.spec import MAX_FLOWS

    window_s = parse_window(source.window)
    duration_s = _duration_s(source.duration)
    sizes_name = source.flow_sizes or DEFAULT_FLOW_SIZES
    try:
        sizes = flow_size_distribution(sizes_name)
    except QosforgeError as error:
        raise QosforgeError(
            error.message, place=f"--flow-sizes {error.place}", hint=error.hint
        ) from None
    if not source.switches:
        raise QosforgeError(
            "no switch to read", place="--from-gnmi", hint="e.g. --from-gnmi leaf1,leaf2"
        )
    known = [s.name for s in compiled.fabric.switches]
    unknown = [s for s in source.switches if s not in known]
    if unknown:
        raise QosforgeError(
            f"{', '.join(unknown)} not in the intent (its switches: {', '.join(known[:8])})",
            place="--from-gnmi",
            hint="name switches of the intent, comma-separated",
        )
    hosts = _host_ports(compiled, source.switches)
    if not hosts:
        raise QosforgeError(
            f"{', '.join(source.switches)} have no host ports: no traffic to hosts is seen there",
            place="--from-gnmi",
            hint="read the leaves (switches with ports whose peer is a host)",
        )
    with tempfile.TemporaryDirectory(prefix="qosforge-tune-today-") as today:
        configs = Path(today) / "configs"
        compile_to_folder(
            CompileRequest(intent_path=str(intent_path), output_dir=str(configs)),
            QuietReporter(),
        )
        observed = read_fabric(
            configs, source.connection, source.switches, window_s, source.password
        )
        expectations = load_expectations(configs)
    loads = class_loads(observed, expectations, hosts)
    received = in_packets_per_s(observed.observations)
    weights, weights_how = source_weights(hosts, received or None)
    built = build_traffic(loads, hosts, weights, sizes, duration_s, seed, MAX_FLOWS)
    text = _dump(built.document)
    path = folder / TRAFFIC_FILE
    path.write_text(text, encoding="utf-8")
    predicted, simulated_s = predicted_observations(
        intent_path, path, source.switches, seed, duration_s * ARRIVAL_SHARE
    )
    speeds = {(h.switch, h.port): h.speed_bps for h in hosts}
    for switch in compiled.fabric.switches:
        for port in switch.ports:
            speeds.setdefault((switch.name, port.name), float(port.speed_bps))
    check = compare_prediction(
        observed.observations, predicted, simulated_s, expectations, speeds, source.tolerance
    )
    assumptions = [
        f"counters: per-queue transmitted bytes and packets and dropped packets on the host "
        f"ports of {', '.join(source.switches)} (openconfig-qos queue state, or SONiC "
        "COUNTERS_DB); ECN marks and PFC pause time only for the prediction check",
        f"window: two snapshots {observed.wall_window_s:.1f} s apart in wall time, "
        f"{observed.window_s:.6g} s on the switches' clocks (the rates' denominator)",
        "mapping: a host port's egress queue of a class is that class's traffic to the host; "
        "payload = transmitted bytes less each packet's headers of the class's transport "
        "(RFC 791/9293/7323 TCP 52 B, RoCEv2 44 B), plus dropped packets at the mean size",
        "traffic from hosts on switches not read is seen only where it leaves a read host "
        "port, and is modelled as coming from the read hosts",
        weights_how,
        f"flow sizes: {sizes.name} ({sizes.source}), mean {sizes.mean_bytes:,.0f} B",
        f"arrivals: per class and destination, flows carrying the observed load over the first "
        f"{ARRIVAL_SHARE:.0%} of a {duration_s * 1e3:g} ms run (the rest lets messages finish), "
        "each starting uniformly in it (a Poisson process given its count); each run's seed "
        "redraws the start times; the prediction is read at the arrivals' end",
        "transport: each class's own (the intent's), not what the hosts actually run",
    ]
    return FromGnmi(path, text, built, observed, loads, check, assumptions)


__all__ = [
    "DEFAULT_DURATION",
    "DEFAULT_FLOW_SIZES",
    "TRAFFIC_FILE",
    "FromGnmi",
    "GnmiSource",
    "class_loads",
    "traffic_from_gnmi",
]
