"""The fast intent parser gives exactly what the ruamel.yaml round-trip path gives, or steps aside."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from qosforge.compiler.fast_yaml import EventReader, Unsupported, fast_load
from qosforge.compiler.loader import _to_plain

#: Plain scalars whose type depends on the YAML version or the resolver.
TOKENS = ["010", "0o17", "0x1F", "0b101", "1_000", "1e3", "1.5e3", "-.5", "+12", ".inf", "-.Inf", ".nan", "yes", "no", "on", "off",
          "y", "n", "true", "False", "TRUE", "null", "Null", "~", "", "100G", "3m", "1us", "Ethernet[0-84/4]", "leaf1:Ethernet0", "12:30",
          "'quoted 1'", '"2"', "0", "-0", "007"]


def _round_trip(text: str) -> object:
    return _to_plain(YAML(typ="rt").load(text))


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True), st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4), min_size=1, max_size=5))
def test_scalars_load_as_ruamel_yaml_loads_them(document: dict[str, list[str]]) -> None:
    text = "".join(f"{key}: {values[0]}\n{key}_list:\n" + "".join(f"  - {v}\n" for v in values) for key, values in document.items())
    fast = fast_load(text)
    assert fast is not None
    assert fast == _round_trip(text)
    assert [isinstance(v, bool) for v in fast.values()] == [isinstance(v, bool) for v in _round_trip(text).values()]  # type: ignore[attr-defined]


def test_what_it_does_not_reproduce_goes_to_ruamel_yaml() -> None:
    for text in ("a: 1\na: 2\n", "<<: {a: 1}\n", "a: !!str 12\n", "a: 2020-01-01\n", "%YAML 1.1\n---\na: yes\n", "a: [1\n", "a: 1\n---\nb: 2\n", "a: !custom x\n"):
        assert fast_load(text) is None, text


def test_keys_are_text_as_on_the_round_trip_path() -> None:
    assert fast_load("1: x\nfalse: y\n") == _round_trip("1: x\nfalse: y\n") == {"1": "x", "False": "y"}


def _events(text: str) -> object:
    reader = EventReader(text)
    try:
        value = reader.value(reader.start())
        reader.end()
        return value
    finally:
        reader.close()


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True),
        st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4),
        min_size=1,
        max_size=5,
    )
)
def test_the_event_reader_loads_scalars_as_ruamel_yaml_does(document: dict[str, list[str]]) -> None:
    text = "".join(
        f"{key}: {values[0]}\n{key}_list:\n"
        + "".join(f"  - {v}\n" for v in values)
        + f"{key}_map:\n  k: {values[-1]}\n"
        for key, values in document.items()
    )
    expected = _round_trip(text)
    assert _events(text) == expected
    fast = _events(text)
    assert isinstance(fast, dict) and isinstance(expected, dict)
    booleans = [isinstance(v, bool) for v in expected.values()]
    assert [isinstance(v, bool) for v in fast.values()] == booleans


def test_the_event_reader_refuses_what_fast_load_refuses() -> None:
    for text in (
        "a: 1\na: 2\n",
        "<<: {a: 1}\n",
        "a: !!str 12\n",
        "a: 2020-01-01\n",
        "%YAML 1.1\n---\na: yes\n",
        "a: 1\n---\nb: 2\n",
        "a: !custom x\n",
        "a: &x 1\nb: *x\n",
    ):
        with pytest.raises(Unsupported):
            _events(text)
    with pytest.raises(yaml.YAMLError):
        _events("a: [1\n")


def test_the_event_reader_gives_each_node_its_line() -> None:
    reader = EventReader("top:\n  - {a: 1}\n\n  - b: 2\n    c: x\n")
    try:
        reader.start()
        assert reader.key(reader.next()) == "top"
        reader.next()  # the sequence
        first, second = reader.next(), None
        assert (first.start_mark.line, reader.value(first)) == (1, {"a": 1})
        second = reader.next()
        assert (second.start_mark.line, reader.value(second)) == (3, {"b": 2, "c": "x"})
    finally:
        reader.close()
