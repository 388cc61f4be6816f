"""Point identity: the full parameter set, not the order flags were typed in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qosforge.campaigns.point import PointSpec, param_text, point_id

PARAMS = st.dictionaries(st.text(min_size=1, max_size=8), st.one_of(st.integers(), st.text(max_size=6), st.booleans()), max_size=6)


@given(params=PARAMS)
def test_identity_ignores_key_order(params: dict[str, object]) -> None:
    reordered = dict(reversed(list(params.items())))
    assert point_id(("simulate",), params) == point_id(("simulate",), reordered)


def test_identity_changes_with_any_value_or_the_command() -> None:
    base = {"flows": 2, "rtt": "10us", "seed": 1}
    ids = {point_id(("simulate",), base), point_id(("simulate",), {**base, "seed": 2}), point_id(("simulate",), {**base, "rtt": "20us"}),
           point_id(("whatif", "dctcp"), base)}
    assert len(ids) == 4
    assert PointSpec(("simulate",), base, ()).point_id == point_id(("simulate",), base)
    assert len(point_id(("simulate",), base)) == 20


def test_param_text() -> None:
    assert param_text(("a", "b")) == "a,b" and param_text(["x"]) == "x" and param_text(2) == "2"
