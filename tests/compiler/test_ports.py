"""Ports are checked against the vendor profile's port layout, with the numbers in the error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.ports import check_port_layout
from qosforge.vendor_profiles import load_vendor_profile

Writer = Callable[..., Path]


def compile_text(write_intent: Writer, text: str) -> None:
    intent, source_map = load_intent(write_intent(text))
    compile_intent(intent, source_map)


@pytest.mark.parametrize(
    ("profile", "speeds", "fits"),
    [
        ("broadcom-trident2", [40e9] * 32, True),
        ("broadcom-trident2", [40e9] * 33, False),
        ("broadcom-trident2", [10e9] * 128, True),  # 4x10G breakout on every port
        ("broadcom-trident2", [10e9] * 125 + [40e9], False),  # 32 + 1 front-panel ports
        ("broadcom-trident2", [100e9], False),
        ("mellanox-spectrum-2", [100e9] * 64, True),  # 2x100G
        ("mellanox-spectrum-2", [100e9] * 65, False),
        ("mellanox-spectrum-2", [400e9], False),
        ("mellanox-spectrum-4", [400e9] * 128, True),
        ("broadcom-tomahawk", [40e9] * 32, True),
        ("vs", [400e9] * 1000, True),  # layout unknown: not checked
    ],
)
def test_port_layout_check(profile: str, speeds: list[float], fits: bool) -> None:
    assert (check_port_layout(speeds, load_vendor_profile(profile)) is None) == fits


EXPLICIT = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: ports}
topology:
  switches:
    - name: tor
      profile: broadcom-tomahawk
      ports:
        - {name: "Ethernet[0-252/4]", speed: 100G, peer: host}
classes:
  - {name: bulk, transport: dctcp, dscp: [10]}
"""


def test_too_many_ports_names_the_numbers_and_the_place(write_intent: Writer) -> None:
    with pytest.raises(IntentError) as caught:
        compile_text(write_intent, EXPLICIT)
    line = caught.value.one_line()
    assert ":9:11: topology.switches[0].ports[0]" in line
    assert "64 ports at 100G need 64 front-panel ports but broadcom-tomahawk has 32 (32x100G" in line
    assert "hint:" in line


def test_unsupported_speed_is_refused(write_intent: Writer) -> None:
    with pytest.raises(IntentError, match="1 port at 400G, a speed no front-panel port of broadcom-tomahawk runs at") as caught:
        compile_text(write_intent, EXPLICIT.replace('"Ethernet[0-252/4]", speed: 100G', "Ethernet0, speed: 400G"))
    assert "qosforge profiles show broadcom-tomahawk" in caught.value.one_line()


def test_breakout_lets_more_slower_ports_fit(write_intent: Writer) -> None:
    compile_text(write_intent, EXPLICIT.replace("Ethernet[0-252/4]", "Ethernet[0-127]").replace("speed: 100G", "speed: 25G"))


def test_a_leaf_spine_too_wide_for_its_spines_points_at_leaves(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError) as caught:
        compile_text(write_intent, base_intent.replace("leaves: 3", "leaves: 970"))
    line = caught.value.one_line()
    assert "topology.leaf_spine.leaves" in line and "switch 'spine1'" in line
    assert "970 ports at 40G need 970 front-panel ports but broadcom-trident2 has 32" in line
    assert "'clos' generator" in line


def test_a_leaf_with_too_many_hosts_points_at_hosts_per_leaf(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError, match=r"leaf_spine\.hosts_per_leaf: switch 'leaf1': 33 ports at 40G"):
        compile_text(write_intent, base_intent.replace("hosts_per_leaf: 4", "hosts_per_leaf: 31"))
