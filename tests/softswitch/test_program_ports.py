"""The software switch loads programs whose discovery lists the layout's whole port list."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from qosforge.backends.sai import program_to_json, render_sai_program
from qosforge.softswitch.config import load_switch_json
from qosforge.softswitch.helper.compiled import compile_for_softswitch

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tlt-softswitch.yaml"


def test_only_the_bound_ports_are_switch_ports() -> None:
    ir = compile_for_softswitch(EXAMPLE, None).ir
    program = render_sai_program(replace(ir, ports=(ir.ports[3], ir.ports[9])))
    listed = program.operations[0].attribute("SAI_SWITCH_ATTR_PORT_LIST")
    assert isinstance(listed, tuple) and len(listed) == 32
    config = load_switch_json(program_to_json(program))
    assert [p.name for p in config.ports] == [ir.ports[3].name, ir.ports[9].name]
    assert all(len(p.queues) == 8 for p in config.ports)


def test_a_program_written_before_port_binding_still_loads() -> None:
    ir = compile_for_softswitch(EXAMPLE, None).ir
    document = json.loads(program_to_json(render_sai_program(replace(ir, ports=ir.ports[:2]))))
    del document["inventory"]["ports"]
    for port in document["ports"]:
        del port["layout_index"]
    document["operations"][0]["attributes"]["SAI_SWITCH_ATTR_PORT_LIST"] = [
        p["id"] for p in document["ports"]
    ]
    config = load_switch_json(json.dumps(document))
    assert [p.name for p in config.ports] == [p.name for p in ir.ports[:2]]
