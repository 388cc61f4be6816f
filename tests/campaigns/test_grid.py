"""Grid specs: lists, START:STOP:N ranges (as whatif --sweep defines them) and their errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.campaigns.grid import (
    Axis,
    check_grid_size,
    combinations,
    expand_range,
    seeds_axis,
    split_list,
    values_of,
)
from qosforge.errors import QosforgeError
from qosforge.units import split_quantity


def test_a_range_steps_in_the_unit_written() -> None:
    assert expand_range("10us:100us:4", "--rtt", whole=False) == ("10us", "40us", "70us", "100us")
    assert expand_range("0:1ms:3", "--rtt", whole=False) == ("0ms", "0.5ms", "1ms")


def test_whole_ranges_round_and_drop_repeats_like_whatif_sweep() -> None:
    assert expand_range("1:4:7", "--flows", whole=True) == ("1", "2", "3", "4")
    with pytest.raises(QosforgeError, match="whole numbers"):
        expand_range("1.5:4:3", "--flows", whole=True)


@pytest.mark.parametrize(("text", "message"), [("10us:1ms:3", "starts in us and stops in ms"), ("1:4:1", "at least 2"),
                                               ("1:4:x", "at least 2"), ("a:b:3", "--rtt")])
def test_bad_ranges_name_the_flag(text: str, message: str) -> None:
    with pytest.raises(QosforgeError, match=message) as raised:
        expand_range(text, "--rtt", whole=False)
    assert raised.value.place == "--rtt"


def test_lists_and_single_values() -> None:
    assert values_of("10G, 25G,40G", "--bandwidth", numeric=True, whole=False) == ("10G", "25G", "40G")
    assert values_of("dctcp", "--transport", numeric=False, whole=False) == ("dctcp",)
    # Colons are only a range on numeric flags.
    assert values_of("a:b:c", "--switch", numeric=False, whole=False) == ("a:b:c",)
    with pytest.raises(QosforgeError, match="repeats 10G"):
        split_list("10G,10G", "--bandwidth")
    with pytest.raises(QosforgeError, match="empty item"):
        split_list("10G,", "--bandwidth")


@given(start=st.integers(-1000, 1000), span=st.integers(1, 10_000), count=st.integers(2, 50))
def test_range_ends_on_start_and_stop_and_is_sorted(start: int, span: int, count: int) -> None:
    values = expand_range(f"{start}us:{start + span}us:{count}", "--rtt", whole=False)
    numbers = [split_quantity(value)[0] for value in values]
    assert len(values) == count and all(value.endswith("us") for value in values)
    assert numbers[0] == pytest.approx(start) and numbers[-1] == pytest.approx(start + span)
    assert numbers == sorted(numbers)


@given(start=st.integers(0, 500), span=st.integers(0, 500), count=st.integers(2, 60))
def test_whole_ranges_are_distinct_integers_within_the_ends(start: int, span: int, count: int) -> None:
    values = [int(value) for value in expand_range(f"{start}:{start + span}:{count}", "--flows", whole=True)]
    assert len(set(values)) == len(values) <= count
    assert values[0] == start and values[-1] == start + span


def test_grid_is_the_product_first_axis_slowest() -> None:
    axes = [Axis("flows", (2, 8)), Axis("rtt", ("10us", "20us", "40us"))]
    points = list(combinations(axes))
    assert len(points) == 6
    assert points[0] == {"flows": 2, "rtt": "10us"} and points[3] == {"flows": 8, "rtt": "10us"}
    assert list(combinations([])) == [{}]


def test_seeds_and_size_limit() -> None:
    assert seeds_axis(3) == Axis("seed", (1, 2, 3))
    with pytest.raises(QosforgeError, match="at least 1"):
        seeds_axis(0)
    with pytest.raises(QosforgeError, match="1,048,576 points"):
        check_grid_size([Axis(f"a{i}", tuple(range(32))) for i in range(4)])


def test_a_unit_on_one_end_only_is_never_guessed() -> None:
    with pytest.raises(QosforgeError, match="unit on one end only"):
        expand_range("20pkt:60:3", "--ecn-threshold", whole=False)
    with pytest.raises(QosforgeError, match="unit on one end only"):
        expand_range("20:60pkt:3", "--ecn-threshold", whole=False)
    assert expand_range("0:60pkt:3", "--ecn-threshold", whole=False) == ("0pkt", "30pkt", "60pkt")
