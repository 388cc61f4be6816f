"""Fabric workloads: Poisson all-to-all arrivals, incast over the other leaves, pause storms."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import QosforgeError
from qosforge.softswitch.traffic.fabric_workloads import (
    FabricFlow,
    HostSite,
    all_to_all_arrivals,
    fabric_incast,
    pause_storm,
)
from qosforge.softswitch.traffic.flow_sizes import DATA_MINING, WEB_SEARCH, FlowSizeDistribution


def leaf_hosts(leaves: int, hosts_per_leaf: int) -> tuple[HostSite, ...]:
    """Hosts numbered leaf by leaf, on ports Ethernet0, Ethernet4, ... of leaf0, leaf1, ..."""
    return tuple(
        HostSite(host=leaf * hosts_per_leaf + i, switch=f"leaf{leaf}", port=f"Ethernet{4 * i}")
        for leaf in range(leaves)
        for i in range(hosts_per_leaf)
    )


def switch_of(hosts: tuple[HostSite, ...]) -> dict[int, str]:
    return {h.host: h.switch for h in hosts}


#: A small fixed-size distribution, so byte counts have little variance.
CONSTANT_10KB = FlowSizeDistribution("10KB", (10_000.0, 10_000.0), (0.0, 1.0), "test")


def test_all_to_all_flows_cross_the_fabric_sorted_and_within_the_run() -> None:
    hosts = leaf_hosts(4, 4)
    flows = all_to_all_arrivals(hosts, 100e9, 0.6, WEB_SEARCH, 2e-3, seed=1)
    switch = switch_of(hosts)
    assert flows
    assert all(switch[f.src_host] != switch[f.dst_host] for f in flows)
    starts = [f.start_s for f in flows]
    assert starts == sorted(starts)
    assert 0.0 < starts[0] and starts[-1] < 2e-3
    assert all(isinstance(f.size_bytes, int) and f.size_bytes >= 1 for f in flows)
    assert {f.src_host for f in flows} == {h.host for h in hosts}


@settings(max_examples=25, deadline=None)
@given(
    leaves=st.integers(2, 5),
    hosts_per_leaf=st.integers(1, 4),
    load=st.floats(0.05, 1.0),
    seed=st.integers(0, 2**31),
)
def test_arrival_count_matches_the_load(leaves: int, hosts_per_leaf: int, load: float, seed: int) -> None:
    hosts = leaf_hosts(leaves, hosts_per_leaf)
    rate_bps, duration_s = 10e9, 0.02
    flows = all_to_all_arrivals(hosts, rate_bps, load, CONSTANT_10KB, duration_s, seed)
    # Poisson count per host: mean = variance = load * C * T / (8 * mean size) (HPCC traffic_gen).
    expected = len(hosts) * load * rate_bps * duration_s / (8 * CONSTANT_10KB.mean_bytes)
    assert abs(len(flows) - expected) <= 5 * np.sqrt(expected)
    offered_bps = sum(f.size_bytes or 0 for f in flows) * 8 / duration_s / len(hosts)
    assert offered_bps == pytest.approx(load * rate_bps, rel=5 / np.sqrt(expected))


def test_inter_arrival_times_are_exponential_with_the_load_rate() -> None:
    hosts = leaf_hosts(2, 1)
    flows = all_to_all_arrivals(hosts, 10e9, 0.5, WEB_SEARCH, 20.0, seed=3)
    starts = np.array([f.start_s for f in flows if f.src_host == 0])
    gaps = np.diff(np.concatenate([[0.0], starts]))
    mean_gap = 8 * WEB_SEARCH.mean_bytes / (0.5 * 10e9)
    assert gaps.mean() == pytest.approx(mean_gap, rel=5 / np.sqrt(gaps.size))
    # Exponential: the standard deviation equals the mean, P(gap > mean) = 1/e.
    assert gaps.std() == pytest.approx(mean_gap, rel=0.05)
    assert np.mean(gaps > mean_gap) == pytest.approx(np.exp(-1), abs=0.02)


def test_destinations_are_uniform_over_the_other_switches_hosts() -> None:
    hosts = leaf_hosts(3, 2)
    flows = all_to_all_arrivals(hosts, 10e9, 1.0, CONSTANT_10KB, 0.05, seed=5)
    from_host0 = Counter(f.dst_host for f in flows if f.src_host == 0)
    assert set(from_host0) == {2, 3, 4, 5}
    total = sum(from_host0.values())
    for count in from_host0.values():
        assert count == pytest.approx(total / 4, abs=5 * np.sqrt(total * 0.25 * 0.75))


def test_all_to_all_is_deterministic_per_seed() -> None:
    hosts = leaf_hosts(2, 2)
    first = all_to_all_arrivals(hosts, 25e9, 0.6, DATA_MINING, 0.01, seed=9)
    assert first == all_to_all_arrivals(hosts, 25e9, 0.6, DATA_MINING, 0.01, seed=9)
    assert first != all_to_all_arrivals(hosts, 25e9, 0.6, DATA_MINING, 0.01, seed=10)


def test_a_longer_run_extends_a_shorter_one() -> None:
    hosts = leaf_hosts(2, 2)
    short = all_to_all_arrivals(hosts, 25e9, 0.6, WEB_SEARCH, 0.01, seed=2)
    long = all_to_all_arrivals(hosts, 25e9, 0.6, WEB_SEARCH, 0.03, seed=2)
    assert long[: len(short)] == short
    assert len(long) > len(short)


def test_adding_a_host_keeps_the_others_arrival_times_and_sizes() -> None:
    hosts = leaf_hosts(2, 2)
    more = (*hosts, HostSite(4, "leaf2", "Ethernet0"))

    def timing(flows: tuple[FabricFlow, ...]) -> list[tuple[int, float, int | None]]:
        return [(f.src_host, f.start_s, f.size_bytes) for f in flows if f.src_host < 4]

    assert timing(all_to_all_arrivals(hosts, 25e9, 0.5, WEB_SEARCH, 0.01, 4)) == timing(
        all_to_all_arrivals(more, 25e9, 0.5, WEB_SEARCH, 0.01, 4)
    )


@pytest.mark.parametrize("load", [0.0, -0.1, 1.01, float("nan")])
def test_load_outside_zero_one_is_refused(load: float) -> None:
    with pytest.raises(QosforgeError) as caught:
        all_to_all_arrivals(leaf_hosts(2, 1), 10e9, load, WEB_SEARCH, 0.01, 1)
    assert caught.value.place == "--load"


def test_all_to_all_needs_two_switches() -> None:
    with pytest.raises(QosforgeError) as caught:
        all_to_all_arrivals(leaf_hosts(1, 4), 10e9, 0.5, WEB_SEARCH, 0.01, 1)
    assert caught.value.place == "--switch"


@settings(max_examples=50, deadline=None)
@given(
    leaves=st.integers(2, 6),
    hosts_per_leaf=st.integers(1, 5),
    flows=st.integers(1, 80),
    receiver_index=st.integers(0, 10**6),
)
def test_incast_spreads_over_the_other_leaves_only(leaves: int, hosts_per_leaf: int, flows: int, receiver_index: int) -> None:
    hosts = leaf_hosts(leaves, hosts_per_leaf)
    receiver = hosts[receiver_index % len(hosts)]
    incast = fabric_incast(hosts, receiver.host, flows, None)
    assert len(incast) == flows
    switch = switch_of(hosts)
    assert all(f.dst_host == receiver.host and f.start_s == 0.0 and f.size_bytes is None for f in incast)
    assert all(switch[f.src_host] != receiver.switch for f in incast)
    per_host = Counter(f.src_host for f in incast)
    per_leaf = Counter(switch[f.src_host] for f in incast)
    senders = (leaves - 1) * hosts_per_leaf
    # Round-robin: flow counts per sending host and per other leaf differ by at most one.
    assert len(per_host) == min(flows, senders)
    assert max(per_host.values()) - min(per_host.values()) <= 1
    assert len(per_leaf) == min(flows, leaves - 1)
    assert max(per_leaf.values()) - min(per_leaf.values()) <= 1


def test_incast_with_one_flow_per_leaf_uses_each_other_leaf_once() -> None:
    hosts = leaf_hosts(4, 8)
    incast = fabric_incast(hosts, receiver=0, flows=3, size_bytes=64_000)
    assert [f.src_host for f in incast] == [8, 16, 24]
    assert all(f.size_bytes == 64_000 for f in incast)


@pytest.mark.parametrize(("flows", "size", "place"), [(0, None, "--flows"), (4, 0, "--flow-size")])
def test_incast_refuses_bad_counts_and_sizes(flows: int, size: int | None, place: str) -> None:
    with pytest.raises(QosforgeError) as caught:
        fabric_incast(leaf_hosts(2, 2), 0, flows, size)
    assert caught.value.place == place


def test_incast_needs_hosts_on_another_leaf() -> None:
    with pytest.raises(QosforgeError):
        fabric_incast(leaf_hosts(1, 4), 0, 2, None)


def test_pause_storm_sends_into_the_stalled_host_and_past_it() -> None:
    hosts = leaf_hosts(3, 2)
    plan = pause_storm(hosts, stalled_host=0, stall_s=1e-3, flows_per_host=2, size_bytes=None)
    assert plan.stalled_host == 0 and plan.stall_s == 1e-3
    assert plan.stall_start_s == 1e-3  # the warm-up defaults to the stall's length
    switch = switch_of(hosts)
    senders = Counter(f.src_host for f in plan.flows)
    assert set(senders) == {2, 3, 4, 5} and set(senders.values()) == {4}
    into = [f for f in plan.flows if f.dst_host == 0]
    past = [f for f in plan.flows if f.dst_host != 0]
    assert Counter(f.src_host for f in into) == dict.fromkeys((2, 3, 4, 5), 2)
    # The bystander shares the stalled host's leaf: its traffic crosses the links PFC pauses.
    assert {f.dst_host for f in past} == {1}
    assert all(switch[f.src_host] != "leaf0" for f in plan.flows)
    assert all(f.start_s == 0.0 and f.size_bytes is None for f in plan.flows)


def test_pause_storm_bystanders_are_on_a_third_leaf_when_the_stalled_host_is_alone() -> None:
    hosts = (HostSite(0, "leaf0", "Ethernet0"), *leaf_hosts(3, 2)[2:])
    plan = pause_storm(hosts, 0, 2e-3, 1, 10_000, stall_start_s=5e-4)
    assert plan.stall_start_s == 5e-4
    switch = switch_of(hosts)
    past = [f for f in plan.flows if f.dst_host != 0]
    assert len(past) == 4
    assert all(switch[f.dst_host] not in ("leaf0", switch[f.src_host]) for f in past)


def test_pause_storm_refuses_a_non_positive_stall() -> None:
    with pytest.raises(QosforgeError) as caught:
        pause_storm(leaf_hosts(2, 1), 0, 0.0, 1, None)
    assert caught.value.place == "--stall"


def test_unknown_or_duplicate_hosts_are_caller_bugs() -> None:
    with pytest.raises(ValueError, match="host 99"):
        fabric_incast(leaf_hosts(2, 1), 99, 1, None)
    duplicate = (HostSite(0, "a", "p0"), HostSite(0, "b", "p0"))
    with pytest.raises(ValueError, match="distinct"):
        fabric_incast(duplicate, 0, 1, None)


def test_all_to_all_refuses_more_flows_than_the_engine_holds_before_drawing_them() -> None:
    tiny = FlowSizeDistribution("100B", (100.0, 100.0), (0.0, 1.0), "test")
    # 4 hosts x 100 Gb/s / 800 b per flow x 20 ms = 10 M flows.
    with pytest.raises(QosforgeError) as caught:
        all_to_all_arrivals(leaf_hosts(2, 2), 100e9, 1.0, tiny, 20e-3, seed=1)
    assert caught.value.place == "--load"
    assert "--duration" in str(caught.value.hint) and "--flow-size-dist" in str(caught.value.hint)
    # At the bound's edge the flows are drawn: 4 x 100e9 x 0.01 / 800 x 10 ms = 50,000 expected.
    assert len(all_to_all_arrivals(leaf_hosts(2, 2), 100e9, 0.01, tiny, 9e-3, seed=1)) > 40_000
