from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.loader import IntentError, SourceMap, load_intent
from qosforge.compiler.topology import (
    ACK_WIRE_BYTES,
    PROPAGATION_M_PER_S,
    ResolvedPort,
    ResolvedSwitch,
    generator_latencies,
    resolve_topology,
    wire_delay_s,
)

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


def _two_switches(fabric_cable: str, topology_extra: str = "") -> str:
    """Two switches with two hosts each, joined by one link of ``fabric_cable``; ``topology_extra``
    adds lines under ``topology:`` (links, host_latency)."""
    return f"""
        apiVersion: qosforge/v1
        kind: Fabric
        metadata: {{name: t}}
        topology:
          switches:
            - name: a
              profile: broadcom-trident2
              ports:
                - {{name: "Ethernet[0-4/4]", speed: 40G, cable: 2m, peer: host}}
                - {{name: Ethernet8, speed: 40G, cable: {fabric_cable}, peer: "b:Ethernet0"}}
            - name: b
              profile: broadcom-trident2
              ports:
                - {{name: Ethernet0, speed: 40G, cable: {fabric_cable}, peer: "a:Ethernet8"}}
                - {{name: Ethernet4, speed: 40G, cable: 2m, peer: host}}
{topology_extra}        classes:
          - {{name: bulk, transport: dctcp, dscp: [10]}}
        """


def test_explicit_topology_path_and_cable_latency(write_intent: Writer) -> None:
    path = write_intent(_two_switches("100m"))
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


# --- the link model: wire (cable + PHY) vs link latency (wire + forwarding), issue "Lossless" ---

def test_link_latency_below_the_wire_is_refused_at_its_field(write_intent: Writer, base_intent: str) -> None:
    # 1,000 m of fibre is 5 us one way at 5 ns/m: a 1 us per-hop latency cannot include it.
    text = base_intent.replace("cable: 10m", "cable: 1000m").replace("link_latency: 10us", "link_latency: 1us")
    with pytest.raises(IntentError) as caught:
        resolve_topology(*load_intent(write_intent(text)))
    message = caught.value.one_line()
    assert "topology.leaf_spine.link_latency" in message
    assert "1000 m of cable" in message and "5 us one way" in message and "at least 5 us" in message


def test_a_zero_link_latency_is_refused_where_the_cable_has_length(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError, match="less than the fabric_link's wire"):
        resolve_topology(*load_intent(write_intent(base_intent.replace("link_latency: 10us", "link_latency: 0us"))))


def test_phy_delay_counts_in_the_wire_bound(write_intent: Writer, base_intent: str) -> None:
    text = base_intent.replace("fabric_link: {speed: 40G, cable: 10m}", "fabric_link: {speed: 40G, cable: 10m, phy_delay: 2us}").replace(
        "link_latency: 10us", "link_latency: 2us")
    with pytest.raises(IntentError, match=r"phy_delay 2 us one way"):
        resolve_topology(*load_intent(write_intent(text)))


def test_resolved_ports_carry_wire_and_forwarding(write_intent: Writer, base_intent: str) -> None:
    text = base_intent.replace("fabric_link: {speed: 40G, cable: 10m}", "fabric_link: {speed: 40G, cable: 10m, phy_delay: 300ns}")
    topology = resolve_topology(*load_intent(write_intent(text)))
    uplink = topology.switches[0].ports[4]
    assert uplink.wire_delay_s == pytest.approx(10 / PROPAGATION_M_PER_S + 300e-9)
    assert uplink.latency_s == pytest.approx(10e-6)
    assert uplink.forwarding_delay_s == pytest.approx(10e-6 - 50e-9 - 300e-9)
    # The RTT keeps the intent's latency: K and the BDP do not move with the PHY.
    assert sum(topology.path_link_latencies_s) == pytest.approx(40e-6)


def test_without_link_latency_the_wire_is_the_latency_and_the_rtt_says_why(write_intent: Writer, base_intent: str) -> None:
    from qosforge.compiler.compile import compile_intent

    text = base_intent.replace("    link_latency: 10us\n", "")
    intent, source_map = load_intent(write_intent(text))
    topology = resolve_topology(intent, source_map)
    assert topology.latency_derived_from_wire
    assert topology.path_link_latencies_s == pytest.approx((3 / PROPAGATION_M_PER_S, 10 / PROPAGATION_M_PER_S, 10 / PROPAGATION_M_PER_S, 3 / PROPAGATION_M_PER_S))
    fabric = compile_intent(intent, source_map, targets=("sonic",))
    rtt = fabric.switches[0].classes[0].rtt_s
    assert rtt.value == pytest.approx(topology.rtt_s(intent.design.mtu))
    assert "forwarding latency is unknown" in rtt.provenance.derivations[0].source


