"""The software switch's ASIC model from a vendor profile and the operator's ``--assume`` values."""

from __future__ import annotations

import pytest

from qosforge.errors import QosforgeError
from qosforge.softswitch.asic import asic_from_profile


@pytest.mark.parametrize(("field", "assume"), [("red.steps", {"red.steps": "0", "red.step_offset": "0"}),
                                               ("red.step_offset", {"red.steps": "8", "red.step_offset": "2"})])
def test_a_bad_assumed_red_value_is_placed_at_the_assume_flag(field: str, assume: dict[str, str]) -> None:
    # mellanox-spectrum-2 leaves the RED quantisation unknown, so both fields come from --assume.
    with pytest.raises(QosforgeError) as caught:
        asic_from_profile("mellanox-spectrum-2", assume)
    assert caught.value.place == f"--assume {field}"


def test_the_switch_reads_dynamic_th_as_compile_and_lint_do() -> None:
    """One alpha conversion (models/dynamic_threshold.py alpha_from_dynamic_th): the emulated
    Spectrum-2 reads dynamic_th 7 as alpha infinity and -8 as 0 (mlnx_sai/src/mlnx_sai_buffer.c
    sai_buffer_alpha_bounds_t), as compile's queue limits and lint do, not 2^7 = 128."""
    import math

    from qosforge.compiler.dynamic_th import dynamic_th_range
    from qosforge.softswitch.config import BufferProfileConfig
    from qosforge.vendor_profiles import load_vendor_profile

    for name in ("mellanox-spectrum-2", "softswitch"):
        chip = asic_from_profile(name, {"red.steps": "8", "red.step_offset": "0.5"} if "spectrum" in name else None)
        accepted = dynamic_th_range(load_vendor_profile(name))
        for exponent in range(accepted.low, accepted.high + 1):
            profile = BufferProfileConfig("p", "pool", 0, exponent, None, 0, 0, 0, dynamic_th_special=chip.dynamic_th_special)
            assert profile.alpha == accepted.alpha(exponent), (name, exponent)
    spectrum = dict(asic_from_profile("mellanox-spectrum-2", {"red.steps": "8", "red.step_offset": "0.5"}).dynamic_th_special)
    assert spectrum[-8] == 0.0 and math.isinf(spectrum[7])
