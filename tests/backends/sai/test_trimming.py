"""SAI packet trimming: the switch's PACKET_TRIM_* attributes and the trimmed queue's profile action,
checked against the header metadata (types, enums, @validonly)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from qosforge.backends.sai.program import SWITCH_ID, SaiOperation, SaiProgram
from qosforge.backends.sai.render import render_sai_program
from qosforge.backends.sai.validate import check_program, program_objects
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "trim-pod.yaml"


@pytest.fixture(scope="module")
def program() -> SaiProgram:
    intent, source_map = load_intent(EXAMPLE)
    fabric = compile_intent(intent, source_map, switches=("leaf1",))
    return render_sai_program(fabric.for_target("sai")[0])


def test_switch_trim_attributes_and_the_profile_action(program: SaiProgram) -> None:
    objects = program_objects(program)
    switch = objects[SWITCH_ID].attributes
    assert {k: v for k, v in switch.items() if "TRIM" in k} == {
        "SAI_SWITCH_ATTR_PACKET_TRIM_SIZE": 256,
        "SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE": "SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_DSCP_VALUE",
        "SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE": 11,
        "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE": "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC",
        "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX": 7,
    }
    actions = {
        oid: o.attributes.get("SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION")
        for oid, o in objects.items()
        if o.object_type == "SAI_OBJECT_TYPE_BUFFER_PROFILE"
    }
    assert {oid for oid, action in actions.items() if action is not None} == {
        "buffer_profile:egress_lossy_trim_profile"
    }
    assert (
        actions["buffer_profile:egress_lossy_trim_profile"]
        == "SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP_AND_TRIM"
    )
    # The trimming profile is bound to the trimmed class's queue (1) only.
    bound = {
        oid
        for oid, o in objects.items()
        if o.attributes.get("SAI_QUEUE_ATTR_BUFFER_PROFILE_ID")
        == "buffer_profile:egress_lossy_trim_profile"
    }
    assert bound and all(oid.endswith(":1") for oid in bound)


def _with(program: SaiProgram, name: str, value: object) -> SaiProgram:
    operations = [
        op
        for op in program.operations
        if not (op.object_id == SWITCH_ID and op.attributes[0][0] == name)
    ]
    operations.append(SaiOperation("set", "SAI_OBJECT_TYPE_SWITCH", SWITCH_ID, ((name, value),)))  # type: ignore[arg-type]
    return dataclasses.replace(program, operations=tuple(operations))


def test_the_metadata_catches_a_queue_index_in_dynamic_mode(program: SaiProgram) -> None:
    operations = [
        op
        for op in program.operations
        if op.attributes and op.attributes[0][0] != "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX"
    ]
    dynamic = _with(
        dataclasses.replace(program, operations=tuple(operations)),
        "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE",
        "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_DYNAMIC",
    )
    assert check_program(dynamic) == []
    with_index = _with(dynamic, "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX", 7)
    assert [v.rule for v in check_program(with_index)] == ["validonly-not-met"]


@pytest.mark.parametrize(
    ("name", "value", "rule"),
    [
        ("SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE", 256, "out-of-range"),
        (
            "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE",
            "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_AUTO",
            "bad-enum",
        ),
    ],
)
def test_the_metadata_catches_bad_values(
    program: SaiProgram, name: str, value: object, rule: str
) -> None:
    assert rule in {v.rule for v in check_program(_with(program, name, value))}
