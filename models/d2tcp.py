"""D2TCP (Vamanan, Hasan & Vijaykumar, SIGCOMM 2012): deadline-aware DCTCP, host side.

The switch side is DCTCP's: ECN marking when the queue exceeds K (D2TCP §3.2.1; §4.1.1 uses
DCTCP's K = 20 packets at 1 Gbps, 65 at 10 Gbps), so the compiler sizes K with
:func:`qosforge.models.dctcp.dctcp_marking_threshold` (re-exported here as
:func:`d2tcp_marking_threshold`). What D2TCP adds lives in the host (§3.2):

* penalty p = alpha^d on the DCTCP congestion estimate alpha, window W ← W·(1 − p/2) (§3.2.1);
* deadline imminence d = T_c / D, capped to [d_min, d_max] = [0.5, 2] (§3.2.3, §4.1.1);
* T_c = B / (3W/4): time to send the B remaining bytes under full congestion (alpha = p = 1),
  the window sawing between W/2 and W so it averages 3W/4 (§3.2.3, Figure 4a).

Units: W is a window, i.e. bytes per RTT, so B/(3W/4) counts RTTs; it is turned into seconds
with the RTT before dividing by the time to deadline D. The paper's "precise" variants
((3W−1)/4 and the sqrt form for T_c < L) count W and B in segments; the paper uses the
approximation in all its evaluations (§3.2.3), and so does this model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from qosforge.models._checks import (
    as_float_array,
    bool_or_array,
    require_at_least,
    require_in_range,
    require_positive,
    scalar_or_array,
)
from qosforge.models.dctcp import dctcp_marking_threshold
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_D2TCP = "Vamanan et al., 'Deadline-Aware Datacenter TCP (D2TCP)', SIGCOMM 2012"
SOURCE_TC = f"{SOURCE_D2TCP}, §3.2.3 (T_c = B/(3W/4), d = T_c/D)"
SOURCE_CAP = f"{SOURCE_D2TCP}, §3.2.3 and §4.1.1 (d capped to [0.5, 2.0])"
SOURCE_PENALTY = f"{SOURCE_D2TCP}, §3.2.1 (p = alpha^d, W = W*(1 - p/2))"

#: Average window over the full-congestion sawtooth W/2 → W, as a fraction of W (D2TCP §3.2.3).
SAWTOOTH_MEAN_FRACTION: Final = 0.75
#: Cap on the deadline imminence factor used throughout D2TCP's evaluation (§4.1.1; §3.2.4 for 2.0).
D_MIN_DEFAULT: Final = 0.5
D_MAX_DEFAULT: Final = 2.0
_CAP_HINT = "D2TCP uses d_min 0.5 and d_max 2.0; keep d_min <= 1 <= d_max (d = 1 is DCTCP)"
#: Smallest accepted d_min: d is an exponent and must stay positive.
_TINY: Final = float(np.finfo(np.float64).tiny)

#: D2TCP's switch side is DCTCP's step marking (§3.2.1, §4.1.1): same model, same inputs.
d2tcp_marking_threshold = dctcp_marking_threshold


@dataclass(frozen=True, kw_only=True)
class D2tcpDeadline:
    remaining_bytes: Any = quantity("B", "bytes B left to send")
    window_bytes: Any = quantity("B", "current congestion window W (bytes per RTT)")
    rtt_s: Any = quantity("s", "round-trip time")
    deadline_s: Any = quantity("s", "time D left until the deadline")
    completion_rtts: Any = quantity("RTTs", "T_c under full congestion, in RTTs")
    completion_s: Any = quantity("s", "T_c under full congestion, in seconds (upper bound)")
    imminence_raw: Any = quantity("1", "d = T_c/D before the cap")
    imminence: Any = quantity("1", "deadline imminence d used by the host (capped)")
    deadline_slack_s: Any = quantity("s", "D - T_c: > 0 means met even deadline-agnostically")
    meets_deadline_agnostic: Any = quantity("bool", "T_c <= D: met even with d = 1 (DCTCP)")
    within_cap: Any = quantity("bool", "d = T_c/D <= d_max: the cap does not limit priority")
    required_rate_bps: Any = quantity("bps", "average rate needed to finish by the deadline, 8B/D")
    provenance: Provenance


def d2tcp_deadline(
    remaining_bytes: Any,
    window_bytes: Any,
    rtt_s: Any,
    deadline_s: Any,
    *,
    d_min: Any = D_MIN_DEFAULT,
    d_max: Any = D_MAX_DEFAULT,
) -> D2tcpDeadline:
    """Deadline imminence d = T_c/D with T_c = B/(3W/4) RTTs, capped to [d_min, d_max]."""
    remaining_bytes = as_float_array(remaining_bytes)
    window_bytes = as_float_array(window_bytes)
    rtt_s = as_float_array(rtt_s)
    deadline_s = as_float_array(deadline_s)
    require_positive("remaining_bytes", remaining_bytes, hint="give the bytes left, e.g. 300kB")
    require_positive(
        "window_bytes", window_bytes, hint="give the window in bytes per RTT, e.g. 64kB"
    )
    require_positive("rtt_s", rtt_s, hint="give the round-trip time, e.g. 200us")
    require_positive("deadline_s", deadline_s, hint="give the time left to the deadline, e.g. 20ms")
    d_min = as_float_array(d_min)
    d_max = as_float_array(d_max)
    # d = 1 (plain DCTCP) must stay reachable: flows without deadlines use it (§3.2.5).
    require_in_range("d_min", d_min, _TINY, 1.0, hint=_CAP_HINT)
    require_at_least("d_max", d_max, 1.0, hint=_CAP_HINT)
    completion_rtts = remaining_bytes / (SAWTOOTH_MEAN_FRACTION * window_bytes)
    completion_s = completion_rtts * rtt_s
    imminence_raw = completion_s / deadline_s
    imminence = np.clip(imminence_raw, d_min, d_max)
    return D2tcpDeadline(
        remaining_bytes=remaining_bytes,
        window_bytes=window_bytes,
        rtt_s=rtt_s,
        deadline_s=deadline_s,
        completion_rtts=completion_rtts,
        completion_s=completion_s,
        imminence_raw=imminence_raw,
        imminence=scalar_or_array(imminence),
        deadline_slack_s=deadline_s - completion_s,
        meets_deadline_agnostic=bool_or_array(completion_s <= deadline_s),
        within_cap=bool_or_array(imminence_raw <= d_max),
        required_rate_bps=8.0 * remaining_bytes / deadline_s,
        provenance=Provenance(
            model="d2tcp_deadline",
            inputs=(
                input_value("remaining_bytes", remaining_bytes, "B"),
                input_value("window_bytes", window_bytes, "B"),
                input_value("rtt_s", rtt_s, "s"),
                input_value("deadline_s", deadline_s, "s"),
                input_value("d_min", d_min, "1"),
                input_value("d_max", d_max, "1"),
            ),
            derivations=(
                Derivation("completion_rtts", "remaining_bytes/(3*window_bytes/4)", SOURCE_TC),
                Derivation("completion_s", "completion_rtts*rtt_s", SOURCE_TC),
                Derivation("imminence_raw", "completion_s/deadline_s", SOURCE_TC),
                Derivation("imminence", "clip(imminence_raw, d_min, d_max)", SOURCE_CAP),
                Derivation("deadline_slack_s", "deadline_s - completion_s", SOURCE_TC),
                Derivation("meets_deadline_agnostic", "completion_s <= deadline_s", SOURCE_TC),
                Derivation("within_cap", "imminence_raw <= d_max", SOURCE_CAP),
                Derivation("required_rate_bps", "8*remaining_bytes/deadline_s", SOURCE_TC),
            ),
        ),
    )


@dataclass(frozen=True, kw_only=True)
class D2tcpPenalty:
    congestion_alpha: Any = quantity(
        "1", "DCTCP congestion estimate alpha (EWMA of marked fraction)"
    )
    imminence: Any = quantity("1", "deadline imminence d")
    penalty: Any = quantity("1", "p = alpha^d")
    window_factor: Any = quantity("1", "window multiplier 1 - p/2 on a marked window (1 if p = 0)")
    provenance: Provenance


def d2tcp_penalty(congestion_alpha: Any, imminence: Any) -> D2tcpPenalty:
    """Gamma-correction penalty p = alpha^d and the window factor 1 − p/2 (D2TCP §3.2.1)."""
    congestion_alpha = as_float_array(congestion_alpha)
    imminence = as_float_array(imminence)
    require_in_range(
        "congestion_alpha", congestion_alpha, 0.0, 1.0, hint="alpha is a fraction 0..1"
    )
    require_positive("imminence", imminence, hint="d is positive; D2TCP caps it to 0.5..2")
    penalty = np.power(congestion_alpha, imminence)
    return D2tcpPenalty(
        congestion_alpha=congestion_alpha,
        imminence=imminence,
        penalty=scalar_or_array(penalty),
        # With p = 0 D2TCP grows W by one segment instead (§3.2.1); the factor is then 1.
        window_factor=scalar_or_array(1.0 - penalty / 2.0),
        provenance=Provenance(
            model="d2tcp_penalty",
            inputs=(
                input_value("congestion_alpha", congestion_alpha, "1"),
                input_value("imminence", imminence, "1"),
            ),
            derivations=(
                Derivation("penalty", "congestion_alpha**imminence", SOURCE_PENALTY),
                Derivation("window_factor", "1 - penalty/2", SOURCE_PENALTY),
            ),
        ),
    )


@dataclass(frozen=True, kw_only=True)
class D2tcpDeadlinePenalty(D2tcpDeadline):
    """The deadline analysis plus the penalty the capped d gives at a congestion level alpha."""

    congestion_alpha: Any = quantity("1", "DCTCP congestion estimate alpha")
    penalty: Any = quantity("1", "p = alpha^d at the capped d")
    window_factor: Any = quantity("1", "window multiplier 1 - p/2 on a marked window")


def d2tcp_deadline_penalty(
    remaining_bytes: Any,
    window_bytes: Any,
    rtt_s: Any,
    deadline_s: Any,
    congestion_alpha: Any,
    *,
    d_min: Any = D_MIN_DEFAULT,
    d_max: Any = D_MAX_DEFAULT,
) -> D2tcpDeadlinePenalty:
    """:func:`d2tcp_deadline` followed by :func:`d2tcp_penalty` at the capped d (vectorised)."""
    deadline = d2tcp_deadline(
        remaining_bytes, window_bytes, rtt_s, deadline_s, d_min=d_min, d_max=d_max
    )
    penalty = d2tcp_penalty(congestion_alpha, deadline.imminence)
    fields = {name: getattr(deadline, name) for name in deadline.__dataclass_fields__}
    fields["provenance"] = Provenance(
        model="d2tcp_deadline_penalty",
        inputs=(*deadline.provenance.inputs, penalty.provenance.inputs[0]),
        derivations=(*deadline.provenance.derivations, *penalty.provenance.derivations),
    )
    return D2tcpDeadlinePenalty(
        **fields,
        congestion_alpha=penalty.congestion_alpha,
        penalty=penalty.penalty,
        window_factor=penalty.window_factor,
    )






__all__ = [
    "D_MAX_DEFAULT",
    "D_MIN_DEFAULT",
    "D2tcpDeadline",
    "D2tcpDeadlinePenalty",
    "D2tcpPenalty",
    "d2tcp_deadline",
    "d2tcp_deadline_penalty",
    "d2tcp_marking_threshold",
    "d2tcp_penalty",
]