def test_explicit_link_and_host_latency_below_the_wire_are_refused(write_intent: Writer) -> None:
    link = '          links:\n            - {a: "a:Ethernet8", b: "b:Ethernet0", latency: LATENCY}\n'
    text = _two_switches("400m", link.replace("LATENCY", "1us"))
    with pytest.raises(IntentError) as caught:
        resolve_topology(*load_intent(write_intent(text)))
    assert "topology.links[0].latency" in caught.value.one_line() and "400 m of cable" in caught.value.one_line()
    fixed = _two_switches("400m", link.replace("LATENCY", "3us") + "          host_latency: 5ns\n")
    with pytest.raises(IntentError) as caught:
        resolve_topology(*load_intent(write_intent(fixed)))
    assert "topology.host_latency" in caught.value.one_line() and "2 m of cable" in caught.value.one_line()



@settings(max_examples=200, deadline=None)
@given(cable_m=st.floats(0.0, 10_000.0), phy_s=st.floats(0.0, 10e-6), latency_s=st.floats(0.0, 1e-3))
def test_a_latency_is_accepted_exactly_when_it_covers_the_wire(cable_m: float, phy_s: float, latency_s: float) -> None:
    from qosforge.compiler.intent import LinkSpec

    link = LinkSpec(speed="100G", cable=f"{cable_m}m", phy_delay=f"{phy_s * 1e9}ns")
    wire = wire_delay_s(link.cable, link.phy_delay)
    assert wire == pytest.approx(cable_m * 5e-9 + phy_s, rel=1e-9, abs=1e-15)
    source_map = SourceMap("intent.yaml", "topology:\n  leaf_spine:\n    link_latency: 1us\n")
    if latency_s >= wire:
        resolved = generator_latencies(latency_s, {"fabric_link": link}, ("topology", "leaf_spine"), source_map)
        assert resolved["fabric_link"] == latency_s
    else:
        with pytest.raises(IntentError, match="less than the fabric_link's wire"):
            generator_latencies(latency_s, {"fabric_link": link}, ("topology", "leaf_spine"), source_map)
    # Without a latency the wire is the latency, so forwarding is never negative.
    assert generator_latencies(None, {"fabric_link": link}, ("topology", "leaf_spine"), source_map)["fabric_link"] == wire


# --- one or two switches: the longest host path without SciPy's search (start-up) ---

A_HOSTS = '- {name: "Ethernet[0-4/4]", speed: 40G, cable: 2m, peer: host}'
B_HOST = "- {name: Ethernet4, speed: 40G, cable: 2m, peer: host}"


def _searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make resolve_topology search every topology with SciPy, as it does above two switches."""
    import qosforge.compiler.topology as module

    original = module._longest_host_path
    monkeypatch.setattr(module, "_longest_host_path", lambda switches, source_map, derived: original(switches, source_map, derived, search=True))


@pytest.mark.parametrize(("drop", "links"), [("", 3), (B_HOST, 2), (A_HOSTS, 2)], ids=["hosts on both", "hosts on a", "hosts on b"])
def test_two_switches_give_the_searched_path(write_intent: Writer, monkeypatch: pytest.MonkeyPatch, drop: str, links: int) -> None:
    text = _two_switches("100m").replace(drop, "") if drop else _two_switches("100m")
    intent, source_map = load_intent(write_intent(text))
    quick = resolve_topology(intent, source_map)
    _searched(monkeypatch)
    assert resolve_topology(intent, source_map) == quick
    assert len(quick.path_link_latencies_s) == links


def test_two_unlinked_switches_are_refused_as_the_search_refuses_them(write_intent: Writer, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _two_switches("100m").replace('peer: "b:Ethernet0"', "peer: host").replace('peer: "a:Ethernet8"', "peer: host")
    intent, source_map = load_intent(write_intent(text))
    with pytest.raises(IntentError, match="'a' and 'b' both face hosts but are not connected") as quick:
        resolve_topology(intent, source_map)
    _searched(monkeypatch)
    with pytest.raises(IntentError) as searched:
        resolve_topology(intent, source_map)
    assert (str(searched.value), searched.value.place) == (str(quick.value), quick.value.place)


def test_a_two_switch_intent_compiles_without_scipy() -> None:
    """SciPy's sparse graphs cost ~0.5 CPU s to import: examples/dctcp-fig17.yaml (two switches,
    no lossless class) compiles without them."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    code = ("import sys; from pathlib import Path; from qosforge.compiler.loader import load_intent; "
            "from qosforge.compiler.compile import compile_intent; "
            f"compile_intent(*load_intent(Path({str(root / 'examples' / 'dctcp-fig17.yaml')!r}))); "
            "print(sorted(m for m in sys.modules if m.startswith('scipy')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# --- the search from one switch per set of same-neighbour switches (twins) ---


