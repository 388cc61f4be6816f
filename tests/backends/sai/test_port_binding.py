"""Port binding: the discovery lists the layout's whole port list; topology ports take positions."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from qosforge.backends.sai import (
    port_binding,
    program_from_json,
    program_to_json,
    program_to_recording,
    render_sai_program,
)
from qosforge.backends.sai.inventory import inventory_for_profile
from qosforge.backends.sai.port_binding import (
    bind_ports,
    port_list,
    profile_lanes_per_port,
    unused_port_id,
)
from qosforge.backends.sai.program import SWITCH_ID, SaiProgram
from qosforge.backends.sai.validate import check_program
from qosforge.errors import QosforgeError
from qosforge.ir import SwitchIR

BCM56850, _ = inventory_for_profile("broadcom-trident2")
SOFTSWITCH, _ = inventory_for_profile("softswitch")


def test_vslib_layouts_have_the_default_lane_map() -> None:
    # vslib LaneMap::getDefaultLaneMap: 32 ports x 4 lanes, eth0 = lanes 29-32, eth7 = lanes 1-4.
    assert len(BCM56850.ports) == 32 and BCM56850.lanes_per_port == 4
    assert BCM56850.ports[0].lanes == (29, 30, 31, 32) and BCM56850.ports[7].lanes == (1, 2, 3, 4)
    assert sorted(lane for port in BCM56850.ports for lane in port.lanes) == list(range(1, 129))
    assert inventory_for_profile("mellanox-spectrum")[0].ports == BCM56850.ports
    assert len(SOFTSWITCH.ports) == 32 and SOFTSWITCH.lanes_per_port is None


def test_sonic_names_bind_by_lane_slot() -> None:
    assert bind_ports("s", ["Ethernet64", "Ethernet0", "Ethernet124"], BCM56850, None) == (16, 0, 31)
    assert bind_ports("s", ["Ethernet8", "Ethernet0"], BCM56850, 8) == (1, 0)  # 8-lane ports (profile)


def test_other_names_bind_in_natural_name_order() -> None:
    assert bind_ports("s", ["swp10", "swp2", "swp1"], BCM56850, None) == (2, 1, 0)
    assert bind_ports("s", ["Ethernet12", "Ethernet4"], SOFTSWITCH, None) == (1, 0)


def test_more_ports_than_the_layout_is_an_error_with_the_numbers() -> None:
    with pytest.raises(QosforgeError, match=r"switch s: the topology gives it 33 ports, but its switch layout BCM56850 lists 32"):
        bind_ports("s", [f"Ethernet{4 * i}" for i in range(33)], BCM56850, None)


@pytest.mark.parametrize("name", ["Ethernet2", "Ethernet128"])
def test_a_name_off_the_lane_grid_binds_in_name_order(name: str) -> None:
    assert bind_ports("s", [name, "Ethernet0"], BCM56850, None) == (1, 0)


def test_a_profile_width_that_does_not_fit_a_borrowed_layout_falls_back_to_the_layouts() -> None:
    # 1-lane SFP+ ports (Trident) named Ethernet0..Ethernet32 on vslib's 4-lane BCM56850 layout
    assert bind_ports("s", ["Ethernet32", "Ethernet0"], BCM56850, 1) == (8, 0)
    assert bind_ports("s", ["Ethernet1", "Ethernet0"], BCM56850, 1) == (1, 0)


def test_profile_lanes_per_port_is_read_when_the_profile_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert profile_lanes_per_port("no-such-profile") is None
    monkeypatch.setattr(port_binding, "load_vendor_profile", lambda name: SimpleNamespace(lanes_per_port=SimpleNamespace(value=8)))
    assert profile_lanes_per_port("broadcom-tomahawk3") == 8
    monkeypatch.setattr(port_binding, "load_vendor_profile", lambda name: SimpleNamespace())
    assert profile_lanes_per_port("broadcom-tomahawk3") is None


def _trident2(switch_ir: SwitchIR, names: list[str]) -> SaiProgram:
    ports = tuple(replace(port, name=name) for port, name in zip(switch_ir.ports, names, strict=True))
    return render_sai_program(replace(switch_ir, vendor_profile="broadcom-trident2", ports=ports))


def test_discovery_lists_the_whole_layout_with_the_topology_ports_bound(switch_ir: SwitchIR) -> None:
    program = _trident2(switch_ir, ["Ethernet0", "Ethernet64"])
    answer = program.operations[0]
    assert answer.object_id == SWITCH_ID
    listed = answer.attribute("SAI_SWITCH_ATTR_PORT_LIST")
    assert isinstance(listed, tuple) and len(listed) == 32
    assert listed[0] == "port:Ethernet0" and listed[16] == "port:Ethernet64" and listed[1] == unused_port_id(1)
    assert [p.layout_index for p in program.ports] == [0, 16]
    assert check_program(program) == []
    recording = program_to_recording(program)
    assert "SAI_SWITCH_ATTR_PORT_LIST=32:oid:0x0," in recording
    assert "Ethernet64 at 16 (lanes 65,66,67,68)" in recording
    # only the bound ports are read further and configured
    assert not any(op.object_id.startswith("port:unused") for op in program.operations[1:])


def test_json_round_trip_keeps_the_layout_and_binding(switch_ir: SwitchIR) -> None:
    program = _trident2(switch_ir, ["Ethernet0", "Ethernet64"])
    again = program_from_json(program_to_json(program))
    assert again == program


def test_a_short_port_list_answer_is_a_discovery_mismatch(program: SaiProgram) -> None:
    short = tuple(p.object_id for p in program.ports)
    first = replace(program.operations[0], attributes=(("SAI_SWITCH_ATTR_PORT_LIST", short),))
    found = check_program(replace(program, operations=(first, *program.operations[1:])))
    assert [v.rule for v in found] == ["discovery-mismatch"] and "32 ports" in found[0].message


def test_programs_without_a_layout_port_list_still_load(program: SaiProgram) -> None:
    old_inventory = replace(program.inventory, ports=(), ports_source="")
    old_ports = tuple(replace(p, layout_index=None) for p in program.ports)
    short = port_list(old_ports, old_inventory)
    first = replace(program.operations[0], attributes=(("SAI_SWITCH_ATTR_PORT_LIST", short),))
    old = replace(program, inventory=old_inventory, ports=old_ports, operations=(first, *program.operations[1:]))
    assert check_program(old) == []
    assert program_from_json(program_to_json(old)) == old


def test_too_many_ports_suggests_the_profiles_breakout_before_another_profile() -> None:
    # 64 x 10G fit a Trident2's front panel only as 16 ports broken out 4x10G: say that first.
    names = [f"Ethernet{i}" for i in range(64)]
    with pytest.raises(QosforgeError) as caught:
        bind_ports("s", names, BCM56850, None, speeds_bps=[10e9] * 64, profile_name="broadcom-trident2")
    assert "16 front-panel ports broken out 4x10G" in caught.value.message
    assert caught.value.hint is not None and caught.value.hint.index("break out") < caught.value.hint.index("vendor profile")
    with pytest.raises(QosforgeError) as native:
        bind_ports("s", names[:33], BCM56850, None, speeds_bps=[40e9] * 33, profile_name="broadcom-trident2")
    assert "broken out" not in native.value.message and "break out" not in (native.value.hint or "")
