"""EAR (Zeng et al., APNet 2017): DCTCP's switch-side step at K (EAR §4.2) plus a host RTT
threshold T above which senders treat delay as congestion. No mainline Linux module: listed for
manual installation."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from qosforge.fields import RttS
from qosforge.ir import Derived, derived_constant, derived_from
from qosforge.models.ear import ear_thresholds
from qosforge.models.tlt import tlt_steady_queue
from qosforge.transports.marking import DCTCP_STEP, dctcp_step
from qosforge.transports.spec import HostSettings, Marking, MarkingInputs, TransportSpec

#: EAR gives no formula for T, only T > K and one evaluated point (K = 65, T = 120 packets at
#: 10 Gbps, §4.2). qosforge's heuristic default keeps that T/K ratio at every speed; set
#: ``ear.rtt_threshold`` in the intent to override it.
EAR_T_OVER_K = 120.0 / 65.0


#: The intent's ``ear:`` block. (A comment, not a docstring: the intent's JSON Schema would show it.)
class EarSpec(BaseModel):
    # strict: as the intent's models (compiler/intent.py _Strict), no YAML true for a number.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)
    rtt_threshold: RttS | None = None


def _delay_threshold(delay_s: float, *, given: bool) -> Derived:
    """EAR's queueing-delay threshold T with its own derivation: the intent's value, or the default
    that keeps EAR's evaluated T/K ratio (K = 65, T = 120 packets, §4.2) at this speed."""
    if given:
        return derived_constant(delay_s, "s", quantity="delay_threshold_s", formula="T = intent ear.rtt_threshold",
                                source="EAR §4.2 (T is a free parameter; the paper evaluates T = 120 packets at 10 Gbps)")
    return derived_constant(delay_s, "s", quantity="delay_threshold_s", formula="T = (120/65) * K * 8 / rate",
                            source="EAR §4.2 (K = 65, T = 120 packets at 10 Gbps; qosforge keeps T/K at every speed, "
                                   "set ear.rtt_threshold to override)", model="ear_default_t")


def _marking(inputs: MarkingInputs) -> Marking:
    step = dctcp_step(inputs)
    threshold = step.values[0].value
    block = inputs.parameters if isinstance(inputs.parameters, EarSpec) else None
    given = block is not None and block.rtt_threshold is not None
    delay_s = block.rtt_threshold if block is not None and block.rtt_threshold is not None else EAR_T_OVER_K * threshold * 8.0 / inputs.rate_bps
    ear = ear_thresholds(rate_bps=inputs.rate_bps, packet_bytes=inputs.mtu_bytes, base_rtt_s=inputs.rtt_s, ecn_threshold_bytes=threshold,
                         delay_threshold_s=delay_s)
    return dctcp_step(inputs, host=(_delay_threshold(delay_s, given=given), derived_from(ear, "rtt_threshold_s")))


EAR = TransportSpec(
    name="ear",
    paper="EAR (Zeng et al., APNet 2017)",
    host=HostSettings(congestion_control="ear", ecn=True),
    marking=_marking,
    marking_model=DCTCP_STEP,
    block="ear",
    parameters=EarSpec,
    tlt=tlt_steady_queue("ear"),
    flow_kind="dctcp",
    flow_kind_note="EAR's host RTT threshold is not modelled, so EAR hosts run DCTCP on EAR's switch threshold",
)
