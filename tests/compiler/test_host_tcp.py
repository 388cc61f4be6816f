"""The TCP hosts the intent states (``hosts`` and ``classes[].hosts``): the class's own value,
then the fabric-wide one, then Linux's (TCP_RTO_MIN 200 ms, TCP_INIT_CWND 10), each with its
source; what Linux cannot run is refused at its line (ip route's rto_min is whole milliseconds,
iproute2 get_time_rtt; at most TCP_RTO_MAX), as is ``hosts`` on a RoCE class."""

from __future__ import annotations

import math
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.host_tcp import SOURCE_LINUX_INITIAL_WINDOW, SOURCE_LINUX_RTO_MIN
from qosforge.compiler.intent import MAX_INITIAL_WINDOW_SEGMENTS
from qosforge.compiler.loader import load_intent
from qosforge.errors import QosforgeError
from qosforge.ir import HostTcpIR
from qosforge.softswitch.traffic.spec import RunSpec

INTENT = """apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: hosts}}
topology:
  switches:
    - name: tor1
      profile: softswitch
      ports:
        - {{name: "Ethernet[0-12/4]", speed: 40G, cable: 3m, peer: host}}
{fabric}classes:
  - name: bulk
    transport: dctcp
    dscp: [10]
    rtt: 80us
{bulk}  - name: legacy
    transport: tcp
    dscp: [0]
    rtt: 80us
{legacy}targets: [sai]
"""


def _write(tmp_path: Path, fabric: str = "", bulk: str = "", legacy: str = "") -> Path:
    path = tmp_path / "intent.yaml"
    path.write_text(INTENT.format(fabric=fabric, bulk=bulk, legacy=legacy))
    return path


def _hosts(tmp_path: Path, **blocks: str) -> dict[str, HostTcpIR | None]:
    intent, source_map = load_intent(_write(tmp_path, **blocks))
    fabric = compile_intent(intent, source_map)
    return {c.name: c.host_tcp for c in fabric.switches[0].classes}


def test_unstated_values_are_linux_s(tmp_path: Path) -> None:
    hosts = _hosts(tmp_path)
    bulk = hosts["bulk"]
    assert bulk == HostTcpIR(
        0.2, SOURCE_LINUX_RTO_MIN, False, 10, SOURCE_LINUX_INITIAL_WINDOW, False
    )


def test_the_class_s_value_comes_before_the_fabric_s(tmp_path: Path) -> None:
    hosts = _hosts(
        tmp_path,
        fabric="hosts: {rto_min: 4ms, initial_window_segments: 20}\n",
        legacy="    hosts: {rto_min: 10ms}\n",
    )
    bulk, legacy = hosts["bulk"], hosts["legacy"]
    assert bulk is not None and legacy is not None
    assert (bulk.rto_min_s, bulk.rto_min_source, bulk.rto_min_stated) == (
        0.004,
        "intent hosts.rto_min",
        True,
    )
    assert (legacy.rto_min_s, legacy.rto_min_source) == (0.01, "intent classes[1].hosts.rto_min")
    # The class states no initial window: the fabric's.
    assert (legacy.initial_window_segments, legacy.initial_window_source) == (
        20,
        "intent hosts.initial_window_segments",
    )


@settings(deadline=None, max_examples=25)
@given(st.integers(min_value=1, max_value=120_000))
def test_any_whole_millisecond_up_to_tcp_rto_max_is_accepted(
    tmp_path_factory: pytest.TempPathFactory, milliseconds: int
) -> None:
    path = _write(tmp_path_factory.mktemp("ms"), fabric=f"hosts: {{rto_min: {milliseconds}ms}}\n")
    intent, _ = load_intent(path)
    assert intent.hosts is not None and intent.hosts.rto_min == pytest.approx(milliseconds * 1e-3)


