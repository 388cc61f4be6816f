"""A compiled intent as a fabric (softswitch/helper/fabric.py) and the engine forwarding across it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qosforge.softswitch.engine.build import HOST
from qosforge.softswitch.fabric_metrics import PortRef
from qosforge.softswitch.helper.fabric import Fabric, compile_fabric
from qosforge.softswitch.simulation import simulate_fabric
from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

SMALL = Path(__file__).resolve().parents[2] / "validation" / "fabrics" / "lossless-watchdog.yaml"


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return compile_fabric(SMALL, ())


def test_every_switch_is_loaded_and_linked_as_the_intent_says(fabric: Fabric) -> None:
    assert [s.ir.name for s in fabric.switches] == ["leaf1", "leaf2", "leaf3", "spine1", "spine2"]
    assert len(fabric.hosts) == 6 and all(fabric.topology.peers[p] == HOST for p in fabric.host_ports)
    links = fabric.links()
    # Each leaf has one uplink per spine, and every link is seen from both ends.
    assert links[PortRef("leaf1", "Ethernet8")] == PortRef("spine1", "Ethernet0")
    assert all(links[far] == near for near, far in links.items())
    assert len(links) == 2 * 3 * 2
    # Each switch is its own SAI program with the intent's watchdog intervals.
    assert all(s.program is not None for s in fabric.switches)
    lossless_tc = next(c for c in fabric.switches[0].ir.classes if c.lossless).traffic_class
    assert fabric.configs[0].ports[0].pfc_deadlock_detection_s[lossless_tc] == pytest.approx(1e-3)


def _uplink_bytes(fabric: Fabric, seed: int) -> np.ndarray:
    leaf1, leaf3 = fabric.host_ports[0], fabric.host_ports[-1]
    flows = tuple(FlowSpec("dctcp", leaf1 if f % 2 else fabric.host_ports[1], leaf3 if f % 3 else fabric.host_ports[-2], 0,
                           ack_delay_s=10e-6, start_s=1e-6 * f) for f in range(16))
    result = simulate_fabric(fabric.configs, fabric.topology, flows, RunSpec(duration_s=3e-4, seed=seed))
    uplinks = [fabric.port_index(PortRef("leaf1", "Ethernet8")), fabric.port_index(PortRef("leaf1", "Ethernet12"))]
    assert result.counters["delivered_bytes"] > 0
    return result.dequeued_bytes[uplinks].sum(axis=1)


def test_ecmp_spreads_flows_over_both_spines_and_is_seeded(fabric: Fabric) -> None:
    first = _uplink_bytes(fabric, seed=1)
    assert (first > 0).all(), first
    np.testing.assert_array_equal(first, _uplink_bytes(fabric, seed=1))


def test_a_subset_keeps_only_its_links(fabric: Fabric) -> None:
    chain = compile_fabric(SMALL, ("leaf1", "spine1", "leaf3"))
    assert [s.ir.name for s in chain.switches] == ["leaf1", "spine1", "leaf3"]
    assert PortRef("leaf1", "Ethernet12") not in chain.links()  # its spine2 uplink is left unconnected
    assert len(chain.hosts) == 4


def test_a_single_switch_intent_is_not_a_fabric_and_says_so() -> None:
    from qosforge.errors import QosforgeError

    intent = Path(__file__).resolve().parents[3] / "examples" / "tlt-softswitch.yaml"
    with pytest.raises(QosforgeError) as caught:
        compile_fabric(intent, ())
    assert "one switch" in str(caught.value) and "--scenario incast" in str(caught.value.hint)
    assert caught.value.place == str(intent)


def test_each_link_carries_its_wire_and_the_receiving_switch_the_rest_of_its_latency() -> None:
    """mixed-fabric: host links take host_latency (1 us) of which 2 m of cable (10 ns) is wire and
    the rest is forwarding; switch links state no latency, so theirs is their wire, 100 m at
    5 ns/m, with no forwarding (compiler/topology.py)."""
    from qosforge.compiler.topology import PROPAGATION_M_PER_S
    from qosforge.softswitch.helper.fabric import fabric_from_switches

    intent = Path(__file__).resolve().parents[3] / "examples" / "mixed-fabric.yaml"
    assume = {"red.steps": "1024", "red.step_offset": "0"}
    mixed = compile_fabric(intent, (), assume=assume)
    ports = [port for config in mixed.configs for port in config.ports]
    assert len(mixed.link_delays_s) == len(mixed.forwarding_delays_s) == len(ports) == mixed.topology.n_ports
    for port, wire, forwarding, latency in zip(ports, mixed.link_delays_s, mixed.forwarding_delays_s, mixed.link_latencies_s, strict=True):
        assert wire == pytest.approx(port.cable_m / PROPAGATION_M_PER_S)
        assert latency == pytest.approx(1e-6 if port.peer == "host" else port.cable_m / PROPAGATION_M_PER_S)
        assert forwarding == pytest.approx(latency - wire)
    assert PROPAGATION_M_PER_S == pytest.approx(2e8)  # 5 ns/m, IEEE 802.3 Table 29-3
    # Without the intent's latencies (switches alone) a link is its cable: 100 m at 5 ns/m.
    bare = fabric_from_switches(tuple(s.ir for s in mixed.switches), assume=assume)
    assert bare.link_delays_s[mixed.port_index(PortRef("spine1", "Ethernet0"))] == pytest.approx(500e-9)
    assert set(bare.forwarding_delays_s) == {0.0}


def test_the_simulated_fabric_routes_by_the_intents_model_around_failures(fabric: Fabric) -> None:
    """lossless-watchdog's leaf-spine runs eBGP (the generators' default, spines sharing ASN
    65534): with leaf1-spine1 and leaf2-spine2 down, spine1 refuses leaf2's prefix from leaf3 (its
    AS path already holds the spines' ASN, RFC 4271 §9.1.2), so leaf1 and leaf2 are cut off from
    each other and the failure is refused; under shortest paths leaf1 reaches leaf2 by bouncing
    up spine2, down to leaf3 and up spine1 (four switch hops)."""
    from dataclasses import replace

    from qosforge.compiler.routing import SHORTEST_PATH_ROUTING
    from qosforge.errors import QosforgeError
    from qosforge.softswitch.helper.fabric import failed_cable, with_failed_links
    from qosforge.softswitch.helper.topology import first_path

    assert fabric.routing.model == "ebgp-rfc7938" and dict(fabric.routing.asns)["spine1"] == 65534
    cables = (failed_cable(fabric, "leaf1-spine1"), failed_cable(fabric, "leaf2-spine2"))
    with pytest.raises(QosforgeError, match="leaf1 has no route to the hosts of leaf2 under ebgp-rfc7938 routing"):
        with_failed_links(fabric, cables)
    shortest = with_failed_links(replace(fabric, routing=SHORTEST_PATH_ROUTING), cables)
    leaf1_host, leaf2_host = fabric.host_ports[0], fabric.host_ports[2]
    hops = [fabric.port_ref(p).switch for p in first_path(shortest.topology, leaf1_host, leaf2_host)]
    assert hops == ["leaf1", "spine2", "leaf3", "spine1", "leaf2"]
