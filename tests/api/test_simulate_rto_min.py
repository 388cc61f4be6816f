"""``simulate --rto-min`` takes what the intent's ``hosts.rto_min`` takes, and refuses the rest
with the same reason: whole milliseconds from 1 ms to TCP_RTO_MAX (120 s)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from qosforge.api.reporting import StderrReporter
from qosforge.api.simulate import SimulateRequest, simulate
from qosforge.compiler.intent import HostTcpSpec
from qosforge.errors import QosforgeError

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "dctcp-fig17.yaml")


def _intent_refusal(text: str) -> str:
    with pytest.raises(ValidationError) as caught:
        HostTcpSpec.model_validate({"rto_min": text})
    return str(caught.value.errors()[0]["msg"]).removeprefix("Value error, ")


@pytest.mark.parametrize("text", ["4.5ms", "500us", "200s", "0ms", "4 parsecs"])
def test_the_flag_refuses_what_the_intent_refuses_with_its_reason(text: str) -> None:
    request = SimulateRequest(intent=EXAMPLE, scenario="incast", flows=2, duration="1ms",
                              rto_min=text, typed=frozenset({"flows", "rto_min"}))
    with pytest.raises(QosforgeError) as caught:
        simulate(request, StderrReporter())
    assert caught.value.place == "--rto-min"
    assert caught.value.message in _intent_refusal(text)


@pytest.mark.parametrize(("text", "seconds"), [("1ms", 1e-3), ("4ms", 4e-3), ("120s", 120.0)])
def test_the_intent_takes_whole_milliseconds_up_to_tcp_rto_max(text: str, seconds: float) -> None:
    spec = HostTcpSpec.model_validate({"rto_min": text})
    assert spec.rto_min == pytest.approx(seconds)
