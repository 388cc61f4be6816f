"""Where SONiC publishes the counters ``qosforge watch`` reads: sonic-gnmi's ``COUNTERS_DB`` paths.

SONiC's telemetry server (sonic-gnmi) serves Redis databases over gNMI: the path prefix's
``target`` names the database (``COUNTERS_DB``), the path's elements name a table and key, and
each value is JSON (JSON_IETF) mapping object names to ``{field: "decimal string"}``. Counter keys
in Redis are SAI object ids; the *virtual paths* translate them to port, queue and priority-group
names (sonic-gnmi ``sonic_data_client/virtual_db.go``, ``pathTransFuncTbl``; documented in
sonic-gnmi ``doc/grpc_telemetry.md``, "Virtual path"):

- ``COUNTERS/Ethernet*`` -> ``{"Ethernet0": {SAI_PORT_STAT_*: ...}}`` (port counters: PFC frames
  and pause durations, discards, pause frames);
- ``COUNTERS/Ethernet*/Queues`` -> ``{"Ethernet0:3": {SAI_QUEUE_STAT_*: ..., PFC_WD_*: ...},
  "Ethernet0:3:periodic": {SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES: ...}}`` (``v2rEthPortQueStats``
  adds each queue's ``PERIODIC_WATERMARKS`` watermark under ``<queue>:periodic``);
- ``COUNTERS/Ethernet*/Pfcwd`` -> the queues the PFC watchdog watches, with ``PFC_WD_*`` fields;
- ``PERIODIC_WATERMARKS/Ethernet*/PriorityGroups`` -> ``{"Ethernet0:3":
  {SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES: ..., ..._SHARED_WATERMARK_BYTES: ...}}``.

Priority-group drops have no virtual path: they are read from the ``COUNTERS`` table by object id,
through ``COUNTERS_PG_NAME_MAP`` (``{"Ethernet0:3": "oid:0x1a..."}``), as sonic-utilities
``scripts/pg-drop`` does; ``COUNTERS/oid:0x1a...`` then carries
``SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS``.

Which statistics exist and which flex-counter group polls them: sonic-swss
``orchagent/portsorch.cpp`` (``port_stat_ids``, ``queue_stat_ids``, ``queueWatermarkStatIds``,
``ingressPriorityGroupWatermarkStatIds``, ``ingressPriorityGroupDropStatIds``,
``wred_queue_stat_ids``), ``orchagent/flexcounterorch.cpp`` (group names),
``orchagent/orchdaemon.cpp`` (the PFC watchdog's per-platform port statistics:
``SAI_PORT_STAT_PFC_n_RX_PAUSE_DURATION_US`` on Mellanox and VS only) and
``orchagent/pfcactionhandler.cpp`` / ``pfc_detect_*.lua`` (``PFC_WD_STATUS`` = ``operational`` or
``stormed``, the ``PFC_WD_QUEUE_STATS_*`` fields); the same names sonic-utilities'
``queuestat``, ``watermarkstat``, ``pfcstat`` and ``pfcwd show stats`` print.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qosforge.backends.counters import PFC_PRIORITIES, Counter, CounterKey, Sample

GNMI_TARGET = "COUNTERS_DB"
"""The gNMI path prefix ``target`` sonic-gnmi reads as the Redis database."""

PORT_WILDCARD = "Ethernet*"
PG_NAME_MAP = "COUNTERS_PG_NAME_MAP"

PORTS = ("COUNTERS", PORT_WILDCARD)
QUEUES = ("COUNTERS", PORT_WILDCARD, "Queues")
PFCWD = ("COUNTERS", PORT_WILDCARD, "Pfcwd")
PG_WATERMARKS = ("PERIODIC_WATERMARKS", PORT_WILDCARD, "PriorityGroups")
PG_COUNTERS = ("COUNTERS", "{oid}")
"""A priority group's own COUNTERS entry, by the object id ``COUNTERS_PG_NAME_MAP`` gives."""

VIRTUAL_DB = "sonic-gnmi sonic_data_client/virtual_db.go"
PORTSORCH = "sonic-swss orchagent/portsorch.cpp"


