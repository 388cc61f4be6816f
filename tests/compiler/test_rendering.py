"""compiler/rendering.py: the render loop reads the registry and places a target's value error at
the intent line behind it."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.rendering import render_fabric_targets

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_every_target_renders_through_the_registry() -> None:
    intent, source_map = load_intent(EXAMPLES / "mixed-fabric.yaml")
    fabric = compile_intent(intent, source_map, switches=("leaf1",))
    files = [(target, f.switch, f.file_name) for target, f in render_fabric_targets(fabric, intent, source_map)]
    assert files == [("sonic", "leaf1", "config_db.json"), ("sai", "leaf1", "sai.json"), ("sai", "leaf1", "sairedis.rec"),
                     ("openconfig", "leaf1", "openconfig.json")]


def test_a_sai_layout_too_small_points_at_the_port_list(tmp_path: Path) -> None:
    """64 x 10G fit a Trident II's front panel as 4x10G breakouts, but SAI's BCM56850 layout
    (sonic-sairedis vslib LaneMap.cpp) lists 32 unbroken ports: the SAI target refuses the port
    list (PortCapacityError, a RenderValueError at ("ports",)), here placed at the ports line."""
    text = (EXAMPLES / "tlt-softswitch.yaml").read_text().replace("profile: softswitch", "profile: broadcom-trident2")
    text = text.replace('"Ethernet[0-124/4]", speed: 40G', '"Ethernet[0-252/4]", speed: 10G').replace(
        "    tlt:\n      important_dscp: [11]\n", "")
    path = tmp_path / "breakout.yaml"
    path.write_text(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "Ethernet[0-252/4]" in row)
    intent, source_map = load_intent(path)
    fabric = compile_intent(intent, source_map)
    with pytest.raises(IntentError) as caught:
        list(render_fabric_targets(fabric, intent, source_map))
    shown = caught.value.one_line()
    assert shown.startswith(f"{path}:{line}:11: switch tor1: the topology gives it 64 ports, "
                            "but its switch layout BCM56850 lists 32 unbroken ports")
    assert "16 front-panel ports broken out 4x10G" in shown
