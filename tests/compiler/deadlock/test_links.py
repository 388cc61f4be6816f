from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from qosforge.compiler.deadlock.links import fabric_links


def test_every_cable_is_two_directed_links_with_their_ports(fabrics: SimpleNamespace) -> None:
    links = fabric_links(fabrics.topology([(0, 1), (1, 2)], 3))
    assert links.switch_names == ("s1", "s2", "s3")
    assert links.n_links == 4 and links.n_cables == 2
    assert links.tail.tolist() == [0, 1, 1, 2]
    assert links.head.tolist() == [1, 0, 2, 1]
    assert links.egress_port == ("Ethernet0", "Ethernet0", "Ethernet4", "Ethernet0")
    assert links.ingress_port == ("Ethernet0", "Ethernet0", "Ethernet0", "Ethernet4")
    assert links.cable.tolist() == [0, 0, 1, 1]
    assert links.cable_name(1) == "s2:Ethernet4 - s3:Ethernet0"


def test_host_switches_and_a_failed_cable_takes_both_directions(fabrics: SimpleNamespace) -> None:
    links = fabric_links(fabrics.leaf_spine(3, 2))
    assert links.hosts().tolist() == [0, 1, 2]
    alive = links.alive((0,))
    assert alive.sum() == links.n_links - 2
    assert set(np.flatnonzero(~alive).tolist()) == set(links.cable_links(0).tolist())
