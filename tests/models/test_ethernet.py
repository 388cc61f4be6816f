"""Ethernet framing (IEEE 802.3 clauses 3.1.1, 3.5, 4.4.2): frame and line-time sizes by hand,
the minimum frame, the 802.1Q tag, and the payload bound a link carries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.models.ethernet import frame_bytes, payload_rate_bound_bps, wire_bytes


def test_a_1500_byte_datagram_is_a_1518_byte_frame_and_1538_bytes_of_line_time() -> None:
    # 14 B MAC header + 4 B FCS around the datagram; 8 B preamble/SFD and 12 B gap between frames.
    assert frame_bytes(1500) == 1518 and wire_bytes(1500) == 1538
    assert frame_bytes(1500, True) == 1522 and wire_bytes(1500, True) == 1542


def test_small_datagrams_are_padded_to_the_64_byte_minimum_frame() -> None:
    assert frame_bytes(46) == 64 and wire_bytes(46) == 84  # the smallest unpadded frame
    assert frame_bytes(20) == 64 and wire_bytes(20) == 84  # padded
    assert (
        frame_bytes(42, True) == 64 and frame_bytes(43, True) == 65
    )  # a tagged frame keeps the 64 B minimum


def test_the_payload_bound_of_four_tcp_flows_into_100g() -> None:
    # MSS 1448 + 52 B of TCP/IP headers (with timestamps) = 1500 B datagrams: 100 x 1448/1538.
    assert payload_rate_bound_bps(100e9, 1500, 52) == pytest.approx(94.148e9, rel=1e-4)
    # RoCEv2 at 1024 B datagrams (44 B of IPv4/UDP/BTH/ICRC): 980 / (1024 + 38).
    assert payload_rate_bound_bps(100e9, 1024, 44) == pytest.approx(100e9 * 980 / 1062)


def test_vectorised_like_the_scalar() -> None:
    sizes = np.array([20, 46, 1500])
    assert list(wire_bytes(sizes)) == [wire_bytes(int(size)) for size in sizes]


@given(st.integers(min_value=1, max_value=9216), st.booleans())
def test_line_time_is_never_below_the_datagram_plus_38_and_never_below_84(
    size: int, tagged: bool
) -> None:
    line = wire_bytes(size, tagged)
    assert line >= size + 38 + (4 if tagged else 0) and line >= 84
    assert line - frame_bytes(size, tagged) == 20


@given(st.integers(min_value=64, max_value=9216), st.integers(min_value=1, max_value=63))
def test_the_payload_bound_is_below_the_line_rate_and_grows_with_the_packet(
    size: int, header: int
) -> None:
    rate = 10e9
    assert payload_rate_bound_bps(rate, size, header) < rate
    assert payload_rate_bound_bps(rate, size + 1, header) > payload_rate_bound_bps(
        rate, size, header
    )
