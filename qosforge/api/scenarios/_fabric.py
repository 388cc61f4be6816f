"""What the fabric scenarios share: the whole fabric of INTENT (or the switches ``--switch``
names) on the software switch, its traffic in one class, the run and its report
(docs/softswitch.md "Fabric"). Each scenario's module gives a :class:`FabricPlan`: its defaults
and the builder of its flows."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qosforge.api.reporting import Reporter, StderrReporter
from qosforge.api.simulation import (
    PlotData,
    ScenarioInput,
    SimulationOutcome,
    assumptions,
    check_work,
)
from qosforge.errors import QosforgeError
from qosforge.units import parse_flag, parse_fraction, parse_size_bytes, parse_time_s

if TYPE_CHECKING:
    from qosforge.api.serve import ServeOptions
    from qosforge.ir import SwitchIR
    from qosforge.softswitch.asic import AsicModel
    from qosforge.softswitch.helper.fabric import Fabric
    from qosforge.softswitch.helper.fabric_scenarios import FabricRun, FabricTraffic
    from qosforge.softswitch.metrics import SimulationResult

#: What running a fabric plan gives: the engine's result, the fabric's JSON keys, the report's
#: header, the run's duration and warm-up (seconds).
PlanResult = tuple["SimulationResult", dict[str, Any], dict[str, Any], float, float]


@dataclass(frozen=True)
class ScenarioDefaults:
    """What ``--scenario X`` alone runs: a few milliseconds of a 100G fabric take seconds."""

    duration_s: float
    warmup_s: float
    flows: int


@dataclass(frozen=True)
class FabricOptions:
    intent: str | None
    scenario: str
    switches: tuple[str, ...]
    class_name: str | None
    port_name: str | None
    flows: int | None
    transport: str | None
    packet_bytes: int | None
    """None: the class's default (the intent's lossless MTU in a lossless class, else 1500 B)."""
    flow_size_bytes: int | None
    load: float | None
    flow_size_dist: str
    stall_s: float | None
    duration_s: float | None
    warmup_s: float | None
    seed: int
    rto_min_s: float | None
    assume: dict[str, str]
    fail_links: tuple[str, ...] = ()
    """deadlock: the cables to fail (``--fail-link``)."""
    watchdog: bool = True
    """deadlock: run the PFC watchdog the intent configures (``--no-watchdog``: without it)."""
    serve: ServeOptions | None = None
    """Serve the switches over gNMI while the run goes on (qosforge/api/serve.py)."""


@dataclass(frozen=True)
class FabricBuild:
    """What a plan's builder gets: the compiled fabric, its class's traffic and the run's length."""

    options: FabricOptions
    fabric: Fabric
    traffic: FabricTraffic
    flows: int
    duration_s: float
    warmup_s: float


@dataclass(frozen=True)
class FabricPlan:
    """A fabric scenario's part of the run: its defaults, the checks before the fabric is
    compiled, its flows (``build`` returns a softswitch/helper/fabric_scenarios.py ``ScenarioRun``)
    and what its report keeps."""

    defaults: ScenarioDefaults
    build: Callable[[FabricBuild], FabricRun]
    check: Callable[[FabricOptions], None] = lambda options: None
    duration_s: Callable[[FabricOptions], float] | None = None
    """The default duration where it depends on the options (pause-storm: stall + margins)."""
    lossless: bool = False
    """The traffic runs in a lossless class (pause-storm: its first lossless class by default)."""
    seeded_workload: bool = False
    """The seed draws the workload itself (all-to-all's Poisson arrivals and sizes)."""
    reports_flow_size: bool = True
    whole: Callable[[FabricOptions, Fabric, Reporter], PlanResult] | None = None
    """A scenario that runs the compiled fabric its own way (deadlock): everything after compiling."""


