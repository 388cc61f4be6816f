"""A finite flow's packets (softswitch/traffic/spec.py packets_for_payload)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.softswitch.traffic.spec import HEADER_BYTES, packets_for_payload


def test_a_100_byte_flow_is_one_packet_of_header_plus_100_bytes() -> None:
    assert packets_for_payload(100, 1500, HEADER_BYTES["dctcp"]) == (1, 52 + 100)
    assert packets_for_payload(100, 1024, HEADER_BYTES["dcqcn"]) == (1, 44 + 100)


def test_whole_packets_of_payload_end_in_a_full_packet() -> None:
    assert packets_for_payload(3 * 1448, 1500, 52) == (3, 1500)
    assert packets_for_payload(3 * 1448 + 1, 1500, 52) == (4, 53)


@given(payload=st.integers(0, 10**9), packet=st.integers(64, 9216), header=st.sampled_from(sorted(set(HEADER_BYTES.values()))))
def test_the_packets_carry_exactly_the_payload(payload: int, packet: int, header: int) -> None:
    packets, last = packets_for_payload(payload, packet, header)
    carried = (packets - 1) * (packet - header) + (last - header)
    assert carried == max(payload, 1)
    assert header < last <= packet


def test_a_packet_without_room_for_payload_is_a_caller_bug() -> None:
    with pytest.raises(ValueError):
        packets_for_payload(100, 52, 52)


def test_a_traffic_file_takes_the_flow_kinds_simulate_does() -> None:
    # One table of flow-kind names (spec.py FLOW_KIND_NAMES); the traffic file's Literal must list the same.
    from typing import get_args

    from qosforge.softswitch.traffic.spec import FLOW_KIND_NAMES, FlowKind
    from qosforge.softswitch.traffic.traffic_file import TransportChoice

    assert get_args(TransportChoice) == tuple(FLOW_KIND_NAMES)
    assert set(FLOW_KIND_NAMES.values()) <= set(get_args(FlowKind))
    assert FLOW_KIND_NAMES["tcp"] == "cubic"  # Linux's default congestion control
