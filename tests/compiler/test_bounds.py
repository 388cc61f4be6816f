"""Datacenter ranges of the intent's durations and lengths (compiler/bounds.py): a value outside is
refused at its field (file:line:col), with the range, before any model turns it into a threshold."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.bounds import MAX_CABLE_M, MAX_LINK_LATENCY_S, MAX_RTT_S, MIN_RTT_S
from qosforge.compiler.intent import LeafSpine, LinkSpec
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.units import parse_time_s

Writer = Callable[..., Path]


def _error(path: Path) -> str:
    with pytest.raises(IntentError) as caught:
        load_intent(path)
    return caught.value.one_line()


@pytest.mark.parametrize(("old", "new", "field", "range_text"), [
    ("link_latency: 10us", "link_latency: 10s", "topology.leaf_spine.link_latency", "10 s is outside 0 ns..1 ms"),
    ("cable: 10m}", "cable: 4000km}", "topology.leaf_spine.fabric_link.cable", "4000 km is outside 0 m..10 km"),
    ("dscp: [10]\n", "dscp: [10]\n    rtt: 0us\n", "classes[0].rtt", "0 ns is outside 1 us..10 ms"),
    ("dscp: [10]\n", "dscp: [10]\n    rtt: 2s\n", "classes[0].rtt", "2 s is outside 1 us..10 ms"),
])
def test_a_value_outside_the_datacenter_range_names_its_field(write_intent: Writer, base_intent: str, old: str,
                                                              new: str, field: str, range_text: str) -> None:
    assert old in base_intent
    line = _error(write_intent(base_intent.replace(old, new, 1)))
    assert f"{field}: {range_text}" in line and "; write" in line
    assert "Traceback" not in line


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=0.0, max_value=1e6, allow_nan=False))
def test_cable_lengths_are_accepted_exactly_up_to_10_km(meters: float) -> None:
    spec = {"speed": "100G", "cable": f"{meters!r}m"}
    if meters <= MAX_CABLE_M:
        assert LinkSpec.model_validate(spec).cable == pytest.approx(meters)
    else:
        with pytest.raises(ValueError, match=r"outside 0 m\.\.10 km"):
            LinkSpec.model_validate(spec)


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=0.0, max_value=1.0, allow_nan=False))
def test_link_latency_is_accepted_exactly_up_to_1_ms(seconds: float) -> None:
    base = {"spines": 1, "leaves": 1, "hosts_per_leaf": 1, "host_link": {"speed": "40G"},
            "fabric_link": {"speed": "40G"}, "leaf_profile": "broadcom-trident2"}
    text = f"{seconds * 1e6!r}us"
    if parse_time_s(text, allow_zero=True) <= MAX_LINK_LATENCY_S:  # the value the schema sees
        LeafSpine.model_validate({**base, "link_latency": text})
    else:
        with pytest.raises(ValueError, match=r"outside 0 ns\.\.1 ms"):
            LeafSpine.model_validate({**base, "link_latency": text})


def test_the_rtt_range_brackets_the_papers_datacenter_rtts() -> None:
    # TBTCP §1: a light-loaded DCN RTT is under 250 us; TBTCP §7 measured 150 us.
    assert MIN_RTT_S < 150e-6 < 250e-6 < MAX_RTT_S



@pytest.mark.parametrize(("design", "field", "message"), [
    # Before: accepted; a 10 B lossless MTU counted every small packet as 10 B and tripled xoff.
    ("lossless_mtu: 10B", "design.lossless_mtu", "10 B is below 64 B, the smallest Ethernet frame"),
    ("mtu: 20B", "design.mtu", "20 B is below 64 B"),
    ("lossless_mtu: 9216B\n  port_mtu: 9100B", "design.lossless_mtu", "9216 B is above port_mtu 9100 B"),
])
def test_frame_sizes_are_frames_and_fit_the_port(write_intent: Writer, base_intent: str, design: str, field: str, message: str) -> None:
    line = _error(write_intent(base_intent + f"design:\n  {design}\n"))
    assert f"{field}: {message}" in line


def test_the_calculators_read_the_same_ranges() -> None:
    # One definition: the intent's validators and the whatif flags both check qosforge/ranges.py.
    from qosforge import ranges
    from qosforge.api.calculators import dctcp, ear, pfc_headroom, tbtcp, tlt

    bounded = {(spec.name, p.flag): p.bounds for m in (dctcp, ear, tbtcp, tlt, pfc_headroom) for spec in [m.SPEC] for p in spec.params if p.bounds}
    assert bounded[("dctcp", "--rtt")] is bounded[("tlt", "--rtt")] is bounded[("ear", "--base-rtt")] is ranges.RTT
    assert bounded[("pfc-headroom", "--cable")] is ranges.CABLE
    assert (ranges.RTT.low, ranges.RTT.high, ranges.CABLE.high) == (MIN_RTT_S, MAX_RTT_S, MAX_CABLE_M)
