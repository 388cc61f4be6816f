"""A fabric's switches of one kind share one rendered program, each under its own name and peers."""

from __future__ import annotations

from dataclasses import replace

from qosforge.backends.sai import render_sai_fabric, render_sai_program
from qosforge.ir import SwitchIR


def _twin(switch: SwitchIR, name: str, peer: str) -> SwitchIR:
    return replace(switch, name=name, ports=tuple(replace(p, peer=f"{peer}:{p.name}") for p in switch.ports))


def test_twins_get_what_rendering_each_alone_gives(switch_ir: SwitchIR) -> None:
    fabric = [switch_ir, _twin(switch_ir, "tor2", "spine1"), _twin(switch_ir, "tor3", "spine2")]
    rendered = list(render_sai_fabric(fabric))
    assert [s.name for s, _ in rendered] == ["tor1", "tor2", "tor3"]
    for switch, program in rendered:
        assert program == render_sai_program(switch)
    assert rendered[1][1].operations is rendered[2][1].operations  # rendered once, shared


def test_a_switch_that_differs_is_rendered_on_its_own(switch_ir: SwitchIR) -> None:
    slower = replace(switch_ir, name="tor9", ports=tuple(replace(p, speed_bps=p.speed_bps / 4) for p in switch_ir.ports))
    (_, first), (_, second) = render_sai_fabric([switch_ir, slower])
    assert second == render_sai_program(slower) and second.operations is not first.operations

