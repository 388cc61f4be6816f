"""The routing model of an intent (compiler/routing.py): RFC 7938 §5.2.1's ASN plan for the
generators, the operator's ASNs, and the refusals of a plan that cannot be right."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.compiler.intent import RoutingSpec
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.routing import PRIVATE_ASN_32, SwitchTier, resolve_routing
from qosforge.compiler.topology import resolve_topology

ROOT = Path(__file__).resolve().parents[2]

LEAF_SPINE = """apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: routed}}
topology:
  {form}
{routing}classes:
  - {{name: bulk, transport: dctcp, dscp: [10]}}
"""
GENERATED = {
    "leaf_spine": "leaf_spine: {spines: 2, leaves: 3, hosts_per_leaf: 2, host_link: {speed: 100G}, "
    "fabric_link: {speed: 100G}, "
    "leaf_profile: mellanox-spectrum-2}",
    "clos": "clos: {pods: 2, leaves_per_pod: 2, spines_per_pod: 2, super_spines: 4, hosts_per_leaf: 2, "
    "host_link: {speed: 100G}, "
    "fabric_link: {speed: 100G}, leaf_profile: mellanox-spectrum-2}",
}


def _routing(write_intent: Callable[[str], Path], form: str, routing: str = "") -> dict[str, int]:
    text = LEAF_SPINE.format(
        form=GENERATED[form], routing=f"  routing: {routing}\n" if routing else ""
    )
    intent, source_map = load_intent(write_intent(text))
    topology = resolve_topology(intent, source_map)
    assert topology.routing.model == "ebgp-rfc7938"
    return dict(topology.routing.asns)


def test_a_leaf_spine_defaults_to_ebgp_with_shared_spine_and_unique_leaf_asns(
    write_intent: Callable[[str], Path],
) -> None:
    assert _routing(write_intent, "leaf_spine") == {
        "leaf1": 64512,
        "leaf2": 64513,
        "leaf3": 64514,
        "spine1": 65534,
        "spine2": 65534,
    }


def test_a_clos_gives_every_pod_its_spine_asn_and_the_super_spines_one(
    write_intent: Callable[[str], Path],
) -> None:
    asns = _routing(write_intent, "clos")
    assert asns == {
        "pod1-leaf1": 64512,
        "pod1-leaf2": 64513,
        "pod2-leaf1": 64514,
        "pod2-leaf2": 64515,
        "pod1-spine1": 65533,
        "pod1-spine2": 65533,
        "pod2-spine1": 65532,
        "pod2-spine2": 65532,
        "superspine1": 65534,
        "superspine2": 65534,
        "superspine3": 65534,
        "superspine4": 65534,
    }


def test_the_operators_tier_asns_and_overrides_replace_the_plan(
    write_intent: Callable[[str], Path],
) -> None:
    asns = _routing(
        write_intent,
        "clos",
        "{asn: {super_spine: 4200000000, spine: 65100, leaf: 65001, switches: {pod2-leaf2: 65500}}}",
    )
    assert (
        asns["superspine3"] == 4_200_000_000
        and asns["pod1-spine2"] == 65100
        and asns["pod2-spine1"] == 65101
    )
    assert [asns[f"pod{p}-leaf{i}"] for p in (1, 2) for i in (1, 2)] == [65001, 65002, 65003, 65500]


def test_a_plan_past_the_two_octet_private_range_takes_four_octet_asns() -> None:
    """RFC 6996 §5 has 1,023 two-octet private ASNs: 1,100 leaves need the four-octet range."""
    switches = [SwitchTier(f"leaf{i}", "leaf") for i in range(1100)] + [
        SwitchTier("spine1", "spine"),
        SwitchTier("spine2", "spine"),
    ]
    routing = resolve_routing(RoutingSpec(), True, switches, source_map=None)  # type: ignore[arg-type]
    asns = dict(routing.asns)
    assert asns["leaf0"] == PRIVATE_ASN_32[0] and asns["leaf1099"] == PRIVATE_ASN_32[0] + 1099
    assert asns["spine1"] == asns["spine2"] == PRIVATE_ASN_32[1]


def test_explicit_topologies_default_to_shortest_paths() -> None:
    intent, source_map = load_intent(ROOT / "examples" / "mixed-fabric.yaml")
    routing = resolve_topology(intent, source_map).routing
    assert (
        intent.topology.switches is not None
        and routing.model == "shortest-path"
        and routing.chosen_by == "the default of explicit topologies"
    )


@pytest.mark.parametrize(
    ("form", "routing", "place", "message"),
    [
        (
            "leaf_spine",
            "{asn: {switches: {leaf9: 65001}}}",
            "topology.routing.asn.switches.leaf9",
            "no switch 'leaf9' in the topology",
        ),
        (
            "leaf_spine",
            "{asn: {super_spine: 65000}}",
            "topology.routing.asn.super_spine",
            "a leaf_spine has no super-spines",
        ),
        (
            "leaf_spine",
            "{model: shortest-path, allowas_in: 1}",
            "topology.routing",
            "asn and allowas_in are eBGP settings",
        ),
    ],
)
def test_a_plan_that_names_what_is_not_there_is_refused_at_its_field(
    write_intent: Callable[[str], Path], form: str, routing: str, place: str, message: str
) -> None:
    text = LEAF_SPINE.format(form=GENERATED[form], routing=f"  routing: {routing}\n")
    with pytest.raises(IntentError) as refused:
        intent, source_map = load_intent(write_intent(text))
        resolve_topology(intent, source_map)
    assert place in refused.value.place and message in refused.value.message


def test_ebgp_on_an_explicit_topology_needs_every_switchs_asn(
    write_intent: Callable[[str], Path],
) -> None:
    ring = """apiVersion: qosforge/v1
kind: Fabric
metadata: {name: pair}
topology:
  switches:
    - name: a
      profile: broadcom-trident2
      ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet4, speed: 40G, peer: "b:Ethernet4"}]
    - name: b
      profile: broadcom-trident2
      ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet4, speed: 40G, peer: "a:Ethernet4"}]
  routing: {model: ebgp-rfc7938, asn: {switches: {a: 65001}}}
classes:
  - {name: bulk, transport: dctcp, dscp: [10]}
"""
    intent, source_map = load_intent(write_intent(ring))
    with pytest.raises(
        IntentError, match=r"eBGP needs every switch's ASN; 1 have none \(b\)"
    ) as refused:
        resolve_topology(intent, source_map)
    assert refused.value.place.endswith("topology.routing.asn")
