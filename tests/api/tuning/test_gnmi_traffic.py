"""The traffic ``tune --from-gnmi`` builds from observed loads: it carries each observed load,
draws sources by the gravity weights (never the destination itself), keeps the flow-size
distribution, and refuses counters that show nothing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.api.tuning.gnmi_traffic import (
    ARRIVAL_SHARE,
    ClassLoad,
    HostPort,
    build_traffic,
    carrying_sizes,
    source_weights,
)
from qosforge.errors import QosforgeError
from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH, FlowSizeDistribution

HOSTS = [HostPort("leaf1", f"Ethernet{4 * i}", 100e9) for i in range(4)]
SMALL = FlowSizeDistribution("small", (1_000.0, 100_000.0), (0.0, 1.0), "test: uniform 1-100 kB")


def _load(host: HostPort, class_name: str, payload_bps: float) -> ClassLoad:
    return ClassLoad(host, class_name, payload_bps, payload_bps * 1.04, payload_bps / 12e3, 0.0)


@settings(max_examples=30, deadline=None)
@given(
    total=st.floats(min_value=1.0, max_value=5e7),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_the_sizes_carry_the_bytes_exactly(total: float, seed: int) -> None:
    sizes = carrying_sizes(WEB_SEARCH, total, np.random.default_rng(seed))
    assert sum(sizes) == round(total)
    assert all(size >= 1 for size in sizes)
    assert all(size <= WEB_SEARCH.sizes_bytes[-1] for size in sizes)


def test_the_sizes_keep_the_distribution() -> None:
    # Many flows: every size but the last is a draw from the CDF, so their mean is the CDF's
    # (uniform 1-100 kB: 50.5 kB; 4,000 flows: standard error 0.45 %).
    sizes = carrying_sizes(SMALL, 4_000 * 50_500.0, np.random.default_rng(3))
    assert np.mean(sizes[:-1]) == pytest.approx(SMALL.mean_bytes, rel=0.02)


def test_each_load_is_offered_to_its_destination_from_the_other_hosts() -> None:
    loads = [_load(HOSTS[0], "tcp", 40e9), _load(HOSTS[3], "rdma", 10e9)]
    weights, how = source_weights(HOSTS, None)
    assert weights == {h.name: 0.25 for h in HOSTS} and "equal shares" in how
    built = build_traffic(loads, HOSTS, weights, SMALL, 3e-3, 7, 50_000)
    flows = built.document["flows"]
    assert isinstance(flows, list)
    arrival_s = 3e-3 * ARRIVAL_SHARE
    for (dst, cls), rate in (((HOSTS[0].name, "tcp"), 40e9), ((HOSTS[3].name, "rdma"), 10e9)):
        mine = [f for f in flows if f["dst"] == dst and f["class"] == cls]
        carried = sum(int(str(f["size"]).removesuffix("B")) for f in mine) * 8 / arrival_s
        assert carried == pytest.approx(rate, rel=1e-6)
        assert built.offered_bps[(dst, cls)] == pytest.approx(rate, rel=1e-6)
        assert {f["src"] for f in mine} <= {h.name for h in HOSTS} - {dst}
        assert all(f["stagger"] == "random" and f["start_window"] == "2000us" for f in mine)
    assert built.document["measure"] == "0s:3000us"


def test_sources_follow_the_received_packets_when_published() -> None:
    received = {HOSTS[0].name: 0.0, HOSTS[1].name: 900.0, HOSTS[2].name: 100.0, HOSTS[3].name: 0.0}
    weights, how = source_weights(HOSTS, received)
    assert weights[HOSTS[1].name] == pytest.approx(0.9) and "in-pkts" in how
    built = build_traffic([_load(HOSTS[0], "tcp", 60e9)], HOSTS, weights, SMALL, 3e-3, 1, 50_000)
    flows = built.document["flows"]
    assert isinstance(flows, list)
    share = sum(1 for f in flows if f["src"] == HOSTS[1].name) / len(flows)
    assert share == pytest.approx(0.9, abs=0.05)  # ~2,500 flows: binomial sd 0.6 %
    assert not any(f["src"] == HOSTS[3].name for f in flows)


def test_no_traffic_is_refused() -> None:
    weights, _ = source_weights(HOSTS, None)
    with pytest.raises(QosforgeError, match="no traffic to model") as caught:
        build_traffic([_load(HOSTS[0], "tcp", 1e6)], HOSTS, weights, SMALL, 3e-3, 1, 50_000)
    assert caught.value.place == "--from-gnmi"


def test_too_many_flows_are_refused() -> None:
    weights, _ = source_weights(HOSTS, None)
    with pytest.raises(QosforgeError, match="more than a run carries"):
        build_traffic([_load(HOSTS[0], "tcp", 90e9)], HOSTS, weights, SMALL, 3e-3, 1, 100)
