"""The ``qosforge.sai/1`` JSON: lossless round trip, and clear errors for malformed documents."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosforge.backends.sai import (
    SaiJsonError,
    SaiProgram,
    check_program,
    program_from_json,
    program_to_json,
)
from qosforge.errors import QosforgeError


def test_round_trip_is_lossless(program: SaiProgram) -> None:
    text = program_to_json(program)
    again = program_from_json(text)
    assert again == program
    assert program_to_json(again) == text


def test_values_are_typed_by_the_metadata(program: SaiProgram) -> None:
    document = json.loads(program_to_json(program))
    wred = next(op for op in document["operations"] if op["id"] == "wred:bulk_40G")["attributes"]
    assert wred["SAI_WRED_ATTR_RED_ENABLE"] is True and isinstance(wred["SAI_WRED_ATTR_RED_MIN_THRESHOLD"], int)
    dscp_map = next(op for op in document["operations"] if op["id"] == "qos_map:dscp_to_tc")["attributes"]["SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST"]
    assert dscp_map[10] == {"key": {"dscp": 10}, "value": {"tc": dscp_map[10]["value"]["tc"]}}


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.update(format="other/1"), "not a qosforge SAI program"),
    (lambda d: d["operations"][0].update(op="delete"), "is not create, set or get"),
    (lambda d: d["operations"][-1]["attributes"].update({"SAI_QUEUE_ATTR_WRED_PROFILE_ID": 5}), "must be a JSON str"),
    (lambda d: d["ports"][0].update(speed_bps="fast"), "speed_bps must be a JSON"),
    (lambda d: d.pop("inventory"), "inventory must be a JSON dict"),
])
def test_malformed_documents_name_the_place(program: SaiProgram, mutate: Any, message: str) -> None:
    document = json.loads(program_to_json(program))
    mutate(document)
    with pytest.raises(SaiJsonError, match=message) as caught:
        program_from_json(json.dumps(document), source="x.json")
    assert str(caught.value.place).startswith("x.json")


def test_not_json_and_too_deep() -> None:
    with pytest.raises(SaiJsonError, match="is not JSON") as caught:
        program_from_json("{", source="bad.json")
    assert caught.value.place == "bad.json:1:2"
    with pytest.raises(SaiJsonError, match="nested too deeply"):
        program_from_json("[" * 100_000 + "]" * 100_000)


def _mutations() -> st.SearchStrategy[tuple[int, str, Any]]:
    junk = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(max_size=8), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))
    return st.tuples(st.integers(0, 10_000), st.sampled_from(["attribute", "id", "type", "op", "drop"]), junk)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(mutation=_mutations())
def test_any_mutation_gives_a_clear_error_or_a_checkable_program(program: SaiProgram, mutation: tuple[int, str, Any]) -> None:
    document = json.loads(program_to_json(program))
    index, where, junk = mutation
    op = document["operations"][index % len(document["operations"])]
    if where == "attribute":
        name = next(iter(op["attributes"]))
        op["attributes"][name] = junk
    elif where == "drop":
        document["operations"].remove(op)
    else:
        op[where] = junk
    try:
        parsed = program_from_json(json.dumps(document))
    except QosforgeError as error:
        assert error.place
        return
    assert isinstance(check_program(parsed), list)
