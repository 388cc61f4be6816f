"""RoCE CNPs cross the software switch through the compiled plan's strict-priority CNP queue."""

from __future__ import annotations

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent
from qosforge.softswitch.helper.compiled import CompiledSwitch, load_compiled
from qosforge.softswitch.helper.single_switch import incast_flows
from qosforge.softswitch.simulation import simulate
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

ROCE = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: cnp}
topology:
  switches:
    - name: tor
      profile: softswitch
      ports:
        - {name: "Ethernet[0-28/4]", speed: 40G, cable: 3m, peer: host}
classes:
  - {name: rdma, transport: dcqcn, dscp: [26], lossless: true}
targets: [sai]
"""
RECEIVER, SENDERS, NOISE = 0, (1, 2), (3, 4, 5)


@pytest.fixture(scope="module")
def roce(tmp_path_factory: pytest.TempPathFactory) -> CompiledSwitch:
    path = tmp_path_factory.mktemp("cnp") / "roce.yaml"
    path.write_text(ROCE)
    intent, source_map = load_intent(path)
    return load_compiled(compile_intent(intent, source_map).for_target("sai")[0])


def _run(switch: CompiledSwitch, cnp_dscp: int | None) -> dict[str, float]:
    """A 2:1 DCQCN incast while three lossy CBR sources overload the first sender's own port, so
    CNPs towards it cross a congested egress port."""
    rdma = next(c for c in switch.ir.classes if c.name == "rdma")
    flows = incast_flows(switch.config, receiver=RECEIVER, flows=4, transport="dcqcn", dscp=rdma.dscp[0], senders=SENDERS,
                         ack_delay_s=5e-6, cnp_dscp=cnp_dscp)
    line_pps = switch.config.ports[SENDERS[0]].speed_bps / 8 / 1500
    # DSCP 0 is the default class (queue 0) of the sender's port.
    noise = tuple(FlowSpec("cbr", port, SENDERS[0], 0, ect=False, rate_pps=line_pps) for port in NOISE)
    result = simulate(switch.config, (*flows, *noise), RunSpec(duration_s=3e-3, monitors=((RECEIVER, rdma.queue),)))
    return {"cnps": result.counters["cnps"], "forwarded": result.counters["packets_forwarded"], "queue": result.monitors[0].mean_bytes}


def test_the_compiled_plan_names_its_cnp_dscp(roce: CompiledSwitch) -> None:
    assert roce.cnp_dscp == 48
    port = roce.config.ports[SENDERS[0]]
    assert port.dscp_to_tc[48] == 6 and port.tc_to_queue[6] == 6


def test_cnps_cross_the_switch_and_throttle_in_time(roce: CompiledSwitch) -> None:
    side_path = _run(roce, None)
    strict = _run(roce, roce.cnp_dscp)
    behind_data = _run(roce, 0)  # CNPs mapped to the congested default queue of the sender's port
    assert strict["cnps"] > 0
    # CNPs are packets through the switch (forwarded on top of the data) ...
    assert strict["forwarded"] > side_path["forwarded"]
    # ... and only on their own strict-priority queue do they throttle as fast as a free path:
    # queued behind the overload they arrive late (or are dropped) and the incast queue grows.
    assert strict["queue"] == pytest.approx(side_path["queue"], rel=0.25)
    assert behind_data["queue"] > 1.5 * strict["queue"]