@dataclass(frozen=True)
class SonicCounterPath:
    """One counter as sonic-gnmi serves it.

    ``table_path``: the path elements (under prefix target ``COUNTERS_DB``), ``Ethernet*`` standing
    for every port; ``key``: how the JSON value names the object (``{port}``, ``{port}:{index}``,
    ``{port}:{index}:periodic``); ``field``: the Redis hash field, ``{index}`` being the PFC
    priority for per-priority port statistics; ``flex_counter_group``: the ``FLEX_COUNTER_TABLE``
    group that must be enabled for the field to be polled at all (None: always there).
    """

    counter: Counter
    table_path: tuple[str, ...]
    key: str
    field: str
    flex_counter_group: str | None
    source: str

    def fields(self) -> tuple[str, ...]:
        if "{index}" in self.field:
            return tuple(self.field.format(index=p) for p in PFC_PRIORITIES)
        return (self.field,)

    def path_text(self) -> str:
        return f"{GNMI_TARGET}/{'/'.join(self.table_path)} [{self.key}].{self.field}"


def _p(counter: Counter, table_path: tuple[str, ...], key: str, field: str, group: str | None, source: str) -> SonicCounterPath:
    return SonicCounterPath(counter, table_path, key, field, group, source)


C = Counter
PATHS: tuple[SonicCounterPath, ...] = (
    _p(C.QUEUE_TRANSMIT_PACKETS, QUEUES, "{port}:{index}", "SAI_QUEUE_STAT_PACKETS", "QUEUE", f"{PORTSORCH} queue_stat_ids"),
    _p(C.QUEUE_TRANSMIT_BYTES, QUEUES, "{port}:{index}", "SAI_QUEUE_STAT_BYTES", "QUEUE", f"{PORTSORCH} queue_stat_ids"),
    _p(C.QUEUE_DROPPED_PACKETS, QUEUES, "{port}:{index}", "SAI_QUEUE_STAT_DROPPED_PACKETS", "QUEUE", f"{PORTSORCH} queue_stat_ids"),
    _p(C.QUEUE_DROPPED_BYTES, QUEUES, "{port}:{index}", "SAI_QUEUE_STAT_DROPPED_BYTES", "QUEUE", f"{PORTSORCH} queue_stat_ids"),
    _p(C.QUEUE_WATERMARK_BYTES, QUEUES, "{port}:{index}", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", "QUEUE_WATERMARK",
       f"{PORTSORCH} queueWatermarkStatIds (read and cleared at each poll, sonic-swss orchagent/watermark_queue.lua)"),
    _p(C.QUEUE_WATERMARK_BYTES, QUEUES, "{port}:{index}:periodic", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", "QUEUE_WATERMARK",
       f"{VIRTUAL_DB} v2rEthPortQueStats (PERIODIC_WATERMARKS, the max since the last telemetry period)"),
    _p(C.QUEUE_ECN_MARKED_PACKETS, QUEUES, "{port}:{index}", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "WRED_ECN_QUEUE", f"{PORTSORCH} wred_queue_stat_ids"),
    _p(C.QUEUE_ECN_MARKED_BYTES, QUEUES, "{port}:{index}", "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES", "WRED_ECN_QUEUE", f"{PORTSORCH} wred_queue_stat_ids"),
    _p(C.QUEUE_WRED_DROPPED_PACKETS, QUEUES, "{port}:{index}", "SAI_QUEUE_STAT_WRED_DROPPED_PACKETS", "WRED_ECN_QUEUE", f"{PORTSORCH} wred_queue_stat_ids"),
    _p(C.PG_HEADROOM_WATERMARK_BYTES, PG_WATERMARKS, "{port}:{index}", "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES", "PG_WATERMARK",
       f"{PORTSORCH} ingressPriorityGroupWatermarkStatIds; {VIRTUAL_DB} v2rEthPortPGPeriodicWMs"),
    _p(C.PG_SHARED_WATERMARK_BYTES, PG_WATERMARKS, "{port}:{index}", "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES", "PG_WATERMARK",
       f"{PORTSORCH} ingressPriorityGroupWatermarkStatIds; {VIRTUAL_DB} v2rEthPortPGPeriodicWMs"),
    _p(C.PG_DROPPED_PACKETS, PG_COUNTERS, "{port}:{index}", "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", "PG_DROP",
       f"{PORTSORCH} ingressPriorityGroupDropStatIds; object ids from {PG_NAME_MAP} (sonic-utilities scripts/pg-drop)"),
    _p(C.PFC_RX_PACKETS, PORTS, "{port}", "SAI_PORT_STAT_PFC_{index}_RX_PKTS", "PORT", f"{PORTSORCH} port_stat_ids (sonic-utilities scripts/pfcstat)"),
    _p(C.PFC_TX_PACKETS, PORTS, "{port}", "SAI_PORT_STAT_PFC_{index}_TX_PKTS", "PORT", f"{PORTSORCH} port_stat_ids (sonic-utilities scripts/pfcstat)"),
    _p(C.PFC_RX_PAUSE_US, PORTS, "{port}", "SAI_PORT_STAT_PFC_{index}_RX_PAUSE_DURATION_US", "PFCWD",
       "sonic-swss orchagent/orchdaemon.cpp (PFC watchdog port statistics on Mellanox and VS; sonic-utilities scripts/pfcstat --history)"),
    _p(C.PFC_TX_PAUSE_US, PORTS, "{port}", "SAI_PORT_STAT_PFC_{index}_TX_PAUSE_DURATION_US", None,
       "SAI inc/saiport.h sai_port_stat_t (no SONiC group polls it by default: present only where a platform adds it)"),
    _p(C.PFCWD_STATUS, PFCWD, "{port}:{index}", "PFC_WD_STATUS", "PFCWD", "sonic-swss orchagent/pfcactionhandler.cpp (operational | stormed)"),
    _p(C.PFCWD_DEADLOCK_DETECTED, PFCWD, "{port}:{index}", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "PFCWD",
       "sonic-swss orchagent/pfcactionhandler.cpp (sonic-utilities pfcwd/main.py STORM DETECTED)"),
    _p(C.PFCWD_DEADLOCK_RESTORED, PFCWD, "{port}:{index}", "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", "PFCWD",
       "sonic-swss orchagent/pfcactionhandler.cpp (sonic-utilities pfcwd/main.py STORM RESTORED)"),
    _p(C.PORT_IN_DISCARDS, PORTS, "{port}", "SAI_PORT_STAT_IF_IN_DISCARDS", "PORT", f"{PORTSORCH} port_stat_ids"),
    _p(C.PORT_OUT_DISCARDS, PORTS, "{port}", "SAI_PORT_STAT_IF_OUT_DISCARDS", "PORT", f"{PORTSORCH} port_stat_ids"),
    _p(C.PORT_IN_PAUSE_FRAMES, PORTS, "{port}", "SAI_PORT_STAT_PAUSE_RX_PKTS", "PORT", f"{PORTSORCH} port_stat_ids"),
    _p(C.PORT_OUT_PAUSE_FRAMES, PORTS, "{port}", "SAI_PORT_STAT_PAUSE_TX_PKTS", "PORT", f"{PORTSORCH} port_stat_ids"),
)
del C

