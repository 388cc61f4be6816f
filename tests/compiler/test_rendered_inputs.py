"""compiler/rendered_inputs.py: the intent field behind each refused config_db value."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.backends.sonic.checks.violation import Violation
from qosforge.compiler.loader import load_intent
from qosforge.compiler.rendered_inputs import rendered_value_error

MIXED = Path(__file__).resolve().parents[2] / "examples" / "mixed-fabric.yaml"


@pytest.mark.parametrize(("table", "key", "field", "place"), [
    ("WRED_PROFILE", "AZURE_LOSSLESS", "green_max_threshold", "classes[0].dcqcn.kmax"),  # storage: given kmax
    ("WRED_PROFILE", "AZURE_LOSSLESS", "green_min_threshold", "classes[0].dcqcn.kmin"),
    ("WRED_PROFILE", "bulk_100G", "green_min_threshold", "topology.switches"),  # DCTCP K follows the RTT
    ("PFC_WD", "Ethernet0", "restoration_time", "design.pfc_watchdog_restoration"),
    ("LOSSLESS_TRAFFIC_PATTERN", "AZURE", "mtu", "design.lossless_mtu"),
    ("BUFFER_PROFILE", "pg_lossless_100000_100m_profile", "xoff", "topology"),
])
def test_each_refused_value_points_at_the_input_that_drives_it(table: str, key: str, field: str, place: str) -> None:
    intent, source_map = load_intent(MIXED)
    error = rendered_value_error("leaf1", [Violation("out-of-range", table, key, field, "2147483648 >= 2^31")], intent, source_map)
    assert error is not None
    line = error.one_line()
    assert f": {place}: switch 'leaf1': the rendered config_db value {table}|{key}.{field} is refused" in line


def test_structural_violations_are_not_input_errors() -> None:
    intent, source_map = load_intent(MIXED)
    assert rendered_value_error("leaf1", [Violation("structure", "QUEUE", "", None, "x")], intent, source_map) is None
