"""Small topologies for the deadlock tests (the ``fabrics`` fixture), built directly as the
compiler resolves them, and ring intents."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from qosforge.compiler.routing import EBGP, SHORTEST_PATH_ROUTING, Routing
from qosforge.compiler.topology import ResolvedPort, ResolvedSwitch, ResolvedTopology


def topology(edges: list[tuple[int, int]], n_switches: int, hosts: tuple[int, ...] | None = None,
             routing: Routing = SHORTEST_PATH_ROUTING) -> ResolvedTopology:
    """Switches ``s1..sN`` joined by ``edges`` (switch indices), one port per link end numbered in
    edge order (``Ethernet<4k>``), and one host port on each switch in ``hosts`` (default all),
    routed by ``routing`` (default: shortest paths)."""
    ports: list[list[ResolvedPort]] = [[] for _ in range(n_switches)]
    for a, b in edges:
        pa, pb = f"Ethernet{4 * len(ports[a])}", f"Ethernet{4 * len(ports[b])}"
        ports[a].append(ResolvedPort(pa, 40e9, 10.0, f"s{b + 1}:{pb}", 1e-6))
        ports[b].append(ResolvedPort(pb, 40e9, 10.0, f"s{a + 1}:{pa}", 1e-6))
    for s in range(n_switches) if hosts is None else hosts:
        ports[s].append(ResolvedPort(f"Ethernet{4 * len(ports[s])}", 40e9, 2.0, "host", 1e-6))
    switches = tuple(ResolvedSwitch(f"s{i + 1}", "broadcom-trident2", tuple(p), "switch") for i, p in enumerate(ports))
    return ResolvedTopology(switches, (1e-6,), (40e9,), routing=routing)


def ebgp(asns: list[int], allowas_in: int = 0, multipath_relax: bool = True) -> Routing:
    """eBGP over switches ``s1..sN`` with these ASNs."""
    named = tuple((f"s{i + 1}", asn) for i, asn in enumerate(asns))
    return Routing(EBGP, named, allowas_in, multipath_relax, "the test")


def ring(n: int) -> ResolvedTopology:
    return topology([(i, (i + 1) % n) for i in range(n)], n)


def leaf_spine(leaves: int, spines: int) -> ResolvedTopology:
    edges = [(leaf, leaves + spine) for leaf in range(leaves) for spine in range(spines)]
    return topology(edges, leaves + spines, hosts=tuple(range(leaves)))


RING_YAML = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: ring}}
topology:
  switches:
{switches}{routing}classes:
  - {{name: rdma, transport: {transport}, dscp: [26], lossless: {lossless}}}
  - {{name: bulk, transport: dctcp, dscp: [10]}}
"""


def ring_intent(n: int, lossless: bool = True, routing: str = "") -> str:
    """An explicit ring of ``n`` switches ``sw1..swN``: Ethernet8 to the next, Ethernet12 from the
    previous, two hosts each; class ``rdma`` (DCQCN, or IRN when lossy) on DSCP 26; ``routing``:
    the ``topology.routing`` mapping in flow style (default: none, the explicit default)."""
    switches = "".join(
        f"""    - name: sw{i + 1}
      profile: broadcom-trident2
      ports:
        - {{name: "Ethernet[0-4/4]", speed: 40G, cable: 2m, peer: host}}
        - {{name: Ethernet8, speed: 40G, cable: 10m, peer: "sw{(i + 1) % n + 1}:Ethernet12"}}
        - {{name: Ethernet12, speed: 40G, cable: 10m, peer: "sw{(i - 1) % n + 1}:Ethernet8"}}
"""
        for i in range(n)
    )
    return RING_YAML.format(switches=switches, lossless=str(lossless).lower(),
                            transport="dcqcn" if lossless else "irn",
                            routing=f"  routing: {routing}\n" if routing else "")


@pytest.fixture(scope="session")
def fabrics() -> SimpleNamespace:
    return SimpleNamespace(topology=topology, ring=ring, leaf_spine=leaf_spine,
                           ring_intent=ring_intent, ebgp=ebgp)
