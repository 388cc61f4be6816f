"""Walk a SAI program through the checks SAI's metadata implies, before anything is written.

The generic checks are the ones sairedis' ``Meta::meta_generic_validation_{create,set}`` performs
(sonic-sairedis vslib/): the attribute exists for the object type, no duplicates, not
READ_ONLY, CREATE_ONLY/KEY never set, enum values allowed, object ids exist, have an allowed
type and are null only where ``@allownull``, mandatory attributes present, conditional attributes
present exactly when their ``@condition`` holds. qosforge adds what sairedis leaves to the
vendor (sonic-sairedis meta/Meta.cpp does not check it): ``@validonly`` must hold for every attribute we set, and
the QoS semantics of :mod:`qosforge.backends.sai.semantics` (ranges, min <= max, map types and
fields, buffer directions, discovery against the switch inventory).

The walk keeps each object's attributes, so :func:`program_objects` gives the final state the
software switch configures itself from.
"""

from __future__ import annotations

from collections.abc import Mapping

from qosforge.backends.sai.memo import BoundedMemo, operations_key
from qosforge.backends.sai.metadata import (
    INTEGER_RANGES,
    AttributeMetadata,
    Condition,
    SaiMetadata,
    sai_metadata,
)
from qosforge.backends.sai.program import (
    SWITCH_ID,
    MapListEntry,
    QosMapEntry,
    SaiOperation,
    SaiProgram,
    SaiValue,
)
from qosforge.backends.sai.semantics import check_discovery, check_operation
from qosforge.backends.sai.walk import SaiObject, SaiViolation, Walk
from qosforge.errors import QosforgeError

#: Symbolic-id prefixes of objects the switch creates itself (program.py).
DISCOVERED_PREFIXES = {
    "port": "SAI_OBJECT_TYPE_PORT",
    "queue": "SAI_OBJECT_TYPE_QUEUE",
    "ipg": "SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP",
    "scheduler_group": "SAI_OBJECT_TYPE_SCHEDULER_GROUP",
}


class SaiValidationError(QosforgeError):
    """A SAI operation that SAI (or the QoS semantics behind it) would reject."""


def _type_of_discovered(object_id: str) -> str | None:
    return DISCOVERED_PREFIXES.get(object_id.split(":", 1)[0])


def _check_scalar(walk: Walk, meta: AttributeMetadata, value: SaiValue) -> None:
    name = meta.name
    if meta.enum is not None:
        values = walk.metadata.enums.get(meta.enum)
        if values is None:
            walk.flag("enum-unknown", name, f"{name} is of enum {meta.enum}, whose values the bundled SAI metadata does not list", "leave this attribute at its default")
        elif not isinstance(value, str) or value not in values:
            sample = ", ".join(list(values)[:8])
            walk.flag("bad-enum", name, f"{name}={value!r} is not a value of {meta.enum}", f"use one of: {sample}")
        return
    if meta.value_type == "BOOL":
        if not isinstance(value, bool):
            walk.flag("bad-type", name, f"{name}={value!r} must be a bool", "write true or false")
        return
    low_high = INTEGER_RANGES.get(meta.value_type)
    if low_high is not None:
        if isinstance(value, bool) or not isinstance(value, int):
            walk.flag("bad-type", name, f"{name}={value!r} must be an integer ({meta.value_type})", "write a decimal integer")
        elif not low_high[0] <= value <= low_high[1]:
            hint = "use the _64 attribute for values of 2^32 bytes or more" if meta.value_type == "UINT32" and meta.name + "_64" in walk.metadata.attributes else f"keep it within {low_high[0]}..{low_high[1]}"
            walk.flag("out-of-range", name, f"{name}={value} does not fit SAI type {meta.value_type} ({low_high[0]}..{low_high[1]})", hint)


def _check_reference(walk: Walk, meta: AttributeMetadata, value: object, *, discovering: bool) -> None:
    name = meta.name
    if value is None:
        if not meta.allow_null:
            walk.flag("null-not-allowed", name, f"{name} cannot be SAI_NULL_OBJECT_ID", f"reference an object of type {', '.join(meta.object_types)}")
        return
    if not isinstance(value, str):
        walk.flag("bad-type", name, f"{name}={value!r} must be an object id", "write a symbolic object id")
        return
    target = walk.objects.get(value)
    if target is None and discovering:
        discovered_type = _type_of_discovered(value)
        if discovered_type is None or discovered_type not in meta.object_types:
            walk.flag("wrong-object-type", name, f"{name} lists {value!r}, which is not a pre-existing {' or '.join(meta.object_types)} id", "discovered ids are port:<name>, queue:<port>:<n>, ipg:<port>:<n>, scheduler_group:<port>:<n>")
            return
        walk.objects[value] = SaiObject(discovered_type, discovered=True)
        return
    if target is None:
        walk.flag("dangling-reference", name, f"{name}={value} references an object that is not created or discovered before this operation", "create the object first (dependency order: pools, profiles, WRED/maps/schedulers, then sets)")
    elif target.object_type not in meta.object_types:
        walk.flag("wrong-object-type", name, f"{name}={value} is a {target.object_type}, but the attribute takes {', '.join(meta.object_types)}", f"reference an object of type {', '.join(meta.object_types)}")


