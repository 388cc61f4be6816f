"""Units: every spelling the issue names, the ambiguous ones rejected with a hint, and round trips."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.errors import UnitError
from qosforge.units import (
    parse_fraction,
    parse_length_m,
    parse_number,
    parse_rate_bps,
    parse_size_bytes,
    parse_time_s,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("40G", 40e9), ("40Gbps", 40e9), ("100Mbps", 100e6), ("25G", 25e9), ("1.6Tbps", 1.6e12), ("10 Gb/s", 10e9)],
)
def test_rates_are_bits_per_second(text: str, expected: float) -> None:
    assert parse_rate_bps(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12MB", 12_000_000),
        ("12MiB", 12 * 2**20),
        ("400kB", 400_000),
        ("16KiB", 16_384),
        ("1500B", 1500),
        ("1GB", 1e9),
        ("9 MB", 9e6),
    ],
)
def test_sizes_distinguish_si_and_binary(text: str, expected: float) -> None:
    assert parse_size_bytes(text) == pytest.approx(expected)


def test_packets_need_a_packet_size() -> None:
    assert parse_size_bytes("65pkt", packet_bytes=1500) == 97_500
    with pytest.raises(UnitError, match="no packet size"):
        parse_size_bytes("65pkt")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("12M", "ambiguous"),
        ("12KB", "ambiguous"),
        ("12Mb", "bits"),
        ("12", "no unit"),
        ("12XB", "unknown size unit"),
        ("-5MB", "positive"),
        ("0B", "positive"),
        ("twelve MB", "not a size"),
        ("inf MB", "not a size"),
    ],
)
def test_bad_sizes_are_rejected_with_a_hint(text: str, fragment: str) -> None:
    with pytest.raises(UnitError, match=fragment) as caught:
        parse_size_bytes(text)
    assert caught.value.hint


@pytest.mark.parametrize(("text", "fragment"), [("40GB", "bytes per second"), ("40", "no unit"), ("0G", "positive"), ("40Gz", "unknown")])
def test_bad_rates(text: str, fragment: str) -> None:
    with pytest.raises(UnitError, match=fragment):
        parse_rate_bps(text)


def test_time_length_percent_and_numbers() -> None:
    assert parse_time_s("80us") == pytest.approx(80e-6)
    assert parse_time_s("80µs") == pytest.approx(80e-6)
    assert parse_time_s("1.5ms") == pytest.approx(1.5e-3)
    assert parse_time_s("200ns") == pytest.approx(200e-9)
    assert parse_length_m("5m") == 5.0
    assert parse_length_m("2km") == 2000.0
    assert parse_fraction("2%") == pytest.approx(0.02)
    assert parse_number("16") == 16.0
    with pytest.raises(UnitError, match="takes no unit"):
        parse_number("16MB")
    with pytest.raises(UnitError):
        parse_time_s("80")
    with pytest.raises(UnitError, match="outside"):
        parse_fraction("150%")
    with pytest.raises(UnitError):
        parse_length_m("5ft")


@given(st.floats(min_value=1e-3, max_value=1e6, allow_nan=False))
def test_kb_and_mb_are_consistent(value: float) -> None:
    assert math.isclose(parse_size_bytes(f"{value!r}MB"), 1000 * parse_size_bytes(f"{value!r}kB"), rel_tol=1e-12)
    assert math.isclose(parse_size_bytes(f"{value!r}MiB"), 1024 * parse_size_bytes(f"{value!r}KiB"), rel_tol=1e-12)


@given(st.text(max_size=12))
def test_any_text_parses_or_raises_unit_error(text: str) -> None:
    for parser in (parse_size_bytes, parse_rate_bps, parse_time_s, parse_length_m, parse_fraction, parse_number):
        try:
            value = parser(text)
        except UnitError:
            continue
        assert math.isfinite(value)


def test_a_bare_number_is_never_a_share() -> None:
    # One rule for shares and probabilities, as P_max: the % sign is required. Before, "1" was
    # read as a fraction (simulate --load 1 ran at 100 %) while "--pmax 0.01" was refused.
    for text, hint in (("1", "write 100% or 1%"), ("0.6", "write 60% or 0.6%"), ("60", "write 60%")):
        with pytest.raises(UnitError, match="has no % sign") as caught:
            parse_fraction(text)
        assert caught.value.hint == f"{hint} (a percentage)"
    assert parse_fraction("0") == 0.0 and parse_fraction("60%") == pytest.approx(0.6)
    with pytest.raises(UnitError, match=r"outside 0\.\.100%"):
        parse_fraction("150%")


def test_a_negative_duration_where_zero_is_allowed_says_so() -> None:
    with pytest.raises(UnitError, match=r"must be >= 0"):
        parse_time_s("-1s", allow_zero=True)
    with pytest.raises(UnitError, match=r"must be positive"):
        parse_time_s("0s")
