"""KeyLocator: line and column of JSON keys, for text output and SARIF regions."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.lint.locate import KeyLocator

TEXT = """{
  "BUFFER_POOL": {
    "egress_lossy_pool": {"mode": "dynamic", "size": "1"},
    "with \\"quote\\" and [brackets]": {"type": ["a", {"nested": "x"}], "size": "2"}
  },
  "DSCP_TO_TC_MAP": {"AZURE": {"0": "0",
                               "26": "3"}}
}
"""


def test_positions_of_tables_keys_and_fields() -> None:
    locator = KeyLocator(TEXT)
    assert locator.locate("BUFFER_POOL") == (2, 3)
    assert locator.locate("BUFFER_POOL", "egress_lossy_pool") == (3, 5)
    assert locator.locate("BUFFER_POOL", "egress_lossy_pool", "size") == (3, 46)
    assert locator.locate("BUFFER_POOL", 'with "quote" and [brackets]', "size") == (4, 71)
    assert locator.locate("DSCP_TO_TC_MAP", "AZURE", "26") == (7, 32)


def test_missing_parts_fall_back_to_the_deepest_existing_key() -> None:
    locator = KeyLocator(TEXT)
    assert locator.locate("BUFFER_POOL", "egress_lossy_pool", "xoff") == (3, 5)
    assert locator.locate("BUFFER_POOL", "nope") == (2, 3)
    assert locator.locate("NOPE") is None


def test_values_that_look_like_keys_are_not_keys() -> None:
    locator = KeyLocator('{"A": {"k": "BUFFER_POOL"}, "L": ["x", "y"]}')
    assert locator.locate("BUFFER_POOL") is None
    assert locator.locate("A", "k") == (1, 8)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.dictionaries(st.text(max_size=6), st.text(max_size=4), max_size=3),
                       min_size=1, max_size=4),
       st.sampled_from([None, 1, 2, 4]))
def test_every_key_is_found_where_json_dumps_put_it(data: dict[str, dict[str, str]], indent: int | None) -> None:
    text = json.dumps(data, indent=indent)
    locator = KeyLocator(text)
    lines = text.split("\n")
    for table, entries in data.items():
        for key in [None, *entries]:
            path = (table,) if key is None else (table, key)
            position = locator.locate(*path)
            assert position is not None
            line, column = position
            assert lines[line - 1][column - 1:].startswith(json.dumps(path[-1]))
