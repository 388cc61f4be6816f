"""Integer fields of the intent take YAML integers only: a YAML ``true`` or a quoted ``'10'`` is
refused at its line, never read as 1 or 10 (pydantic's lax mode would)."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from qosforge.compiler.intent import Intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.softswitch.traffic.traffic_file import CollectiveEntry, TrafficDocument, TrafficEntry

Writer = Callable[..., Path]


def _types(annotation: Any) -> Iterator[Any]:
    """The annotation and every type nested in it (unions, lists, Annotated, dict values)."""
    yield annotation
    for argument in typing.get_args(annotation):
        yield from _types(argument)


def _models(root: type[BaseModel]) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    pending = [root]
    while pending:
        model = pending.pop()
        if model in found:
            continue
        found.append(model)
        for field in model.model_fields.values():
            pending += [kind for kind in _types(field.annotation)
                        if isinstance(kind, type) and issubclass(kind, BaseModel)]
    return found


def _integer_fields(*roots: type[BaseModel]) -> list[tuple[type[BaseModel], str]]:
    """(model, field) of every field that holds an int, alone, optional or in a container."""
    return sorted(
        {(model, name) for root in roots for model in _models(root)
         for name, field in model.model_fields.items()
         if any(kind is int for kind in _types(field.annotation))},
        key=lambda pair: (pair[0].__name__, pair[1]))


INTENT_INTEGER_FIELDS = _integer_fields(Intent)
TRAFFIC_INTEGER_FIELDS = _integer_fields(TrafficDocument, TrafficEntry, CollectiveEntry)


def _field_errors(model: type[BaseModel], name: str, value: object) -> list[str]:
    """Error types pydantic reports at the field (the model's other fields are left missing)."""
    field = model.model_fields[name]
    key = field.alias or name
    origin = typing.get_origin(field.annotation)
    container = origin in (list, tuple) or any(
        typing.get_origin(kind) in (list, tuple) for kind in _types(field.annotation))
    written: object = [value] if container else value
    if any(typing.get_origin(kind) is dict for kind in _types(field.annotation)):
        written = {"x": value}
    try:
        model.model_validate({key: written})
    except ValidationError as error:
        return [e["type"] for e in error.errors() if e["loc"] and e["loc"][0] == key]
    return []


def test_the_walk_finds_the_integer_fields() -> None:
    names = {f"{model.__name__}.{name}" for model, name in INTENT_INTEGER_FIELDS}
    assert {"LeafSpine.spines", "HostTcpSpec.initial_window_segments", "Design.congested_ports",
            "TbtcpSpec.r"} <= names
    assert {f"{model.__name__}.{name}" for model, name in TRAFFIC_INTEGER_FIELDS} >= {
        "TrafficEntry.count", "TrafficEntry.src", "CollectiveEntry.iterations",
        "TrafficDocument.seed"}


@given(pair=st.sampled_from(INTENT_INTEGER_FIELDS + TRAFFIC_INTEGER_FIELDS),
       value=st.booleans() | st.integers(min_value=0, max_value=4096).map(str))
def test_a_boolean_or_a_numeric_string_is_no_integer(
        pair: tuple[type[BaseModel], str], value: bool | str) -> None:
    model, name = pair
    if isinstance(value, str) and any(
            kind is str for kind in _types(model.model_fields[name].annotation)):
        return  # a host token is a name or an index: '0' is a name there
    assert _field_errors(model, name, value), f"{model.__name__}.{name} accepted {value!r}"


@given(pair=st.sampled_from(INTENT_INTEGER_FIELDS + TRAFFIC_INTEGER_FIELDS))
def test_an_integer_is_no_type_error(pair: tuple[type[BaseModel], str]) -> None:
    # The refusal above is strictness, not a field that refuses everything: 1 passes the type
    # check of every integer field (a bound may still refuse it).
    model, name = pair
    assert not {"int_type", "int_parsing", "string_type", "model_type"} & set(
        _field_errors(model, name, 1))


@pytest.mark.parametrize(("old", "new", "line"), [
    ("    spines: 2\n", "    spines: true\n", 6),
    ("    spines: 2\n", "    spines: '10'\n", 6),
    ("    dscp: [10]\n", "    dscp: [10]\n    hosts: {initial_window_segments: true}\n", 17),
    ("    dscp: [10]\n", "    dscp: [10]\n    weight: '2'\n", 17),
])
def test_the_loader_names_the_line_of_a_non_integer(
        write_intent: Writer, base_intent: str, old: str, new: str, line: int) -> None:
    path = write_intent(base_intent.replace(old, new))
    with pytest.raises(IntentError) as caught:
        load_intent(path)
    assert f"{path}:{line}:" in str(caught.value)
    assert "valid integer" in str(caught.value)


def test_union_helpers_cover_optional_annotations() -> None:
    # `int | None` is a types.UnionType: the walk must look inside it, or optional integer
    # fields (initial_window_segments) would escape the tests above.
    assert int in set(_types(int | None)) and isinstance(int | None, types.UnionType)
