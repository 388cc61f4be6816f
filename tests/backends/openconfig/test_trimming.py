"""OpenConfig cannot carry packet trimming: refused, or recorded with the values to set natively."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.backends.openconfig.capabilities import POOLS_OUT_OF_BAND, TRIMMING_OUT_OF_BAND
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "trim-pod.yaml"


def test_trimming_is_refused_without_the_approximation() -> None:
    intent, source_map = load_intent(EXAMPLE)
    with pytest.raises(IntentError) as caught:
        compile_intent(
            intent,
            source_map,
            targets=("openconfig",),
            accepted_approximations=(POOLS_OUT_OF_BAND,),
        )
    line = caught.value.one_line()
    assert "classes[0].trim" in line and "packet trimming" in line and TRIMMING_OUT_OF_BAND in line


def test_the_accepted_approximation_names_the_values_to_set_natively() -> None:
    intent, source_map = load_intent(EXAMPLE)
    fabric = compile_intent(
        intent,
        source_map,
        targets=("openconfig",),
        switches=("leaf1",),
        accepted_approximations=(POOLS_OUT_OF_BAND, TRIMMING_OUT_OF_BAND),
    )
    gaps = [
        g
        for g in fabric.for_target("openconfig")[0].gaps
        if g.approximation == TRIMMING_OUT_OF_BAND
    ]
    assert [g.class_name for g in gaps] == ["rdma"]
    detail = gaps[0].detail
    assert (
        "trim size 256 B" in detail
        and "DSCP 11" in detail
        and "queue 7" in detail
        and "queue(s) 1" in detail
    )