SUBSCRIPTIONS: tuple[tuple[str, ...], ...] = (PORTS, QUEUES, PFCWD, PG_WATERMARKS)
"""The virtual paths a subscriber asks for (each once, all ports); PG drops need the name map
first (:data:`PG_NAME_MAP`), then one ``COUNTERS/<oid>`` path per priority group."""

FLEX_COUNTER_GROUPS: tuple[str, ...] = tuple(sorted({p.flex_counter_group for p in PATHS if p.flex_counter_group}))
"""The ``FLEX_COUNTER_TABLE`` groups (sonic-buildimage src/sonic-yang-models/yang-models/
sonic-flex_counter.yang containers) that must be enabled for ``watch``'s counters."""

_BY_FIELD: dict[tuple[tuple[str, ...], bool, str], list[tuple[SonicCounterPath, int | None]]] = {}
for _path in PATHS:
    _table = PG_WATERMARKS if _path.table_path == PG_WATERMARKS else _path.table_path
    for _priority, _field in enumerate(_path.fields()):
        _BY_FIELD.setdefault((_table, _path.key.endswith(":periodic"), _field), []).append(
            (_path, _priority if "{index}" in _path.field else None))

_OBJECT = re.compile(r"^(?P<port>[^:]+)(?::(?P<index>\d+))?(?P<periodic>:periodic)?$")


