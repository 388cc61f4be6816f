"""The SAI program as a sairedis recording (``sairedis.rec``) that saiplayer can replay.

Line format and value serialisation are sonic-sairedis' (lib/Recorder.cpp, meta/SaiSerialize.cpp):
``<timestamp>|<op>|<OBJECT_TYPE>:oid:0x<hex>|ATTR=VALUE|...``. Object ids are virtual ids laid
out as sairedis builds them (lib/VirtualObjectIdManager.cpp: object type in bits 48-55, index in the low bits, switch
index 0), so ``oid:0x13…`` is a WRED, ``0x15…`` a queue. A replay starts with ``INIT_VIEW`` and the
switch create and ends with ``APPLY_VIEW`` (saiplayer/SaiPlayer.cpp, ``saiplayer -u``). Pre-existing objects
are read with ``g``/``G`` pairs whose list lengths are the target's (saiplayer/SaiPlayer.cpp): saiplayer maps the
recorded ids to the live ones element by element, so ports are matched by their position in
``SAI_SWITCH_ATTR_PORT_LIST``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator

from qosforge._version import __version__
from qosforge.backends.sai.json_format import QOS_MAP_FIELDS
from qosforge.backends.sai.memo import BoundedMemo, operations_key
from qosforge.backends.sai.metadata import AttributeMetadata, sai_metadata
from qosforge.backends.sai.program import (
    SWITCH_ID,
    MapListEntry,
    QosMapEntry,
    SaiOperation,
    SaiProgram,
    SaiValue,
)
from qosforge.backends.sai.validate import DISCOVERED_PREFIXES

#: sai_object_type_t values (saitypes.h; SAI inc/saiwred.h, SAI inc/saibuffer.h, sonic-sairedis (ASIC_DB)).
OBJECT_TYPE_NUMBERS = {
    "SAI_OBJECT_TYPE_PORT": 0x01,
    "SAI_OBJECT_TYPE_WRED": 0x13,
    "SAI_OBJECT_TYPE_QOS_MAP": 0x14,
    "SAI_OBJECT_TYPE_QUEUE": 0x15,
    "SAI_OBJECT_TYPE_SCHEDULER": 0x16,
    "SAI_OBJECT_TYPE_SCHEDULER_GROUP": 0x17,
    "SAI_OBJECT_TYPE_BUFFER_POOL": 0x18,
    "SAI_OBJECT_TYPE_BUFFER_PROFILE": 0x19,
    "SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP": 0x1A,
    "SAI_OBJECT_TYPE_SWITCH": 0x21,
}
SWITCH_VID = OBJECT_TYPE_NUMBERS["SAI_OBJECT_TYPE_SWITCH"] << 48


class _VirtualIds:
    def __init__(self) -> None:
        self._ids: dict[str, int] = {SWITCH_ID: SWITCH_VID}
        self._next: dict[str, int] = {}

    def assign(self, object_id: str, object_type: str) -> int:
        if object_id not in self._ids:
            index = self._next.get(object_type, 1)
            self._next[object_type] = index + 1
            self._ids[object_id] = (OBJECT_TYPE_NUMBERS[object_type] << 48) | index
        return self._ids[object_id]

    def __getitem__(self, object_id: str) -> int:
        return self._ids[object_id]


def _oid(vid: int) -> str:
    return f"oid:0x{vid:x}"


def _params(params: tuple[tuple[str, int | str], ...]) -> dict[str, int | str]:
    full: dict[str, int | str] = {name: 0 for name in QOS_MAP_FIELDS}
    full["color"] = "SAI_PACKET_COLOR_GREEN"
    full.update(dict(params))
    return full


def _serialise(value: SaiValue, ids: _VirtualIds, *, placeholder: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "0" if placeholder else str(value)
    if value is None:
        return "oid:0x0"
    if isinstance(value, str):
        return _oid(ids[value]) if ":" in value and not value.startswith("SAI_") else value
    if not value:
        return "0:null"
    if isinstance(value[0], QosMapEntry):
        entries = [{"key": _params(e.key), "value": _params(e.value)} for e in value if isinstance(e, QosMapEntry)]
        return json.dumps({"count": len(entries), "list": entries}, sort_keys=True, separators=(",", ":"))
    if isinstance(value[0], MapListEntry):
        pairs = [{"key": e.key, "value": e.value} for e in value if isinstance(e, MapListEntry)]
        return json.dumps({"count": len(pairs), "list": pairs}, separators=(",", ":"))
    items = [("oid:0x0" if placeholder else _oid(ids[str(item)])) for item in value]
    return f"{len(items)}:" + ",".join(items)


def _header(program: SaiProgram) -> tuple[str, str]:
    return "#", f"recording on: qosforge {__version__} SAI program for switch {program.switch_name} (vendor profile {program.vendor_profile}, switch layout {program.inventory.name})"


def _body(program: SaiProgram) -> Iterator[tuple[str, str]]:
    ids = _VirtualIds()
    metadata = sai_metadata()
    for note in program.notes:
        yield "#", f"note: {note}"
    if program.inventory.ports:
        yield "#", f"ports: {_binding(program)}"
    yield "a", "INIT_VIEW"
    yield "A", "SAI_STATUS_SUCCESS"
    yield "c", f"SAI_OBJECT_TYPE_SWITCH:{_oid(SWITCH_VID)}|SAI_SWITCH_ATTR_INIT_SWITCH=true"
    for op in program.operations:
        if op.op == "get":
            yield from _get_lines(op, ids, metadata.attributes)
            continue
        if op.op == "create":
            ids.assign(op.object_id, op.object_type)
        key = f"{op.object_type}:{_oid(ids[op.object_id])}"
        fields = "|".join(f"{name}={_serialise(value, ids)}" for name, value in op.attributes)
        yield ("c" if op.op == "create" else "s"), f"{key}|{fields}"
    yield "a", "APPLY_VIEW"
    yield "A", "SAI_STATUS_SUCCESS"


def _binding(program: SaiProgram) -> str:
    """Which positions of the layout's port list the topology's ports are bound to."""
    layout = program.inventory
    bound = []
    for port in program.ports:
        lanes = layout.ports[port.layout_index].lanes if port.layout_index is not None else ()
        bound.append(f"{port.name} at {port.layout_index}" + (f" (lanes {','.join(map(str, lanes))})" if lanes else ""))
    return f"{len(program.ports)} of the {len(layout.ports)} ports of switch layout {layout.name} are configured, by position in SAI_SWITCH_ATTR_PORT_LIST: " + ", ".join(bound)


def _get_lines(op: SaiOperation, ids: _VirtualIds, attributes: dict[str, AttributeMetadata]) -> Iterator[tuple[str, str]]:
    key = f"{op.object_type}:{_oid(ids[op.object_id])}"
    for name, value in op.attributes:
        if attributes[name].value_type == "OBJECT_LIST" and isinstance(value, tuple):
            for item in value:
                # The answer's objects get ids per type in discovery order, as sairedis assigns them.
                ids.assign(str(item), DISCOVERED_PREFIXES[str(item).split(":", 1)[0]])
        yield "g", f"{key}|{name}={_serialise(value, ids, placeholder=True)}"
        yield "G", f"SAI_STATUS_SUCCESS|{name}={_serialise(value, ids)}"


def _stamped(lines: Iterable[tuple[str, str]], base: dt.datetime, first_microsecond: int, first_number: int) -> str:
    """Recording lines with timestamps 1 µs apart, line ``first_number`` at ``base`` +
    ``first_microsecond`` + ``first_number`` µs."""
    seconds_text: dict[int, str] = {}
    out = []
    for number, (op, payload) in enumerate(lines, start=first_number):
        second, microsecond = divmod(first_microsecond + number, 1_000_000)
        if second not in seconds_text:
            seconds_text[second] = (base + dt.timedelta(seconds=second)).strftime("%Y-%m-%d.%H:%M:%S")
        out.append(f"{seconds_text[second]}.{microsecond:06d}|{op}|{payload}\n")
    return "".join(out)


#: The stamped text below the header line: it depends on the notes, the operations and the start
#: time only, so switches of one kind recorded within the same second share it.
_BODIES: BoundedMemo[str] = BoundedMemo()


def program_to_recording(program: SaiProgram, *, start: dt.datetime | None = None) -> str:
    """The recording text; timestamps advance 1 µs per line from ``start`` (default: now, UTC)."""
    base = (start or dt.datetime.now(dt.UTC).replace(tzinfo=None)).replace(microsecond=0)
    first_microsecond = (start.microsecond if start else 0)
    key = (program.notes, operations_key(program), base, first_microsecond)
    body = _BODIES.get(key, lambda: _stamped(_body(program), base, first_microsecond, 1))
    return _stamped((_header(program),), base, first_microsecond, 0) + body


__all__ = ["OBJECT_TYPE_NUMBERS", "program_to_recording"]
