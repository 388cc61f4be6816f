from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.topology import ACK_WIRE_BYTES, PROPAGATION_M_PER_S, resolve_topology

Writer = Callable[..., Path]


def test_leaf_spine_rtt_is_four_links_there_and_back(write_intent: Writer, base_intent: str) -> None:
    intent, source_map = load_intent(write_intent(base_intent))
    topology = resolve_topology(intent, source_map)
    assert [s.name for s in topology.switches] == ["leaf1", "leaf2", "leaf3", "spine1", "spine2"]
    leaf = topology.switches[0]
    assert [p.name for p in leaf.ports] == [f"Ethernet{4 * i}" for i in range(6)]
    assert leaf.ports[0].peer == "host"
    assert leaf.ports[4].peer == "spine1:Ethernet0"
    assert topology.switches[3].ports[1].peer == "leaf2:Ethernet16"
    assert topology.hops == 4
    serialisation = 4 * (1500 + ACK_WIRE_BYTES) * 8 / 40e9
    assert topology.rtt_s(1500) == pytest.approx(8 * 10e-6 + serialisation)


def test_explicit_topology_path_and_cable_latency(write_intent: Writer) -> None:
    path = write_intent(
        """
        apiVersion: qosforge/v1
        kind: Fabric
        metadata: {name: t}
        topology:
          switches:
            - name: a
              profile: broadcom-trident2
              ports:
                - {name: "Ethernet[0-4/4]", speed: 40G, cable: 2m, peer: host}
                - {name: Ethernet8, speed: 40G, cable: 100m, peer: "b:Ethernet0"}
            - name: b
              profile: broadcom-trident2
              ports:
                - {name: Ethernet0, speed: 40G, cable: 100m, peer: "a:Ethernet8"}
                - {name: Ethernet4, speed: 40G, cable: 2m, peer: host}
        classes:
          - {name: bulk, transport: dctcp, dscp: [10]}
        """
    )
    intent, source_map = load_intent(path)
    topology = resolve_topology(intent, source_map)
    assert topology.hops == 3
    one_way = (2 + 100 + 2) / PROPAGATION_M_PER_S
    assert sum(topology.path_link_latencies_s) == pytest.approx(one_way)


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ('peer: "b:Ethernet0"', 'peer: "c:Ethernet0"', "is not 'host' or 'switch:port'"),
        ("- name: b", "- name: a", "defined twice"),
    ],
)
def test_explicit_topology_errors(write_intent: Writer, old: str, new: str, fragment: str) -> None:
    text = """
        apiVersion: qosforge/v1
        kind: Fabric
        metadata: {name: t}
        topology:
          switches:
            - name: a
              profile: broadcom-trident2
              ports:
                - {name: Ethernet0, speed: 40G, peer: host}
                - {name: Ethernet8, speed: 40G, peer: "b:Ethernet0"}
            - name: b
              profile: broadcom-trident2
              ports:
                - {name: Ethernet0, speed: 40G, peer: host}
        classes:
          - {name: bulk, transport: dctcp, dscp: [10]}
        """
    intent, source_map = load_intent(write_intent(text.replace(old, new)))
    with pytest.raises(IntentError, match=fragment) as caught:
        resolve_topology(intent, source_map)
    assert caught.value.place is not None and ":" in caught.value.place
