"""Generate a three-tier Clos as an *explicit* topology (every switch and port written out).

``pods`` pods of 20 leaves and 10 spines, plus ``pods * 10 / 8`` super-spines in 10 planes; every
switch has at most 32 ports. Leaf: 22 host ports (one range line) and one uplink to each of its
pod's 10 spines. Spine *i* of a pod: 20 leaf ports and 4 uplinks into plane *i*, to super-spines
``(pod + j) mod S`` for j = 0..3 (S = super-spines per plane = pods / 8), so each super-spine has
32 ports and consecutive pods overlap, which keeps the fabric connected at every size. 32 pods
give 1,000 switches (a full mesh per plane) in about 19,000 YAML lines; 160 pods give 5,000.

Usage: ``python bench/clos_explicit.py PODS > intent.yaml`` (PODS a multiple of 8).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

LEAVES_PER_POD = 20
SPINES_PER_POD = 10
HOSTS_PER_LEAF = 22
UPLINKS_PER_SPINE = 4
PORT_STRIDE = 4  # Ethernet0, Ethernet4, ... as SONiC names 4-lane ports
PROFILE = "mellanox-spectrum-2"  # 64 ports of 100/200G: room for the 32 used here

HEADER = """apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: clos-{switches}, description: "three-tier Clos, explicit topology (bench/clos_explicit.py)"}}
classes:
  - {{name: rpc, transport: d2tcp, dscp: [34], weight: 30}}
  - {{name: bulk, transport: dctcp, dscp: [10], weight: 50}}
  - {{name: legacy, transport: tcp, dscp: [0], weight: 20}}
design: {{congested_ports: 8}}
targets: [sonic, sai]
topology:
  host_latency: 1us
  switches:
"""


def _port(index: int) -> str:
    return f"Ethernet{index * PORT_STRIDE}"


def super_spines_per_plane(pods: int) -> int:
    if pods < 8 or pods % 8:
        raise ValueError(f"pods must be a positive multiple of 8 (got {pods})")
    return pods // 8


def switch_count(pods: int) -> int:
    return pods * (LEAVES_PER_POD + SPINES_PER_POD) + SPINES_PER_POD * super_spines_per_plane(pods)


def _switch(name: str, lines: list[str]) -> Iterator[str]:
    yield f"    - name: {name}\n      profile: {PROFILE}\n      ports:\n"
    for line in lines:
        yield f"        - {line}\n"


def clos_yaml(pods: int) -> Iterator[str]:
    """The intent, in chunks of text."""
    per_plane = super_spines_per_plane(pods)
    # super-spine (plane, s) port k <- (pod, spine plane, uplink j), numbered in pod order
    super_ports: dict[tuple[int, int], list[tuple[int, int]]] = {(i, s): [] for i in range(SPINES_PER_POD) for s in range(per_plane)}
    for pod in range(pods):
        for plane in range(SPINES_PER_POD):
            for j in range(UPLINKS_PER_SPINE):
                super_ports[(plane, (pod + j) % per_plane)].append((pod, j))
    yield HEADER.format(switches=switch_count(pods))
    host_range = f'{{name: "Ethernet[0-{(HOSTS_PER_LEAF - 1) * PORT_STRIDE}/{PORT_STRIDE}]", speed: 100G, cable: 3m, peer: host}}'
    for pod in range(pods):
        for leaf in range(LEAVES_PER_POD):
            uplinks = [f'{{name: {_port(HOSTS_PER_LEAF + s)}, speed: 100G, cable: 30m, peer: "p{pod}-spine{s}:{_port(leaf)}"}}' for s in range(SPINES_PER_POD)]
            yield from _switch(f"p{pod}-leaf{leaf}", [host_range, *uplinks])
        for spine in range(SPINES_PER_POD):
            down = [f'{{name: {_port(leaf)}, speed: 100G, cable: 30m, peer: "p{pod}-leaf{leaf}:{_port(HOSTS_PER_LEAF + spine)}"}}' for leaf in range(LEAVES_PER_POD)]
            up = []
            for j in range(UPLINKS_PER_SPINE):
                s = (pod + j) % per_plane
                k = super_ports[(spine, s)].index((pod, j))
                up.append(f'{{name: {_port(LEAVES_PER_POD + j)}, speed: 100G, cable: 100m, peer: "plane{spine}-super{s}:{_port(k)}"}}')
            yield from _switch(f"p{pod}-spine{spine}", down + up)
    for (plane, s), ends in super_ports.items():
        lines = [f'{{name: {_port(k)}, speed: 100G, cable: 100m, peer: "p{pod}-spine{plane}:{_port(LEAVES_PER_POD + j)}"}}' for k, (pod, j) in enumerate(ends)]
        yield from _switch(f"plane{plane}-super{s}", lines)


if __name__ == "__main__":
    sys.stdout.writelines(clos_yaml(int(sys.argv[1]) if len(sys.argv) > 1 else 32))
