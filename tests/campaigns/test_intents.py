"""--set on an intent: paths by key, index and item name; the compiler's loader validates."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from qosforge.campaigns.intents import (
    apply_assignments,
    parse_assignment,
    read_intent,
    validate_assigned,
)
from qosforge.errors import QosforgeError

INTENT = Path(__file__).resolve().parents[2] / "examples" / "tlt-softswitch.yaml"


def _load(text: str) -> dict:  # type: ignore[type-arg]
    return YAML(typ="safe").load(text)  # type: ignore[no-any-return]


def test_values_are_yaml_scalars_and_ranges_expand() -> None:
    assert parse_assignment("design.alpha=1,2,4").axis.values == (1, 2, 4)
    assert parse_assignment("classes.bulk.rtt=20us:80us:4").axis.values == ("20us", "40us", "60us", "80us")
    assert parse_assignment("design.alpha=0.5").axis.values == (0.5,)


@pytest.mark.parametrize("text", ["design.alpha", "=1", "design..alpha=1", "design.alpha="])
def test_malformed_assignments(text: str) -> None:
    with pytest.raises(QosforgeError, match="PATH=VALUES"):
        parse_assignment(text)


def test_set_by_key_index_and_name_keeps_the_rest() -> None:
    intent = read_intent(str(INTENT))
    sets = (parse_assignment("design.alpha=2"), parse_assignment("classes.bulk.rtt=40us"), parse_assignment("classes.0.weight=3"))
    text = apply_assignments(intent, {"design.alpha": 2, "classes.bulk.rtt": "40us", "classes.0.weight": 3}, sets)
    data = _load(text)
    assert data["design"]["alpha"] == 2 and data["design"]["congested_ports"] == 16
    assert data["classes"][0]["rtt"] == "40us" and data["classes"][0]["weight"] == 3
    assert "# TLT §4.2's worked example" in text  # comments survive the round trip
    validate_assigned(intent, text, {"design.alpha": 2}, sets[:1])


def test_a_missing_section_is_created_for_the_loader_to_judge(tmp_path: Path) -> None:
    source = tmp_path / "plain.yaml"
    source.write_text("\n".join(line for line in INTENT.read_text().splitlines() if not line.startswith(("design:", "  congested_ports", "  alpha", "  mtu"))) + "\n")
    intent = read_intent(str(source))
    assignment = parse_assignment("design.alpha=4")
    assert _load(apply_assignments(intent, {"design.alpha": 4}, (assignment,)))["design"] == {"alpha": 4}


@pytest.mark.parametrize(("assignment", "value", "message"), [
    ("design.alfa=1", 1, "design.alfa: unknown field"),
    ("design.alpha=0", 0, "greater than 0"),
    ("classes.bulk.rtt=fast", "fast", "classes"),
])
def test_the_loader_rejects_bad_values_at_the_set(assignment: str, value: object, message: str) -> None:
    intent = read_intent(str(INTENT))
    parsed = parse_assignment(assignment)
    text = apply_assignments(intent, {parsed.path: value}, (parsed,))
    with pytest.raises(QosforgeError, match=message) as raised:
        validate_assigned(intent, text, {parsed.path: value}, (parsed,))
    assert raised.value.place == f"--set {parsed.path}={value}"


@pytest.mark.parametrize(("assignment", "message"), [("classes.nope.rtt=1us", "no list item named 'nope'"), ("classes.5.rtt=1us", "past the end"),
                                                     ("metadata.name.x=1", "below a value")])
def test_paths_that_do_not_resolve(assignment: str, message: str) -> None:
    intent = read_intent(str(INTENT))
    parsed = parse_assignment(assignment)
    with pytest.raises(QosforgeError, match=message):
        apply_assignments(intent, {parsed.path: parsed.axis.values[0]}, (parsed,))


def test_a_missing_intent_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(QosforgeError, match="cannot read"):
        read_intent(str(tmp_path / "absent.yaml"))
