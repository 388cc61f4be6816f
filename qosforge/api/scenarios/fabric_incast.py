"""``--scenario fabric-incast``: ``--flows`` senders spread over the other leaves to one host of
the fabric (softswitch/helper/fabric_scenarios.py ``fabric_incast_run``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qosforge.api.scenarios._fabric import FabricBuild, FabricPlan, ScenarioDefaults, fabric_outcome
from qosforge.api.scenarios._framework import Scenario
from qosforge.api.scenarios.flags import COMPILED_INSTEAD
from qosforge.api.simulation import ScenarioInput, SimulationOutcome

if TYPE_CHECKING:
    from qosforge.softswitch.helper.fabric_scenarios import FabricRun


def _build(run: FabricBuild) -> FabricRun:
    from qosforge.softswitch.helper.fabric_scenarios import fabric_incast_run

    return fabric_incast_run(run.fabric, run.traffic, receiver=run.options.port_name, flows=run.flows, size_bytes=run.options.flow_size_bytes,
                             duration_s=run.duration_s, warmup_s=run.warmup_s, seed=run.options.seed)


#: DCQCN's rate recovery after the first CNPs takes milliseconds (its timer and byte counter
#: stages, DCQCN §5), so a 5 ms run with a 1 ms warm-up measured the start-up transient (roce-pod:
#: 32 Gb/s on a 100G receiver); from 10 ms on the receiver runs at line rate (95.7 Gb/s of goodput
#: over 10..20 ms and over 25..50 ms alike), so the default measures 10 ms after a 10 ms warm-up.
PLAN = FabricPlan(defaults=ScenarioDefaults(duration_s=20e-3, warmup_s=10e-3, flows=10), build=_build)


def run(inp: ScenarioInput) -> SimulationOutcome:
    return fabric_outcome(inp, PLAN)


SCENARIO = Scenario(
    name="fabric-incast",
    summary="`--flows` senders spread over the other leaves to one host, `--flow-size` each (long-lived without)",
    defaults="10 flows, 20 ms, 10 ms warm-up (none with `--flow-size`: finite flows may finish within it)",
    reads={"switch_names": "the whole fabric", "warmup": "10ms (0 with --flow-size)", "transport": "the class's", "packet_text": "the class's frame",
           "class_name": "the first class", "port_name": "the last leaf's first host", "flows": "10", "flow_size": "long-lived",
           "assumptions": "none"},
    run=run,
    order=30,
    instead=COMPILED_INSTEAD,
)