def fabric_options(inp: ScenarioInput) -> FabricOptions:
    """The fabric run's options from the request's flags."""
    from qosforge.api.scenarios.flags import TRANSPORTS

    request = inp.request
    packet = inp.packet_given
    size = parse_flag("--flow-size", parse_size_bytes, request.flow_size, packet_bytes=packet or 1500)
    return FabricOptions(
        intent=request.intent, scenario=str(request.scenario), switches=request.switch_names, class_name=request.class_name,
        port_name=request.port_name, flows=request.flows, transport=TRANSPORTS[request.transport] if request.transport else None,
        packet_bytes=packet, flow_size_bytes=None if size is None else max(1, int(size)), load=parse_flag("--load", parse_fraction, request.load_text),
        flow_size_dist=request.flow_size_dist or "web-search", stall_s=parse_flag("--stall", parse_time_s, request.stall_text),
        duration_s=parse_flag("--duration", parse_time_s, request.duration), warmup_s=parse_flag("--warmup", parse_time_s, request.warmup, allow_zero=True),
        seed=request.seed, rto_min_s=inp.rto_min_s, assume=assumptions(request.assumptions), serve=inp.serve, fail_links=request.fail_links,
        watchdog=not request.no_watchdog,
    )


def fabric_outcome(inp: ScenarioInput, plan: FabricPlan) -> SimulationOutcome:
    """Run a fabric scenario from its request and report it (the keys ``--format json`` prints)."""
    from qosforge.softswitch.metrics import summary

    options = fabric_options(inp)
    result, fabric_keys, header, duration_s, warmup_s = run_plan(options, plan, inp.reporter)
    seed_effective = bool(fabric_keys.pop("seed_effective"))
    if not seed_effective and "seed" in inp.request.operator_typed:
        inp.reporter.note("note: --seed has no effect on this run: it has no ECMP choice, no RED/ECN ramp and no Poisson arrivals, "
                          "so every seed gives the same result")
    report = {**header, "duration_s": duration_s, "warmup_s": warmup_s, "seed": options.seed, "seed_effective": seed_effective,
              **summary(result), **fabric_keys}
    plot = PlotData(f"{options.scenario}: {header['transport']}, {header['flows']} flows", (header["monitored_port"],),
                    report.get("throughput_timeline"))
    return SimulationOutcome(report, result, plot)


def run_fabric(options: FabricOptions, reporter: Reporter | None = None) -> PlanResult:
    """Build and simulate ``options.scenario`` (a registered fabric scenario): (result, the
    fabric's JSON keys, header, duration, warm-up)."""
    from qosforge.api.scenarios import fabric_plans

    return run_plan(options, fabric_plans()[options.scenario], reporter or StderrReporter())


def run_plan(options: FabricOptions, plan: FabricPlan, reporter: Reporter) -> PlanResult:
    from qosforge.softswitch.helper.class_report import flow_ect
    from qosforge.softswitch.helper.fabric import compile_fabric
    from qosforge.softswitch.helper.fabric_report import fabric_summary
    from qosforge.softswitch.helper.fabric_scenarios import fabric_traffic
    from qosforge.softswitch.randomness import fabric_seed_matters
    from qosforge.softswitch.simulation import simulate_fabric
    from qosforge.units import format_value

    if options.intent is None:
        raise QosforgeError(f"{options.scenario} runs on a compiled intent", place="INTENT", hint=f"e.g. qosforge simulate examples/roce-pod.yaml --scenario {options.scenario}")
    defaults = plan.defaults
    plan.check(options)
    flows = defaults.flows if options.flows is None else options.flows
    if options.duration_s is not None:
        duration_s = options.duration_s
    else:
        duration_s = plan.duration_s(options) if plan.duration_s is not None else defaults.duration_s
    warmup_s = options.warmup_s if options.warmup_s is not None else _default_warmup_s(options, defaults, duration_s)
    fabric = compile_fabric(Path(options.intent), options.switches, assume=options.assume)
    if plan.whole is not None:
        return plan.whole(options, fabric, reporter)
    traffic = fabric_traffic(fabric, options.class_name, options.transport, options.packet_bytes,  # type: ignore[arg-type]
                             lossless=plan.lossless, rto_min_s=options.rto_min_s)
    built = plan.build(FabricBuild(options, fabric, traffic, flows, duration_s, warmup_s))
    built, tcp_hosts = intent_host_tcp(fabric, built, options)
    # Every host link at line rate bounds the packets the run carries.
    check_work(duration_s, sum(port.speed_bps for port in fabric.ports if port.peer == "host"), traffic.packet_bytes)
    if options.serve is not None:
        from qosforge.softswitch.device.live import Scenario

        result = options.serve.run(Scenario(fabric.configs, fabric.topology, built.flows, built.run), tuple(s.ir for s in fabric.switches))
    else:
        with reporter.progress(f"simulating {format_value(duration_s, 's')} of {options.scenario} on {len(fabric.switches)} switches"):
            result = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    if options.warmup_s is not None and warmup_s > 0 and result.counters["packets_forwarded"] == 0:
        reporter.note(f"note: no packet was forwarded after the --warmup of {format_value(warmup_s, 's')}: every statistic below is zero "
                      "(the traffic, if any, was all inside the warm-up; try --warmup 0s)")
    # The scenario's own header leaves these out where it had no use for them (pause-storm's size).
    header = {**built.header, "intent": options.intent, "flow_size_bytes": options.flow_size_bytes,
              "monitored_port": str(fabric.port_ref(built.origin)), "host_tcp": tcp_hosts,
              "approximations": announce_approximations(reporter, (s.ir for s in fabric.switches), (s.config.asic for s in fabric.switches))}
    if not plan.reports_flow_size:
        del header["flow_size_bytes"]
    keys = {**fabric_summary(result, fabric, built.origin, options.scenario),
            "flow_ect": flow_ect(built.flows),
            "seed_effective": fabric_seed_matters(fabric.configs, fabric.topology, built.flows, seeded_workload=plan.seeded_workload)}
    return result, keys, header, duration_s, warmup_s