def _check_value(walk: Walk, meta: AttributeMetadata, value: SaiValue, *, discovering: bool = False) -> None:
    kind = meta.value_type
    if kind == "OBJECT_ID":
        _check_reference(walk, meta, value, discovering=discovering)
    elif kind == "OBJECT_LIST":
        if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
            walk.flag("bad-type", meta.name, f"{meta.name} must be a list of object ids", "write a list of symbolic ids")
            return
        if len(set(value)) != len(value):
            walk.flag("duplicate-in-list", meta.name, f"{meta.name} lists an object twice", "list each object once")
        for item in value:
            _check_reference(walk, meta, item, discovering=discovering)
    elif kind == "QOS_MAP_LIST":
        if not isinstance(value, tuple) or not all(isinstance(v, QosMapEntry) for v in value):
            walk.flag("bad-type", meta.name, f"{meta.name} must be a QoS map list", 'write [{"key": {...}, "value": {...}}]')
    elif kind == "MAP_LIST":
        if not isinstance(value, tuple) or not all(isinstance(v, MapListEntry) for v in value):
            walk.flag("bad-type", meta.name, f"{meta.name} must be a map list", 'write [{"key": k, "value": v}]')
    elif kind in ("POINTER", "CHARDATA", "UINT32_LIST", "UINT32_RANGE"):
        walk.flag("unsupported-type", meta.name, f"{meta.name} has SAI type {kind}, which a QoS program must not carry", "remove the attribute")
    else:
        _check_scalar(walk, meta, value)


def _effective(meta: SaiMetadata, attribute: str, values: Mapping[str, SaiValue]) -> object:
    """The attribute's value, or its metadata default (as ``sai_metadata_is_condition_met``)."""
    if attribute in values:
        return values[attribute]
    default = meta.attributes[attribute].default
    return {"true": True, "false": False}.get(default, default)


def _holds(meta: SaiMetadata, conditions: tuple[Condition, ...], values: Mapping[str, SaiValue]) -> bool:
    return any(c.holds(_effective(meta, c.attribute, values)) for c in conditions)


def _check_attribute_known(walk: Walk, op: SaiOperation, name: str) -> AttributeMetadata | None:
    meta = walk.metadata.attribute(name)
    if meta is None or meta.object_type != op.object_type:
        candidates = [a.name for a in walk.metadata.attributes_of(op.object_type)]
        close = [c for c in candidates if name.rsplit("_ATTR_", 1)[-1][:6] in c]
        hint = f"did you mean {close[0]}?" if close else f"{op.object_type} attributes start with {op.object_type.replace('SAI_OBJECT_TYPE_', 'SAI_')}_ATTR_"
        owner = f" (it belongs to {meta.object_type})" if meta is not None else ""
        walk.flag("unknown-attribute", name, f"{name} is not an attribute of {op.object_type}{owner}", hint)
        return None
    return meta


def _check_validonly(walk: Walk, obj: SaiObject, names: list[str]) -> None:
    for name in names:
        meta = walk.metadata.attributes[name]
        if meta.valid_only and not _holds(walk.metadata, meta.valid_only, obj.attributes):
            needed = " or ".join(f"{c.attribute}={c.value}" for c in meta.valid_only)
            walk.flag("validonly-not-met", name, f"{name} has no effect unless {needed} (@validonly)", f"set {meta.valid_only[0].attribute} accordingly, or drop {name}")


