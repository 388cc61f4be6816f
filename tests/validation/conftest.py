"""Shared setup of the validation suite: each example intent compiled for SAI and loaded into the
software switch (intent -> IR -> SAI program -> switch), once per session.

Where an example's vendor profile does not state something the software switch needs, the
fixture says so and the scenarios that need it do not apply (see APPLICABILITY).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from qosforge.backends.sai import SaiOperation, SaiProgram
from qosforge.softswitch.config import SwitchConfig, load_switch_program
from qosforge.softswitch.helper.compiled import CompiledSwitch, compile_for_softswitch

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: RED quantisation the Spectrum-2 profile leaves unknown. It is assumed only where the scenario's
#: result cannot depend on it: traffic that is not ECN-capable (PFC, dynamic thresholds) or a DCTCP
#: step with min = max, whose curve is 0 up to K and 1 above for any step count.
STEP_INDEPENDENT = {"red.steps": "1", "red.step_offset": "1"}
ASSUMPTIONS = {"roce-pod": STEP_INDEPENDENT, "mixed-fabric": STEP_INDEPENDENT}


@functools.cache
def compiled(example: str) -> CompiledSwitch:
    return compile_for_softswitch(EXAMPLES / f"{example}.yaml", None, assume=ASSUMPTIONS.get(example))


def with_profile_values(program: SaiProgram, attribute: str, scale: float, *, assume: dict[str, str] | None = None) -> SwitchConfig:
    """The program with every buffer profile's ``attribute`` scaled (e.g. headroom cut by 30 %)."""
    operations = []
    for op in program.operations:
        if op.object_type == "SAI_OBJECT_TYPE_BUFFER_PROFILE" and any(name == attribute for name, _ in op.attributes):
            attributes = tuple((name, round(value * scale) if name == attribute and isinstance(value, int) else value) for name, value in op.attributes)
            op = SaiOperation(op.op, op.object_type, op.object_id, attributes)
        operations.append(op)
    return load_switch_program(replace(program, operations=tuple(operations)), assume=assume)


@pytest.fixture(scope="session")
def load_example() -> Callable[[str], CompiledSwitch]:
    """``load_example(name)``: the first switch of ``examples/<name>.yaml`` in the software switch."""
    return compiled


@pytest.fixture(scope="session")
def scaled_program() -> Callable[..., SwitchConfig]:
    return with_profile_values
