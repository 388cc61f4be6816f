"""``--scenario pause-storm``: one host stops draining for ``--stall`` and pauses its edge port
while every host sends to it and to bystanders (softswitch/helper/fabric_scenarios.py
``pause_storm_run``)."""

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

#: The stall starts after this warm-up and the run goes on this long after it.
STALL_MARGIN_S = 1e-3
#: The default stall; a watchdog with a longer detection interval does not fire in it (the
#: scenario reports whether it did), SONiC's 200 ms needs ``--stall 250ms``.
DEFAULT_STALL_S = 2e-3


def _stall_s(options: FabricOptions) -> float:
    return DEFAULT_STALL_S if options.stall_s is None else options.stall_s


def _build(run: FabricBuild) -> FabricRun:
    from qosforge.softswitch.helper.fabric_scenarios import pause_storm_run
    from qosforge.units import format_value

    options = run.options
    stall_s = _stall_s(options)
    built = pause_storm_run(run.fabric, run.traffic, stalled=options.port_name, stall_s=stall_s, stall_start_s=STALL_MARGIN_S, flows=run.flows,
                            size_bytes=options.flow_size_bytes, duration_s=run.duration_s, warmup_s=run.warmup_s, seed=options.seed)
    # Checked after the scenario (its --class and --port errors come first).
    if STALL_MARGIN_S + stall_s >= run.duration_s:
        # A stall still on at the end never shows the XON, the drain or the watchdog's recovery.
        raise QosforgeError(f"the stall ({format_value(stall_s, 's')} from {format_value(STALL_MARGIN_S, 's')}) does not end within "
                            f"--duration {format_value(run.duration_s, 's')}", place="--stall",
                            hint=f"shorten --stall or simulate longer than {format_value(STALL_MARGIN_S + stall_s, 's')} (default: stall + 2 ms)")
    return built


#: 1 ms before the stall, the stall, 1 ms after. On roce-pod that 1 ms is no steady state: one flow
#: per host is a 48:1 DCQCN incast on the stalled host (its queue ~11,500 packets at 1 ms), which
#: the stall then spreads upstream; docs/softswitch.md.
PLAN = FabricPlan(defaults=ScenarioDefaults(duration_s=0.0, warmup_s=0.0, flows=1), build=_build,
                  duration_s=lambda options: STALL_MARGIN_S + _stall_s(options) + STALL_MARGIN_S, lossless=True)


def run(inp: ScenarioInput) -> SimulationOutcome:
    return fabric_outcome(inp, PLAN)


SCENARIO = Scenario(
    name="pause-storm",
    summary="`--flows` per sending host to the stalled host and to bystanders; the stalled host pauses its edge port for `--stall` after 1 ms "
            "(during which those flows are already an incast on it, \"Measured\")",
    defaults="1 per host, 2 ms stall, 1 ms + stall + 1 ms",
    reads={"switch_names": "the whole fabric", "warmup": "0", "transport": "the class's", "packet_text": "the class's frame",
           "class_name": "the first lossless class", "port_name": "the last leaf's first host", "flows": "1 per host", "stall_text": "2ms",
           "flow_size": "long-lived", "assumptions": "none"},
    run=run,
    order=50,
    instead=COMPILED_INSTEAD,
)
