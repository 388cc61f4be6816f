"""TLT §4.2 / §5.2: color-aware threshold, important-packet headroom, periodic marking."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import InfeasibleDesignError, ModelInputError
from qosforge.models.dynamic_threshold import dynamic_threshold_share
from qosforge.models.tlt import (
    DCQCN_RECOMMENDED_KMAX_BYTES,
    tlt_headroom,
    tlt_min_threshold,
    tlt_periodic_marking,
)
from qosforge.provenance import quantities, result_to_json

# TLT §4.2 worked example: Arista 7050QX-32 (Trident II), 12 MB shared, alpha = 1, K = 400 kB.
BUFFER_B = 12e6
K_B = 400e3
PACKET_B = 1500.0


def test_worked_example_sixteen_congested_ports() -> None:
    result = tlt_headroom(BUFFER_B, 1.0, 16, K_B, PACKET_B)
    assert round(result.per_port_share_bytes / 1e3, 2) == 705.88
    assert round(result.important_headroom_bytes / 1e3, 2) == 305.88
    assert result.flows_per_port == 203
    assert result.total_flows == 3248


def test_worked_example_single_congested_port() -> None:
    result = tlt_headroom(BUFFER_B, 1.0, 1, K_B, PACKET_B)
    assert result.per_port_share_bytes == pytest.approx(6e6)
    assert result.important_headroom_bytes == pytest.approx(5.6e6)
    assert result.flows_per_port == 3733
    assert result.total_flows == 3733


def test_single_port_fields_match_m_equals_one() -> None:
    many = tlt_headroom(BUFFER_B, 1.0, 16, K_B, PACKET_B)
    assert many.single_port_headroom_bytes == pytest.approx(5.6e6)
    assert many.single_port_flows == 3733


def test_share_reuses_dynamic_threshold_model() -> None:
    result = tlt_headroom(BUFFER_B, 0.5, 4, K_B, PACKET_B)
    share = dynamic_threshold_share(BUFFER_B, 0.5, 4)
    assert result.per_port_share_bytes == share.per_port_share_bytes


def test_threshold_above_share_is_infeasible_with_numbers_and_fix() -> None:
    with pytest.raises(InfeasibleDesignError) as caught:
        tlt_headroom(BUFFER_B, 1.0, 16, 800e3, PACKET_B)
    error = caught.value
    assert error.place == "threshold_bytes"
    assert "705.88 kB" in error.message and "800.00 kB" in error.message
    assert error.hint is not None and "704.38 kB" in error.hint


def test_headroom_below_one_packet_is_infeasible() -> None:
    share = dynamic_threshold_share(BUFFER_B, 1.0, 16).per_port_share_bytes
    with pytest.raises(InfeasibleDesignError):
        tlt_headroom(BUFFER_B, 1.0, 16, share - 100.0, PACKET_B)


def test_allow_infeasible_reports_zero_headroom_and_zero_flows() -> None:
    # Before: a negative headroom next to 0 flows; K above the share leaves no room, not less than none.
    ports = np.array([1.0, 16.0, 32.0])
    result = tlt_headroom(BUFFER_B, 1.0, ports, 500e3, PACKET_B, allow_infeasible=True)
    assert result.important_headroom_bytes[2] == 0 and result.per_port_share_bytes[2] < 500e3
    assert result.flows_per_port[2] == 0 and result.total_flows[2] == 0
    assert result.flows_per_port[0] > 0


def test_sweep_error_names_worst_point() -> None:
    with pytest.raises(InfeasibleDesignError) as caught:
        tlt_headroom(BUFFER_B, 1.0, np.array([1.0, 8.0, 40.0]), K_B, PACKET_B)
    assert "M=40" in caught.value.message


@pytest.mark.parametrize(
    ("name", "value", "place"),
    [
        ("buffer_bytes", 0.0, "buffer_bytes"),
        ("alpha", -1.0, "alpha"),
        ("congested_ports", 0.0, "congested_ports"),
        ("threshold_bytes", -1.0, "threshold_bytes"),
        ("important_packet_bytes", 0.0, "important_packet_bytes"),
    ],
)
def test_bad_inputs_name_their_parameter(name: str, value: float, place: str) -> None:
    kwargs = {
        "buffer_bytes": BUFFER_B,
        "alpha": 1.0,
        "congested_ports": 16,
        "threshold_bytes": K_B,
        "important_packet_bytes": PACKET_B,
    }
    kwargs[name] = value
    with pytest.raises(ModelInputError) as caught:
        tlt_headroom(**kwargs)
    assert caught.value.place == place
    assert caught.value.hint


def test_million_point_sweep_is_one_vectorised_call() -> None:
    buffers = np.linspace(8e6, 64e6, 1_000_000)
    result = tlt_headroom(buffers, 1.0, 16, K_B, PACKET_B)
    assert result.total_flows.shape == (1_000_000,)
    assert result.total_flows[0] == tlt_headroom(8e6, 1.0, 16, K_B, PACKET_B).total_flows
    assert np.all(np.diff(result.total_flows) >= 0)


def test_results_declare_units_and_provenance() -> None:
    result = tlt_headroom(BUFFER_B, 1.0, 16, K_B, PACKET_B)
    units = {view.name: view.unit for view in quantities(result)}
    assert units["important_headroom_bytes"] == "B" and units["total_flows"] == "flows"
    derivation = result.provenance.derivation_of("important_headroom_bytes")
    assert derivation is not None and "§4.2" in derivation.source
    payload = result_to_json(result)
    assert payload["total_flows"] == 3248


# --- minimum threshold per transport (TLT §4.2, §7.1) -------------------------------------------


def test_dctcp_threshold_is_bdp_at_40g_80us() -> None:
    result = tlt_min_threshold("dctcp", 40e9, 80e-6)
    assert result.bdp_bytes == pytest.approx(400e3)
    assert result.threshold_bytes == pytest.approx(400e3)


def test_dctcp_threshold_is_max_of_ecn_and_bdp() -> None:
    assert tlt_min_threshold(
        "dctcp", 40e9, 80e-6, ecn_threshold_bytes=200e3
    ).threshold_bytes == pytest.approx(400e3)
    assert tlt_min_threshold(
        "dctcp", 40e9, 80e-6, ecn_threshold_bytes=500e3
    ).threshold_bytes == pytest.approx(500e3)


@pytest.mark.parametrize("transport", ["tcp", "TCP", "d2tcp", "ear", "tbtcp"])
def test_loss_fallback_transports_need_bdp(transport: str) -> None:
    assert tlt_min_threshold(transport, 10e9, 100e-6).threshold_bytes == pytest.approx(125e3)


def test_dcqcn_and_irn_use_kmax() -> None:
    assert tlt_min_threshold("dcqcn", 40e9, 1e-6, kmax_bytes=300e3).threshold_bytes == 300e3
    assert tlt_min_threshold("irn", 40e9, 1e-6).threshold_bytes == DCQCN_RECOMMENDED_KMAX_BYTES
    assert DCQCN_RECOMMENDED_KMAX_BYTES == 200e3  # TLT §7.1 quoting DCQCN's recommended K_max


def test_hpcc_uses_tlt_roce_value() -> None:
    result = tlt_min_threshold("hpcc", np.array([25e9, 100e9]), 1e-6)
    assert np.all(result.threshold_bytes == 200e3)
    derivation = result.provenance.derivation_of("threshold_bytes")
    assert derivation is not None and "§7.1" in derivation.source


def test_unknown_transport_is_rejected() -> None:
    with pytest.raises(ModelInputError) as caught:
        tlt_min_threshold("quic", 40e9, 80e-6)
    assert caught.value.place == "transport"


def test_derived_threshold_feeds_headroom_example() -> None:
    threshold = tlt_min_threshold("dctcp", 40e9, 80e-6).threshold_bytes
    assert tlt_headroom(BUFFER_B, 1.0, 16, threshold, PACKET_B).total_flows == 3248


# --- rate-based periodic marking (TLT §5.2, §7.1) ---------------------------------------------


def test_periodic_interval_reproduces_section_7_1() -> None:
    # 96-host topology, incast from 95 senders -> TLT marks one packet in every 96.
    result = tlt_periodic_marking(95)
    assert result.interval_packets == 96
    assert result.important_load_ratio < 1


def test_periodic_interval_rejects_zero_fan_in() -> None:
    with pytest.raises(ModelInputError):
        tlt_periodic_marking(0)


# --- properties ---------------------------------------------------------------------------------

buffers = st.floats(min_value=1e6, max_value=256e6)
alphas = st.sampled_from([2.0**n for n in range(-4, 4)])
ports = st.integers(min_value=1, max_value=64)


@settings(max_examples=200, deadline=None)
@given(buffer=buffers, alpha=alphas, m=ports)
def test_more_congested_ports_never_give_more_headroom(buffer: float, alpha: float, m: int) -> None:
    a = tlt_headroom(buffer, alpha, m, 0.0, PACKET_B, allow_infeasible=True)
    b = tlt_headroom(buffer, alpha, m + 1, 0.0, PACKET_B, allow_infeasible=True)
    assert b.important_headroom_bytes <= a.important_headroom_bytes
    assert b.flows_per_port <= a.flows_per_port


@settings(max_examples=200, deadline=None)
@given(buffer=buffers, extra=st.floats(min_value=0, max_value=64e6), alpha=alphas, m=ports)
def test_headroom_grows_with_buffer(buffer: float, extra: float, alpha: float, m: int) -> None:
    a = tlt_headroom(buffer, alpha, m, 100e3, PACKET_B, allow_infeasible=True)
    b = tlt_headroom(buffer + extra, alpha, m, 100e3, PACKET_B, allow_infeasible=True)
    assert b.important_headroom_bytes >= a.important_headroom_bytes
    assert b.total_flows >= a.total_flows


@settings(max_examples=200, deadline=None)
@given(buffer=buffers, alpha=alphas, m=ports, k=st.floats(min_value=0, max_value=2e6))
def test_total_is_per_port_times_ports(buffer: float, alpha: float, m: int, k: float) -> None:
    result = tlt_headroom(buffer, alpha, m, k, PACKET_B, allow_infeasible=True)
    assert result.total_flows == result.flows_per_port * m
    assert result.flows_per_port * PACKET_B <= max(result.important_headroom_bytes, 0.0)
    assert (result.flows_per_port + 1) * PACKET_B > result.important_headroom_bytes


@pytest.mark.parametrize(("transport", "label"), [("tcp", "TCP's loss reaction"), ("dctcp", "DCTCP keeps"), ("d2tcp", "D2TCP keeps"),
                                                  ("ear", "EAR keeps"), ("tbtcp", "TBTCP keeps")])
def test_the_threshold_derivation_names_the_transport_it_was_derived_for(transport: str, label: str) -> None:
    # `whatif tlt --transport dctcp` used to say "TCP falls back to loss reaction".
    result = tlt_min_threshold(transport, 40e9, 80e-6)
    [formula] = [d.formula for d in result.provenance.derivations if d.quantity == "threshold_bytes"]
    assert label in formula and (transport == "tcp" or "TCP falls back" not in formula)


def test_the_derivation_says_which_side_of_max_applies() -> None:
    below = tlt_min_threshold("dctcp", 40e9, 80e-6, ecn_threshold_bytes=97.5e3)
    above = tlt_min_threshold("dctcp", 10e9, 10e-6, ecn_threshold_bytes=97.5e3)  # BDP 12.5 kB < K_ECN
    assert above.threshold_bytes == 97.5e3 and below.threshold_bytes == pytest.approx(400e3)
    formulas = [next(d.formula for d in r.provenance.derivations if d.quantity == "threshold_bytes") for r in (below, above)]
    assert "= bdp_bytes" in formulas[0] and "= ecn_threshold_bytes" in formulas[1]


@pytest.mark.parametrize(("transport", "flag", "value"), [("tcp", "ecn_threshold_bytes", 97.5e3), ("dcqcn", "ecn_threshold_bytes", 97.5e3),
                                                          ("hpcc", "kmax_bytes", 200e3), ("dctcp", "kmax_bytes", 200e3)])
def test_a_parameter_the_transport_does_not_use_is_refused(transport: str, flag: str, value: float) -> None:
    with pytest.raises(ModelInputError) as error:
        tlt_min_threshold(transport, 40e9, 80e-6, **{flag: value})
    assert error.value.place == flag
