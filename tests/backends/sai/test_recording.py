"""The sairedis recording: line format, view bracketing, g/G discovery, ids defined before use."""

from __future__ import annotations

import datetime as dt
import json
import re

from qosforge.backends.sai import SaiProgram, program_to_recording
from qosforge.backends.sai.recording import OBJECT_TYPE_NUMBERS

LINE = re.compile(r"^\d{4}-\d\d-\d\d\.\d\d:\d\d:\d\d\.\d{6}\|([#aAcsgG])\|(.*)$")
OID = re.compile(r"oid:0x([0-9a-f]+)")


def _parse(text: str) -> list[tuple[str, str]]:
    lines = text.splitlines()
    parsed = []
    for line in lines:
        match = LINE.match(line)
        assert match, line
        parsed.append((match.group(1), match.group(2)))
    return parsed


def test_view_bracketing_and_switch_create(program: SaiProgram) -> None:
    ops = [op for op, _ in _parse(program_to_recording(program)) if op != "#"]
    assert ops[:3] == ["a", "A", "c"] and ops[-2:] == ["a", "A"]
    payloads = [p for op, p in _parse(program_to_recording(program)) if op in "aA"]
    assert payloads == ["INIT_VIEW", "SAI_STATUS_SUCCESS", "APPLY_VIEW", "SAI_STATUS_SUCCESS"]


def test_timestamps_advance_from_the_given_start(program: SaiProgram) -> None:
    text = program_to_recording(program, start=dt.datetime(2026, 3, 4, 5, 6, 7))
    stamps = [line.split("|", 1)[0] for line in text.splitlines()]
    assert stamps[0] == "2026-03-04.05:06:07.000000" and stamps[1] == "2026-03-04.05:06:07.000001"
    assert stamps == sorted(stamps)


def test_every_get_is_answered_with_lists_of_the_same_length(program: SaiProgram) -> None:
    lines = _parse(program_to_recording(program))
    gets = [(i, p) for i, (op, p) in enumerate(lines) if op == "g"]
    assert len(gets) == sum(len(op.attributes) for op in program.operations if op.op == "get")
    for index, payload in gets:
        op, answer = lines[index + 1]
        assert op == "G" and answer.startswith("SAI_STATUS_SUCCESS|")
        requested = payload.split("|", 1)[1]
        answered = answer.split("|", 1)[1]
        name, value = requested.split("=", 1)
        answered_name, answered_value = answered.split("=", 1)
        assert name == answered_name
        if re.match(r"^\d+:", value):
            count = int(value.split(":", 1)[0])
            assert count == int(answered_value.split(":", 1)[0]) == len(answered_value.split(",")) if count else answered_value == "0:null"
            assert set(OID.findall(value)) <= {"0"}


def test_ids_are_typed_virtual_ids_defined_before_use(program: SaiProgram) -> None:
    defined: set[str] = set()
    for op, payload in _parse(program_to_recording(program)):
        if op == "G":
            defined.update(OID.findall(payload))
            continue
        if op not in "cs":
            continue
        key, *fields = payload.split("|")
        object_type, oid = key.split(":", 1)
        vid = int(oid.removeprefix("oid:0x"), 16)
        assert vid >> 48 == OBJECT_TYPE_NUMBERS[object_type]
        for field in fields:
            for used in OID.findall(field):
                assert used in defined, f"{used} used before it is created or discovered: {field}"
        if op == "c":
            defined.add(f"{vid:x}")
        else:
            assert f"{vid:x}" in defined


def test_values_are_serialised_as_sairedis_does(program: SaiProgram) -> None:
    text = program_to_recording(program)
    assert "|SAI_WRED_ATTR_RED_ENABLE=true|" in text
    assert re.search(r"\|SAI_WRED_ATTR_ECN_MARK_MODE=SAI_ECN_MARK_MODE_GREEN_RED\|", text)
    qos_map = re.search(r"SAI_QOS_MAP_ATTR_TYPE=SAI_QOS_MAP_TYPE_DSCP_TO_COLOR\|SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST=(\{.*\})$", text, re.M)
    assert qos_map is not None
    document = json.loads(qos_map.group(1))
    assert document["count"] == 64 == len(document["list"])
    first = document["list"][0]
    assert list(first["key"]) == sorted(["color", "dot1p", "dscp", "fc", "mpls_exp", "pg", "prio", "qidx", "tc"])
    assert {e["value"]["color"] for e in document["list"]} == {"SAI_PACKET_COLOR_GREEN", "SAI_PACKET_COLOR_RED"}
    assert re.search(r"\|SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL=\d+$", text, re.M)
