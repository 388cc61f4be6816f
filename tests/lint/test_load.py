"""load_config: bytes -> config, bounded; unusable input is one clear error, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qosforge.lint.context import KNOWN_TABLES
from qosforge.lint.load import (
    MAX_CONFIG_BYTES,
    MAX_DEPTH,
    MAX_TEXT_CHARS,
    UnusableInputError,
    load_config,
    read_bytes,
)


def _load(data: bytes | str) -> object:
    raw = data.encode() if isinstance(data, str) else data
    return load_config(raw, "c.json", KNOWN_TABLES)


@pytest.mark.parametrize(("data", "message", "place"), [
    (b"", "not JSON: Expecting value", "c.json:1:1"),
    (b'{"A": {"b": }', "not JSON: Expecting value", "c.json:1:13"),
    (b'{\n  "A": 1,\n  "B": NaN\n}', "NaN is not valid JSON", "c.json"),
    (b'{"A": Infinity}', "Infinity is not valid JSON", "c.json"),
    (b"[1, 2]", "the top level is an array, not an object", "c.json:1:1"),
    (b'"text"', "the top level is a JSON str, not an object", "c.json:1:1"),
    (b"\xef\xbb\xbf{}", "byte-order mark", "c.json:1:1"),
    (b'{"a": "\xff"}', "not UTF-8 text (byte 0xff at offset 7)", "c.json:1"),
    (b"[" * 100_000 + b"]" * 100_000, f"nested deeper than {MAX_DEPTH} levels", "c.json"),
    (b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels", "c.json"),
])
def test_unusable_input_is_one_located_error(data: bytes, message: str, place: str) -> None:
    with pytest.raises(UnusableInputError) as raised:
        _load(data)
    assert message in raised.value.message
    assert raised.value.place == place
    assert raised.value.hint


def test_depth_at_the_limit_is_fine() -> None:
    _load('{"PORT": ' + '{"a":' * (MAX_DEPTH - 2) + "1" + "}" * (MAX_DEPTH - 1))


def test_oversized_input_is_refused_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_CONFIG_BYTES + 1)  # sparse: no memory, no disk
    with pytest.raises(UnusableInputError, match="lint reads at most"):
        read_bytes(big)
    with pytest.raises(UnusableInputError, match="cannot read the file"):
        read_bytes(tmp_path / "missing.json")


def test_duplicate_keys_are_recorded_with_their_path() -> None:
    loaded = load_config(b'{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "26": "0", "1": "1"}}, "X": 1, "X": 2}',
                         "c.json", KNOWN_TABLES)
    assert loaded.data["DSCP_TO_TC_MAP"]["AZURE"]["26"] == "0"  # json.load semantics: the last wins
    assert [(d.path, d.key, d.count) for d in loaded.duplicates] == [
        ((), "X", 2), (("DSCP_TO_TC_MAP", "AZURE"), "26", 2)]


def test_redis_dump_keys_are_nested_without_touching_the_data() -> None:
    text = json.dumps({"BUFFER_POOL|p": {"size": "1"}, "BUFFER_POOL": {"q": {"size": "2"}}, "OTHER|x": {}})
    loaded = load_config(text.encode(), "c.json", KNOWN_TABLES)
    assert loaded.tables["BUFFER_POOL"] == {"q": {"size": "2"}, "p": {"size": "1"}}
    assert "BUFFER_POOL|p" in loaded.data and "p" not in loaded.data["BUFFER_POOL"]
    assert loaded.redis_keys == {("BUFFER_POOL", "p"): "BUFFER_POOL|p", ("OTHER", "x"): "OTHER|x"}
    assert loaded.tables["OTHER"] == {"x": {}}  # every redis-dump key is nested (any table)


def test_sonic_db_dump_values_are_unwrapped() -> None:
    text = json.dumps({"BUFFER_POOL|p": {"type": "hash", "value": {"size": "1"}, "ttl": -0.001, "expireat": 0}})
    loaded = load_config(text.encode(), "dump.json", KNOWN_TABLES)
    assert loaded.tables["BUFFER_POOL"] == {"p": {"size": "1"}}


@pytest.mark.parametrize(("text", "message"), [
    ('{"FOO": {"a": {"b": "c"}}}', "no SONiC CONFIG_DB table"),
    ('{}', "no SONiC CONFIG_DB table"),
    ('[{"PORT_TABLE:Ethernet0": {"speed": "1000"}, "OP": "SET"}]', "swssconfig"),
])
def test_files_that_are_not_config_db_are_refused(text: str, message: str) -> None:
    with pytest.raises(UnusableInputError, match=message):
        load_config(text.encode(), "x.json", KNOWN_TABLES)


def test_oversized_text_is_replaced_and_reported() -> None:
    long_number = "9" * 5000  # int() of it would raise (Python's 4300-digit limit)
    text = json.dumps({"BUFFER_POOL": {"p": {"size": long_number, "type": "ingress"}, "k" * (MAX_TEXT_CHARS + 1): {}},
                       "VLAN": {"v": {"description": "x" * 10_000}}})
    loaded = load_config(text.encode(), "c.json", KNOWN_TABLES)
    assert loaded.tables["BUFFER_POOL"]["p"] == {"size": "<5000-character text>", "type": "ingress"}
    assert len(loaded.tables["BUFFER_POOL"]) == 1
    assert [(o.table, o.field, o.length) for o in loaded.oversized] == [
        ("BUFFER_POOL", "size", 5000), ("BUFFER_POOL", None, MAX_TEXT_CHARS + 1)]
    assert loaded.tables["VLAN"]["v"]["description"] == "x" * 10_000  # tables lint does not read


def test_huge_integers_stay_numbers() -> None:
    loaded = load_config(b'{"BUFFER_POOL": {"p": {"size": ' + b"7" * 6000 + b"}}}", "c.json", KNOWN_TABLES)
    assert not isinstance(loaded.data["BUFFER_POOL"]["p"]["size"], str)
