"""``qosforge.api.simulate``: a typed request in, the report out (no click in between:
test_no_cli.py)."""

from __future__ import annotations

import pytest

from qosforge.api.reporting import StderrReporter
from qosforge.api.simulate import SimulateRequest, simulate
from qosforge.errors import QosforgeError


def test_a_dumbbell_request_gives_the_report() -> None:
    request = SimulateRequest(scenario="dumbbell", transport="dctcp", ecn_threshold="20pkt", flows=2, duration="5ms", warmup="1ms",
                              typed=frozenset({"transport", "ecn_threshold", "flows"}))
    outcome = simulate(request, StderrReporter())
    report = outcome.report
    assert report["scenario"] == "dumbbell" and report["transport"] == "dctcp" and report["flows"] == 2
    assert report["bandwidth_bps"] == 10e9 and report["duration_s"] == 0.005 and report["warmup_s"] == 0.001
    # Two DCTCP flows fill the 10G bottleneck and the marks keep its queue near K = 20 packets (DCTCP §3.4).
    assert 9.0 <= report["wire_gbps"] <= 10.0 and report["mark_fraction"] > 0 and report["queue_max_packets"] < 40
    assert outcome.plot is not None and outcome.plot.labels and outcome.result is not None


@pytest.mark.parametrize(("request_", "message"), [
    (SimulateRequest(), "--scenario: nothing to simulate (hint: give --scenario (dumbbell, incast, headroom, fabric-incast, all-to-all, pause-storm, deadlock) "
                        "or --traffic FILE)"),
    (SimulateRequest(scenario="incast", traffic_path="t.yaml"), "--scenario: the traffic file is the scenario (hint: drop --scenario, or drop --traffic)"),
    (SimulateRequest(scenario="dumbbell", transport="dctcp", load_text="50%", typed=frozenset({"load_text"})),
     "--load: applies to all-to-all, not dumbbell (hint: drop --load)"),
    (SimulateRequest(scenario="dumbbell", transport="dctcp", load_text="50%"), "--ecn-threshold: dctcp reacts to ECN marks, but the bottleneck marks "
     "nothing (hint: give --ecn-threshold K (e.g. 65pkt, DCTCP §3.4) or a RED curve with --red-min/--red-max/--red-pmax)"),
])
def test_bad_requests_are_one_line_errors(request_: SimulateRequest, message: str) -> None:
    with pytest.raises(QosforgeError) as refused:
        simulate(request_, StderrReporter())
    assert refused.value.one_line() == message