def _create(walk: Walk, op: SaiOperation) -> None:
    if op.object_id in walk.objects:
        walk.flag("duplicate-object", None, f"{op.object_id} already exists", "give every created object its own id")
        return
    if op.object_type not in walk.metadata.object_types():
        walk.flag("unknown-object-type", None, f"{op.object_type} is not a SAI QoS object type qosforge knows", f"use one of: {', '.join(sorted(walk.metadata.object_types()))}")
        return
    values: dict[str, SaiValue] = {}
    for name, value in op.attributes:
        meta = _check_attribute_known(walk, op, name)
        if meta is None:
            continue
        if name in values:
            walk.flag("duplicate-attribute", name, f"{name} appears twice", "give each attribute once")
        if meta.read_only:
            walk.flag("read-only", name, f"{name} is READ_ONLY and cannot be passed to create", f"remove {name}")
        _check_value(walk, meta, value)
        values[name] = value
    for meta in walk.metadata.attributes_of(op.object_type):
        if meta.conditions:
            required = _holds(walk.metadata, meta.conditions, values)
            condition = " or ".join(f"{c.attribute}={c.value}" for c in meta.conditions)
            if required and meta.mandatory_on_create and meta.name not in values:
                walk.flag("missing-mandatory", meta.name, f"{meta.name} is mandatory when {condition} (@condition)", f"add {meta.name}")
            elif not required and meta.name in values:
                walk.flag("condition-not-met", meta.name, f"{meta.name} is conditional on {condition}, which does not hold", f"remove {meta.name} or change {meta.conditions[0].attribute}")
        elif meta.mandatory_on_create and meta.name not in values:
            walk.flag("missing-mandatory", meta.name, f"{meta.name} is MANDATORY_ON_CREATE for {op.object_type}", f"add {meta.name}")
    obj = SaiObject(op.object_type, values)
    walk.objects[op.object_id] = obj
    _check_validonly(walk, obj, list(values))


def _set(walk: Walk, op: SaiOperation) -> SaiObject | None:
    obj = walk.objects.get(op.object_id)
    if obj is None:
        walk.flag("dangling-reference", None, f"{op.object_id} is set before it is created or discovered", "create or discover the object first")
        return None
    if obj.object_type != op.object_type:
        walk.flag("wrong-object-type", None, f"{op.object_id} is a {obj.object_type}, not a {op.object_type}", f"use {obj.object_type}")
        return None
    if len(op.attributes) != 1:
        walk.flag("set-one-attribute", None, f"a set carries exactly one attribute, this one has {len(op.attributes)}", "split it into one set per attribute (set_*_attribute takes one)")
        return None
    name, value = op.attributes[0]
    meta = _check_attribute_known(walk, op, name)
    if meta is None:
        return None
    if meta.read_only:
        walk.flag("read-only", name, f"{name} is READ_ONLY", f"remove the set of {name}")
    elif meta.create_only or meta.is_key:
        walk.flag("create-only-set", name, f"{name} is CREATE_ONLY and cannot be set after creation", f"pass {name} in the create of {op.object_id}")
    _check_value(walk, meta, value)
    obj.attributes[name] = value
    _check_validonly(walk, obj, [name])
    return obj


def _get(walk: Walk, op: SaiOperation) -> None:
    obj = walk.objects.get(op.object_id)
    if obj is None:
        walk.flag("dangling-reference", None, f"{op.object_id} is read before it is created or discovered", "discover the switch's port list first")
        return
    for name, value in op.attributes:
        meta = _check_attribute_known(walk, op, name)
        if meta is None:
            continue
        _check_value(walk, meta, value, discovering=True)
        obj.attributes[name] = value


def _walk(program: SaiProgram) -> Walk:
    walk = Walk(sai_metadata(), {SWITCH_ID: SaiObject("SAI_OBJECT_TYPE_SWITCH", discovered=True)}, [], {p.object_id: p for p in program.ports})
    for index, op in enumerate(program.operations):
        walk.index, walk.operation = index, op
        before = len(walk.found)
        if op.op == "create":
            _create(walk, op)
        elif op.op == "set":
            _set(walk, op)
        else:
            _get(walk, op)
        if len(walk.found) == before:
            check_operation(walk, program, op)
    check_discovery(walk, program)
    return walk


def validation_input(program: SaiProgram) -> tuple[object, ...]:
    """Everything the checks read: the operations, the switch layout and the ports' ids and
    names (not the switch's name, nor the ports' speeds, cables or peers)."""
    return (program.inventory, tuple((p.object_id, p.name) for p in program.ports), operations_key(program))


_CHECKED: BoundedMemo[tuple[SaiViolation, ...]] = BoundedMemo()


def check_program(program: SaiProgram) -> list[SaiViolation]:
    """Every violation in the program, in operation order (a program whose checked content equals
    one already checked, as every switch of a kind has, reuses that result)."""
    return list(_CHECKED.get(validation_input(program), lambda: tuple(_walk(program).found)))


def validate_program(program: SaiProgram) -> None:
    """Raise :class:`SaiValidationError` for the first violation (and say how many there are)."""
    found = check_program(program)
    if not found:
        return
    first = found[0]
    more = f" ({len(found) - 1} more violation(s) follow)" if len(found) > 1 else ""
    raise SaiValidationError(f"{first.message} [{first.rule}]{more}", place=f"switch {program.switch_name}: {first.where}", hint=first.hint)


def program_objects(program: SaiProgram) -> dict[str, SaiObject]:
    """The final attribute state of every object after a valid program ran."""
    validate_program(program)
    return _walk(program).objects


__all__ = ["SaiObject", "SaiValidationError", "SaiViolation", "check_program", "program_objects", "validate_program"]
