"""Switches of one kind share validation, JSON and recording work; each still gets its own text."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from qosforge.backends.sai import SaiProgram, check_program, program_to_json, program_to_recording
from qosforge.backends.sai.json_format import _ports_text, program_to_dict
from qosforge.backends.sai.program import PortContext

START = dt.datetime(2026, 1, 2, 3, 4, 5, 999_000)


def _plain_json(program: SaiProgram) -> str:
    """The text the JSON writer produced before it shared work: json's indenting encoder."""
    document = program_to_dict(program)
    operations = document.pop("operations")
    head = json.dumps(document, indent=1)
    lines = ",\n".join("  " + json.dumps(op, separators=(", ", ": ")) for op in operations)
    return head[:-2] + ',\n "operations": [\n' + lines + "\n ]\n}\n"


def test_a_renamed_rewired_twin_gets_its_own_exact_texts(program: SaiProgram) -> None:
    twin = replace(program, switch_name="tor2 \"east\"", ports=tuple(replace(p, peer=f"spine9:{p.name}") for p in program.ports))
    for each in (program, twin, program):
        assert program_to_json(each) == _plain_json(each)
    first, second = program_to_recording(program, start=START), program_to_recording(twin, start=START)
    assert "switch tor2 \"east\"" in second.splitlines()[0] and "switch tor1" in first.splitlines()[0]
    assert first.splitlines()[1:] == second.splitlines()[1:]  # the body is the same, timestamps too
    assert check_program(twin) == check_program(program) == []


def test_a_changed_operation_is_not_served_from_the_cache(program: SaiProgram) -> None:
    broken = replace(program, operations=(*program.operations, replace(program.operations[-1], attributes=(("SAI_NO_SUCH_ATTR", 1),))))
    assert check_program(program) == []
    assert [v.rule for v in check_program(broken)] == ["unknown-attribute"]
    assert check_program(program) == []
    assert program_to_json(broken) == _plain_json(broken) != program_to_json(program)


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@given(st.lists(st.builds(PortContext, names, names, st.floats(allow_nan=False, allow_infinity=False), st.floats(0, 1e4), st.none() | names,
                          st.none() | st.integers(0, 511)), max_size=4))
def test_ports_are_laid_out_as_the_indenting_encoder_does(ports: list[PortContext]) -> None:
    expected = json.dumps({"ports": [{"id": p.object_id, "name": p.name, "speed_bps": p.speed_bps, "cable_m": p.cable_m, "peer": p.peer,
                                     "layout_index": p.layout_index} for p in ports]}, indent=1)
    assert expected == '{\n "ports": ' + _ports_text(tuple(ports)) + "\n}"
