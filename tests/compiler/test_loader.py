"""Intent loading: every kind of bad input names file:line:column, the field and a hint."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.port_names import expand_port_names

Writer = Callable[..., Path]


def test_valid_intent_loads_with_units_parsed(write_intent: Writer, base_intent: str) -> None:
    intent, source_map = load_intent(write_intent(base_intent))
    assert intent.topology.leaf_spine is not None
    assert intent.topology.leaf_spine.host_link.speed == 40e9
    assert intent.topology.leaf_spine.link_latency == pytest.approx(10e-6)
    assert intent.classes[0].dscp == [10]
    assert source_map.locate(("classes", 0, "dscp"))[:2] == (16, 5)


@pytest.mark.parametrize(
    ("old", "new", "line", "fragment", "hint"),
    [
        ("fabric_link: {speed: 40G, cable: 10m}", "fabric_link: {speed: 40GB, cable: 10m}", 10, "bytes per second", "bits per second"),
        ("dscp: [10]", "dscp: [10, 64]", 16, "less than or equal to 63", "0..63"),
        ("transport: dctcp", "transport: dctcpp", 15, "unknown transport 'dctcpp'", "accepted transports: tcp, dctcp, tbtcp, d2tcp, ear, dcqcn, irn"),
        ("    dscp: [10]", "    dscp: [10]\n    colour: red", 17, "unknown field", "allowed fields"),
        ("    dscp: [10]", "    dscp: [10]\n    lossles: true", 17, "unknown field", "did you mean 'lossless'"),
        ("spines: 2", "spines: two", 6, "integer", "whole number"),
        ("link_latency: 10us", "link_latency: 10", 11, "no unit", None),
        ("cable: 3m}", "cable: 3ft}", 9, "unknown length unit", None),
    ],
)
def test_bad_fields_are_located(write_intent: Writer, base_intent: str, old: str, new: str, line: int, fragment: str, hint: str | None) -> None:
    assert old in base_intent
    path = write_intent(base_intent.replace(old, new, 1))
    with pytest.raises(IntentError) as caught:
        load_intent(path)
    text = caught.value.one_line()
    assert text.startswith(f"{path}:{line}:"), text
    assert fragment in text
    if hint:
        assert hint in text
    assert "\n" not in text


def test_an_unknown_transport_lists_the_accepted_ones_and_why_hpcc_is_refused(write_intent: Writer, base_intent: str) -> None:
    path = write_intent(base_intent.replace("transport: dctcp", "transport: swift", 1))
    with pytest.raises(IntentError) as caught:
        load_intent(path)
    text = caught.value.one_line()
    # Before: "Input should be 'tcp', ..., 'hpcc' or 'irn' (hint: use one of ... 'hpcc' ...)", offering the refused HPCC.
    accepted = text.split("accepted transports: ")[1].split(" (")[0]
    assert accepted == "tcp, dctcp, tbtcp, d2tcp, ear, dcqcn, irn"
    assert "hpcc is refused: HPCC senders react to in-band network telemetry (INT)" in text and "\n" not in text


def test_malformed_yaml_is_located(write_intent: Writer) -> None:
    path = write_intent("apiVersion: qosforge/v1\nkind: [Fabric\nmetadata: {}\n")
    with pytest.raises(IntentError, match="malformed YAML") as caught:
        load_intent(path)
    assert caught.value.place is not None and caught.value.place.startswith(f"{path}:")


def test_duplicate_keys_are_errors(write_intent: Writer, base_intent: str) -> None:
    path = write_intent(base_intent.replace("kind: Fabric", "kind: Fabric\nkind: Fabric"))
    with pytest.raises(IntentError, match="duplicate key 'kind'"):
        load_intent(path)


def test_missing_file_and_non_mapping(tmp_path: Path, write_intent: Writer) -> None:
    with pytest.raises(IntentError, match="cannot read"):
        load_intent(tmp_path / "nope.yaml")
    with pytest.raises(IntentError, match="must be a mapping"):
        load_intent(write_intent("- 1\n- 2\n"))


def test_missing_required_field(write_intent: Writer, base_intent: str) -> None:
    path = write_intent(base_intent.replace("kind: Fabric\n", ""))
    with pytest.raises(IntentError, match="kind: Field required"):
        load_intent(path)


def test_port_ranges() -> None:
    assert expand_port_names("Ethernet[0-12/4]") == ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"]
    assert expand_port_names("Ethernet7") == ["Ethernet7"]
    with pytest.raises(ValueError):
        expand_port_names("Ethernet[5-1]")
    with pytest.raises(ValueError):
        expand_port_names("Ethernet[0-")


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abc:{}[]-, \n\t'\"#&*!|>%@`0123456789")), max_size=80))
def test_any_text_loads_or_fails_cleanly(write_intent: Writer, text: str) -> None:
    path = write_intent(text, name="fuzz.yaml")
    try:
        load_intent(path)
    except IntentError as error:
        assert error.place is not None
        assert "\n" not in error.one_line()


def test_a_duplicate_key_is_named_as_such(write_intent: Writer, base_intent: str) -> None:
    # Before: "malformed YAML: found duplicate key ..." with the hint "check indentation".
    path = write_intent(base_intent.replace("design:", "design:\n  alpha: 2\n  alpha: 4", 1) if "design:" in base_intent
                        else base_intent + "design:\n  alpha: 2\n  alpha: 4\n")
    with pytest.raises(IntentError) as caught:
        load_intent(path)
    line = caught.value.one_line()
    assert "duplicate key 'alpha': it appears twice in one mapping" in line and "indentation" not in line
    assert "keep one 'alpha'" in line
