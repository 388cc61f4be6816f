"""``qosforge simulate INTENT --traffic FILE``: the user's own flows on the intent's switches
(one switch or a fabric), reported per flow, per group and per port over ``--measure``
(docs/softswitch.md "Your own traffic"); ``--timeseries`` writes the sampled queues. The file is
the scenario, so this run is in the registry as ``traffic``, chosen by ``--traffic``, not
``--scenario``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qosforge.api.reporting import Reporter
from qosforge.api.scenarios._fabric import announce_approximations
from qosforge.api.scenarios._framework import Scenario
from qosforge.api.simulate import (
    PlotData,
    ScenarioInput,
    SimulationOutcome,
    assumptions,
    check_work,
    parse_flag,
)
from qosforge.errors import QosforgeError
from qosforge.units import parse_time_s

#: Without --measure or --duration: 10 ms (thousands of RTTs on a datacenter fabric).
DEFAULT_DURATION_S = 10e-3
DEFAULT_SAMPLE_S = 100e-6
TIMESERIES_SUFFIXES = (".csv", ".parquet")


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


def parse_measure(text: str) -> tuple[float, float]:
    """``START:END`` (e.g. ``4s:5s``, ``0s:10ms``) -> seconds; END after START."""
    from qosforge.errors import UnitError
    from qosforge.units import parse_time_s

    start_text, colon, end_text = text.partition(":")
    if not colon or not start_text.strip() or not end_text.strip():
        raise QosforgeError(f"{text!r} is not START:END", place="--measure", hint="e.g. --measure 4s:5s (statistics over 4 s..5 s; the run ends at 5 s)")
    try:
        start, end = parse_time_s(start_text.strip(), allow_zero=True), parse_time_s(end_text.strip())
    except UnitError as error:
        raise error.with_place("--measure") from None
    if not end > start:
        raise QosforgeError(f"the window ends ({end:g} s) before it starts ({start:g} s)", place="--measure", hint="e.g. --measure 4s:5s")
    return start, end


def _window(options: TrafficOptions) -> Any:
    from qosforge.softswitch.helper.traffic_report import Window

    if options.measure is not None:
        start, end = parse_measure(options.measure)
        if options.duration_s is not None and not math.isclose(options.duration_s, end, rel_tol=1e-12):
            raise QosforgeError(f"the run ends at the window's end ({end:g} s), not {options.duration_s:g} s", place="--duration",
                                hint="drop --duration (the window's END is the run's end)")
    else:
        start, end = 0.0, options.duration_s if options.duration_s is not None else DEFAULT_DURATION_S
    sample = options.sample_s if options.sample_s is not None else min(DEFAULT_SAMPLE_S, end - start)
    if sample > end - start:
        raise QosforgeError(f"a sample every {sample:g} s is longer than the {end - start:g} s window", place="--sample",
                            hint="sample more often than the window is long, e.g. --sample 100us")
    return Window(start, end, sample)


def _check_output(path: str | None, flag: str, suffixes: tuple[str, ...]) -> None:
    if path is not None:
        from qosforge.files import check_output_file

        check_output_file(Path(path), flag=flag, suffixes=suffixes)


def run_traffic(options: TrafficOptions, reporter: Reporter) -> tuple[dict[str, Any], Any]:
    """Compile, run and report: (report, the sampled series ``--plot`` draws); writes
    --timeseries only once the run succeeded (the CLI draws --plot after it)."""
    from qosforge.files import PLOT_SUFFIXES
    from qosforge.softswitch.helper.class_report import all_port_classes, flow_ect
    from qosforge.softswitch.helper.traffic_report import (
        flows_json,
        groups_json,
        ports_json,
        run_user_traffic,
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
    traffic_path = existing_traffic_path(options.traffic)
    window = _window(options)
    traffic_file = load_traffic(traffic_path)
    fabric = _fabric(Path(options.intent), options.switches, options.assume)
    traffic = user_traffic(fabric, traffic_file, seed=options.seed)
    packet = max(flow.spec.packet_bytes for flow in traffic.flows)
    check_work(window.end_s, sum(port.speed_bps for port in fabric.ports if port.peer == "host"), packet)
    with reporter.progress(f"simulating {format_value(window.end_s, 's')} of {len(traffic.flows)} flows on {len(fabric.switches)} switches"):
        sampled = run_user_traffic(fabric, traffic, window, seed=options.seed, rto_min_s=options.rto_min_s,
                                   series=options.timeseries is not None or options.plot is not None)
    flows = flows_json(traffic, sampled, window)
    counters = {key: value for key, value in summary(sampled.result).items()
                if not key.startswith("queue_") and key not in ("mark_fraction", "drop_fraction")}
    report: dict[str, Any] = {
        "scenario": "traffic", "intent": options.intent, "traffic": options.traffic, "switches": [s.ir.name for s in fabric.switches],
        "hosts": len(fabric.hosts), "flows_count": len(flows), "duration_s": window.end_s, "measure_start_s": window.start_s,
        "measure_end_s": window.end_s, "sample_s": window.sample_s, "seed": options.seed,
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
        "flows": flows, "groups": groups_json(flows), "ports": ports_json(fabric, traffic, sampled),
    }
    if options.timeseries is not None:
        _write_timeseries(Path(options.timeseries), fabric, traffic, sampled)
    return report, sampled.series


def _seed_matters(fabric: Any, traffic: Any, traffic_file: Any) -> bool:
    """Whether ``--seed`` changes this run: ECMP hashes, RED ramps, Poisson sources, or a random
    stagger the file does not seed itself (softswitch/randomness.py)."""
    from qosforge.softswitch.randomness import fabric_seed_matters

    drawn = traffic_file.seed is None and any(p.entry.stagger == "random" and p.entry.start_window is not None for p in traffic_file.entries)
    return fabric_seed_matters(fabric.configs, fabric.topology, (flow.spec for flow in traffic.flows), seeded_workload=drawn)


def existing_traffic_path(text: str) -> Path:
    """``--traffic``'s file, refused at the flag when it does not exist (a run and a sweep alike)."""
    path = Path(text)
    if not path.is_file():
        raise QosforgeError(f"no such file: {path}", place="--traffic", hint="give a traffic YAML or CSV (docs/softswitch.md 'Your own traffic')")
    return path


