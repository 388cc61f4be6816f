"""The dynamic_th reading compile and lint share (compiler/dynamic_th.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.dynamic_th import alpha_text, dynamic_th_range
from qosforge.vendor_profiles import load_vendor_profile, vendor_profile_names


@pytest.mark.parametrize("name", vendor_profile_names())
@settings(deadline=None)  # the first example parses the profile YAML
@given(exponent=st.integers(min_value=-20, max_value=20))
def test_verdict_partitions_the_exponents(name: str, exponent: int) -> None:
    accepted = dynamic_th_range(load_vendor_profile(name))
    verdict = accepted.verdict(exponent)
    assert (verdict == "outside") == (not accepted.low <= exponent <= accepted.high)
    assert (verdict == "ok") == (exponent in accepted.representable)
    if verdict == "ok":
        assert accepted.alpha(exponent) == 2.0**exponent


def test_mellanox_ends_and_broadcom_range() -> None:
    spectrum = dynamic_th_range(load_vendor_profile("mellanox-spectrum-2"))
    assert (spectrum.low, spectrum.high) == (-8, 7)
    assert spectrum.verdict(-8) == "no-shared-buffer" and spectrum.alpha(-8) == 0
    assert spectrum.verdict(7) == "unlimited" and math.isinf(spectrum.alpha(7))
    assert spectrum.representable == tuple(range(-7, 7))
    trident2 = dynamic_th_range(load_vendor_profile("broadcom-trident2"))
    assert trident2.representable == tuple(range(-7, 4)) and trident2.verdict(4) == "outside"


def test_unknown_range_falls_back_to_sonics_yang() -> None:
    tofino = dynamic_th_range(load_vendor_profile("barefoot-tofino-2"))
    assert (tofino.low, tofino.high) == (-8, 7) and "sonic-buffer-profile.yang" in tofino.source


def test_alpha_text() -> None:
    assert [alpha_text(a) for a in (2.0**-7, 0.5, 1.0, 8.0, math.inf)] == [
        "1/128",
        "1/2",
        "1",
        "8",
        "infinity",
    ]
