from __future__ import annotations

from types import SimpleNamespace

from qosforge.compiler.deadlock.check import fabric_cycles
from qosforge.compiler.deadlock.links import fabric_links


def test_each_edge_of_a_ring_cycle_is_closed_by_a_two_hop_route(fabrics: SimpleNamespace) -> None:
    found = fabric_cycles(fabric_links(fabrics.ring(4)))
    assert len(found) == 2
    clockwise = found[0]
    assert clockwise.buffers == ("s2:Ethernet0", "s3:Ethernet0", "s4:Ethernet0", "s1:Ethernet4")
    assert clockwise.switches == ("s2", "s3", "s4", "s1")
    assert clockwise.describe() == "s2:Ethernet0 -> s3:Ethernet0 -> s4:Ethernet0 -> s1:Ethernet4 -> s2:Ethernet0"
    assert [r.path for r in clockwise.routes] == [("s1", "s2", "s3"), ("s2", "s3", "s4"), ("s3", "s4", "s1"), ("s4", "s1", "s2")]
    first = clockwise.routes[0]
    assert (first.source, first.destination, first.waits_at) == ("s1", "s3", "s2")
    assert (first.arrives_on, first.leaves_on) == ("s2:Ethernet0", "s2:Ethernet4")
    assert first.describe() == "hosts on s1 to hosts on s3 via s1 > s2 > s3 (held at s2:Ethernet0, waiting on s2:Ethernet4)"
    assert clockwise.to_json()["switches"] == ["s2", "s3", "s4", "s1"]


def test_a_route_names_its_source_beyond_switches_without_hosts(fabrics: SimpleNamespace) -> None:
    """A ring of 6 where s2 has no hosts: the route held at s3 coming from s2 starts at s1."""
    edges = [(i, (i + 1) % 6) for i in range(6)]
    found = fabric_cycles(fabric_links(fabrics.topology(edges, 6, hosts=(0, 2, 3, 4, 5))))
    assert [len(c.buffers) for c in found] == [6, 6]
    routes = [route for cycle in found for route in cycle.routes]
    assert all("s2" not in (route.source, route.destination) for route in routes)
    from_s2 = next(route for route in found[0].routes if route.arrives_on == "s3:Ethernet0")
    assert from_s2.path[:3] == ("s1", "s2", "s3") and from_s2.source == "s1"
