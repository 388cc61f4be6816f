"""``--scenario deadlock``: fail ``--fail-link`` links, drive line-rate lossless traffic around
the buffer dependency cycles that creates, and watch the buffers between the kernel's stops
(softswitch/helper/fabric_deadlock.py; docs/deadlock.md "Simulated")."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from qosforge.api.reporting import Reporter
from qosforge.api.scenarios._fabric import (
    FabricBuild,
    FabricOptions,
    FabricPlan,
    PlanResult,
    ScenarioDefaults,
    announce_approximations,
    fabric_outcome,
    intent_host_tcp,
)
from qosforge.api.scenarios._framework import Scenario
from qosforge.api.scenarios.flags import COMPILED_INSTEAD
from qosforge.api.simulation import ScenarioInput, SimulationOutcome, check_work
from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.softswitch.helper.fabric import Fabric
    from qosforge.softswitch.helper.fabric_scenarios import FabricRun


def _whole(options: FabricOptions, fabric: Fabric, reporter: Reporter) -> PlanResult:
    from qosforge.softswitch.helper.class_report import flow_ect
    from qosforge.softswitch.helper.fabric_deadlock import (
        DEADLOCK_MARGIN_S,
        OBSERVATIONS,
        deadlock_run,
        deadlock_summary,
        default_duration_s,
        failed_fabric,
        replayed_delivery,
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
    built, tcp_hosts = intent_host_tcp(setup.fabric, built, options)
    ports = setup.fabric.ports
    # The watchdog's detection interval is spent deadlocked, where a packet time costs one host-side
    # drop and no switch work (roce-pod, 210 ms with SONiC's 200 ms watchdog: 174 M events in 26 s
    # of loop CPU, docs/deadlock.md "Measured"), so it does not count against the bound.
    watched_s = watchdog_s[0] if options.watchdog else 0.0
    check_work(max(duration_s - watched_s, min(duration_s, DEADLOCK_MARGIN_S)), sum(ports[flow.src_port].speed_bps for flow in built.flows),
               traffic.packet_bytes)
    # Where compile would refuse a healthy fabric with this cycle, the scenario names it and goes on.
    for cycle in setup.predicted:
        reporter.note(f"warning: with {' and '.join(setup.failed)} down the lossless class's buffers form a cycle: {cycle.describe()} "
                      "(qosforge check deadlock); simulating it")
    observer = DeadlockObserver(setup.fabric.topology)
    with reporter.progress(f"simulating {format_value(duration_s, 's')} of deadlock on {len(setup.fabric.switches)} switches"):
        result, observations = simulate_fabric_observed(setup.fabric.configs, setup.fabric.topology, built.flows, built.run,
                                                        duration_s / OBSERVATIONS, observer)
    header = {**built.header, "intent": options.intent, "monitored_port": str(setup.fabric.port_ref(built.origin)),
              "host_tcp": tcp_hosts,
              "approximations": announce_approximations(reporter, (s.ir for s in setup.fabric.switches), (s.config.asic for s in setup.fabric.switches))}
    keys = {**fabric_summary(result, setup.fabric, built.origin, "deadlock"),
            "flow_ect": flow_ect(built.flows),
            **deadlock_summary(result, observations, setup, watchdog=options.watchdog,
                               watchdog_s=watchdog_s, packet_bytes=traffic.packet_bytes,
                               delivered_by=replayed_delivery(built, setup.fabric)),
            "seed_effective": fabric_seed_matters(setup.fabric.configs, setup.fabric.topology, built.flows, seeded_workload=False)}
    return result, keys, header, duration_s, 0.0


def _unused(run: FabricBuild) -> FabricRun:
    raise AssertionError("the deadlock scenario builds its flows in _whole")


#: Flows per closing (source, destination) pair, as many as the leaves' hosts allow up to 16
#: (softswitch/helper/fabric_deadlock.py FLOWS_PER_PAIR); its duration follows the watchdog.
PLAN = FabricPlan(defaults=ScenarioDefaults(duration_s=0.0, warmup_s=0.0, flows=0), build=_unused, whole=_whole)


def run(inp: ScenarioInput) -> SimulationOutcome:
    return fabric_outcome(inp, PLAN)


SCENARIO = Scenario(
    name="deadlock",
    summary="`--fail-link` links down, routes around them; `--flows` line-rate lossless flows per leaf pair of the routes that close the buffer "
            "dependency cycles the failure creates; reports the deadlock the buffers reach and what the PFC watchdog (`--no-watchdog`: none) "
            "does about it (docs/deadlock.md \"Simulated\")",
    defaults="16 per pair, 5 ms + the watchdog's detection + 5 ms (10 ms without)",
    reads={"switch_names": "the whole fabric", "warmup": "0 (refused otherwise)", "transport": "constant bit rate", "packet_text": "the class's frame",
           "class_name": "the first lossless class", "flows": "16 per pair", "fail_links": "none", "no_watchdog": "the intent's watchdog",
           "assumptions": "none"},
    run=run,
    not_served=("the deadlock run is not served over gNMI", "serve incast or a fabric scenario (fabric-incast, all-to-all, pause-storm)"),
    order=60,
    instead=COMPILED_INSTEAD,
)
