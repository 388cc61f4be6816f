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
