"""compiler/rendered_inputs.py: the intent field behind each value a target refuses, found from the
value's IR path (the sonic target maps its config_db field to that path; no name is parsed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.backends.phases import RenderValueError
from qosforge.backends.sonic.checks.violation import Violation
from qosforge.backends.sonic.explain import value_error
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent
from qosforge.compiler.rendered_inputs import rendered_value_error

MIXED = Path(__file__).resolve().parents[2] / "examples" / "mixed-fabric.yaml"


@pytest.mark.parametrize(("table", "key", "field", "place"), [
    ("WRED_PROFILE", "AZURE_LOSSLESS", "green_max_threshold", "classes[0].dcqcn.kmax"),  # storage: given kmax
    ("WRED_PROFILE", "AZURE_LOSSLESS", "green_min_threshold", "classes[0].dcqcn.kmin"),
    ("WRED_PROFILE", "bulk_100G", "green_min_threshold", "topology.switches"),  # DCTCP K follows the RTT
    ("PFC_WD", "Ethernet0", "restoration_time", "design.pfc_watchdog_restoration"),
    ("BUFFER_PROFILE", "pg_lossless_100000_100m_profile", "xoff", "topology"),
    ("BUFFER_PROFILE", "egress_lossy_profile", "dynamic_th", "design.alpha"),
])
def test_each_refused_value_points_at_the_input_that_drives_it(table: str, key: str, field: str, place: str) -> None:
    intent, source_map = load_intent(MIXED)
    switches = compile_intent(intent, source_map, switches=("leaf1",), targets=("sonic",)).for_target("sonic")
    refused = value_error(switches[0], [Violation("out-of-range", table, key, field, "2147483648 >= 2^31")])
    assert refused is not None and refused.ir_path  # the config_db field maps to one IR value
    line = rendered_value_error(refused, switches, intent, source_map).one_line()
    assert f": {place}: switch 'leaf1': the rendered config_db value {table}|{key}.{field} is refused" in line


def test_structural_violations_are_not_input_errors() -> None:
    intent, source_map = load_intent(MIXED)
    switch = compile_intent(intent, source_map, switches=("leaf1",), targets=("sonic",)).for_target("sonic")[0]
    assert value_error(switch, [Violation("structure", "QUEUE", "", None, "x")]) is None


def test_the_port_list_points_at_what_gives_the_switch_its_ports() -> None:
    intent, source_map = load_intent(MIXED)
    switches = compile_intent(intent, source_map, switches=("leaf1",), targets=("sai",)).for_target("sai")
    error = RenderValueError("leaf1", ("ports",), "switch leaf1: too many ports", hint="use fewer")
    line = rendered_value_error(error, switches, intent, source_map).one_line()
    # leaf1's port list starts on line 14 of mixed-fabric.yaml; the whole list is at fault, so no field is named
    assert line == f"{MIXED}:14:11: switch leaf1: too many ports (hint: use fewer)"