def _fabric(intent: Path, switches: tuple[str, ...], assume: dict[str, str]) -> Any:
    """Every switch of the intent (or those named), one or many, as the fabric scenarios load them."""
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.compiler.topology import resolve_topology
    from qosforge.softswitch.helper.compiled import declared_classes, design_point
    from qosforge.softswitch.helper.fabric import fabric_from_switches, intent_link_latencies_s

    if not intent.is_file():
        raise QosforgeError(f"no such file: {intent}", place="INTENT", hint="give an intent YAML, e.g. examples/roce-pod.yaml")
    loaded, source_map = load_intent(intent)
    compiled = compile_intent(loaded, source_map, targets=("sai",))
    by_name = {s.name: s for s in compiled.for_target("sai")}
    for name in switches:
        if name not in by_name:
            raise QosforgeError(f"no switch {name!r} in {intent}", place="--switch", hint=f"switches: {', '.join(by_name)}")
    selected = tuple(by_name[n] for n in dict.fromkeys(switches)) if switches else tuple(by_name.values())
    return fabric_from_switches(selected, assume=assume, design=design_point(loaded), declared_classes=declared_classes(loaded),
                                link_latencies_s=intent_link_latencies_s(resolve_topology(loaded, source_map)))


def _write_timeseries(path: Path, fabric: Any, traffic: Any, sampled: Any) -> None:
    from qosforge.files import write_atomically
    from qosforge.softswitch.helper.traffic_report import series_columns

    columns = series_columns(fabric, traffic, sampled)
    if path.suffix.lower() == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table({name: pa.array(values.tolist() if values.dtype == object else values) for name, values in columns.items()})
        write_atomically(path, lambda temporary: pq.write_table(table, temporary))
        return
    import csv

    def write_csv(temporary: Any) -> None:
        with open(temporary, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(list(columns))
            writer.writerows(zip(*(values.tolist() for values in columns.values()), strict=True))

    write_atomically(path, write_csv)


def run(inp: ScenarioInput) -> SimulationOutcome:
    request = inp.request
    options = TrafficOptions(intent=request.intent, traffic=str(request.traffic_path), switches=request.switch_names, measure=request.measure_text,
                             duration_s=parse_flag("--duration", parse_time_s, request.duration),
                             sample_s=parse_flag("--sample", parse_time_s, request.sample_text), seed=request.seed,
                             rto_min_s=parse_flag("--rto-min", parse_time_s, request.rto_min),
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
