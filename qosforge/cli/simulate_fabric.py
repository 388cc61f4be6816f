"""``qosforge simulate INTENT --scenario fabric-incast|all-to-all|pause-storm|deadlock``: the whole
fabric (or the switches named by ``--switch``) on the software switch (docs/softswitch.md "Fabric";
deadlock: docs/deadlock.md "Simulated")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from qosforge.errors import QosforgeError

FABRIC_SCENARIOS = ("fabric-incast", "all-to-all", "pause-storm", "deadlock")


@dataclass(frozen=True)
class ScenarioDefaults:
    """What ``--scenario X`` alone runs: a few milliseconds of a 100G fabric take seconds."""

    duration_s: float
    warmup_s: float
    flows: int


#: fabric-incast: DCQCN's rate recovery after the first CNPs takes milliseconds (its timer and byte
#: counter stages, DCQCN §5), so a 5 ms run with a 1 ms warm-up measured the start-up transient
#: (roce-pod: 32 Gb/s on a 100G receiver); from 10 ms on the receiver runs at line rate (95.7 Gb/s
#: of goodput over 10..20 ms and over 25..50 ms alike), so the default measures 10 ms after a
#: 10 ms warm-up; all-to-all: flows of the web-search mix (mean ~1.7 MB, 130 us at 100G)
#: arrive and finish many times over; pause-storm: 1 ms before the stall, the stall, 1 ms after. On
#: roce-pod that 1 ms is no steady state: one flow per host is a 48:1 DCQCN incast on the stalled
#: host (its queue ~11,500 packets at 1 ms), which the stall then spreads upstream; docs/softswitch.md.
DEFAULTS = {
    "fabric-incast": ScenarioDefaults(duration_s=20e-3, warmup_s=10e-3, flows=10),
    "all-to-all": ScenarioDefaults(duration_s=3e-3, warmup_s=0.0, flows=0),
    "pause-storm": ScenarioDefaults(duration_s=0.0, warmup_s=0.0, flows=1),
    # deadlock: flows per closing (source, destination) pair, as many as the leaves' hosts allow up
    # to 16 (softswitch/helper/fabric_deadlock.py FLOWS_PER_PAIR); its duration follows the watchdog.
    "deadlock": ScenarioDefaults(duration_s=0.0, warmup_s=0.0, flows=0),
}
#: pause-storm: the stall starts after this warm-up and the run goes on this long after it.
STALL_MARGIN_S = 1e-3
#: pause-storm default stall; a watchdog with a longer detection interval does not fire in it (the
#: scenario reports whether it did), SONiC's 200 ms needs ``--stall 250ms``.
DEFAULT_STALL_S = 2e-3


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
    serve: Any = None
    """cli/serve_gnmi.py ServeOptions: serve the switches over gNMI while the run goes on."""


def run_fabric(options: FabricOptions) -> tuple[Any, dict[str, Any], dict[str, Any], float, float]:
    """Build and simulate the scenario: (result, the fabric's JSON keys, header, duration, warm-up)."""
    from qosforge.cli.progress import progress
    from qosforge.cli.simulate import check_work
    from qosforge.softswitch.helper.fabric import compile_fabric
    from qosforge.softswitch.helper.fabric_report import fabric_summary
    from qosforge.softswitch.helper.fabric_scenarios import (
        all_to_all_run,
        fabric_incast_run,
        fabric_traffic,
        pause_storm_run,
    )
    from qosforge.softswitch.randomness import fabric_seed_matters
    from qosforge.softswitch.simulation import simulate_fabric
    from qosforge.softswitch.traffic.flow_sizes import flow_size_distribution
    from qosforge.units import format_value

    if options.intent is None:
        raise QosforgeError(f"{options.scenario} runs on a compiled intent", place="INTENT", hint=f"e.g. qosforge simulate examples/roce-pod.yaml --scenario {options.scenario}")
    defaults = DEFAULTS[options.scenario]
    if options.scenario == "all-to-all" and options.flows is not None:
        raise QosforgeError("all-to-all's flows arrive at --load, not a fixed number", place="--flows", hint="drop --flows, set --load (e.g. 60%)")
    if options.load is not None and options.scenario != "all-to-all":
        raise QosforgeError(f"--load applies to all-to-all, not {options.scenario}", place="--load", hint="drop --load or use --scenario all-to-all")
    if options.stall_s is not None and options.scenario != "pause-storm":
        raise QosforgeError(f"--stall applies to pause-storm, not {options.scenario}", place="--stall", hint="drop --stall or use --scenario pause-storm")
    load = 0.6 if options.load is None else options.load
    if not 0.0 < load <= 1.0:
        raise QosforgeError(f"must be within (0, 100%] (got {load:g})", place="--load", hint="the offered load per host link, e.g. 60%")
    flows = defaults.flows if options.flows is None else options.flows
    stall_s = DEFAULT_STALL_S if options.stall_s is None else options.stall_s
    if options.scenario == "pause-storm":
        duration_s = options.duration_s if options.duration_s is not None else STALL_MARGIN_S + stall_s + STALL_MARGIN_S
    else:
        duration_s = options.duration_s if options.duration_s is not None else defaults.duration_s
    warmup_s = options.warmup_s if options.warmup_s is not None else _default_warmup_s(options, defaults, duration_s)
    kind = options.transport
    fabric = compile_fabric(Path(options.intent), options.switches, assume=options.assume)
    if options.scenario == "deadlock":
        return _run_deadlock(options, fabric)
    traffic = fabric_traffic(fabric, options.class_name, kind, options.packet_bytes,  # type: ignore[arg-type]
                             lossless=options.scenario == "pause-storm", rto_min_s=options.rto_min_s)
    packet_bytes = traffic.packet_bytes
    if options.scenario == "fabric-incast":
        built = fabric_incast_run(fabric, traffic, receiver=options.port_name, flows=flows, size_bytes=options.flow_size_bytes,
                                  duration_s=duration_s, warmup_s=warmup_s, seed=options.seed)
    elif options.scenario == "all-to-all":
        try:
            distribution = flow_size_distribution(options.flow_size_dist)
        except QosforgeError as error:
            # A line of a CDF file keeps its file:line place; an unknown name is the flag's.
            raise (error.with_place(f"--flow-size-dist {options.flow_size_dist}") if error.place == options.flow_size_dist else error) from None
        built = all_to_all_run(fabric, traffic, load=load, distribution=distribution, duration_s=duration_s, warmup_s=warmup_s, seed=options.seed)
    else:
        built = pause_storm_run(fabric, traffic, stalled=options.port_name, stall_s=stall_s, stall_start_s=STALL_MARGIN_S, flows=flows,
                                size_bytes=options.flow_size_bytes, duration_s=duration_s, warmup_s=warmup_s, seed=options.seed)
    # Checked after the scenario (its --class and --port errors come first).
    if options.scenario == "pause-storm" and STALL_MARGIN_S + stall_s >= duration_s:
        # A stall still on at the end never shows the XON, the drain or the watchdog's recovery.
        raise QosforgeError(f"the stall ({format_value(stall_s, 's')} from {format_value(STALL_MARGIN_S, 's')}) does not end within "
                            f"--duration {format_value(duration_s, 's')}", place="--stall",
                            hint=f"shorten --stall or simulate longer than {format_value(STALL_MARGIN_S + stall_s, 's')} (default: stall + 2 ms)")
    # Every host link at line rate bounds the packets the run carries.
    check_work(duration_s, sum(port.speed_bps for port in fabric.ports if port.peer == "host"), packet_bytes)
    if options.serve is not None:
        from qosforge.softswitch.device.live import Scenario

        result = options.serve.run(Scenario(fabric.configs, fabric.topology, built.flows, built.run), tuple(s.ir for s in fabric.switches))
    else:
        with progress(f"simulating {format_value(duration_s, 's')} of {options.scenario} on {len(fabric.switches)} switches", total=None):
            result = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    if options.warmup_s is not None and warmup_s > 0 and result.counters["packets_forwarded"] == 0:
        click.echo(f"note: no packet was forwarded after the --warmup of {format_value(warmup_s, 's')}: every statistic below is zero "
                 "(the traffic, if any, was all inside the warm-up; try --warmup 0s)", err=True)
    # The scenario's own header leaves these out where it had no use for them (pause-storm's size).
    header = {**built.header, "intent": options.intent, "flow_size_bytes": options.flow_size_bytes,
              "monitored_port": str(fabric.port_ref(built.origin)), "approximations": announce_approximations((s.ir for s in fabric.switches), (s.config.asic for s in fabric.switches))}
    if options.scenario == "all-to-all":
        del header["flow_size_bytes"]  # sizes come from flow_size_dist
    keys = {**fabric_summary(result, fabric, built.origin, options.scenario),
            "seed_effective": fabric_seed_matters(fabric.configs, fabric.topology, built.flows, seeded_workload=options.scenario == "all-to-all")}
    return result, keys, header, duration_s, warmup_s


def _run_deadlock(options: FabricOptions, fabric: Any) -> tuple[Any, dict[str, Any], dict[str, Any], float, float]:
    """The deadlock scenario: fail the links, drive line-rate traffic around the graph's cycles,
    watch the buffers between the kernel's stops (softswitch/helper/fabric_deadlock.py)."""
    from qosforge.cli.progress import progress
    from qosforge.cli.simulate import check_work
    from qosforge.softswitch.helper.fabric_deadlock import (
        DEADLOCK_MARGIN_S,
        OBSERVATIONS,
        deadlock_run,
        deadlock_summary,
        default_duration_s,
        failed_fabric,
        watchdog_interval_s,
    )
    from qosforge.softswitch.helper.fabric_report import fabric_summary
    from qosforge.softswitch.helper.fabric_scenarios import fabric_traffic
    from qosforge.softswitch.pfc_deadlock import DeadlockObserver
    from qosforge.softswitch.randomness import fabric_seed_matters
    from qosforge.softswitch.simulation import simulate_fabric_observed
    from qosforge.units import format_value

    assert options.intent is not None
    if options.warmup_s:
        raise QosforgeError("the deadlock scenario measures from time 0 (its time to deadlock counts from the first packet)", place="--warmup",
                            hint="drop --warmup")
    setup = failed_fabric(fabric, Path(options.intent), options.fail_links)
    traffic = fabric_traffic(setup.fabric, options.class_name, options.transport or "cbr", options.packet_bytes,  # type: ignore[arg-type]
                             lossless=True, rto_min_s=options.rto_min_s)
    watchdog_s = watchdog_interval_s(setup.fabric, traffic)
    duration_s = options.duration_s if options.duration_s is not None else default_duration_s(options.watchdog, watchdog_s[0])
    built = deadlock_run(setup, traffic, flows=options.flows, duration_s=duration_s, seed=options.seed, watchdog=options.watchdog)
    ports = setup.fabric.ports
    # The watchdog's detection interval is spent deadlocked, where a packet time costs one host-side
    # drop and no switch work (roce-pod, 210 ms with SONiC's 200 ms watchdog: 174 M events in 26 s
    # of loop CPU, docs/deadlock.md "Measured"), so it does not count against the bound.
    watched_s = watchdog_s[0] if options.watchdog else 0.0
    check_work(max(duration_s - watched_s, min(duration_s, DEADLOCK_MARGIN_S)), sum(ports[flow.src_port].speed_bps for flow in built.flows),
               traffic.packet_bytes)
    # Where compile would refuse a healthy fabric with this cycle, the scenario names it and goes on.
    for cycle in setup.predicted:
        click.echo(f"warning: with {' and '.join(setup.failed)} down the lossless class's buffers form a cycle: {cycle.describe()} "
                   "(qosforge check deadlock); simulating it", err=True)
    observer = DeadlockObserver(setup.fabric.topology)
    with progress(f"simulating {format_value(duration_s, 's')} of deadlock on {len(setup.fabric.switches)} switches", total=None):
        result, observations = simulate_fabric_observed(setup.fabric.configs, setup.fabric.topology, built.flows, built.run,
                                                        duration_s / OBSERVATIONS, observer)
    header = {**built.header, "intent": options.intent, "monitored_port": str(setup.fabric.port_ref(built.origin)),
              "approximations": announce_approximations((s.ir for s in setup.fabric.switches), (s.config.asic for s in setup.fabric.switches))}
    keys = {**fabric_summary(result, setup.fabric, built.origin, "deadlock"),
            **deadlock_summary(result, observations, setup, watchdog=options.watchdog, watchdog_s=watchdog_s, packet_bytes=traffic.packet_bytes),
            "seed_effective": fabric_seed_matters(setup.fabric.configs, setup.fabric.topology, built.flows, seeded_workload=False)}
    return result, keys, header, duration_s, 0.0


def announce_approximations(switches: Iterable[Any], asics: Iterable[Any] = ()) -> list[str]:
    """The approximations the intent accepted (``approximations:``) that shaped these switches'
    programs, each noted on stderr as ``compile`` reports it, and those the software switch took
    for what a vendor profile leaves unknown (``AsicModel.approximations``: ``red-linear``);
    sorted names for the JSON."""
    gaps = sorted({(gap.target, gap.class_name, gap.feature, gap.approximation) for switch in switches for gap in switch.gaps if gap.approximation})
    for target, class_name, feature, approximation in gaps:
        click.echo(f"note: {target}: class {class_name}: {feature} approximated ({approximation}); the simulation runs the approximation", err=True)
    chip_notes = sorted({note for asic in asics for note in asic.approximations})
    for note in chip_notes:
        click.echo(f"note: software switch: {note}", err=True)
    return sorted({gap[3] for gap in gaps} | {note.partition(":")[0] for note in chip_notes})


def _default_warmup_s(options: FabricOptions, defaults: ScenarioDefaults, duration_s: float) -> float:
    """The scenario's warm-up, but none for finite flows: an incast of 1 MB flows is over in well
    under the 1 ms that long-lived flows need to settle, so a warm-up would hide all of it."""
    if options.flow_size_bytes is not None:
        return 0.0
    return min(defaults.warmup_s, duration_s / 2)


__all__ = ["DEFAULTS", "FABRIC_SCENARIOS", "FabricOptions", "announce_approximations", "run_fabric"]
