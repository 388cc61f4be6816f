"""The SAI program as JSON (``qosforge.sai/1``), the format the software switch loads.

Values are written as their SAI types suggest (docs/sai.md): booleans and integers as JSON
scalars, enums by value name, object ids as symbolic ids (``null`` = SAI_NULL_OBJECT_ID), object
lists as arrays of ids, QoS map lists as ``[{"key": {...}, "value": {...}}]`` with sairedis'
field names and only the used fields, map lists as ``[{"key": k, "value": v}]``. Reading it back
checks the shape and types against the SAI metadata; semantic checks (mandatory attributes,
references, ranges) are :func:`qosforge.backends.sai.validate.validate_program`'s.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from json.encoder import encode_basestring_ascii
from typing import Any

from qosforge.backends.sai.memo import BoundedMemo, operations_key
from qosforge.backends.sai.metadata import sai_metadata
from qosforge.backends.sai.program import (
    LayoutPort,
    MapListEntry,
    PortContext,
    QosMapEntry,
    SaiOperation,
    SaiProgram,
    SaiValue,
    SchedulerGroupShape,
    SwitchInventory,
)
from qosforge.errors import QosforgeError

FORMAT = "qosforge.sai/1"
#: sairedis' sai_qos_map_params_t JSON keys (sonic-sairedis meta/SaiSerialize.cpp), ``color`` an enum name.
QOS_MAP_FIELDS = ("tc", "dscp", "dot1p", "prio", "pg", "qidx", "mpls_exp", "color", "fc")


class SaiJsonError(QosforgeError):
    """A SAI JSON document that is not a well-formed ``qosforge.sai/1`` program."""


def _value_to_json(value: SaiValue) -> Any:
    if isinstance(value, tuple):
        if value and isinstance(value[0], QosMapEntry):
            return [{"key": dict(e.key), "value": dict(e.value)} for e in value if isinstance(e, QosMapEntry)]
        if value and isinstance(value[0], MapListEntry):
            return [{"key": e.key, "value": e.value} for e in value if isinstance(e, MapListEntry)]
        return list(value)
    return value


def _layout_ports_to_json(inventory: SwitchInventory) -> dict[str, Any]:
    lanes = [",".join(str(lane) for lane in port.lanes) for port in inventory.ports]
    return {"count": len(inventory.ports), "lanes": lanes if any(lanes) else None, "source": inventory.ports_source}


def _layout_ports_from_json(raw: Any) -> tuple[tuple[LayoutPort, ...], str]:
    if raw is None:  # written before layouts carried their ports
        return (), ""
    _expect(raw, dict, "inventory.ports", "inventory.ports")
    count = _expect(raw.get("count"), int, "inventory.ports.count", "count")
    lanes = raw.get("lanes")
    if lanes is None:
        return tuple(LayoutPort() for _ in range(count)), str(raw.get("source", ""))
    _expect(lanes, list, "inventory.ports.lanes", "lanes")
    if len(lanes) != count:
        raise _fail("inventory.ports.lanes", f"{len(lanes)} lane lists for {count} ports", "give one lane list per port")
    ports = []
    for i, text in enumerate(lanes):
        _expect(text, str, f"inventory.ports.lanes[{i}]", "a lane list")
        try:
            ports.append(LayoutPort(tuple(int(lane) for lane in text.split(",")) if text else ()))
        except ValueError:
            raise _fail(f"inventory.ports.lanes[{i}]", f"{text!r} is not a comma-separated list of lane numbers", 'write e.g. "29,30,31,32"') from None
    return tuple(ports), str(raw.get("source", ""))


def program_to_dict(program: SaiProgram) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "sai_api_version": program.sai_api_version,
        "switch": program.switch_name,
        "vendor_profile": program.vendor_profile,
        "inventory": {
            "name": program.inventory.name,
            "source": program.inventory.source,
            "unicast_queues": program.inventory.unicast_queues,
            "multicast_queues": program.inventory.multicast_queues,
            "ingress_priority_groups": program.inventory.ingress_priority_groups,
            "scheduler_groups": [
                {"level": g.level, "child_groups": list(g.child_groups), "child_queues": list(g.child_queues)}
                for g in program.inventory.scheduler_groups
            ],
            # The switch's whole port list (SAI_SWITCH_ATTR_PORT_LIST order) and each port's lanes.
            "ports": _layout_ports_to_json(program.inventory),
        },
        "ports": [
            {"id": p.object_id, "name": p.name, "speed_bps": p.speed_bps, "cable_m": p.cable_m, "peer": p.peer, "layout_index": p.layout_index}
            for p in program.ports
        ],
        "notes": list(program.notes),
        "operations": [_operation_to_dict(op) for op in program.operations],
    }


def _operation_to_dict(op: SaiOperation) -> dict[str, Any]:
    return {"op": op.op, "type": op.object_type, "id": op.object_id, "attributes": {name: _value_to_json(v) for name, v in op.attributes}}


_OPERATION_LINES: BoundedMemo[str] = BoundedMemo()
_HEADS: BoundedMemo[str] = BoundedMemo()
#: Stand in for the switch's name and its port list in a header shared by switches of a kind.
_NAME_SLOT = json.dumps("\x00switch\x00")
_PORTS_SLOT = json.dumps("\x00ports\x00")


def program_to_json(program: SaiProgram) -> str:
    """Indented header, then one operation per line (readable diffs; json's C encoder is fast).

    The operation lines, the bulk of the text, are shared by programs with equal operations
    (every switch of a kind), and so is the header but for the switch's name and ports."""
    shared = replace(program, switch_name=json.loads(_NAME_SLOT), ports=(), operations=())
    head = _HEADS.get(shared, lambda: _head_template(shared))
    head = head.replace(_NAME_SLOT, json.dumps(program.switch_name), 1).replace(_PORTS_SLOT, _ports_text(program.ports), 1)
    lines = _OPERATION_LINES.get(operations_key(program), lambda: _operation_lines(program.operations))
    return head[:-2] + ',\n "operations": [\n' + lines + "\n ]\n}\n"


def _scalar(value: str | float | None) -> str:
    """One JSON scalar as json.dumps writes it (its C string encoder; floats by repr)."""
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if value is None:
        return "null"
    if isinstance(value, float) and math.isfinite(value):
        return float.__repr__(value)
    return json.dumps(value)


def _head_template(program: SaiProgram) -> str:
    document = program_to_dict(program)
    document.pop("operations")
    document["ports"] = json.loads(_PORTS_SLOT)
    return json.dumps(document, indent=1)


def _ports_text(ports: tuple[PortContext, ...]) -> str:
    """``ports`` exactly as ``json.dumps(..., indent=1)`` lays them out one level deep, with the
    C encoder for the values (the indenting encoder is pure Python and was most of the time)."""
    if not ports:
        return "[]"
    blocks = (
        f'  {{\n   "id": {_scalar(p.object_id)},\n   "name": {_scalar(p.name)},\n   "speed_bps": {_scalar(p.speed_bps)},\n'
        f'   "cable_m": {_scalar(p.cable_m)},\n   "peer": {_scalar(p.peer)},\n   "layout_index": {_scalar(p.layout_index)}\n  }}'
        for p in ports
    )
    return "[\n" + ",\n".join(blocks) + "\n ]"


def _operation_lines(operations: tuple[SaiOperation, ...]) -> str:
    return ",\n".join("  " + json.dumps(_operation_to_dict(op), separators=(", ", ": ")) for op in operations)


# --- reading ---------------------------------------------------------------------------------


def _fail(place: str, message: str, hint: str) -> SaiJsonError:
    return SaiJsonError(message, place=place, hint=hint)


def _expect(value: Any, kind: type | tuple[type, ...], place: str, what: str) -> Any:
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise _fail(place, f"{what} must be a number, not a boolean", "write a JSON number")
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise _fail(place, f"{what} must be a JSON {names}, got {type(value).__name__} {value!r:.60}", f"write a {names}")
    return value


def _map_params(raw: Any, place: str) -> tuple[tuple[str, int | str], ...]:
    _expect(raw, dict, place, "a QoS map key/value")
    params: list[tuple[str, int | str]] = []
    for name, value in raw.items():
        if name not in QOS_MAP_FIELDS:
            raise _fail(f"{place}.{name}", f"unknown sai_qos_map_params_t field {name!r}", f"use one of: {', '.join(QOS_MAP_FIELDS)}")
        if name == "color":
            params.append((name, _expect(value, str, f"{place}.{name}", "color")))
        else:
            params.append((name, _expect(value, int, f"{place}.{name}", name)))
    return tuple(sorted(params))


def _value_from_json(attribute: str, raw: Any, place: str) -> SaiValue:
    metadata = sai_metadata().attribute(attribute)
    if metadata is None:
        # Unknown attributes are kept as-is so the validator can name them with its own rule.
        return raw if isinstance(raw, bool | int | str) or raw is None else json.dumps(raw)
    kind = metadata.value_type
    if kind == "BOOL":
        return bool(_expect(raw, bool, place, attribute))
    if kind in ("UINT8", "INT8", "UINT16", "UINT32", "INT32", "UINT64") and metadata.enum is None:
        return int(_expect(raw, int, place, attribute))
    if metadata.enum is not None:
        return str(_expect(raw, str, place, attribute))
    if kind == "OBJECT_ID":
        return None if raw is None else str(_expect(raw, str, place, attribute))
    if kind == "OBJECT_LIST":
        items = _expect(raw, list, place, attribute)
        return tuple(str(_expect(item, str, f"{place}[{i}]", "an object id")) for i, item in enumerate(items))
    if kind == "QOS_MAP_LIST":
        entries = _expect(raw, list, place, attribute)
        result: list[QosMapEntry] = []
        for i, entry in enumerate(entries):
            _expect(entry, dict, f"{place}[{i}]", "a QoS map entry")
            if set(entry) != {"key", "value"}:
                raise _fail(f"{place}[{i}]", "a QoS map entry has exactly 'key' and 'value'", 'write {"key": {...}, "value": {...}}')
            result.append(QosMapEntry(_map_params(entry["key"], f"{place}[{i}].key"), _map_params(entry["value"], f"{place}[{i}].value")))
        return tuple(result)
    if kind == "MAP_LIST":
        entries = _expect(raw, list, place, attribute)
        pairs: list[MapListEntry] = []
        for i, entry in enumerate(entries):
            _expect(entry, dict, f"{place}[{i}]", "a map entry")
            if set(entry) != {"key", "value"}:
                raise _fail(f"{place}[{i}]", "a map entry has exactly 'key' and 'value'", 'write {"key": 3, "value": 200}')
            pairs.append(MapListEntry(_expect(entry["key"], int, f"{place}[{i}].key", "key"), _expect(entry["value"], int, f"{place}[{i}].value", "value")))
        return tuple(pairs)
    raise _fail(place, f"{attribute} has SAI type {kind}, which qosforge programs do not carry", "remove the attribute")


def _inventory(raw: Any) -> SwitchInventory:
    _expect(raw, dict, "inventory", "inventory")
    groups = []
    for i, group in enumerate(_expect(raw.get("scheduler_groups"), list, "inventory.scheduler_groups", "scheduler_groups")):
        place = f"inventory.scheduler_groups[{i}]"
        _expect(group, dict, place, "a scheduler group")
        groups.append(SchedulerGroupShape(
            level=_expect(group.get("level"), int, f"{place}.level", "level"),
            child_groups=tuple(_expect(c, int, f"{place}.child_groups", "a group index") for c in _expect(group.get("child_groups", []), list, f"{place}.child_groups", "child_groups")),
            child_queues=tuple(_expect(c, int, f"{place}.child_queues", "a queue position") for c in _expect(group.get("child_queues", []), list, f"{place}.child_queues", "child_queues")),
        ))
    layout_ports, ports_source = _layout_ports_from_json(raw.get("ports"))
    return SwitchInventory(
        name=_expect(raw.get("name"), str, "inventory.name", "name"),
        source=_expect(raw.get("source"), str, "inventory.source", "source"),
        unicast_queues=_expect(raw.get("unicast_queues"), int, "inventory.unicast_queues", "unicast_queues"),
        multicast_queues=_expect(raw.get("multicast_queues"), int, "inventory.multicast_queues", "multicast_queues"),
        ingress_priority_groups=_expect(raw.get("ingress_priority_groups"), int, "inventory.ingress_priority_groups", "ingress_priority_groups"),
        scheduler_groups=tuple(groups),
        ports=layout_ports,
        ports_source=ports_source,
    )


def program_from_dict(document: Any) -> SaiProgram:
    _expect(document, dict, "document", "a SAI program")
    if document.get("format") != FORMAT:
        raise _fail("format", f"not a qosforge SAI program (format {document.get('format')!r})", f"expected \"format\": \"{FORMAT}\" (written by 'qosforge compile --target sai')")
    ports = []
    for i, raw in enumerate(_expect(document.get("ports"), list, "ports", "ports")):
        place = f"ports[{i}]"
        _expect(raw, dict, place, "a port")
        ports.append(PortContext(
            object_id=_expect(raw.get("id"), str, f"{place}.id", "id"),
            name=_expect(raw.get("name"), str, f"{place}.name", "name"),
            speed_bps=float(_expect(raw.get("speed_bps"), (int, float), f"{place}.speed_bps", "speed_bps")),
            cable_m=float(_expect(raw.get("cable_m"), (int, float), f"{place}.cable_m", "cable_m")),
            peer=None if raw.get("peer") is None else _expect(raw.get("peer"), str, f"{place}.peer", "peer"),
            layout_index=None if raw.get("layout_index") is None else _expect(raw.get("layout_index"), int, f"{place}.layout_index", "layout_index"),
        ))
    operations = []
    for i, raw in enumerate(_expect(document.get("operations"), list, "operations", "operations")):
        place = f"operations[{i}]"
        _expect(raw, dict, place, "an operation")
        op = raw.get("op")
        if op not in ("create", "set", "get"):
            raise _fail(f"{place}.op", f"operation kind {op!r} is not create, set or get", "use one of: create, set, get")
        attributes = _expect(raw.get("attributes"), dict, f"{place}.attributes", "attributes")
        operations.append(SaiOperation(
            op=op,
            object_type=_expect(raw.get("type"), str, f"{place}.type", "type"),
            object_id=_expect(raw.get("id"), str, f"{place}.id", "id"),
            attributes=tuple((name, _value_from_json(name, value, f"{place}.attributes.{name}")) for name, value in attributes.items()),
        ))
    return SaiProgram(
        switch_name=_expect(document.get("switch"), str, "switch", "switch"),
        vendor_profile=_expect(document.get("vendor_profile"), str, "vendor_profile", "vendor_profile"),
        sai_api_version=_expect(document.get("sai_api_version"), int, "sai_api_version", "sai_api_version"),
        inventory=_inventory(document.get("inventory")),
        ports=tuple(ports),
        operations=tuple(operations),
        notes=tuple(str(n) for n in _expect(document.get("notes", []), list, "notes", "notes")),
    )


def program_from_json(text: str, *, source: str = "<sai json>") -> SaiProgram:
    """Parse a ``qosforge.sai/1`` document; malformed input is a :class:`SaiJsonError`."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise SaiJsonError(f"{source} is not JSON: {error.msg}", place=f"{source}:{error.lineno}:{error.colno}", hint="pass the sai.json written by 'qosforge compile --target sai'") from None
    except RecursionError:
        raise SaiJsonError(f"{source} is nested too deeply to be a SAI program", place=source, hint="pass the sai.json written by 'qosforge compile --target sai'") from None
    try:
        return program_from_dict(document)
    except SaiJsonError as error:
        raise error.with_place(f"{source}: {error.place}") from None


__all__ = ["FORMAT", "QOS_MAP_FIELDS", "SaiJsonError", "program_from_dict", "program_from_json", "program_to_dict", "program_to_json"]
