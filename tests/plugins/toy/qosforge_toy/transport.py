"""``toycc``: a step-marking transport whose parameter block states K (``toycc: {k: 20kB}``),
run by the simulator's hosts as DCTCP, with a host congestion control no Linux kernel ships."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from qosforge.fields import SizeBytes
from qosforge.ir import derived_constant
from qosforge.transports import HostSettings, Marking, MarkingInputs, TransportSpec
from qosforge.transports.marking import DCTCP_STEP, full_percent


class ToyccBlock(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    k: SizeBytes


def _marking(inputs: MarkingInputs) -> Marking:
    assert isinstance(inputs.parameters, ToyccBlock)
    k = derived_constant(
        inputs.parameters.k,
        "B",
        quantity="threshold_bytes",
        formula="intent toycc.k",
        source="toy plugin transport",
    )
    return Marking(
        values=(k,),
        min_bytes=k,
        max_bytes=k,
        probability_percent=full_percent(100.0, "probability_percent"),
        ecn_threshold_bytes=k.value,
    )


TOYCC = TransportSpec(
    name="toycc",
    paper="Toy (a plugin's transport)",
    host=HostSettings(congestion_control="toycc", ecn=True),
    marking=_marking,
    marking_model=DCTCP_STEP,
    block="toycc",
    parameters=ToyccBlock,
    marking_fields=("k", "k"),
    flow_kind="dctcp",
)
