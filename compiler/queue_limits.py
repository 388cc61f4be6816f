"""How much a queue can hold, and whether its WRED/ECN curve starts below that.

One computation for ``qosforge compile`` (which refuses thresholds a queue can never reach) and
``qosforge lint``'s ecn-above-queue-limit rule (which reports them in a config_db):

* a ``static_th`` queue holds its static_th;
* a dynamic-threshold queue holds alpha·B/(1+M·alpha) with B its pool per MMU and M congested
  ports (Choudhury & Hahne 1998, TLT §4.2; :func:`~qosforge.models.dynamic_threshold.
  dynamic_threshold_share`). alpha is what the ASIC applies for the profile's exponent
  (:mod:`qosforge.compiler.dynamic_th`): 2^n, or 0 / infinity where the vendor's SAI reads
  an end of its range that way (then the limit is 0, or B/M, the formula's limit as alpha grows).

A curve that starts above the limit never acts: the queue tail-drops first (DCTCP §3.4: ECN
transports then see losses, not marks). A RED curve whose max threshold (DCQCN's K_max) is above
the limit is cut short: marking never reaches P_max, so the probability ramp DCQCN's rate control
is tuned to (DCQCN §5: K_min, K_max, P_max) is only partly there and the queue tail-drops at
the limit instead of marking every packet above K_max. Every active curve's min and max threshold
is therefore checked (:func:`unreachable_thresholds`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from qosforge.compiler.dynamic_th import DynamicThRange
from qosforge.ir import BufferProfileIR, ColorCurveIR, WredIR
from qosforge.models.dynamic_threshold import dynamic_threshold_share


@dataclass(frozen=True)
class QueueLimit:
    """The most a queue with buffer profile ``profile_name`` holds, and the inputs of that."""

    limit_bytes: float
    profile_name: str
    pool_name: str
    static: bool
    shared_bytes: float
    """B: the pool per MMU (dynamic) or the static_th (static)."""
    mmu_count: int
    exponent: int | None
    alpha: float | None
    congested_ports: int

    def how(self, size_text: Callable[[float], str]) -> str:
        """The formula with its values, e.g. for an error message."""
        if self.static:
            return f"static_th of {self.profile_name}"
        mmus = f" / {self.mmu_count} MMUs" if self.mmu_count > 1 else ""
        where = f"B = {size_text(self.shared_bytes)} ({self.pool_name}{mmus}), M = {self.congested_ports}"
        assert self.alpha is not None
        if self.alpha == 0:
            return f"alpha = 0 for dynamic_th {self.exponent}: no shared buffer; {where}"
        if math.isinf(self.alpha):
            return f"B/M, as alpha = infinity for dynamic_th {self.exponent}; {where}"
        return f"alpha·B/(1+M·alpha) with alpha = 2^{self.exponent}, {where}"


def queue_limit(
    profile: BufferProfileIR,
    pool_bytes: float | None,
    *,
    mmu_count: int,
    congested_ports: int,
    accepted: DynamicThRange,
) -> QueueLimit | None:
    """The queue limit of ``profile`` in a pool of ``pool_bytes`` (None: unknown pool), or None when
    no limit applies that an ASIC would enforce (no threshold, an exponent ``accepted`` refuses)."""
    if profile.static_th_bytes is not None and profile.static_th_bytes.value > 0:
        size = profile.static_th_bytes.value
        return QueueLimit(size, profile.name, profile.pool, True, size, mmu_count, None, None, congested_ports)
    if profile.dynamic_th is None or pool_bytes is None or pool_bytes <= 0:
        return None
    exponent = profile.dynamic_th.value
    if accepted.verdict(exponent) == "outside":
        return None  # no limit any ASIC would apply (dynamic-th-range reports it); 2^n may not even be a float
    exponent = int(exponent)
    shared = pool_bytes / mmu_count
    alpha = accepted.alpha(exponent)
    if alpha == 0:
        limit = 0.0
    elif math.isinf(alpha):
        limit = shared / congested_ports
    else:
        limit = float(dynamic_threshold_share(shared, alpha, congested_ports).per_port_share_bytes)
    return QueueLimit(limit, profile.name, profile.pool, False, shared, mmu_count, exponent, alpha, congested_ports)


@dataclass(frozen=True)
class UnreachableThreshold:
    """One threshold of an active WRED/ECN curve above what the queue holds."""

    curve: ColorCurveIR
    bound: Literal["min", "max"]
    threshold_bytes: float

    @property
    def field_name(self) -> str:
        """The SONiC WRED_PROFILE field, e.g. ``green_max_threshold``."""
        return f"{self.curve.color}_{self.bound}_threshold"

    def effect(self, limit_bytes: float, size_text: Callable[[float], str]) -> str:
        """What the queue does instead, for messages."""
        if self.bound == "min":
            return "the queue tail-drops before WRED/ECN acts"
        curve = self.curve
        low, high = curve.min_bytes.value, curve.max_bytes.value
        reached = curve.probability_percent.value * (limit_bytes - low) / (high - low) if high > low else 0.0
        return (f"the {curve.color} ramp ends at the queue limit with {reached:.3g} % of its "
                f"{curve.probability_percent.value:g} % (max threshold {size_text(high)}), then the queue tail-drops")


def unreachable_thresholds(wred: WredIR, limit_bytes: float) -> tuple[UnreachableThreshold, ...]:
    """Every min and max threshold of ``wred``'s active curves above ``limit_bytes``, lowest first
    (a curve that starts above the limit is reported once, by its min)."""
    found: list[UnreachableThreshold] = []
    for curve in wred.curves:
        if not (curve.drop or curve.mark):
            continue
        if curve.min_bytes.value > limit_bytes:
            found.append(UnreachableThreshold(curve, "min", curve.min_bytes.value))
        elif curve.max_bytes.value > limit_bytes:
            found.append(UnreachableThreshold(curve, "max", curve.max_bytes.value))
    return tuple(sorted(found, key=lambda u: u.threshold_bytes))


__all__ = ["QueueLimit", "UnreachableThreshold", "queue_limit", "unreachable_thresholds"]
