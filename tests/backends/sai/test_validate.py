"""The SAI metadata checks catch each kind of bad operation (negative tests on a valid program)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from qosforge.backends.sai import (
    QosMapEntry,
    SaiOperation,
    SaiProgram,
    SaiValidationError,
    check_program,
    program_objects,
    validate_program,
)
from qosforge.backends.sai.program import SaiValue


def _replace_op(program: SaiProgram, match: Callable[[SaiOperation], bool], change: Callable[[SaiOperation], SaiOperation]) -> SaiProgram:
    index = next(i for i, op in enumerate(program.operations) if match(op))
    operations = list(program.operations)
    operations[index] = change(operations[index])
    return dataclasses.replace(program, operations=tuple(operations))


def _with_attr(op: SaiOperation, name: str, value: SaiValue) -> SaiOperation:
    return dataclasses.replace(op, attributes=(*tuple((n, v) for n, v in op.attributes if n != name), (name, value)))


def _without_attr(op: SaiOperation, name: str) -> SaiOperation:
    return dataclasses.replace(op, attributes=tuple((n, v) for n, v in op.attributes if n != name))


def _is_create(object_type: str) -> Callable[[SaiOperation], bool]:
    return lambda op: op.op == "create" and op.object_type == object_type


def _rules(program: SaiProgram) -> set[str]:
    return {v.rule for v in check_program(program)}


def _append(program: SaiProgram, *ops: SaiOperation) -> SaiProgram:
    return dataclasses.replace(program, operations=program.operations + ops)


def test_rendered_program_is_clean_and_objects_are_final_state(program: SaiProgram) -> None:
    assert check_program(program) == []
    objects = program_objects(program)
    assert objects["switch"].attributes["SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE"] is True
    assert objects["wred:bulk_40G"].object_type == "SAI_OBJECT_TYPE_WRED"
    assert objects["queue:Ethernet0:0"].discovered


def test_missing_mandatory_attribute(program: SaiProgram) -> None:
    bad = _replace_op(program, _is_create("SAI_OBJECT_TYPE_BUFFER_POOL"), lambda op: _without_attr(op, "SAI_BUFFER_POOL_ATTR_SIZE"))
    found = check_program(bad)
    assert [(v.rule, v.attribute) for v in found] == [("missing-mandatory", "SAI_BUFFER_POOL_ATTR_SIZE")]
    with pytest.raises(SaiValidationError, match="SAI_BUFFER_POOL_ATTR_SIZE is MANDATORY_ON_CREATE") as caught:
        validate_program(bad)
    assert "create SAI_OBJECT_TYPE_BUFFER_POOL buffer_pool:" in str(caught.value.place)


def test_wrong_enum_value(program: SaiProgram) -> None:
    bad = _replace_op(program, _is_create("SAI_OBJECT_TYPE_WRED"), lambda op: _with_attr(op, "SAI_WRED_ATTR_ECN_MARK_MODE", "SAI_ECN_MARK_MODE_PURPLE"))
    found = check_program(bad)
    assert found[0].rule == "bad-enum" and "SAI_ECN_MARK_MODE_PURPLE" in found[0].message


def test_dangling_reference(program: SaiProgram) -> None:
    bad = _replace_op(program, lambda op: op.op == "set" and op.object_type == "SAI_OBJECT_TYPE_QUEUE",
                      lambda op: dataclasses.replace(op, attributes=((op.attributes[0][0], "buffer_profile:nowhere"),)))
    found = check_program(bad)
    assert [v.rule for v in found] == ["dangling-reference"] and "buffer_profile:nowhere" in found[0].message


def test_reference_used_before_its_create_is_dangling(program: SaiProgram) -> None:
    wred_create = next(op for op in program.operations if op.op == "create" and op.object_type == "SAI_OBJECT_TYPE_WRED")
    reordered = (*tuple(op for op in program.operations if op is not wred_create), wred_create)
    assert "dangling-reference" in _rules(dataclasses.replace(program, operations=reordered))


def test_create_only_attribute_set_later(program: SaiProgram) -> None:
    bad = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_BUFFER_POOL", "buffer_pool:ingress_lossless_pool",
                                        (("SAI_BUFFER_POOL_ATTR_TYPE", "SAI_BUFFER_POOL_TYPE_EGRESS"),)))
    assert [v.rule for v in check_program(bad)] == ["create-only-set"]
    key = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_QUEUE", "queue:Ethernet0:0", (("SAI_QUEUE_ATTR_INDEX", 3),)))
    assert [v.rule for v in check_program(key)] == ["create-only-set"]


def test_conditional_attribute_only_when_its_condition_holds(program: SaiProgram) -> None:
    both = _replace_op(program, _is_create("SAI_OBJECT_TYPE_BUFFER_PROFILE"), lambda op: _with_attr(op, "SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH", 1000))
    assert [v.rule for v in check_program(both)] == ["condition-not-met"]
    neither = _replace_op(program, _is_create("SAI_OBJECT_TYPE_BUFFER_PROFILE"), lambda op: _without_attr(op, "SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH"))
    found = check_program(neither)
    assert [(v.rule, v.attribute) for v in found] == [("missing-mandatory", "SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH")]


def test_validonly_threshold_without_its_color(program: SaiProgram) -> None:
    bad = _replace_op(program, _is_create("SAI_OBJECT_TYPE_WRED"), lambda op: _with_attr(op, "SAI_WRED_ATTR_YELLOW_MIN_THRESHOLD", 1000))
    assert [v.rule for v in check_program(bad)] == ["validonly-not-met"]


@pytest.mark.parametrize(("attribute", "value", "rule"), [
    ("SAI_WRED_ATTR_GREEN_DROP_PROBABILITY", 101, "out-of-range"),
    ("SAI_WRED_ATTR_WEIGHT", 16, "out-of-range"),
    ("SAI_WRED_ATTR_WEIGHT", 256, "out-of-range"),
    ("SAI_WRED_ATTR_GREEN_MIN_THRESHOLD", 2**32, "out-of-range"),
    ("SAI_WRED_ATTR_GREEN_MIN_THRESHOLD", 10**9, "min-gt-max"),
    ("SAI_WRED_ATTR_GREEN_MIN_THRESHOLD_64", 1000, "threshold-32-and-64"),
    ("SAI_WRED_ATTR_WEIGHT", True, "bad-type"),
    ("SAI_WRED_ATTR_RED_ENABLE", 1, "bad-type"),
    ("SAI_WRED_ATTR_COLOR", 1, "unknown-attribute"),
    ("SAI_QUEUE_ATTR_WRED_PROFILE_ID", None, "unknown-attribute"),
])
def test_wred_ranges_and_types(program: SaiProgram, attribute: str, value: SaiValue, rule: str) -> None:
    bad = _replace_op(program, _is_create("SAI_OBJECT_TYPE_WRED"), lambda op: _with_attr(op, attribute, value))
    assert rule in _rules(bad)


def test_scheduler_weight_zero_is_invalid(program: SaiProgram) -> None:
    bad = _replace_op(program, lambda op: _is_create("SAI_OBJECT_TYPE_SCHEDULER")(op) and "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT" in dict(op.attributes),
                      lambda op: _with_attr(op, "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT", 0))
    assert _rules(bad) == {"out-of-range"}


def test_read_only_and_duplicate_and_two_attribute_set(program: SaiProgram) -> None:
    read_only = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_PORT", "port:Ethernet0", (("SAI_PORT_ATTR_QOS_NUMBER_OF_QUEUES", 4),)))
    assert _rules(read_only) == {"read-only"}
    duplicate = _replace_op(program, _is_create("SAI_OBJECT_TYPE_WRED"), lambda op: dataclasses.replace(op, attributes=(*op.attributes, op.attributes[0])))
    assert _rules(duplicate) == {"duplicate-attribute"}
    two = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_PORT", "port:Ethernet0", (("SAI_PORT_ATTR_QOS_DEFAULT_TC", 0), ("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL", 0))))
    assert _rules(two) == {"set-one-attribute"}
    again = _append(program, next(op for op in program.operations if op.op == "create"))
    assert _rules(again) == {"duplicate-object"}


def test_reference_to_the_wrong_object_type_and_null(program: SaiProgram) -> None:
    wrong = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_QUEUE", "queue:Ethernet0:1", (("SAI_QUEUE_ATTR_WRED_PROFILE_ID", "buffer_pool:ingress_lossless_pool"),)))
    assert _rules(wrong) == {"wrong-object-type"}
    null_ok = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_QUEUE", "queue:Ethernet0:1", (("SAI_QUEUE_ATTR_WRED_PROFILE_ID", None),)))
    assert check_program(null_ok) == []
    null_bad = _replace_op(program, _is_create("SAI_OBJECT_TYPE_BUFFER_PROFILE"), lambda op: _with_attr(op, "SAI_BUFFER_PROFILE_ATTR_POOL_ID", None))
    assert "null-not-allowed" not in _rules(null_bad)  # POOL_ID is @allownull true (saibuffer.h:672)
    port_null = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_SCHEDULER_GROUP", "scheduler_group:Ethernet0:1", (("SAI_SCHEDULER_GROUP_ATTR_PARENT_NODE", None),)))
    assert "null-not-allowed" in _rules(port_null)


def test_map_bound_to_the_wrong_port_attribute(program: SaiProgram) -> None:
    bad = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_PORT", "port:Ethernet0", (("SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP", "qos_map:tc_to_queue"),)))
    found = check_program(bad)
    assert [v.rule for v in found] == ["map-type-mismatch"] and "SAI_QOS_MAP_TYPE_DSCP_TO_TC" in found[0].message


def test_map_entries_use_the_fields_of_their_type_within_range(program: SaiProgram) -> None:
    def entries(*pairs: QosMapEntry) -> Callable[[SaiOperation], SaiOperation]:
        return lambda op: _with_attr(op, "SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST", pairs)

    is_dscp_map = lambda op: op.op == "create" and op.object_id == "qos_map:dscp_to_tc"  # noqa: E731
    assert _rules(_replace_op(program, is_dscp_map, entries(QosMapEntry((("tc", 1),), (("tc", 1),))))) == {"map-field"}
    assert _rules(_replace_op(program, is_dscp_map, entries(QosMapEntry((("dscp", 64),), (("tc", 1),))))) == {"out-of-range"}
    twice = QosMapEntry((("dscp", 1),), (("tc", 1),))
    assert _rules(_replace_op(program, is_dscp_map, entries(twice, twice))) == {"duplicate-map-key"}
    is_queue_map = lambda op: op.op == "create" and op.object_id == "qos_map:tc_to_queue"  # noqa: E731
    beyond = QosMapEntry((("tc", 1),), (("qidx", program.inventory.queues_per_port),))
    assert _rules(_replace_op(program, is_queue_map, entries(beyond))) == {"out-of-range"}


def test_buffer_profile_of_the_wrong_direction(program: SaiProgram) -> None:
    bad = _append(program, SaiOperation("set", "SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP", "ipg:Ethernet0:0",
                                        (("SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE", "buffer_profile:egress_lossy_profile"),)))
    assert _rules(bad) == {"buffer-pool-direction"}


def test_discovery_must_match_the_switch_inventory(program: SaiProgram) -> None:
    shorter = _replace_op(program, lambda op: op.op == "get" and op.attributes[0][0] == "SAI_PORT_ATTR_QOS_QUEUE_LIST",
                          lambda op: dataclasses.replace(op, attributes=((op.attributes[0][0], op.attributes[0][1][:-1]),)))  # type: ignore[index]
    assert _rules(shorter) == {"discovery-mismatch"}
    undiscovered = dataclasses.replace(program, operations=tuple(op for op in program.operations if op.object_id != "switch" or op.op != "get"))
    assert "dangling-reference" in _rules(undiscovered)
