"""``--scenario all-to-all``: Poisson flow arrivals at ``--load`` of every host link, sizes drawn
from ``--flow-size-dist`` (softswitch/helper/fabric_scenarios.py ``all_to_all_run``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qosforge.api.scenarios._fabric import (
    FabricBuild,
    FabricOptions,
    FabricPlan,
    ScenarioDefaults,
    fabric_outcome,
)
from qosforge.api.scenarios._framework import Scenario
from qosforge.api.scenarios.flags import COMPILED_INSTEAD
from qosforge.api.simulation import ScenarioInput, SimulationOutcome
from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.softswitch.helper.fabric_scenarios import FabricRun

DEFAULT_LOAD = 0.6


def _check(options: FabricOptions) -> None:
    if options.flows is not None:
        raise QosforgeError("all-to-all's flows arrive at --load, not a fixed number", place="--flows", hint="drop --flows, set --load (e.g. 60%)")
    load = DEFAULT_LOAD if options.load is None else options.load
    if not 0.0 < load <= 1.0:
        raise QosforgeError(f"must be within (0, 100%] (got {load:g})", place="--load", hint="the offered load per host link, e.g. 60%")


def _build(run: FabricBuild) -> FabricRun:
    from qosforge.softswitch.helper.fabric_scenarios import all_to_all_run
    from qosforge.softswitch.traffic.flow_sizes import flow_size_distribution

    options = run.options
    try:
        distribution = flow_size_distribution(options.flow_size_dist)
    except QosforgeError as error:
        # A line of a CDF file keeps its file:line place; an unknown name is the flag's.
        raise (error.with_place(f"--flow-size-dist {options.flow_size_dist}") if error.place == options.flow_size_dist else error) from None
    load = DEFAULT_LOAD if options.load is None else options.load
    return all_to_all_run(run.fabric, run.traffic, load=load, distribution=distribution, duration_s=run.duration_s, warmup_s=run.warmup_s,
                          seed=options.seed)


#: Flows of the web-search mix (mean ~1.7 MB, 130 us at 100G) arrive and finish many times over in 3 ms.
PLAN = FabricPlan(defaults=ScenarioDefaults(duration_s=3e-3, warmup_s=0.0, flows=0), build=_build, check=_check, seeded_workload=True,
                  reports_flow_size=False)


def run(inp: ScenarioInput) -> SimulationOutcome:
    return fabric_outcome(inp, PLAN)


SCENARIO = Scenario(
    name="all-to-all",
    summary="Poisson arrivals at `--load` of every host link, sizes from `--flow-size-dist` (`web-search`, `data-mining`, or a CDF file)",
    defaults="60 %, web-search, 3 ms",
    reads={"switch_names": "the whole fabric", "warmup": "0", "transport": "the class's", "packet_text": "the class's frame",
           "class_name": "the first class", "load_text": "60%", "flow_size_dist": "web-search", "assumptions": "none"},
    run=run,
    order=40,
    instead={**COMPILED_INSTEAD, "flows": "all-to-all's flows arrive at --load", "flow_size": "all-to-all draws sizes from --flow-size-dist"},
)
