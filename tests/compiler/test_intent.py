"""The intent schema: defaults of the right type, DSCP bounds, TBTCP beta, the exported JSON Schema."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from qosforge.compiler.intent import (
    Design,
    FastLaneSpec,
    Intent,
    LinkSpec,
    PortSpec,
    TbtcpSpec,
    intent_json_schema,
)
from qosforge.compiler.loader import IntentError, load_intent

Writer = Callable[..., Path]


def _defaults(schema: dict[str, Any]) -> list[tuple[str, str, Any, Any]]:
    """(model, field, JSON type, default) of every field with a default."""
    found = []
    for model, definition in schema["$defs"].items():
        for field, prop in definition.get("properties", {}).items():
            if "default" in prop and prop.get("type") is not None:
                found.append((model, field, prop["type"], prop["default"]))
    return found


def test_exported_schema_names_its_dialect_and_bounds_dscp() -> None:
    schema = intent_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    dscp_items = schema["$defs"]["ClassSpec"]["properties"]["dscp"]["items"]
    assert dscp_items["minimum"] == 0 and dscp_items["maximum"] == 63
    important = schema["$defs"]["TltSpec"]["properties"]["important_dscp"]["items"]
    assert important["maximum"] == 63


def test_every_default_has_its_declared_json_type() -> None:
    python_types = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list}
    defaults = _defaults(intent_json_schema())
    assert ("Design", "mtu", "string", "1500B") in defaults
    assert ("LinkSpec", "cable", "string", "3m") in defaults
    for model, field, json_type, default in defaults:
        assert isinstance(default, python_types[json_type]), f"{model}.{field}: default {default!r} is not a {json_type}"


@pytest.mark.parametrize("model", [Design, LinkSpec, PortSpec, TbtcpSpec, FastLaneSpec])
def test_writing_every_default_literally_is_accepted(model: type[Any]) -> None:
    schema = model.model_json_schema()
    required = {"speed": "40G", "name": "Ethernet0", "dscp": 5}
    literal = {name: prop["default"] for name, prop in schema["properties"].items() if "default" in prop and prop["default"] is not None}
    literal |= {name: required[name] for name in schema.get("required", [])}
    written = model.model_validate(literal)
    assert written == model.model_validate({name: required[name] for name in schema.get("required", [])})


def test_design_defaults_are_parsed_quantities() -> None:
    design = Design()
    assert (design.mtu, design.lso_burst, design.lossless_mtu, design.port_mtu) == (1500.0, 64_000.0, 1024.0, 9100.0)
    assert design.pfc_watchdog_detection == pytest.approx(0.2)
    assert LinkSpec(speed="40G").cable == 3.0  # type: ignore[arg-type]


@pytest.mark.parametrize("beta", [0, 0.5, 1, 7, -0.1])
def test_tbtcp_beta_is_a_fraction_below_one_half(beta: float) -> None:
    with pytest.raises(ValidationError):
        TbtcpSpec(beta=beta)


def test_tbtcp_beta_defaults_to_the_papers_value() -> None:
    assert TbtcpSpec().beta == 0.1


def test_misspelt_key_is_reported_as_unknown_with_a_suggestion(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError) as caught:
        load_intent(write_intent(base_intent.replace("hosts_per_leaf", "host_per_leaf")))
    line = caught.value.one_line()
    assert "unknown field 'host_per_leaf'" in line
    assert "did you mean 'hosts_per_leaf'" in line
    assert ":8:5:" in line  # the misspelt key's line, not the generator block's


@pytest.mark.parametrize("old,new", [("dscp: [10]", "dscp: [64]"), ("dscp: [10]", "dscp: [-1]")])
def test_dscp_outside_six_bits_is_located(write_intent: Writer, base_intent: str, old: str, new: str) -> None:
    with pytest.raises(IntentError) as caught:
        load_intent(write_intent(base_intent.replace(old, new)))
    line = caught.value.one_line()
    assert "classes[0].dscp[0]" in line and "0..63" in line


def test_intent_model_round_trips_a_minimal_document() -> None:
    Intent.model_validate({"apiVersion": "qosforge/v1", "kind": "Fabric", "metadata": {"name": "x"}, "topology": {"leaf_spine": {"spines": 1, "leaves": 1, "hosts_per_leaf": 1, "host_link": {"speed": "40G"}, "fabric_link": {"speed": "40G"}, "link_latency": "1us", "leaf_profile": "broadcom-trident2"}}, "classes": [{"name": "a", "transport": "tcp", "dscp": [0]}]})


@pytest.mark.parametrize(("written", "expected"), [("1%", 1.0), ("'20%'", 20.0), ("0.01", None), ("'0.01'", None), ("1", None), ("150%", None)])
def test_dcqcn_pmax_is_a_percentage_with_its_sign(write_intent: Writer, base_intent: str, written: str, expected: float | None) -> None:
    # P_max is shown in percent everywhere (whatif, report, explain, lint); a bare number could be
    # either unit, so only the unambiguous spelling with % is accepted.
    text = base_intent + f"  - {{name: roce, transport: dcqcn, dscp: [26], lossless: true, dcqcn: {{pmax: {written}}}}}\n"
    if expected is None:
        with pytest.raises(IntentError) as caught:
            load_intent(write_intent(text))
        assert "dcqcn.pmax" in caught.value.one_line() and "%" in caught.value.one_line()
        return
    intent, _ = load_intent(write_intent(text))
    spec = intent.classes[-1].dcqcn
    assert spec is not None and spec.pmax == expected
