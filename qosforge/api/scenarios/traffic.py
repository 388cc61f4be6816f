"""``qosforge simulate INTENT --traffic FILE``: the user's own flows on the intent's switches
(one switch or a fabric), reported per flow, per group and per port over ``--measure``
(docs/softswitch.md "Your own traffic"); ``--timeseries`` writes the sampled queues. The file is
the scenario, so this run is in the registry as ``traffic``, chosen by ``--traffic``, not
``--scenario``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qosforge.api.reporting import Reporter
from qosforge.api.scenarios._fabric import announce_approximations
from qosforge.api.scenarios._framework import Scenario
from qosforge.api.simulation import (
    PlotData,
    ScenarioInput,
    SimulationOutcome,
    assumptions,
    check_packets,
)
from qosforge.errors import QosforgeError
from qosforge.units import parse_flag, parse_rto_min_s, parse_time_s

if TYPE_CHECKING:
    from collections.abc import Sequence

    from qosforge.softswitch.config import PortConfig
    from qosforge.softswitch.helper.fabric import Fabric
    from qosforge.softswitch.helper.traffic_report import Window
    from qosforge.softswitch.helper.user_traffic import UserFlow, UserTraffic
    from qosforge.softswitch.sampling import QueueSeries, SampledRun
    from qosforge.softswitch.traffic.spec import FlowSpec
    from qosforge.softswitch.traffic.traffic_file import TrafficFile

#: Without --measure or --duration: 10 ms (thousands of RTTs on a datacenter fabric).
DEFAULT_DURATION_S = 10e-3
DEFAULT_SAMPLE_S = 100e-6
TIMESERIES_SUFFIXES = (".csv", ".parquet")
#: A --timeseries beyond this many rows (~50 MB of CSV) is announced with its size before the run.
SERIES_ROWS_NOTED = 1_000_000


@dataclass(frozen=True)
class TrafficOptions:
    intent: str | None
    traffic: str
    switches: tuple[str, ...]
    measure: str | None
    duration_s: float | None
    sample_s: float | None
    seed: int
    rto_min_s: float | None
    assume: dict[str, str]
    timeseries: str | None
    plot: str | None
    flow_overrides: tuple[tuple[str, object], ...] = ()
    """FlowSpec fields set on every flow of the run (``qosforge compare``'s pfc-only mode turns
    the NICs' DCQCN off this way)."""
    traffic_file: TrafficFile | None = None
    """``traffic`` already read (``qosforge compare`` reads it once for all its modes); None: the
    run reads it."""


def parse_measure(text: str) -> tuple[float, float]:
    """``START:END`` (e.g. ``4s:5s``, ``0s:10ms``) -> seconds; END after START."""
    from qosforge.softswitch.traffic.traffic_file import parse_window

    return parse_window(text, "--measure")


def _window(options: TrafficOptions, traffic_file: TrafficFile, reporter: Reporter) -> tuple[Window, str]:
    """The run's window and where it came from: the flags (--measure, --duration) override the
    traffic file's ``measure``/``duration``, which overrides the 10 ms default."""
    from qosforge.softswitch.helper.traffic_report import Window

    if options.measure is not None:
        start, end = parse_measure(options.measure)
        if options.duration_s is not None and not math.isclose(options.duration_s, end, rel_tol=1e-12):
            raise QosforgeError(f"the run ends at the window's end ({end:g} s), not {options.duration_s:g} s", place="--duration",
                                hint="drop --duration (the window's END is the run's end)")
        source = f"--measure {options.measure}"
    elif options.duration_s is not None:
        start, end = 0.0, options.duration_s
        source = f"--duration {options.duration_s:g}s"
    elif traffic_file.measure_s is not None:
        (start, end) = traffic_file.measure_s
        source = f"the traffic file's {traffic_file.window_text}"
    else:
        start, end, source = 0.0, DEFAULT_DURATION_S, f"the default {DEFAULT_DURATION_S:g} s"
    from_file = source.startswith("the traffic file")
    overridden = not from_file and traffic_file.measure_s not in (None, (start, end))
    if overridden:
        reporter.note(f"note: {source} overrides the traffic file's {traffic_file.window_text}")
    sample = options.sample_s if options.sample_s is not None else min(DEFAULT_SAMPLE_S, end - start)
    if sample > end - start:
        raise QosforgeError(f"a sample every {sample:g} s is longer than the {end - start:g} s window", place="--sample",
                            hint="sample more often than the window is long, e.g. --sample 100us")
    return Window(start, end, sample), source


def _check_output(path: str | None, flag: str, suffixes: tuple[str, ...]) -> None:
    if path is not None:
        from qosforge.files import check_output_file

        check_output_file(Path(path), flag=flag, suffixes=suffixes)


def run_traffic(options: TrafficOptions, reporter: Reporter) -> tuple[dict[str, Any], QueueSeries]:
    """Compile, run and report: (report, the sampled series ``--plot`` draws); writes
    --timeseries only once the run succeeded (the CLI draws --plot after it)."""
    from qosforge.files import PLOT_SUFFIXES
    from qosforge.softswitch.helper.class_report import all_port_classes, flow_ect
    from qosforge.softswitch.helper.traffic_report import (
        collectives_json,
        flows_json,
        groups_json,
        mark_pfc_victims,
        ports_json,
        run_user_traffic,
        user_traffic_hosts,
    )
    from qosforge.softswitch.helper.user_traffic import user_traffic
    from qosforge.softswitch.metrics import (
        REASONS_WITH_WATCHDOG,
        THROUGHPUT_BASIS,
        class_drops,
        summary,
    )
    from qosforge.softswitch.traffic.traffic_file import load_traffic
    from qosforge.units import format_value

    if options.intent is None:
        raise QosforgeError("--traffic runs on a compiled intent", place="INTENT", hint="e.g. qosforge simulate examples/roce-pod.yaml --traffic flows.yaml")
    _check_output(options.timeseries, "--timeseries", TIMESERIES_SUFFIXES)
    _check_output(options.plot, "--plot", PLOT_SUFFIXES)
    traffic_file = options.traffic_file
    if traffic_file is None:
        traffic_file = load_traffic(existing_traffic_path(options.traffic))
    window, window_source = _window(options, traffic_file, reporter)
    fabric = _fabric(Path(options.intent), options.switches, options.assume)
    traffic = user_traffic(fabric, traffic_file, seed=options.seed)
    if options.flow_overrides:
        from dataclasses import replace

        overrides: dict[str, Any] = dict(options.flow_overrides)
        traffic = replace(traffic, flows=tuple(replace(flow, spec=replace(flow.spec, **overrides)) for flow in traffic.flows))
    warnings = late_flows(traffic, window)
    packet = max(flow.spec.packet_bytes for flow in traffic.flows)
    check_packets(
        offered_packets(fabric.ports, traffic.flows, window.end_s),
        window.end_s,
        f"{format_value(window.end_s, 's')} of the file's {len(traffic.flows):,} "
        f"flow{'' if len(traffic.flows) == 1 else 's'}",
        packet,
        place="--measure" if options.measure is not None else "--duration",
    )
    _note_series_rows(reporter, options, window, len(traffic.monitors))
    with reporter.progress(f"simulating {format_value(window.end_s, 's')} of {len(traffic.flows)} flows on {len(fabric.switches)} switches"):
        sampled = run_user_traffic(fabric, traffic, window, seed=options.seed, rto_min_s=options.rto_min_s,
                                   series=options.timeseries is not None or options.plot is not None)
    flows = flows_json(traffic, sampled, window)
    groups = groups_json(flows)
    warnings += [f"group '{group['name']}' delivered nothing in {window.start_s:g} s .. "
                 f"{window.end_s:g} s: Jain's index is undefined (reported null, not 1)"
                 for group in groups if group["jain_index"] is None]
    for warning in warnings:
        reporter.note(f"warning: {warning}")
    ports = ports_json(fabric, traffic, sampled)
    mark_pfc_victims(fabric, traffic, flows, ports)
    counters = {key: value for key, value in summary(sampled.result).items()
                if not key.startswith("queue_") and key not in ("mark_fraction", "drop_fraction")}
    report: dict[str, Any] = {
        "scenario": "traffic", "intent": options.intent, "traffic": options.traffic, "switches": [s.ir.name for s in fabric.switches],
        "hosts": len(fabric.hosts),
        # Each class's Linux TCP host, its values' sources (``hosts`` is the host count).
        "host_tcp": [model.as_json()
                     for model in user_traffic_hosts(fabric, traffic, rto_min_s=options.rto_min_s)],
        "flows_count": len(flows), "duration_s": window.end_s, "measure_start_s": window.start_s,
        "measure_end_s": window.end_s, "sample_s": window.sample_s, "seed": options.seed,
        "window_from": window_source,
        # The file's own seed draws its random staggers in place of --seed (user_traffic.py).
        "traffic_seed": traffic_file.seed,
        "seed_effective": _seed_matters(fabric, traffic, traffic_file),
        "vendor_profiles": sorted({s.config.asic.name for s in fabric.switches}),
        "approximations": announce_approximations(reporter, (s.ir for s in fabric.switches), (s.config.asic for s in fabric.switches)),
        **counters,
        # Each flow's throughput_bps is payload, as the run's goodput_gbps.
        "throughput_basis": {**THROUGHPUT_BASIS,
                             "flows": "payload: each flow's application payload delivered"},
        "marks": sampled.result.counters["marks"],
        "drops_by_class": class_drops(sampled.result.drops, all_port_classes(fabric),
                                      REASONS_WITH_WATCHDOG),
        "flow_ect": flow_ect(tuple(flow.spec for flow in traffic.flows)),
        "flows": flows, "groups": groups,
        "ports": ports, "warnings": warnings,
    }
    collectives = collectives_json(traffic, traffic_file, sampled, window)
    if collectives:
        report["collectives"] = collectives
    if options.timeseries is not None:
        _write_timeseries(Path(options.timeseries), fabric, traffic, sampled)
    return report, sampled.series


#: Late flows named one by one in a warning; more are counted.
NAMED_LATE_FLOWS = 3


def late_flows(traffic: UserTraffic, window: Window) -> list[str]:
    """A warning for the flows that start when the run has ended (they send nothing, and their
    zeros would read as starved flows), naming them."""
    flows = traffic.flows
    late = [(index, flow) for index, flow in enumerate(flows) if flow.spec.start_s >= window.end_s]
    if not late:
        return []
    named = "; ".join(f"flow {index} (group {flow.group}, {flow.src} -> {flow.dst}) at "
                      f"{flow.spec.start_s:g} s" for index, flow in late[:NAMED_LATE_FLOWS])
    more = f"; and {len(late) - NAMED_LATE_FLOWS} more" if len(late) > NAMED_LATE_FLOWS else ""
    return [f"{len(late)} of {len(flows)} flows start after the run ends at {window.end_s:g} s and "
            f"send nothing: {named}{more} (give the window they run in: --measure START:END, or "
            "measure: in the traffic file)"]


def offered_packets(ports: Sequence[PortConfig], flows: Sequence[UserFlow], end_s: float) -> float:
    """Packets the flows can put on the wire by ``end_s``, the run's work: each sending host port
    at most at its line rate from its first flow's start, a sized flow no more than its size, an
    open-loop flow no more than its rate (a flow crosses several hops, but so does a line-rate
    packet of :func:`~qosforge.api.simulation.check_work`, the bound this one refines)."""
    flows_of: dict[int, list[FlowSpec]] = {}
    for flow in flows:
        flows_of.setdefault(flow.spec.src_port, []).append(flow.spec)
    total = 0.0
    for port, specs in flows_of.items():
        line_bps = ports[port].speed_bps
        first_start_s = min(spec.start_s for spec in specs)
        smallest_packet = min(spec.packet_bytes for spec in specs)
        line_packets = max(0.0, end_s - first_start_s) * line_bps / (8 * smallest_packet)
        asked = 0.0
        for spec in specs:
            active_s = max(0.0, end_s - spec.start_s)
            open_loop_bps = spec.rate_pps * 8 * spec.packet_bytes
            bps = min(open_loop_bps, line_bps) if spec.rate_pps > 0 else line_bps
            packets = active_s * bps / (8 * spec.packet_bytes)
            asked += packets if spec.size_packets < 0 else min(packets, spec.size_packets)
        total += min(asked, line_packets)
    return total


def _note_series_rows(
    reporter: Reporter, options: TrafficOptions, window: Window, queues: int
) -> None:
    """A time series of very many rows is asked for by a --sample far finer than the queues
    change; say how many before the run writes them."""
    if options.timeseries is None or options.sample_s is None:
        return
    samples = math.floor(window.length_s / window.sample_s * (1 + 1e-12)) + 1
    rows = samples * queues
    if rows > SERIES_ROWS_NOTED:
        from qosforge.units import format_value

        reporter.note(
            f"warning: --sample {format_value(window.sample_s, 's')} over "
            f"{format_value(window.length_s, 's')} makes "
            f"{samples:,} samples of {queues} queues: {rows:,} rows in {options.timeseries} (e.g. "
            "--sample 100us)"
        )


def _seed_matters(fabric: Fabric, traffic: UserTraffic, traffic_file: TrafficFile) -> bool:
    """Whether ``--seed`` changes this run: ECMP hashes, RED ramps, Poisson sources, or a random
    stagger the file does not seed itself (softswitch/randomness.py)."""
    from qosforge.softswitch.randomness import fabric_seed_matters

    drawn = traffic_file.seed is None and any(p.entry.stagger == "random" and p.entry.start_window is not None for p in traffic_file.entries)
    return fabric_seed_matters(fabric.configs, fabric.topology, (flow.spec for flow in traffic.flows), seeded_workload=drawn)


def existing_traffic_path(text: str) -> Path:
    """``--traffic``'s file, refused at the flag when it does not exist (a run and a sweep alike)."""
    import stat

    path = Path(text)
    hint = "give a traffic YAML or CSV (docs/softswitch.md 'Your own traffic')"
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise QosforgeError(f"no such file: {path}", place="--traffic", hint=hint) from None
    except OSError as error:
        message = f"cannot read {path}: {error.strerror}"
        raise QosforgeError(message, place="--traffic", hint=hint) from None
    if not stat.S_ISREG(mode):
        # A FIFO or a device would be read until it ends (/dev/zero never does).
        kinds = {
            stat.S_ISDIR: "a folder",
            stat.S_ISFIFO: "a FIFO (named pipe)",
            stat.S_ISCHR: "a character device",
            stat.S_ISBLK: "a block device",
            stat.S_ISSOCK: "a socket",
        }
        kind = next((name for test, name in kinds.items() if test(mode)), "not a regular file")
        raise QosforgeError(f"{path} is {kind}, not a file", place="--traffic", hint=hint)
    return path


def _fabric(intent: Path, switches: tuple[str, ...], assume: dict[str, str]) -> Fabric:
    """Every switch of the intent (or those named), one or many, as the fabric scenarios load them."""
    from qosforge.api.compile_cache import cached

    if not intent.is_file():
        raise QosforgeError(f"no such file: {intent}", place="INTENT", hint="give an intent YAML, e.g. examples/roce-pod.yaml")

    def compiled_inputs() -> tuple[tuple[Any, ...], Any, tuple[str, ...], dict[Any, Any]]:
        """What the world is built from: the SAI view of every switch, the design point, the
        class names and the link delays (cached: qosforge/api/compile_cache.py)."""
        from qosforge.compiler.compile import compile_intent
        from qosforge.compiler.loader import load_intent
        from qosforge.compiler.topology import resolve_topology
        from qosforge.softswitch.helper.compiled import declared_classes, design_point
        from qosforge.softswitch.helper.fabric import intent_link_latencies_s

        loaded, source_map = load_intent(intent)
        compiled = compile_intent(loaded, source_map, targets=("sai",))
        return (compiled.for_target("sai"), design_point(loaded), declared_classes(loaded),
                intent_link_latencies_s(resolve_topology(loaded, source_map)))

    def world() -> Fabric:
        """The selected switches loaded and linked, routes found (cached as a whole: loading a
        switch renders and validates its SAI program and reads its vendor profile, which a
        warm run then does not import)."""
        from qosforge.softswitch.helper.fabric import fabric_from_switches

        sai_switches, design, declared, latencies = cached("simulate-traffic/sai", intent,
                                                           compiled_inputs)
        by_name = {s.name: s for s in sai_switches}
        for name in switches:
            if name not in by_name:
                raise QosforgeError(f"no switch {name!r} in {intent}", place="--switch",
                                    hint=f"switches: {', '.join(by_name)}")
        selected = (tuple(by_name[n] for n in dict.fromkeys(switches)) if switches
                    else tuple(by_name.values()))
        return fabric_from_switches(selected, assume=assume, design=design,
                                    declared_classes=declared, link_latencies_s=latencies)

    # The selection and the assumptions shape the world, so they are part of its entry's kind
    # (NUL-separated: no switch name or --assume text holds one).
    assumed = sorted(f"{field}={value}" for field, value in assume.items())
    chosen = "\0".join(["simulate-traffic/fabric", *switches, "", *assumed])
    return cached(chosen, intent, world)


def intent_fabric(intent: Path, switches: tuple[str, ...], assume: dict[str, str]) -> Fabric:
    """The fabric ``simulate INTENT --traffic FILE`` runs on (``tune --from-gnmi`` predicts on
    the same one)."""
    return _fabric(intent, switches, assume)


def _write_timeseries(path: Path, fabric: Fabric, traffic: UserTraffic, sampled: SampledRun) -> None:
    from qosforge.softswitch.helper.series_file import write_series

    write_series(path, fabric, traffic, sampled)


def run(inp: ScenarioInput) -> SimulationOutcome:
    request = inp.request
    options = TrafficOptions(intent=request.intent, traffic=str(request.traffic_path), switches=request.switch_names, measure=request.measure_text,
                             duration_s=parse_flag("--duration", parse_time_s, request.duration),
                             sample_s=parse_flag("--sample", parse_time_s, request.sample_text), seed=request.seed,
                             rto_min_s=parse_flag("--rto-min", parse_rto_min_s, request.rto_min),
                             assume=assumptions(request.assumptions), timeseries=request.timeseries_path, plot=request.plot_path)
    report, series = run_traffic(options, inp.reporter)
    title = f"{Path(options.traffic).name} on {Path(str(options.intent)).name}"
    return SimulationOutcome(report, series, PlotData(title, ()), kind="traffic")


#: What the text table and the plot leave out is in ``--format json``: every flag below is refused
#: with the reason the file gives instead.
SCENARIO = Scenario(
    name="traffic",
    summary="the flows the file lists (YAML or CSV; docs/softswitch.md \"Your own traffic\"), on every switch of INTENT or those `--switch` names",
    defaults="10 ms, statistics over the whole run, sampled every 100 us",
    reads={"switch_names": "the whole fabric", "measure_text": "0s:--duration", "sample_text": "100us", "timeseries_path": "none",
           "assumptions": "none"},
    run=run,
    not_served=("the traffic run is not served over gNMI", "serve incast or a fabric scenario (fabric-incast, all-to-all, pause-storm)"),
    order=1000,
    instead={"warmup": "statistics cover --measure START:END", "transport": "give transport: per entry of the traffic file",
             "packet_text": "a flow's frames are its class's: the intent's lossless MTU, else 1500 B",
             "flows": "the traffic file lists the flows (count:, pairing:)", "flow_size": "give size: per entry of the traffic file",
             "class_name": "give class: per entry of the traffic file", "port_name": "give src: and dst: per entry of the traffic file"},
    selectable=False,
)
