"""A three-tier Clos (``topology.clos``, compiler/clos.py) on the software switch: its links, its
hop counts and its ECMP up-down routes, as a BGP fabric installs them (RFC 7938 §5.2.4)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from qosforge.softswitch.engine.build import HOST
from qosforge.softswitch.helper.fabric import Fabric, compile_fabric
from qosforge.softswitch.helper.fabric_scenarios import all_to_all_run, fabric_traffic
from qosforge.softswitch.helper.topology import first_path
from qosforge.softswitch.simulation import simulate_fabric
from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH

PODS, LEAVES, SPINES, SUPER, HOSTS = 3, 2, 2, 4, 2
PER_PLANE = SUPER // SPINES

INTENT = f"""apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: clos-test}}
topology:
  clos:
    pods: {PODS}
    leaves_per_pod: {LEAVES}
    spines_per_pod: {SPINES}
    super_spines: {SUPER}
    hosts_per_leaf: {HOSTS}
    host_link: {{speed: 40G, cable: 3m}}
    fabric_link: {{speed: 40G, cable: 20m}}
    link_latency: 1us
    leaf_profile: softswitch
classes:
  - {{name: bulk, transport: dctcp, dscp: [10]}}
design: {{congested_ports: 4, mtu: 1500B}}
targets: [sai]
"""


@pytest.fixture(scope="module")
def clos(tmp_path_factory: pytest.TempPathFactory) -> Fabric:
    path = Path(tmp_path_factory.mktemp("clos")) / "clos.yaml"
    path.write_text(INTENT, encoding="utf-8")
    return compile_fabric(path, ())


def _tier(name: str) -> int:
    return 2 if name.startswith("superspine") else 1 if "-spine" in name else 0


def _tiers(fabric: Fabric) -> list[int]:
    """The tier of every engine port's switch (0 leaf, 1 spine, 2 super-spine)."""
    owner = fabric.topology.switch_of()
    return [_tier(fabric.switches[owner[p]].ir.name) for p in range(fabric.topology.n_ports)]


def _paths(fabric: Fabric, src: int, dst: int) -> list[tuple[int, ...]]:
    """Every path (egress ports) the ECMP groups allow from the host on ``src`` to ``dst``."""
    topology, owner = fabric.topology, fabric.topology.switch_of()
    found: list[tuple[int, ...]] = []

    def walk(switch: int, path: tuple[int, ...]) -> None:
        assert len(path) <= 6, "routes loop"
        for port in topology.routes[switch][dst]:
            if port == dst:
                found.append((*path, port))
            else:
                walk(owner[topology.peers[port]], (*path, port))

    walk(owner[src], ())
    return found


def test_the_clos_has_every_switch_host_and_link_of_its_wiring(clos: Fabric) -> None:
    names = Counter(_tier(s.ir.name) for s in clos.switches)
    assert names == {0: PODS * LEAVES, 1: PODS * SPINES, 2: SUPER}
    assert len(clos.hosts) == PODS * LEAVES * HOSTS == sum(1 for q in clos.topology.peers if q == HOST)
    tiers = _tiers(clos)
    links = Counter(tuple(sorted((tiers[p], tiers[q]))) for p, q in enumerate(clos.topology.peers) if q >= 0 and p < q)
    # Every leaf to every spine of its pod; spine s of every pod to each super-spine of plane s.
    assert links == {(0, 1): PODS * LEAVES * SPINES, (1, 2): PODS * SPINES * PER_PLANE}
    # Links are symmetric and join ports of the same speed.
    ports = [port for config in clos.configs for port in config.ports]
    for p, q in enumerate(clos.topology.peers):
        if q >= 0:
            assert clos.topology.peers[q] == p and ports[p].speed_bps == ports[q].speed_bps


def test_hop_counts_are_one_three_and_five_switches(clos: Fabric) -> None:
    leaf_of = {site.host: site.switch for site in clos.hosts}
    pod_of = {site.host: site.switch.split("-")[0] for site in clos.hosts}
    for a in clos.hosts:
        for b in clos.hosts:
            if a.host == b.host:
                continue
            path = first_path(clos.topology, clos.host_ports[a.host], clos.host_ports[b.host])
            expected = 1 if leaf_of[a.host] == leaf_of[b.host] else 3 if pod_of[a.host] == pod_of[b.host] else 5
            assert len(path) == expected and path[-1] == clos.host_ports[b.host]


def test_ecmp_groups_go_up_then_down_over_every_shortest_path(clos: Fabric) -> None:
    tiers = _tiers(clos)
    owner = clos.topology.switch_of()
    pod_of = {site.host: site.switch.split("-")[0] for site in clos.hosts}
    leaf_of = {site.host: site.switch for site in clos.hosts}
    for a in clos.hosts:
        for b in clos.hosts:
            if leaf_of[a.host] == leaf_of[b.host]:
                continue
            src, dst = clos.host_ports[a.host], clos.host_ports[b.host]
            paths = _paths(clos, src, dst)
            # Shortest paths only: leaf-spine-leaf in a pod, leaf-spine-superspine-spine-leaf across.
            same_pod = pod_of[a.host] == pod_of[b.host]
            assert len(paths) == (SPINES if same_pod else SPINES * PER_PLANE)
            assert len(set(paths)) == len(paths)
            for path in paths:
                switches = [owner[src]] + [owner[clos.topology.peers[p]] for p in path[:-1]]
                climb = [_tier(clos.switches[s].ir.name) for s in switches]
                top = climb.index(max(climb))
                # Valley-free: up to the top tier, then only down.
                assert climb[:top + 1] == sorted(climb[:top + 1]) and climb[top:] == sorted(climb[top:], reverse=True)
                assert max(climb) == (1 if same_pod else 2)
                assert all(tiers[p] == climb[i] for i, p in enumerate(path))
            # The leaf's group is all its uplinks; a spine's, toward another pod, its plane's super-spines.
            first_group = clos.topology.routes[owner[src]][dst]
            assert len(first_group) == SPINES and all(tiers[clos.topology.peers[p]] == 1 for p in first_group)
            if not same_pod:
                spine = owner[clos.topology.peers[first_group[0]]]
                assert len(clos.topology.routes[spine][dst]) == PER_PLANE


def test_a_flow_across_pods_crosses_five_switches_and_arrives_whole(clos: Fabric) -> None:
    """One 20-packet flow from pod 1 to pod 3 on an idle fabric: every packet is enqueued and
    dequeued once at each of the five switches of its path, and the flow finishes."""
    traffic = fabric_traffic(clos, None, "dctcp", 1500)
    workload = all_to_all_run(clos, traffic, load=0.6, distribution=WEB_SEARCH, duration_s=0.001, warmup_s=0.0, seed=1)
    src, dst = clos.host_ports[0], clos.host_ports[-1]
    # The workload's first flow as a template (its class, transport and ACK delay; the count below does not depend on them).
    flow = replace(workload.flows[0], src_port=src, dst_port=dst, size_packets=20, last_packet_bytes=None, start_s=0.0)
    result = simulate_fabric(clos.configs, clos.topology, (flow,), workload.run)
    assert int(result.flow_finish_s[0] >= 0) == 1
    assert result.packet_events == 2 * 5 * 20
