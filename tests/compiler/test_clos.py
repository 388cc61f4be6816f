"""The three-tier Clos generator: wiring, port counts, RTT path and its errors."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.topology import resolve_topology

Writer = Callable[..., Path]

CLOS = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: clos}
topology:
  clos:
    pods: 3
    leaves_per_pod: 4
    spines_per_pod: 2
    super_spines: 4
    hosts_per_leaf: 6
    host_link: {speed: 40G, cable: 3m}
    fabric_link: {speed: 40G, cable: 10m}
    link_latency: 2us
    leaf_profile: broadcom-trident2
classes:
  - {name: bulk, transport: dctcp, dscp: [10]}
"""


def test_clos_wiring_is_symmetric_and_sized(write_intent: Writer) -> None:
    intent, source_map = load_intent(write_intent(CLOS))
    topology = resolve_topology(intent, source_map)
    roles = Counter(s.role for s in topology.switches)
    assert roles == {"leaf": 12, "spine": 6, "super-spine": 4}
    by_name = {s.name: s for s in topology.switches}
    ports = {(s.name, p.name): p for s in topology.switches for p in s.ports}
    for (switch, port), entry in ports.items():
        if entry.peer == "host":
            continue
        peer_switch, _, peer_port = entry.peer.partition(":")
        assert ports[(peer_switch, peer_port)].peer == f"{switch}:{port}"
    assert len(by_name["pod1-leaf1"].ports) == 6 + 2
    assert len(by_name["pod2-spine1"].ports) == 4 + 2  # 4 leaves + 2 super-spines of its plane
    assert len(by_name["superspine3"].ports) == 3  # one per pod
    # Plane 2 (super-spines 3 and 4) is reached from the second spine of every pod.
    assert {p.peer.partition(":")[0] for p in by_name["superspine3"].ports} == {"pod1-spine2", "pod2-spine2", "pod3-spine2"}
    # Across pods: host-leaf-spine-superspine-spine-leaf-host, six links each way.
    assert topology.hops == 6
    assert topology.rtt_s(1500.0) == pytest.approx(2 * 6 * 2e-6 + 6 * (1500 + 84) * 8 / 40e9)


def test_one_pod_clos_is_a_leaf_spine(write_intent: Writer) -> None:
    intent, source_map = load_intent(write_intent(CLOS.replace("pods: 3", "pods: 1")))
    assert resolve_topology(intent, source_map).hops == 4


def test_super_spines_must_fill_whole_planes(write_intent: Writer) -> None:
    with pytest.raises(IntentError, match="must be a multiple of spines_per_pod"):
        load_intent(write_intent(CLOS.replace("super_spines: 4", "super_spines: 5")))


def test_only_one_topology_form(write_intent: Writer) -> None:
    text = CLOS.replace("topology:\n", "topology:\n  switches: []\n")
    with pytest.raises(IntentError, match="exactly one of 'leaf_spine' or 'clos'"):
        load_intent(write_intent(text))


def test_clos_compiles_with_its_own_profiles(write_intent: Writer) -> None:
    text = CLOS.replace("    leaf_profile: broadcom-trident2\n", "    leaf_profile: broadcom-trident2\n    super_spine_profile: mellanox-spectrum\n")
    intent, source_map = load_intent(write_intent(text))
    fabric = compile_intent(intent, source_map)
    profiles = {s.name: s.vendor_profile for s in fabric.switches}
    assert profiles["superspine1"] == "mellanox-spectrum" and profiles["pod1-spine1"] == "broadcom-trident2"


def test_the_thousand_switch_benchmark_fabric_fits_32_port_switches(write_intent: Writer) -> None:
    text = CLOS.replace("pods: 3", "pods: 32").replace("leaves_per_pod: 4", "leaves_per_pod: 20").replace("spines_per_pod: 2", "spines_per_pod: 10").replace("super_spines: 4", "super_spines: 40").replace("hosts_per_leaf: 6", "hosts_per_leaf: 16")
    intent, source_map = load_intent(write_intent(text))
    topology = resolve_topology(intent, source_map)
    assert len(topology.switches) == 1000
    assert max(len(s.ports) for s in topology.switches) == 32
    fabric = compile_intent(intent, source_map, switches=("pod32-leaf20", "pod1-spine10", "superspine40"))
    assert [len(s.ports) for s in fabric.switches] == [26, 24, 32]
