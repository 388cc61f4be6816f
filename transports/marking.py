"""The marking models transports share, as marking plans (transports/spec.py :data:`MarkingPlan`).

* DCTCP's step at K (DCTCP §3.4: K = C·RTT/7, at least one LSO burst; min = max = K, 100 %):
  DCTCP's own, and D2TCP's and EAR's, whose switch side is DCTCP's (D2TCP §3.1, EAR §4.2).
* DCQCN's RED ramp K_min/K_max/P_max (DCQCN §5), speed-scaled defaults or the intent's ``dcqcn``
  block: DCQCN's, and IRN's, which runs DCQCN's congestion control (IRN §4).
"""

from __future__ import annotations

from qosforge.ir import Derived, derived_constant, derived_from
from qosforge.models.dcqcn import dcqcn_marking
from qosforge.models.dctcp import dctcp_marking_threshold
from qosforge.transports.spec import Marking, MarkingInputs, MarkingModel

SOURCE_STEP_MARKING = "DCTCP §3.1 (mark every packet above K: RED with min = max = K, P = 100%)"
DCTCP_STEP = MarkingModel("dctcp-step", "DCTCP §3.4 (K = C·RTT/7, at least one LSO burst); step marking, DCTCP §3.1")
DCQCN_RED = MarkingModel("dcqcn-red", "DCQCN §5 (RED: K_min, K_max, P_max)")


def full_percent(value: float, quantity: str) -> Derived:
    """The 100 % of a step: mark (or drop) every packet above the threshold."""
    return derived_constant(value, "%", quantity=quantity, formula="100 (mark or drop every packet above the threshold)", source=SOURCE_STEP_MARKING)


def dctcp_step(inputs: MarkingInputs, *, host: tuple[Derived, ...] = ()) -> Marking:
    """DCTCP's step marking at K (DCTCP §3.4), with the host settings of the transport using it."""
    threshold = derived_from(dctcp_marking_threshold(inputs.rate_bps, inputs.rtt_s, inputs.mtu_bytes, inputs.lso_burst_bytes), "threshold_bytes")
    return Marking(values=(threshold,), min_bytes=threshold, max_bytes=threshold, probability_percent=full_percent(100.0, "probability_percent"),
                   host=host, ecn_threshold_bytes=threshold.value)


def dcqcn_red(inputs: MarkingInputs, *, kmin_bytes: float | None, kmax_bytes: float | None, pmax_percent: float | None,
              selective_retransmission: bool) -> Marking:
    """DCQCN's RED ramp (DCQCN §5) at this speed, or the intent's stated values."""
    dcqcn = dcqcn_marking(inputs.rate_bps, kmin_bytes, kmax_bytes, pmax_percent, lossless=inputs.lossless,
                          selective_retransmission=selective_retransmission)
    low, high, probability = derived_from(dcqcn, "kmin_bytes"), derived_from(dcqcn, "kmax_bytes"), derived_from(dcqcn, "pmax_percent")
    return Marking(values=(low, high, probability), min_bytes=low, max_bytes=high, probability_percent=probability, kmax_bytes=high.value)


__all__ = ["DCQCN_RED", "DCTCP_STEP", "SOURCE_STEP_MARKING", "dcqcn_red", "dctcp_step", "full_percent"]
