"""Two toy transports, registered from this test-local module alone (tests/transports/test_registry.py
imports it in a fresh interpreter, before qosforge.compiler): nothing else in qosforge names them.

* ``toy``: a step-marking transport whose parameter block states K (``toy: {k: 20kB}``), run by
  the simulator's hosts as DCTCP, with a host congestion control no Linux kernel ships. Lint checks
  its marking as DCTCP's step (its marking_model), so a K below DCTCP's is flagged.
* ``toyx``: a transport that needs a lossless class, marks nothing and is not simulated.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from qosforge.fields import SizeBytes
from qosforge.ir import derived_constant
from qosforge.transports import (
    HostSettings,
    LosslessRule,
    Marking,
    MarkingInputs,
    TransportSpec,
    register,
)
from qosforge.transports.marking import DCTCP_STEP, full_percent


class ToySpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    k: SizeBytes


def _marking(inputs: MarkingInputs) -> Marking:
    assert isinstance(inputs.parameters, ToySpec)
    k = derived_constant(inputs.parameters.k, "B", quantity="threshold_bytes", formula="intent toy.k", source="toy transport")
    return Marking(values=(k,), min_bytes=k, max_bytes=k, probability_percent=full_percent(100.0, "probability_percent"), ecn_threshold_bytes=k.value)


register(TransportSpec(
    name="toy", paper="Toy (a test's transport)", host=HostSettings(congestion_control="toycc", ecn=True),
    marking=_marking, marking_model=DCTCP_STEP, block="toy", parameters=ToySpec, marking_fields=("k", "k"), flow_kind="dctcp",
))
register(TransportSpec(
    name="toyx", paper="Toy X", host=HostSettings(congestion_control=None, ecn=False),
    lossless=LosslessRule("required", "class '{name}': toyx needs a lossless class", "set lossless: true"),
))