@st.composite
def _fabric_graphs(draw: st.DrawFn) -> tuple[ResolvedSwitch, ...]:
    """Random fabrics where some host-facing switches share their neighbours (leaves of a pod),
    every link with its own latency and speed, so a different pair gives a different path."""
    count = draw(st.integers(3, 9))
    index = st.integers(0, count - 1)
    pair = st.tuples(index, index).filter(lambda p: p[0] < p[1])
    links = draw(st.sets(pair, min_size=1, max_size=14))
    twins = draw(st.lists(st.integers(0, count - 1), max_size=3))  # copy these switches' neighbours
    edges = [(a, b) for a, b in sorted(links)]
    for source in twins:
        twin = count
        count += 1
        edges += [(twin, b if a == source else a) for a, b in edges
                  if source in (a, b) and twin not in (a, b)]
    hosts = draw(st.sets(st.integers(0, count - 1), min_size=1))
    ports: dict[int, list[ResolvedPort]] = {i: [] for i in range(count)}
    for number, (a, b) in enumerate(edges):
        latency = 1e-6 * (1 + number)
        speed = float(draw(st.sampled_from([25e9, 100e9, 400e9])))
        a_port, b_port = f"Ethernet{len(ports[a])}", f"Ethernet{len(ports[b])}"
        ports[a].append(ResolvedPort(a_port, speed, 1.0, f"s{b}:{b_port}", latency))
        ports[b].append(ResolvedPort(b_port, speed, 1.0, f"s{a}:{a_port}", latency))
    for i in hosts:
        host_latency = 2e-6 + i * 1e-9
        ports[i].append(ResolvedPort(f"Ethernet{len(ports[i])}", 100e9, 1.0, "host", host_latency))
    return tuple(ResolvedSwitch(f"s{i}", "p", tuple(ports[i]), "switch") for i in range(count))


@settings(max_examples=80, deadline=None)
@given(_fabric_graphs())
def test_searching_from_one_twin_finds_what_searching_from_all_finds(
        switches: tuple[ResolvedSwitch, ...]) -> None:
    import qosforge.compiler.topology as module

    source_map = SourceMap(file="fabric.yaml", text="topology:\n  switches: []\n")

    def outcome() -> object:
        try:
            return module._longest_host_path(switches, source_map, True, search=True)
        except IntentError as error:
            return str(error)

    reduced = outcome()
    with pytest.MonkeyPatch.context() as patch:
        # The search from every host-facing switch, as before the reduction.
        patch.setattr(module, "_twin_representatives", lambda edge, link_port: edge)
        assert outcome() == reduced


#: Leaves a and b each reach one spine; leaf c reaches both; the two spines share an ASN. The
#: graph's longest fewest-hop host path is a - s1 - c - s2 - b, which eBGP never installs: s1
#: rejects c's route to b because its AS path holds s2's ASN, s1's own (RFC 4271 §9.1.2).
VALLEY = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: valley}}
topology:
  switches:
    - name: a
      profile: softswitch
      ports:
        - {{name: Ethernet0, speed: 40G, cable: 3m, peer: host}}
        - {{name: Ethernet4, speed: 40G, cable: 10m, peer: "s1:Ethernet0"}}
    - name: b
      profile: softswitch
      ports:
        - {{name: Ethernet0, speed: 40G, cable: 3m, peer: host}}
        - {{name: Ethernet4, speed: 40G, cable: 10m, peer: "s2:Ethernet0"}}
    - name: c
      profile: softswitch
      ports:
        - {{name: Ethernet0, speed: 40G, cable: 3m, peer: host}}
        - {{name: Ethernet4, speed: 40G, cable: 10m, peer: "s1:Ethernet4"}}
        - {{name: Ethernet8, speed: 40G, cable: 10m, peer: "s2:Ethernet4"}}
    - name: s1
      profile: softswitch
      ports:
        - {{name: Ethernet0, speed: 40G, cable: 10m, peer: "a:Ethernet4"}}
        - {{name: Ethernet4, speed: 40G, cable: 10m, peer: "c:Ethernet4"}}
    - name: s2
      profile: softswitch
      ports:
        - {{name: Ethernet0, speed: 40G, cable: 10m, peer: "b:Ethernet4"}}
        - {{name: Ethernet4, speed: 40G, cable: 10m, peer: "c:Ethernet8"}}
  routing: {routing}
classes:
  - name: bulk
    transport: dctcp
    dscp: [10]
"""
VALLEY_ASNS = "asn: {switches: {a: 65001, b: 65002, c: 65003, s1: 65100, s2: 65100}}"


@pytest.mark.parametrize(("routing", "switch_hops"), [
    ("{model: shortest-path}", 4),
    ("{model: ebgp-rfc7938, " + VALLEY_ASNS + "}", 2),
    ("{model: ebgp-rfc7938, allowas_in: 1, " + VALLEY_ASNS + "}", 4),
])
def test_an_explicit_fabrics_rtt_follows_the_longest_route_its_routing_installs(
        write_intent: Writer, routing: str, switch_hops: int) -> None:
    intent, source_map = load_intent(write_intent(VALLEY.format(routing=routing)))
    topology = resolve_topology(intent, source_map)
    # Host link, the switch hops, host link.
    assert topology.hops == switch_hops + 2
    serialisation_s = (1500 + ACK_WIRE_BYTES) * 8 * (switch_hops + 2) / 40e9
    propagation_s = 2 * sum(topology.path_link_latencies_s)
    assert topology.rtt_s(1500) == pytest.approx(propagation_s + serialisation_s)
