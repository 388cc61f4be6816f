"""TBTCP (Xiong, Li & Song): marking curve (§4.1 Eq. 6, §6.2 Eq. 9), QCD, steady state (§4.4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import ModelInputError
from qosforge.models.tbtcp import (
    TBTCP_MAX_MARKING_PROBABILITY,
    lso_burst_packets,
    qcd_window_after_mark,
    tbtcp_ideal_marking_probability,
    tbtcp_steady_state,
)

KB = 1e3
# §6.2 / Table 1 design point: l = t_min = 138 KB, BDP = 180 KB.
L_PAPER = 138 * KB
BDP_PAPER = 180 * KB


def test_eq6_worked_numbers_of_section_3_1() -> None:
    # §3.1: Q = 2·Tp·C (= BDP) needs delta = W/2; Q = BDP/7 (DCTCP's K) needs delta = W/8.
    # Eq. 6 is the fraction delta/W = Q/(BDP + Q), i.e. the curve with l = 0.
    assert tbtcp_ideal_marking_probability(BDP_PAPER, BDP_PAPER, 0.0) == pytest.approx(0.5)
    assert tbtcp_ideal_marking_probability(BDP_PAPER / 7, BDP_PAPER, 0.0) == pytest.approx(1 / 8)


def test_eq9_shape_at_the_paper_design_point() -> None:
    queue = np.array([0.0, 100 * KB, L_PAPER, 200 * KB, BDP_PAPER + L_PAPER, 400 * KB, 550 * KB])
    p = tbtcp_ideal_marking_probability(queue, BDP_PAPER, L_PAPER)
    assert isinstance(p, np.ndarray) and p.shape == queue.shape
    # No marks up to l (the LSO burst allowance).
    assert p[0] == p[1] == p[2] == 0.0
    # (Q − l)/(BDP − l + Q) between l and BDP + l: 62/242 at 200 KB.
    assert p[3] == pytest.approx(62 / 242)
    # Exactly 0.5 at Q = BDP + l = 318 KB; saturated at 0.5 above (t_max = 550 KB ≫ BDP + l).
    assert p[4] == pytest.approx(0.5)
    assert p[5] == p[6] == TBTCP_MAX_MARKING_PROBABILITY


def test_cap_joins_the_curve_continuously() -> None:
    edge = BDP_PAPER + L_PAPER
    below = tbtcp_ideal_marking_probability(edge - 1.0, BDP_PAPER, L_PAPER)
    above = tbtcp_ideal_marking_probability(edge + 1.0, BDP_PAPER, L_PAPER)
    assert below == pytest.approx(0.5, abs=1e-5) and above == 0.5


def test_scalar_in_scalar_out() -> None:
    assert isinstance(tbtcp_ideal_marking_probability(200 * KB, BDP_PAPER, L_PAPER), float)


@pytest.mark.parametrize(
    ("args", "place"),
    [
        ((-1.0, BDP_PAPER, L_PAPER), "queue_bytes"),
        ((1.0, 0.0, L_PAPER), "bdp_bytes"),
        ((1.0, BDP_PAPER, -1.0), "lso_burst_bytes"),
    ],
)
def test_marking_rejects_bad_input(args: tuple[float, float, float], place: str) -> None:
    with pytest.raises(ModelInputError) as error:
        tbtcp_ideal_marking_probability(*args)
    assert error.value.place == place and error.value.hint


def test_lso_burst_of_section_6_2() -> None:
    # §6.2: "our NIC enables a 128KB segment size, which implies a burst size of 86 packets".
    assert lso_burst_packets(128 * KB, 1500.0) == 86
    # and l = 138 KB covers it.
    assert L_PAPER >= 128 * KB


def test_qcd_window_reduction_of_section_6_2() -> None:
    # CWND <- max(CWND − r, CWND/2).
    windows = np.array([10.0, 6.0, 2.0, 100.0])
    assert qcd_window_after_mark(windows, 4.0).tolist() == [6.0, 3.0, 1.0, 96.0]
    assert qcd_window_after_mark(2.0, 1.0) == 1.0
    with pytest.raises(ModelInputError) as error:
        qcd_window_after_mark(10.0, 0.5)
    assert error.value.place == "window_reduction_r"


def test_rai_of_section_4_3() -> None:
    # §4.3: beta = 0.1 -> one MSS every 10 RTTs, queue stable at 0.1·n.
    state = tbtcp_steady_state(10e9, 150e-6, flows=100, beta=0.1, mss_bytes=1500.0)
    assert state.rtts_per_mss_increase == pytest.approx(10.0)
    assert state.queue_bytes == pytest.approx(0.1 * 100 * 1500.0)


@pytest.mark.parametrize(("flows", "queue_packets"), [(50, 5.0), (100, 10.0)])
def test_eq8_reproduces_section_5_1(flows: int, queue_packets: float) -> None:
    # §5.1: 40 Gbps, RTT 160 us, beta = 0.1: "average queue depth is around 5 for 50 flows and
    # 10 for 100 flows" — Eq. 8, Q = beta·n, holds exactly with the l = 0 curve.
    state = tbtcp_steady_state(40e9, 160e-6, flows=flows, beta=0.1, mss_bytes=1500.0)
    assert state.queue_eq8_bytes / 1500.0 == pytest.approx(queue_packets)
    assert state.queue_bytes == pytest.approx(state.queue_eq8_bytes)


def test_steady_state_satisfies_the_balance_of_section_4_4() -> None:
    flows = np.array([1.0, 10.0, 100.0, 1000.0, 10_000.0])
    state = tbtcp_steady_state(
        10e9,
        150e-6,
        flows=flows,
        beta=0.1,
        mss_bytes=1500.0,
        lso_burst_bytes=L_PAPER,
        window_reduction_r=2.0,
    )
    # W = BDP + Q, w = W/n, and RAI's beta equals QCD's expected cut per RTT, w·p(Q).
    assert np.allclose(state.total_window_bytes, state.bdp_bytes + state.queue_bytes)
    assert np.allclose(state.per_flow_window_packets * state.marking_probability, 0.1)
    # r scales the curve by 1/r and the cut by r: marks per RTT × r is the aggregate cut beta·n.
    assert np.allclose(state.marks_per_rtt * 2.0, 0.1 * flows)
    assert np.allclose(state.programmed_marking_probability, state.marking_probability / 2.0)
    # the queue sits above l, and the marking probability never exceeds 0.5.
    assert np.all(state.queue_bytes > L_PAPER)
    assert np.all(state.marking_probability <= 0.5)


def test_steady_state_above_the_cap() -> None:
    # beta·n·MSS beyond BDP + l/2 saturates p at 0.5: then W/2 = beta·n·MSS.
    state = tbtcp_steady_state(
        10e9, 150e-6, flows=5000, beta=0.1, mss_bytes=1500.0, lso_burst_bytes=L_PAPER
    )
    assert state.marking_probability == 0.5
    assert state.total_window_bytes / 2 == pytest.approx(0.1 * 5000 * 1500.0)


def test_bdp_of_section_7() -> None:
    # §7: 10 Gbps, 150 us RTT, "so the BDP is about 180KB".
    state = tbtcp_steady_state(10e9, 150e-6, flows=1, beta=0.1, mss_bytes=1500.0)
    assert state.bdp_bytes == pytest.approx(187_500.0)
    assert state.bdp_bytes == pytest.approx(180 * KB, rel=0.05)


def test_qcd_reduction_reports_when_halving_binds() -> None:
    # 1000 flows on a 187.5 kB pipe: w < 2r, so CWND/2 limits the cut below r.
    state = tbtcp_steady_state(
        10e9, 150e-6, flows=1000, beta=0.1, mss_bytes=1500.0, window_reduction_r=4.0
    )
    assert state.qcd_reduction_per_mark_packets == pytest.approx(state.per_flow_window_packets / 2)
    assert state.qcd_reduction_per_mark_packets < 4.0


def test_steady_state_provenance_and_errors() -> None:
    state = tbtcp_steady_state(10e9, 150e-6, flows=10, beta=0.1, mss_bytes=1500.0)
    derivation = state.provenance.derivation_of("queue_eq8_bytes")
    assert derivation is not None and "§4.4" in derivation.source
    with pytest.raises(ModelInputError) as error:
        tbtcp_steady_state(10e9, 150e-6, flows=0, beta=0.1, mss_bytes=1500.0)
    assert error.value.place == "flows"
    with pytest.raises(ModelInputError) as error:
        tbtcp_steady_state(10e9, 150e-6, flows=10, beta=0.0, mss_bytes=1500.0)
    assert error.value.place == "beta"


@settings(max_examples=200, deadline=None)
@given(
    queues=st.lists(st.floats(0, 5e7, allow_nan=False), min_size=2, max_size=30),
    bdp=st.floats(1.0, 1e8),
    burst=st.floats(0.0, 1e7),
)
def test_marking_is_monotone_and_bounded(queues: list[float], bdp: float, burst: float) -> None:
    queue = np.sort(np.array(queues))
    p = tbtcp_ideal_marking_probability(queue, bdp, burst)
    assert np.all((p >= 0.0) & (p <= 0.5))
    assert np.all(np.diff(p) >= 0.0)


@settings(max_examples=100, deadline=None)
@given(
    flows=st.floats(1, 1e5),
    beta=st.floats(1e-3, 0.499),
    burst=st.floats(0.0, 1e6),
    rtt=st.floats(1e-6, 1e-3),
)
def test_steady_state_balance_holds(flows: float, beta: float, burst: float, rtt: float) -> None:
    state = tbtcp_steady_state(
        10e9, rtt, flows=flows, beta=beta, mss_bytes=1500.0, lso_burst_bytes=burst
    )
    assert state.queue_bytes >= burst
    assert state.per_flow_window_packets * state.marking_probability == pytest.approx(
        beta, rel=1e-6
    )


@pytest.mark.parametrize("beta", [0.0, 0.5, 7.0, -0.1])
def test_beta_outside_0_to_half_is_refused(beta: float) -> None:
    # beta = 1/m < 1 (TBTCP §3.2); at 0.5 or more RAI undoes QCD's cut and no queue settles (§5)
    with pytest.raises(ModelInputError, match=r"\(0, 0.5\)"):
        tbtcp_steady_state(rate_bps=10e9, rtt_s=100e-6, flows=10, beta=beta, mss_bytes=1500)
