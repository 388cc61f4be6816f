"""D2TCP (Vamanan et al., SIGCOMM 2012): deadline-aware DCTCP. Its switch side is DCTCP's step at
K (D2TCP §3.1); the deadline imminence factor d is clamped to [d_min, d_max] on the hosts
(D2TCP §3.2.3). No mainline Linux module: listed for manual installation."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from qosforge.ir import derived_constant
from qosforge.models.d2tcp import D_MAX_DEFAULT, D_MIN_DEFAULT
from qosforge.models.tlt import tlt_steady_queue
from qosforge.transports.marking import DCTCP_STEP, dctcp_step
from qosforge.transports.spec import HostSettings, Marking, MarkingInputs, TransportSpec


#: The intent's ``d2tcp:`` block. (A comment, not a docstring: the intent's JSON Schema would show it.)
class D2tcpSpec(BaseModel):
    # strict: as the intent's models (compiler/intent.py _Strict), no YAML true for a number.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)
    d_min: float = Field(default=D_MIN_DEFAULT, gt=0)
    d_max: float = Field(default=D_MAX_DEFAULT, gt=0)


def _marking(inputs: MarkingInputs) -> Marking:
    block = inputs.parameters
    if not isinstance(block, D2tcpSpec):
        return dctcp_step(inputs)
    source = "D2TCP §3.2.3 (d clamped to [0.5, 2])"
    return dctcp_step(inputs, host=(
        derived_constant(block.d_min, "1", quantity="d_min", formula="intent d2tcp.d_min", source=source),
        derived_constant(block.d_max, "1", quantity="d_max", formula="intent d2tcp.d_max", source=source),
    ))


D2TCP = TransportSpec(
    name="d2tcp",
    paper="D2TCP (Vamanan et al., SIGCOMM 2012)",
    host=HostSettings(congestion_control="d2tcp", ecn=True),
    marking=_marking,
    marking_model=DCTCP_STEP,
    block="d2tcp",
    parameters=D2tcpSpec,
    tlt=tlt_steady_queue("d2tcp"),
    flow_kind="dctcp",
    flow_kind_note="D2TCP's switch side is DCTCP's and a flow without a deadline behaves as DCTCP (D2TCP §3.2, d = 1)",
)
