"""FastLane notification overhead (§3.2 Eq. 1-3) and its 2 % bandwidth / 5 % buffer caps."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import ModelInputError
from qosforge.models.fastlane import fastlane_notification_budget, fastlane_overhead


def eq3(p: float) -> float:
    """The paper's simplified form, written out independently of the model."""
    return 64 * p * (2 - p) / (1464 + 64 * (1 - p) * p)


@pytest.mark.parametrize("p", [0.0, 0.01, 0.1, 0.25, 0.5, 0.9, 1.0])
def test_matches_eq3(p: float) -> None:
    assert fastlane_overhead(p) == pytest.approx(eq3(p))


def test_worst_case_is_under_4_5_percent() -> None:
    # §3.2 / Fig. 3: "at the maximal drop rate of 100%, the overhead due to notifications is
    # under 4.5%".
    worst = fastlane_overhead(1.0)
    assert worst == pytest.approx(64 / 1464)
    assert 0.043 < worst < 0.045


def test_two_percent_cap_needs_over_25_percent_drops() -> None:
    # §3.2: "A 2% cap implies that over 25% of packets are being dropped."
    assert fastlane_overhead(0.25) < 0.02
    budget = fastlane_notification_budget(10e9, 128e3, 0.25)
    assert budget.cap_reachable is True
    assert budget.drop_probability_at_cap > 0.25
    assert fastlane_overhead(budget.drop_probability_at_cap) == pytest.approx(0.02)


def test_caps_for_a_port() -> None:
    # §5 simulation port: 10 Gbps with 128 KB buffer; caps 2 % bandwidth and 5 % buffer.
    budget = fastlane_notification_budget(10e9, 128e3, 0.1)
    assert budget.notification_rate_cap_bps == pytest.approx(200e6)
    assert budget.notification_buffer_cap_bytes == pytest.approx(6400.0)
    assert budget.notification_buffer_cap_packets == 100.0
    assert budget.overhead_fraction == pytest.approx(eq3(0.1))
    assert budget.notification_demand_bps == pytest.approx(eq3(0.1) * 10e9)
    assert budget.capped_overhead_fraction == pytest.approx(eq3(0.1))


def test_cap_limits_overhead_and_unreachable_cap() -> None:
    heavy = fastlane_notification_budget(10e9, 128e3, 0.9)
    assert heavy.overhead_fraction > 0.02 and heavy.capped_overhead_fraction == pytest.approx(0.02)
    # §5.3.4 also tried an 8 % cap: above the 4.37 % worst case it never binds.
    loose = fastlane_notification_budget(10e9, 128e3, 0.9, bandwidth_cap_fraction=0.08)
    assert loose.cap_reachable is False and loose.drop_probability_at_cap == 1.0


def test_vectorised_budget() -> None:
    budget = fastlane_notification_budget(np.array([10e9, 100e9]), 128e3, np.array([0.1, 0.5]))
    assert budget.notification_rate_cap_bps.tolist() == pytest.approx([200e6, 2e9])
    assert budget.overhead_fraction.tolist() == pytest.approx([eq3(0.1), eq3(0.5)])
    assert budget.cap_reachable.tolist() == [True, True]


@pytest.mark.parametrize(
    ("kwargs", "place"),
    [
        ({"drop_probability": 1.5}, "drop_probability"),
        ({"rate_bps": 0.0}, "rate_bps"),
        ({"buffer_bytes": 0.0}, "buffer_bytes"),
        ({"bandwidth_cap_fraction": 0.0}, "bandwidth_cap_fraction"),
        ({"buffer_cap_fraction": 2.0}, "buffer_cap_fraction"),
        ({"data_packet_bytes": 0.0}, "data_packet_bytes"),
    ],
)
def test_bad_input(kwargs: dict[str, float], place: str) -> None:
    arguments = {"rate_bps": 10e9, "buffer_bytes": 128e3, "drop_probability": 0.1, **kwargs}
    with pytest.raises(ModelInputError) as error:
        fastlane_notification_budget(**arguments)
    assert error.value.place == place and error.value.hint


@settings(max_examples=200, deadline=None)
@given(probabilities=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=40))
def test_overhead_in_unit_interval_and_monotone(probabilities: list[float]) -> None:
    p = np.sort(np.array(probabilities))
    overhead = fastlane_overhead(p)
    assert np.all((overhead >= 0.0) & (overhead < 1.0))
    assert np.all(np.diff(overhead) >= -1e-15)


@settings(max_examples=100, deadline=None)
@given(
    p=st.floats(0.0, 1.0),
    data=st.floats(64.0, 9000.0),
    ack=st.floats(40.0, 200.0),
)
def test_general_form_is_eq2(p: float, data: float, ack: float) -> None:
    # Eq. 2 with n_data = N·p, n_ack = N·(1−p)·p, N = the ACK size (as in the paper).
    expected = (ack * p + ack * (1 - p) * p) / (data + ack * (1 - p) + ack * p + ack * (1 - p) * p)
    assert fastlane_overhead(p, data, ack, ack) == pytest.approx(expected)


def test_the_overhead_formula_shows_the_sizes_of_this_run() -> None:
    # The label used to print the paper's 1464/64 numbers whatever --data-packet said.
    paper = fastlane_notification_budget(10e9, 128e3, 0.01)
    jumbo = fastlane_notification_budget(10e9, 128e3, 0.01, data_packet_bytes=9000)
    def formula(budget: object) -> str:
        return budget.provenance.derivation_of("overhead_fraction").formula  # type: ignore[attr-defined]
    assert "(1400 + 64(1-p) + 64p(2-p))" in formula(paper)
    assert "(9000 + 64(1-p) + 64p(2-p))" in formula(jumbo) and "1400" not in formula(jumbo)
