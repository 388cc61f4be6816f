"""Which ``dynamic_th`` exponents an ASIC accepts, and what each one means there.

SAI and SONiC write the dynamic-threshold alpha as an exponent n with alpha = 2^n
(``SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH``; SONiC ``BUFFER_PROFILE.dynamic_th``, YANG range
-8..7 in sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-profile.yang). ASICs
accept less, and some read the ends of their range differently: Broadcom's OCP SAI takes -7..3
(ocp_sai/src/brcm_sai_common.c), Mellanox's SAI reads -8 as alpha 0 and 7 as alpha infinity
(mlnx_sai/src/mlnx_sai_buffer.c ``sai_buffer_alpha_bounds_t``). The vendor profile states both
(``dynamic_th_min``/``dynamic_th_max``/``dynamic_th_special``); the compiler refuses an alpha
outside them and ``qosforge lint`` flags a config that uses them, from this one reading.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

from qosforge.models.dynamic_threshold import (
    SONIC_DYNAMIC_TH_MAX,
    SONIC_DYNAMIC_TH_MIN,
    alpha_from_dynamic_th,
)
from qosforge.vendor_profiles.schema import VendorProfile

Verdict = Literal["ok", "outside", "no-shared-buffer", "unlimited", "other-alpha"]


def alpha_text(alpha: float) -> str:
    """1/128, 0.5 -> 1/2, 8, 'infinity'."""
    if math.isinf(alpha):
        return "infinity"
    ratio = Fraction(alpha).limit_denominator(1 << 16)
    return str(ratio)


@dataclass(frozen=True)
class DynamicThRange:
    """The exponents ``profile`` accepts (``low..high``) and those it reads as another alpha."""

    profile: str
    low: int
    high: int
    special: MappingProxyType[int, float]
    """exponent -> the alpha the ASIC applies instead of 2^n (0 or infinity on Mellanox)"""
    source: str
    """Where the range comes from (the vendor profile's source, or SONiC's YANG range)."""
    special_source: str

    def alpha(self, exponent: int) -> float:
        """The alpha the ASIC applies for ``exponent`` (which must be within the range)."""
        return alpha_from_dynamic_th(exponent, self.special)

    def verdict(self, exponent: float) -> Verdict:
        if not self.low <= exponent <= self.high:
            return "outside"
        if exponent not in self.special:
            return "ok"
        alpha = self.special[int(exponent)]
        return "no-shared-buffer" if alpha == 0 else "unlimited" if math.isinf(alpha) else "other-alpha"

    def meaning(self, exponent: int) -> str:
        """What a special ``exponent`` does on this ASIC, for messages."""
        alpha = self.special[exponent]
        if alpha == 0:
            return "alpha = 0: the queue gets no shared buffer"
        if math.isinf(alpha):
            return "alpha = infinity: no dynamic limit, one queue may take the whole pool"
        return f"alpha = {alpha_text(alpha)}, not 2^{exponent}"

    @property
    def representable(self) -> tuple[int, ...]:
        """Exponents that mean alpha = 2^n on this ASIC."""
        return tuple(n for n in range(self.low, self.high + 1) if n not in self.special)

    def representable_text(self) -> str:
        """'1/128, 1/64, 1/32, ..., 8 (dynamic_th -7..3)' for hints."""
        exponents = self.representable
        alphas = [alpha_text(self.alpha(n)) for n in exponents]
        shown = ", ".join(alphas) if len(alphas) <= 6 else f"{', '.join(alphas[:3])}, ..., {alphas[-1]}"
        return f"{shown} (dynamic_th {exponents[0]}..{exponents[-1]})"


def dynamic_th_range(profile: VendorProfile) -> DynamicThRange:
    """The profile's range where it states one; otherwise SONiC's YANG range, where every
    exponent is read as 2^n (all a config can be checked against)."""
    low, high = profile.dynamic_th_min.value, profile.dynamic_th_max.value
    yang = "SONiC YANG BUFFER_PROFILE.dynamic_th -8..7 (sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-profile.yang)"
    known = range_is_known(profile)
    return DynamicThRange(
        profile=profile.name,
        low=low if low is not None else SONIC_DYNAMIC_TH_MIN,
        high=high if high is not None else SONIC_DYNAMIC_TH_MAX,
        special=MappingProxyType(profile.dynamic_th_special_alphas),
        source=profile.dynamic_th_min.source if known else yang,
        special_source=profile.dynamic_th_special.source,
    )


def range_is_known(profile: VendorProfile) -> bool:
    """Whether the profile states its own range (not just SONiC's YANG bounds)."""
    return profile.dynamic_th_min.value is not None and profile.dynamic_th_max.value is not None


__all__ = ["DynamicThRange", "Verdict", "alpha_text", "dynamic_th_range", "range_is_known"]
