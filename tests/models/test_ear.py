"""EAR §3.1/§4.2: per-hop ECN threshold K and host delay threshold T (> K)."""

from __future__ import annotations

import numpy as np
import pytest

from qosforge.errors import InfeasibleDesignError, ModelInputError
from qosforge.models.dctcp import dctcp_marking_threshold
from qosforge.models.ear import ear_thresholds

MTU_B = 1500.0
RATE_10G = 10e9
BASE_RTT_S = 116e-6  # EAR §4.2: ~116 us across the core (8 hops) without queueing


def test_paper_parameters_at_10g() -> None:
    # EAR §4.2: K = 65 packets, T = 144 us = 120 packets at 10 Gbps.
    result = ear_thresholds(RATE_10G, MTU_B, BASE_RTT_S, 65 * MTU_B, 144e-6)
    assert result.ecn_threshold_packets == pytest.approx(65)
    assert result.delay_threshold_packets == pytest.approx(120)
    assert result.delay_threshold_bytes == pytest.approx(180e3)
    assert result.rtt_threshold_s == pytest.approx(260e-6)


def test_t_from_packets_round_trips() -> None:
    t_s = 120 * MTU_B * 8 / RATE_10G
    assert t_s == pytest.approx(144e-6)
    result = ear_thresholds(RATE_10G, MTU_B, 1e-6, 65 * MTU_B, t_s)
    assert result.delay_threshold_s == pytest.approx(144e-6)


def test_k_defaults_to_the_dctcp_model() -> None:
    # EAR §4.2 takes DCTCP's K = 65 packets at 10 Gbps, which is DCTCP's burst allowance (§3.5).
    result = ear_thresholds(RATE_10G, MTU_B, BASE_RTT_S, None, 144e-6, burst_bytes=65 * MTU_B)
    assert result.ecn_threshold_packets == 65
    dctcp = dctcp_marking_threshold(RATE_10G, BASE_RTT_S, MTU_B)
    bare = ear_thresholds(RATE_10G, MTU_B, BASE_RTT_S, None, 144e-6)
    assert bare.ecn_threshold_bytes == dctcp.threshold_bytes
    derivation = bare.provenance.derivation_of("ecn_threshold_bytes")
    assert derivation is not None and "DCTCP" in derivation.source


def test_t_not_above_k_is_infeasible() -> None:
    with pytest.raises(InfeasibleDesignError) as caught:
        ear_thresholds(RATE_10G, MTU_B, BASE_RTT_S, 65 * MTU_B, 60e-6)  # 50 packets < 65
    assert caught.value.place == "delay_threshold_s"
    assert "78" in (caught.value.hint or "")  # K = 97.5 kB drains in 78 us at 10 Gbps


def test_same_t_becomes_infeasible_at_lower_rate() -> None:
    # 144 us is 120 packets at 10G but only 12 at 1G: below K = 20 packets (DCTCP's 1G value).
    with pytest.raises(InfeasibleDesignError):
        ear_thresholds(1e9, MTU_B, BASE_RTT_S, 20 * MTU_B, 144e-6)


@pytest.mark.parametrize(
    ("index", "place"),
    [
        (0, "rate_bps"),
        (1, "packet_bytes"),
        (2, "base_rtt_s"),
        (3, "ecn_threshold_bytes"),
        (4, "delay_threshold_s"),
    ],
)
def test_bad_inputs_name_their_parameter(index: int, place: str) -> None:
    args = [RATE_10G, MTU_B, BASE_RTT_S, 65 * MTU_B, 144e-6]
    args[index] = -1.0
    rate, packet, base_rtt, k, t = args
    with pytest.raises(ModelInputError) as caught:
        ear_thresholds(rate, packet, base_rtt, k, t)
    assert caught.value.place == place and caught.value.hint


def test_vectorised_rate_sweep() -> None:
    rates = np.linspace(10e9, 400e9, 1_000_000)
    result = ear_thresholds(rates, MTU_B, BASE_RTT_S, 65 * MTU_B, 144e-6)
    assert result.delay_threshold_packets.shape == (1_000_000,)
    assert np.all(np.diff(result.delay_threshold_packets) > 0)
