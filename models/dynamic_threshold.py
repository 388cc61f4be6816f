"""Dynamic-threshold (Choudhury–Hahne) shared-buffer model.

A queue may grow while its length is below alpha × (free shared buffer). With M queues congested
and nothing else in the buffer, each settles where q = alpha·(B − M·q), i.e.
q = alpha·B / (1 + M·alpha) (Choudhury & Hahne, IEEE/ACM ToN 1998; used as such in TLT §4.2).
SAI and SONiC encode alpha as an exponent n with alpha = 2^n
(``SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH``: "2^n of available buffer of the pool";
SONiC ``BUFFER_PROFILE.dynamic_th`` range -8..7, sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-profile.yang).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from qosforge.errors import ModelInputError
from qosforge.models._checks import as_float_array, require_at_least, require_positive
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_DT = "Choudhury & Hahne, 'Dynamic queue length thresholds for shared-memory packet switches', IEEE/ACM ToN 6(2), 1998; TLT §4.2"
SOURCE_DYNAMIC_TH = "SAI saibuffer.h SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH; SONiC BUFFER_PROFILE.dynamic_th (sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-profile.yang)"

#: SONiC YANG range of BUFFER_PROFILE.dynamic_th (sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-profile.yang); SAI's INT8 is wider.
SONIC_DYNAMIC_TH_MIN = -8
SONIC_DYNAMIC_TH_MAX = 7


@dataclass(frozen=True, kw_only=True)
class DynamicThresholdShare:
    buffer_bytes: Any = quantity("B", "shared buffer B")
    alpha: Any = quantity("1", "dynamic-threshold alpha")
    congested_ports: Any = quantity("ports", "congested ports M")
    per_port_share_bytes: Any = quantity("B", "steady-state queue limit per congested port")
    free_buffer_bytes: Any = quantity("B", "shared buffer left free at steady state")
    provenance: Provenance


def dynamic_threshold_share(buffer_bytes: Any, alpha: Any, congested_ports: Any) -> DynamicThresholdShare:
    """Per-port share alpha·B/(1+M·alpha) when M ports are congested (vectorised)."""
    buffer_bytes = as_float_array(buffer_bytes)
    alpha = as_float_array(alpha)
    congested_ports = as_float_array(congested_ports)
    require_positive("buffer_bytes", buffer_bytes, hint="the shared buffer must hold at least one byte")
    require_positive("alpha", alpha, hint="alpha is 2^dynamic_th, e.g. 1 (dynamic_th 0) or 0.5 (-1)")
    require_at_least("congested_ports", congested_ports, 1, hint="M counts congested ports: use 1 or more")
    if np.any(np.isinf(alpha)):
        # alpha = infinity (an exponent the ASIC reads so, e.g. Mellanox dynamic_th 7): no dynamic
        # limit, so M congested ports split the buffer, B/M each: the limit of alpha·B/(1+M·alpha)
        # as alpha grows without bound (complete sharing).
        with np.errstate(invalid="ignore"):
            per_port = np.where(np.isinf(alpha), buffer_bytes / congested_ports,
                                alpha * buffer_bytes / (1.0 + congested_ports * alpha))
    else:
        per_port = alpha * buffer_bytes / (1.0 + congested_ports * alpha)
    free = buffer_bytes - congested_ports * per_port
    return DynamicThresholdShare(
        buffer_bytes=buffer_bytes,
        alpha=alpha,
        congested_ports=congested_ports,
        per_port_share_bytes=per_port,
        free_buffer_bytes=free,
        provenance=Provenance(
            model="dynamic_threshold_share",
            inputs=(
                input_value("buffer_bytes", buffer_bytes, "B"),
                input_value("alpha", alpha, "1"),
                input_value("congested_ports", congested_ports, "ports"),
            ),
            derivations=(
                Derivation("per_port_share_bytes", "alpha*B/(1+M*alpha)", SOURCE_DT),
                Derivation("free_buffer_bytes", "B - M*per_port_share = B/(1+M*alpha)", SOURCE_DT),
            ),
        ),
    )


def alpha_from_dynamic_th(dynamic_th: int, special: Mapping[int, float] | None = None) -> float:
    """The alpha an ASIC applies for the SAI/SONiC ``dynamic_th`` exponent n: 2^n
    (SAI inc/saibuffer.h ``SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH``, "2^n of available buffer
    of the pool"), except for the exponents ``special`` maps to another alpha: the vendor profile's
    ``dynamic_th_special``, e.g. Mellanox's SAI reads -8 as alpha 0 and 7 as alpha infinity
    (Mellanox/SAI-Implementation mlnx_sai/src/mlnx_sai_buffer.c ``sai_buffer_alpha_bounds_t``:
    SAI_BUFFER_ALPHA_0 = -8, SAI_BUFFER_ALPHA_INFINITY = 7). Every reader of a configured
    ``dynamic_th`` (compile's queue limits, lint, the software switch) converts through this one
    function, so a config means the same alpha everywhere."""
    if special is not None and dynamic_th in special:
        return float(special[dynamic_th])
    return float(2.0**dynamic_th)


def dynamic_th_from_alpha(alpha: float, suggest: Sequence[int] = ()) -> int:
    """The ``dynamic_th`` exponent n with 2^n = alpha, a power of two in SONiC's range.

    ``suggest`` are the exponents a hint may name for an alpha that is no power of two (an
    ASIC's accepted range; default SONiC's), so the fix it offers is one that is accepted."""
    if alpha <= 0:
        raise ModelInputError(f"must be > 0 (got {alpha:g})", place="alpha", hint="use a power of two such as 1 or 0.5")
    exponent = math.log2(alpha)
    rounded = round(exponent)
    if not math.isclose(exponent, rounded, abs_tol=1e-12):
        allowed = sorted(suggest) or range(SONIC_DYNAMIC_TH_MIN, SONIC_DYNAMIC_TH_MAX + 1)
        below = [n for n in allowed if n < exponent]
        above = [n for n in allowed if n > exponent]
        nearest = ([below[-1]] if below else []) + ([above[0]] if above else [])
        raise ModelInputError(
            f"alpha {alpha:g} is not a power of two, which dynamic_th (alpha = 2^n) cannot express",
            place="alpha",
            hint="use " + " or ".join(f"{2.0**n:g} (dynamic_th {n})" for n in nearest),
        )
    if not SONIC_DYNAMIC_TH_MIN <= rounded <= SONIC_DYNAMIC_TH_MAX:
        raise ModelInputError(
            f"alpha {alpha:g} needs dynamic_th {rounded}, outside SONiC's {SONIC_DYNAMIC_TH_MIN}..{SONIC_DYNAMIC_TH_MAX}",
            place="alpha",
            hint=f"use alpha between 2^{SONIC_DYNAMIC_TH_MIN} and 2^{SONIC_DYNAMIC_TH_MAX}",
        )
    return int(rounded)


__all__ = [
    "DynamicThresholdShare",
    "alpha_from_dynamic_th",
    "dynamic_th_from_alpha",
    "dynamic_threshold_share",
]