@settings(deadline=None, max_examples=25)
@given(st.integers(min_value=1001, max_value=99_999).filter(lambda us: us % 1000 != 0))
def test_a_fraction_of_a_millisecond_is_refused_with_the_value_ip_route_would_use(
    tmp_path_factory: pytest.TempPathFactory, microseconds: int
) -> None:
    path = _write(tmp_path_factory.mktemp("us"), fabric=f"hosts: {{rto_min: {microseconds}us}}\n")
    with pytest.raises(QosforgeError) as refused:
        load_intent(path)
    text = str(refused.value)
    assert "hosts.rto_min" in text and "whole number of milliseconds" in text
    assert f"write {math.ceil(microseconds / 1000)}ms" in text


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("500us", "outside 1 ms..120 s"),
        ("121s", "outside 1 ms..120 s"),
        ("5", "has no unit; write it like 4ms"),
        ("0ms", "0 s is outside 1 ms..120 s"),
        # The hint is a minimum RTO's, not TimeS's 80us or 200ns (neither is a valid one).
        ("-1ms", "not a minimum RTO: write whole milliseconds from 1ms to 120s, e.g. 4ms"),
        ("banana", "not a minimum RTO: write whole milliseconds from 1ms to 120s, e.g. 4ms"),
    ],
)
def test_out_of_range_minimum_rtos_are_refused_at_their_line(
    tmp_path: Path, value: str, why: str
) -> None:
    path = _write(tmp_path, fabric=f"hosts:\n  rto_min: {value}\n")
    with pytest.raises(QosforgeError) as refused:
        load_intent(path)
    assert why in str(refused.value)
    assert f"{path}:11:" in refused.value.one_line()  # the line of rto_min


def test_an_initial_window_below_one_segment_is_refused(tmp_path: Path) -> None:
    with pytest.raises(QosforgeError) as refused:
        load_intent(_write(tmp_path, legacy="    hosts: {initial_window_segments: 0}\n"))
    assert (
        "classes.1.hosts.initial_window_segments" in str(refused.value)
        or "classes[1].hosts.initial_window_segments" in refused.value.one_line()
    )


def test_hosts_on_a_roce_class_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "roce.yaml"
    path.write_text(
        INTENT.format(fabric="", bulk="", legacy="    hosts: {rto_min: 5ms}\n").replace(
            "transport: tcp", "transport: dcqcn\n    lossless: true"
        )
    )
    with pytest.raises(QosforgeError) as refused:
        load_intent(path)
    assert "RoCE NIC" in str(refused.value)


def test_a_roce_class_has_no_linux_tcp_host(tmp_path: Path) -> None:
    path = tmp_path / "roce.yaml"
    path.write_text(
        INTENT.format(fabric="hosts: {rto_min: 5ms}\n", bulk="", legacy="").replace(
            "transport: tcp", "transport: dcqcn\n    lossless: true"
        )
    )
    intent, source_map = load_intent(path)
    classes = {c.name: c.host_tcp for c in compile_intent(intent, source_map).switches[0].classes}
    assert classes["legacy"] is None
    bulk = classes["bulk"]
    assert bulk is not None and bulk.rto_min_s == 0.005


def test_fabric_hosts_without_a_tcp_class_is_refused_at_its_line(tmp_path: Path) -> None:
    # Every class RoCE: the fabric-wide block applies to no class, so it is refused, not ignored.
    path = tmp_path / "roce.yaml"
    path.write_text(
        INTENT.format(fabric="hosts: {rto_min: 5ms}\n", bulk="", legacy="")
        .replace("transport: tcp", "transport: dcqcn\n    lossless: true")
        .replace("transport: dctcp", "transport: irn")
    )
    with pytest.raises(QosforgeError) as refused:
        load_intent(path)
    line = refused.value.one_line()
    assert f"{path}:10:" in line  # the line of hosts
    assert "no class runs Linux TCP hosts (bulk (irn), legacy (dcqcn))" in line
    assert "remove 'hosts', or add a class of transport tcp, dctcp" in line


@pytest.mark.parametrize("segments", [2047, 2048, 65_536])
def test_an_initial_window_above_the_simulated_receive_window_is_refused(
    tmp_path: Path, segments: int
) -> None:
    path = _write(tmp_path, fabric=f"hosts:\n  initial_window_segments: {segments}\n")
    if segments <= MAX_INITIAL_WINDOW_SEGMENTS:
        intent, _ = load_intent(path)
        assert intent.hosts is not None and intent.hosts.initial_window_segments == segments
        return
    with pytest.raises(QosforgeError) as refused:
        load_intent(path)
    line = refused.value.one_line()
    assert f"{path}:11:" in line  # the line of initial_window_segments
    assert f"{segments:,} segments is above 2,047" in line and "write at most 2,047" in line


def test_the_initial_window_bound_is_the_simulated_hosts_receive_window() -> None:
    # One number: the engine caps every window at the receive window less one (engine/window.py).
    defaults = {field.name: field.default for field in fields(RunSpec)}
    assert MAX_INITIAL_WINDOW_SEGMENTS == defaults["receive_window_packets"] - 1
