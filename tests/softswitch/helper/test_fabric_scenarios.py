"""The fabric scenarios (softswitch/helper/fabric_scenarios.py): flow sizes become packets whose
last one carries the remainder, so goodput never exceeds the offered load."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.compiler.loader import load_intent
from qosforge.compiler.topology import resolve_topology
from qosforge.models.ethernet import wire_bytes
from qosforge.softswitch.helper.fabric import Fabric, compile_fabric
from qosforge.softswitch.helper.fabric_scenarios import (
    all_to_all_run,
    fabric_incast_run,
    fabric_traffic,
)
from qosforge.softswitch.simulation import simulate_fabric
from qosforge.softswitch.traffic.fabric_workloads import all_to_all_arrivals
from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH, FlowSizeDistribution
from qosforge.softswitch.traffic.spec import HEADER_BYTES

SMALL = Path(__file__).resolve().parents[2] / "validation" / "fabrics" / "lossless-watchdog.yaml"
CONSTANT_100B = FlowSizeDistribution("100B", (100.0, 100.0), (0.0, 1.0), "test")


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return compile_fabric(SMALL, ())


def test_a_100_byte_flow_is_one_packet_of_header_plus_100_bytes(fabric: Fabric) -> None:
    traffic = fabric_traffic(fabric, None, "dctcp", None)
    built = all_to_all_run(fabric, traffic, load=0.01, distribution=CONSTANT_100B, duration_s=2e-3, warmup_s=0.0, seed=1)
    assert all(f.size_packets == 1 and f.last_packet_bytes == HEADER_BYTES["dctcp"] + 100 for f in built.flows)
    result = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    payload, wire = result.counters["delivered_payload_bytes"], result.counters["delivered_bytes"]
    delivered = payload // 100
    assert delivered > 0.9 * len(built.flows)
    assert payload == 100 * delivered  # before the fix: 1500 B packets, 1448 B of "payload" each
    assert wire == (HEADER_BYTES["dctcp"] + 100) * delivered


@pytest.mark.parametrize(("distribution", "transport", "load"), [(CONSTANT_100B, "dcqcn", 0.01), (WEB_SEARCH, "dctcp", 0.3), (WEB_SEARCH, "dcqcn", 0.3)])
def test_goodput_stays_within_the_offered_load(fabric: Fabric, distribution: FlowSizeDistribution, transport: str, load: float) -> None:
    traffic = fabric_traffic(fabric, None, transport, None)  # type: ignore[arg-type]
    duration_s = 3e-3
    built = all_to_all_run(fabric, traffic, load=load, distribution=distribution, duration_s=duration_s, warmup_s=0.0, seed=3)
    result = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    host_rate_bps = min(p.speed_bps for c in fabric.configs for p in c.ports if p.peer == "host")
    workload = all_to_all_arrivals(fabric.hosts, host_rate_bps, load, distribution, duration_s, 3)
    offered_bytes = sum(flow.size_bytes or 0 for flow in workload)
    # Every flow's payload is delivered at most once: goodput never exceeds what was offered.
    assert 0 < result.counters["delivered_payload_bytes"] <= offered_bytes
    offered_bps = len(fabric.hosts) * load * host_rate_bps
    goodput_bps = result.counters["delivered_payload_bytes"] * 8.0 / duration_s
    # Poisson arrivals of a heavy-tailed size: a 3 ms run offers up to a few times its mean.
    assert goodput_bps <= 3.0 * offered_bps


def test_a_lone_packet_crosses_the_fabric_in_the_compilers_one_way_path_delay(fabric: Fabric) -> None:
    """Every link delays as the intent says (link_latency 1us), the delay the compiler's RTT for
    K/BDP is built from (compiler/topology.py ResolvedTopology.rtt_s): a 100 B flow from leaf1 to
    leaf3 on an idle fabric arrives after sum(link latency) + one serialisation per link."""
    traffic = fabric_traffic(fabric, None, "dctcp", None)
    built = fabric_incast_run(fabric, traffic, receiver=None, flows=1, size_bytes=100, duration_s=1e-4, warmup_s=0.0, seed=1)
    result = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    intent, source_map = load_intent(SMALL)
    topology = resolve_topology(intent, source_map)
    # The frame's line time (IEEE 802.3 framing).
    wire_bits = wire_bytes(HEADER_BYTES["dctcp"] + 100) * 8.0
    assert sum(topology.path_link_latencies_s) == pytest.approx(4e-6)  # leaf - spine - leaf, hosts at both ends
    one_way_s = sum(topology.path_link_latencies_s) + sum(wire_bits / speed for speed in topology.path_link_speeds_bps)
    assert result.flow_completion.count == 1
    fct_s = float(result.flow_finish_s[0] - result.flow_start_s[0])
    # Before the fix the cables alone delayed it: 2*3 m + 2*40 m at 5 ns/m, 0.43 us.
    assert fct_s >= one_way_s
    assert fct_s - one_way_s < wire_bits / min(topology.path_link_speeds_bps)
