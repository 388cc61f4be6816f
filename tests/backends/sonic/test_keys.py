"""keys: one parser for indexed keys (incl. VOQ), bounded integers, priorities and ranges."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qosforge.backends.sonic.keys import (
    MAX_INDEX_SPAN,
    bare_reference,
    contiguous_ranges,
    parse_indexed_key,
    priorities,
    ranges_text,
    uint,
)


def test_local_and_voq_keys() -> None:
    key = parse_indexed_key("BUFFER_PG", "Ethernet0|3-4")
    assert key is not None and (key.port, key.low, key.high, key.chassis) == ("Ethernet0", 3, 4, None)
    voq = parse_indexed_key("QUEUE", "lc3|Asic0|Ethernet8|3")
    assert voq is not None and (voq.port, voq.low, voq.chassis) == ("Ethernet8", 3, "lc3|Asic0")
    assert parse_indexed_key("BUFFER_PG", "lc3|Asic0|Ethernet8|3") is None  # no VOQ form for PGs
    assert parse_indexed_key("BUFFER_PG", "Ethernet0|8") is None and parse_indexed_key("BUFFER_PG", "Ethernet0|4-3") is None
    assert parse_indexed_key("QUEUE", "Ethernet0|0-99999999999") is None  # wider than any port
    assert parse_indexed_key("QUEUE", "Ethernet0|" + "9" * 5000) is None


@given(st.text(max_size=80))
def test_any_text_parses_or_is_refused_without_raising(key: str) -> None:
    for table in ("BUFFER_PG", "BUFFER_QUEUE", "QUEUE"):
        parsed = parse_indexed_key(table, key)
        assert parsed is None or (0 <= parsed.low <= parsed.high and parsed.span <= MAX_INDEX_SPAN)


@given(st.lists(st.integers(0, 7), max_size=8))
def test_ranges_round_trip(numbers: list[int]) -> None:
    runs = contiguous_ranges(numbers)
    assert sorted({n for low, high in runs for n in range(low, high + 1)}) == sorted(set(numbers))
    if numbers:
        assert priorities(",".join(map(str, sorted(set(numbers))))) == tuple(sorted(set(numbers)))
        assert ranges_text(numbers).count(",") == len(runs) - 1


def test_small_helpers() -> None:
    assert uint("12") == 12 and uint("-1") is None and uint(3) is None
    assert priorities("3, 4") == () and priorities("3,4") == (3, 4)
    assert bare_reference("[BUFFER_POOL|ingress_lossless_pool]") == "ingress_lossless_pool"
    assert bare_reference("ingress_lossless_pool") == "ingress_lossless_pool"
