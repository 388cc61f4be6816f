"""Leaf uplinks against all-to-all's offered load (softswitch/helper/fabric_capacity.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.softswitch.helper.fabric import Fabric, compile_fabric
from qosforge.softswitch.helper.fabric_capacity import leaf_uplink_loads, uplink_report

ROOT = Path(__file__).resolve().parents[3]
#: Three leaves with two 40G hosts and two 40G uplinks each (1:1), two spines.
SMALL = ROOT / "tests" / "validation" / "fabrics" / "lossless-watchdog.yaml"
ASSUME = {"red.steps": "1024", "red.step_offset": "0"}


@pytest.fixture(scope="module")
def mixed() -> Fabric:
    # Two leaves with 16 hosts at 100G and one 100G uplink each: 16:1.
    return compile_fabric(ROOT / "examples" / "mixed-fabric.yaml", (), assume=ASSUME)


def test_an_oversubscribed_leaf_is_noted_with_its_ratio(mixed: Fabric) -> None:
    loads = {entry.leaf: entry for entry in leaf_uplink_loads(mixed, 0.6, 100e9)}
    assert set(loads) == {"leaf1", "leaf2"}  # the spine has no hosts
    leaf1 = loads["leaf1"]
    assert (leaf1.hosts, leaf1.host_capacity_bps, leaf1.uplink_capacity_bps) == (16, 1.6e12, 100e9)
    assert leaf1.oversubscription == 16.0 and leaf1.offered_ratio == pytest.approx(9.6)
    report, notes = uplink_report(mixed, 0.6, 100e9)
    assert report["offered_ratio"] == 9.6 and report["oversubscription"] == 16.0 and report["leaf"] == "leaf1"
    assert len(notes) == 1 and "9.60x" in notes[0] and "16:1" in notes[0] and "--load 6.25%" in notes[0]


def test_a_load_the_uplinks_carry_has_no_note(mixed: Fabric) -> None:
    report, notes = uplink_report(mixed, 0.0625, 100e9)
    assert report["offered_ratio"] == 1.0 and notes == []


def test_a_non_blocking_fabric_has_no_note() -> None:
    fabric = compile_fabric(SMALL, ())
    report, notes = uplink_report(fabric, 1.0, 40e9)
    assert report["oversubscription"] == 1.0 and report["offered_ratio"] == 1.0 and notes == []


def test_links_to_unselected_switches_are_not_uplinks() -> None:
    # leaf1 with only spine1 selected keeps one of its two uplinks: 2 hosts on 1 uplink.
    fabric = compile_fabric(SMALL, ("leaf1", "spine1", "leaf2"))
    loads = {entry.leaf: entry for entry in leaf_uplink_loads(fabric, 0.6, 40e9)}
    assert loads["leaf1"].uplink_capacity_bps == 40e9 and loads["leaf1"].offered_ratio == pytest.approx(1.2)