def intent_host_tcp(
    fabric: Fabric, built: FabricRun, options: FabricOptions
) -> tuple[FabricRun, list[dict[str, Any]]]:
    """The run with each window flow's Linux TCP host as the intent states it for the flow's class
    (softswitch/helper/host_kernel.py ``apply_intent_hosts``: the minimum RTO and initial window,
    ``--rto-min`` over the first), and the report's ``host_tcp``: each such class's host once,
    with the source of every value; empty where no class of the run has a Linux TCP host (RoCE).
    The report's ``hosts`` stays the fabric's host count."""
    from dataclasses import replace

    from qosforge.softswitch.helper.host_kernel import apply_intent_hosts

    flows, models = apply_intent_hosts(fabric.switches[0].ir.classes, built.flows,
                                       transport_flag=options.transport is not None,
                                       rto_min_flag_s=options.rto_min_s)
    return replace(built, flows=flows), [model.as_json() for model in models]


def announce_approximations(reporter: Reporter, switches: Iterable[SwitchIR], asics: Iterable[AsicModel] = ()) -> list[str]:
    """The approximations the intent accepted (``approximations:``) that shaped these switches'
    programs, each noted on stderr as ``compile`` reports it, and those the software switch took
    for what a vendor profile leaves unknown (``AsicModel.approximations``: ``red-linear``);
    sorted names for the JSON."""
    gaps = sorted({(gap.target, gap.class_name, gap.feature, gap.approximation) for switch in switches for gap in switch.gaps if gap.approximation})
    for target, class_name, feature, approximation in gaps:
        reporter.note(f"note: {target}: class {class_name}: {feature} approximated ({approximation}); the simulation runs the approximation")
    chip_notes = sorted({note for asic in asics for note in asic.approximations})
    for note in chip_notes:
        reporter.note(f"note: software switch: {note}")
    return sorted({gap[3] for gap in gaps} | {note.partition(":")[0] for note in chip_notes})


def _default_warmup_s(options: FabricOptions, defaults: ScenarioDefaults, duration_s: float) -> float:
    """The scenario's warm-up, but none for finite flows: an incast of 1 MB flows is over in well
    under the 1 ms that long-lived flows need to settle, so a warm-up would hide all of it."""
    if options.flow_size_bytes is not None:
        return 0.0
    return min(defaults.warmup_s, duration_s / 2)


__all__ = ["FabricBuild", "FabricOptions", "FabricPlan", "PlanResult", "ScenarioDefaults", "announce_approximations", "fabric_options", "fabric_outcome",
           "intent_host_tcp", "run_fabric", "run_plan"]
