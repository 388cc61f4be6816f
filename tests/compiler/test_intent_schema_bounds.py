"""The exported JSON Schema states bounds in JSON Schema's own words (minimum/maximum), including
the bounds of Optional fields, whose int sits inside an anyOf."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from qosforge.compiler.intent import MAX_INITIAL_WINDOW_SEGMENTS, HostTcpSpec, intent_json_schema

#: pydantic's constraint names; JSON Schema 2020-12 §6.2 spells them minimum, maximum,
#: exclusiveMinimum and exclusiveMaximum, and an editor ignores these.
PYDANTIC_ONLY_KEYWORDS = {"ge", "le", "gt", "lt"}


def _keys(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            # A property may be named like a keyword; only keys of a schema object count.
            if path.endswith("/properties"):
                yield from _keys(value, f"{path}/{key}")
                continue
            yield path, key
            yield from _keys(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _keys(value, f"{path}/{index}")


def test_no_schema_object_uses_a_pydantic_constraint_name() -> None:
    found = [f"{path}: {key}" for path, key in _keys(intent_json_schema())
             if key in PYDANTIC_ONLY_KEYWORDS]
    assert found == []


def test_the_initial_window_has_its_bounds_in_the_schema() -> None:
    field = intent_json_schema()["$defs"]["HostTcpSpec"]["properties"]["initial_window_segments"]
    integer = next(option for option in field["anyOf"] if option["type"] == "integer")
    assert (integer["minimum"], integer["maximum"]) == (1, MAX_INITIAL_WINDOW_SEGMENTS)


@pytest.mark.parametrize("segments", [0, MAX_INITIAL_WINDOW_SEGMENTS + 1])
def test_the_model_refuses_what_the_schema_refuses(segments: int) -> None:
    with pytest.raises(ValidationError):
        HostTcpSpec.model_validate({"initial_window_segments": segments})


@pytest.mark.parametrize("segments", [1, MAX_INITIAL_WINDOW_SEGMENTS])
def test_the_model_takes_what_the_schema_takes(segments: int) -> None:
    spec = HostTcpSpec.model_validate({"initial_window_segments": segments})
    assert spec.initial_window_segments == segments