def _shape(elements: Sequence[str]) -> tuple[tuple[str, ...], str | None]:
    """The catalogue table path an update's path elements match, and the one port it names
    (None for ``Ethernet*``)."""
    parts = tuple(elements)
    if len(parts) >= 2 and parts[0] in ("COUNTERS", "PERIODIC_WATERMARKS") and parts[1].startswith("Ethernet"):
        port = None if parts[1] == PORT_WILDCARD else parts[1]
        return (parts[0], PORT_WILDCARD, *parts[2:]), port
    return parts, None


def decode(elements: Sequence[str], value: Any, timestamp_ns: int,
           pg_names: Mapping[str, str] | None = None) -> Iterator[Sample]:
    """Samples from one sonic-gnmi update: ``elements`` are its path's element names (after the
    prefix), ``value`` its JSON value (decoded, or the JSON_IETF bytes). Fields that are not in
    the catalogue are skipped; a value that is not a decimal count is skipped too (sonic-gnmi
    writes every count as a decimal string). ``pg_names`` maps object ids to ``Ethernet0:3`` for
    ``COUNTERS/oid:...`` updates (from :data:`PG_NAME_MAP`)."""
    if isinstance(value, (bytes, str)):
        value = json.loads(value)
    if not isinstance(value, dict):
        return
    table, port = _shape(elements)
    if len(table) == 2 and table[0] == "COUNTERS" and table[1].startswith("oid:"):
        name = (pg_names or {}).get(table[1])
        if name is None:
            return
        objects: dict[str, Any] = {name: value}
        table = PG_COUNTERS
    elif port is not None and value and all(not isinstance(v, dict) for v in value.values()):
        objects = {port: value}  # a single port's path returns its fields directly
    else:
        objects = value
    shown = "/".join(elements)
    for name, fields in objects.items():
        match = _OBJECT.match(name)
        if match is None or not isinstance(fields, dict):
            continue
        index = int(match["index"]) if match["index"] is not None else None
        periodic = match["periodic"] is not None
        for field_name, raw in fields.items():
            for spec, priority in _BY_FIELD.get((table, periodic, field_name), ()):
                has_index = "{index}" in spec.key
                if has_index != (index is not None):
                    continue
                parsed = _value(raw, spec.counter)
                if parsed is None:
                    continue
                key = CounterKey(match["port"], priority if priority is not None else index)
                yield Sample(spec.counter, key, parsed, timestamp_ns, f"{GNMI_TARGET}/{shown} [{name}].{field_name}")


def _value(raw: Any, counter: Counter) -> int | str | None:
    if counter is Counter.PFCWD_STATUS:
        return str(raw)
    text = str(raw).strip()
    return int(text) if text.isdigit() else None


def encode(table_path: Sequence[str], samples: Sequence[Sample]) -> dict[str, dict[str, str]]:
    """The JSON value sonic-gnmi would return for ``table_path`` (a :data:`SUBSCRIPTIONS` path, or
    :data:`PG_COUNTERS`) holding ``samples``: ``{object name: {field: decimal string}}``. For a
    gNMI target that serves these paths (the software switch). sonic-gnmi returns one object's
    own path (``COUNTERS/Ethernet0``, ``COUNTERS/oid:...``) as its fields alone: the value
    under its one name here."""
    table = tuple(table_path)
    out: dict[str, dict[str, str]] = {}
    specs: dict[Counter, list[SonicCounterPath]] = {}
    for spec in PATHS:
        if spec.table_path == table:
            specs.setdefault(spec.counter, []).append(spec)
    for sample in samples:
        for spec in specs.get(sample.counter, ()):
            index = sample.key.index
            if "{index}" in spec.field:
                name, field_name = spec.key.format(port=sample.key.port), spec.field.format(index=index)
            else:
                name, field_name = spec.key.format(port=sample.key.port, index=index), spec.field
            out.setdefault(name, {})[field_name] = str(sample.value)
    return out


__all__ = [
    "FLEX_COUNTER_GROUPS",
    "GNMI_TARGET",
    "PATHS",
    "PFCWD",
    "PG_COUNTERS",
    "PG_NAME_MAP",
    "PG_WATERMARKS",
    "PORTS",
    "QUEUES",
    "SUBSCRIPTIONS",
    "SonicCounterPath",
    "decode",
    "encode",
]
