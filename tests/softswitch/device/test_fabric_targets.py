"""A fabric run serves one gNMI target per switch, each with its own switch's counters: a pause
storm with the PFC watchdog, read switch by switch from sonic-gnmi's COUNTERS_DB paths, adds up
to what the same run in one piece reports (PFC pause time per port and priority, watchdog
deadlocks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from qosforge.softswitch.device.live import Scenario
from qosforge.softswitch.device.serve import serve_simulation
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.helper.fabric import compile_fabric
from qosforge.softswitch.helper.fabric_scenarios import fabric_traffic, pause_storm_run
from qosforge.softswitch.simulation import simulate_fabric

from .conftest import build

WATCHDOG = Path(__file__).resolve().parents[2] / "validation" / "fabrics" / "lossless-watchdog.yaml"


def _get(port: int, *elements: str) -> Any:
    stub = gnmi_pb2_grpc.gNMIStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
    request = gnmi_pb2.GetRequest(prefix=gnmi_pb2.Path(target="COUNTERS_DB"), encoding=gnmi_pb2.JSON_IETF,
                                  path=[gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=e) for e in elements])])
    return json.loads(stub.Get(request, timeout=30).notification[0].update[0].val.json_ietf_val)


# A fabric served until its run ends, then held to a second run (~3 CPU s): the slow tier
# (pyproject.toml); test_gnmi_target.py holds one served switch to a run in the default tier.
@pytest.mark.slow
def test_each_switch_serves_its_own_counters_and_together_they_are_the_run() -> None:
    fabric = compile_fabric(WATCHDOG, ())
    storm = pause_storm_run(fabric, fabric_traffic(fabric, None, None, None, lossless=True), stalled=None, stall_s=1.5e-3,
                            stall_start_s=0.5e-3, flows=2, size_bytes=None, duration_s=3e-3, warmup_s=0.0, seed=7)
    served = serve_simulation(Scenario(fabric.configs, fabric.topology, storm.flows, storm.run), tuple(s.ir for s in fabric.switches),
                              "127.0.0.1", 0, server_credentials=None, credentials=None)
    try:
        assert served.live.wait_until(storm.run.duration_s, timeout_s=300)
        assert [e.switch for e in served.endpoints] == [c.name for c in fabric.configs]
        assert len({e.port for e in served.endpoints}) == len(fabric.configs)
        reference = simulate_fabric(fabric.configs, fabric.topology, storm.flows, storm.run)
        first = 0
        deadlocks = 0
        for endpoint, config in zip(served.endpoints, fabric.configs, strict=True):
            ports = _get(endpoint.port, "COUNTERS", "Ethernet*")
            assert set(ports) == {p.name for p in config.ports}  # this switch's ports, no other's
            for p, port in enumerate(config.ports):
                for priority in range(8):
                    paused_us = int(ports[port.name][f"SAI_PORT_STAT_PFC_{priority}_RX_PAUSE_DURATION_US"])
                    assert paused_us == round(float(reference.pfc_seconds[first + p, priority, 1]) * 1e6)
            watchdog = _get(endpoint.port, "COUNTERS", "Ethernet*", "Pfcwd")
            deadlocks += sum(int(fields["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"]) for fields in watchdog.values())
            first += len(config.ports)
        assert deadlocks == reference.counters["pfc_deadlocks"] > 0
    finally:
        served.stop()


def test_a_target_that_cannot_listen_is_refused(intent_file: Path) -> None:
    # conftest.py's small leaf, not the fabric: the first server that cannot bind refuses the
    # whole run (its run stopped) however many switches follow, and compiling the fabric
    # cost ~2 CPU s.
    built = build(intent_file, duration_s=1e-3)
    config = built.compiled.config
    scenario = Scenario((config,), single_switch(len(config.ports)), built.flows, built.run)
    with pytest.raises(RuntimeError):
        serve_simulation(scenario, (built.compiled.ir,), "203.0.113.1", 1, server_credentials=None,
                         credentials=None)
