"""The values a simulated switch publishes: its counters as :class:`~qosforge.backends.counters.Sample`
values, on the paths of the counter catalogue both watch (the client) and this target read
(:mod:`qosforge.backends.openconfig.telemetry`, :mod:`qosforge.backends.sonic.telemetry`;
docs/telemetry.md lists every path with its source).

- OpenConfig (origin ``openconfig``): one leaf per value, at the catalogue's leaf path
  (``encode_leaf``), plus ``/qos/queues/queue[name]/state/queue-id`` for every queue the served
  ``/qos`` names (what watch reads to map names to indices);
- SONiC (target ``COUNTERS_DB``): one JSON object per sonic-gnmi virtual path, in sonic-gnmi's
  shape (``encode``: ``{"Ethernet0:3": {"SAI_QUEUE_STAT_PACKETS": "5"}}``), ``COUNTERS_PG_NAME_MAP``
  with a synthetic object id per priority group, and each group's ``COUNTERS/<oid>`` entry.

What the engine counts and how (softswitch/device/counters.py): every count since the end of the
run's warm-up; a watermark is the peak since then (never cleared, where SONiC clears its
watermarks at each poll). Counters the engine does not model are not published, so watch reports
them unavailable rather than reading a made-up zero: dropped and ECN-marked octets, packets
received on a port, 802.3x link pause frames (the switch sends PFC, never link pause).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from qosforge.backends import counters as catalogue
from qosforge.backends.counters import Counter, CounterKey, Sample
from qosforge.backends.openconfig import telemetry as oc
from qosforge.backends.sonic import telemetry as sonic
from qosforge.softswitch.device.counters import SwitchCounters
from qosforge.softswitch.device.paths import Elem, Json, Leaf, elem

#: SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP (SAI inc/saitypes.h sai_object_type_t, 26): the type
#: byte at the top of a SAI object id, as sonic-sairedis lays ids out; the rest numbers the group.
_PG_OBJECT_TYPE = 0x1A


def pg_object_id(port_index: int, pg: int) -> str:
    return f"oid:0x{_PG_OBJECT_TYPE:02x}{port_index * 8 + pg + 1:014x}"


def samples(counters: SwitchCounters, stamp_ns: int, *, shared_watermarks: bool = False) -> Iterator[Sample]:
    """Every value the switch publishes, one Sample per counter and object. A queue's watermark
    is its whole occupancy's peak (openconfig ``max-queue-len``), or with ``shared_watermarks``
    its shared-buffer part (SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES)."""
    queue_peaks = counters.queue_shared_watermark_bytes if shared_watermarks else counters.queue_watermark_bytes
    C = Counter

    def put(counter: Counter, port: str, index: int | None, value: int | str) -> Sample:
        return Sample(counter, CounterKey(port, index), value, stamp_ns, "")

    for p, port in enumerate(counters.port_names):
        n = counters.queue_counts[p]
        for q in range(n):
            yield put(C.QUEUE_TRANSMIT_PACKETS, port, q, int(counters.transmit_packets[p, q]))
            yield put(C.QUEUE_TRANSMIT_BYTES, port, q, int(counters.transmit_bytes[p, q]))
            yield put(C.QUEUE_DROPPED_PACKETS, port, q, int(counters.dropped_packets[p, q]))
            yield put(C.QUEUE_WRED_DROPPED_PACKETS, port, q, int(counters.wred_dropped_packets[p, q]))
            yield put(C.QUEUE_ECN_MARKED_PACKETS, port, q, int(counters.ecn_marked_packets[p, q]))
            yield put(C.QUEUE_WATERMARK_BYTES, port, q, int(queue_peaks[p, q]))
            if (p, q) in counters.queue_average_bytes:
                yield put(C.QUEUE_AVERAGE_BYTES, port, q, round(float(counters.queue_average_bytes[(p, q)])))
        for g in range(counters.pg_counts[p]):
            yield put(C.PG_SHARED_WATERMARK_BYTES, port, g, int(counters.pg_shared_watermark_bytes[p, g]))
            yield put(C.PG_HEADROOM_WATERMARK_BYTES, port, g, int(counters.pg_headroom_watermark_bytes[p, g]))
            yield put(C.PG_DROPPED_PACKETS, port, g, int(counters.pg_dropped_packets[p, g]))
        for priority in catalogue.PFC_PRIORITIES:
            yield put(C.PFC_RX_PACKETS, port, priority, int(counters.pfc_rx_frames[p, priority]))
            yield put(C.PFC_TX_PACKETS, port, priority, int(counters.pfc_tx_frames[p, priority]))
            yield put(C.PFC_RX_PAUSE_US, port, priority, round(float(counters.pfc_rx_pause_s[p, priority]) * 1e6))
            yield put(C.PFC_TX_PAUSE_US, port, priority, round(float(counters.pfc_tx_pause_s[p, priority]) * 1e6))
            queue = int(counters.pfc_queue[p, priority])
            if counters.pfc_watchdog_enabled[p, priority] and queue >= 0:
                recovering = int(counters.pfc_watchdog_recovering[p, priority])
                detected = int(counters.pfc_deadlocks[p, priority])
                yield put(C.PFCWD_STATUS, port, queue, "stormed" if recovering else "operational")
                yield put(C.PFCWD_DEADLOCK_DETECTED, port, queue, detected)
                # Every detection starts a recovery that ends in a restoration (engine/kernel.py
                # deadlock_recovered), so those restored are those detected less one in progress.
                yield put(C.PFCWD_DEADLOCK_RESTORED, port, queue, max(detected - recovering, 0))
        yield put(C.PORT_OUT_PACKETS, port, None, int(counters.transmit_packets[p, :n].sum()))
        yield put(C.PORT_OUT_DISCARDS, port, None, int(counters.dropped_packets[p, :n].sum()))
        yield put(C.PORT_IN_DISCARDS, port, None, int(counters.pg_dropped_packets[p, :counters.pg_counts[p]].sum()))


def _elems(path: tuple[oc.Elem, ...]) -> tuple[Elem, ...]:
    return tuple((e.name, tuple(sorted(e.keys))) for e in path)


def openconfig_leaves(values: list[Sample], queue_names: Mapping[int, str]) -> list[Leaf]:
    leaves = [Leaf("openconfig", (elem("qos"), elem("queues"), elem("queue", name=name), elem("state"), elem("queue-id")), index)
              for index, name in sorted(queue_names.items())]
    for sample in values:
        encoded = oc.encode_leaf(sample, queue_names.get(sample.key.index) if sample.key.index is not None else None)
        if encoded is not None:
            path, value = encoded
            leaves.append(Leaf("openconfig", _elems(path), value))
    return leaves


def sonic_leaves(values: list[Sample], port_names: tuple[str, ...], pg_counts: tuple[int, ...]) -> list[Leaf]:
    """One JSON-valued leaf per sonic-gnmi path: each virtual path with every port's objects
    (``Ethernet*``) and each port's own (``Ethernet0``), the PG name map and each PG's entry."""
    leaves: list[Leaf] = []
    for table in sonic.SUBSCRIPTIONS:
        every = sonic.encode(table, values)
        leaves.append(Leaf("", tuple(elem(name) for name in table), _json(every), target=sonic.GNMI_TARGET))
        own: dict[str, dict[str, dict[str, str]]] = {}
        for name, fields in every.items():
            own.setdefault(name.split(":", 1)[0], {})[name] = fields
        for port in port_names:
            path = tuple(elem(port if name == sonic.PORT_WILDCARD else name) for name in table)
            # sonic-gnmi returns one port's own COUNTERS entry as its fields alone.
            value = own.get(port, {}).get(port, {}) if table == sonic.PORTS else own.get(port, {})
            leaves.append(Leaf("", path, _json(value), target=sonic.GNMI_TARGET))
    names = {f"{port}:{g}": pg_object_id(p, g) for p, port in enumerate(port_names) for g in range(pg_counts[p])}
    leaves.append(Leaf("", (elem(sonic.PG_NAME_MAP),), _json(names), target=sonic.GNMI_TARGET))
    pg_samples = [s for s in values if s.counter is Counter.PG_DROPPED_PACKETS]
    encoded = sonic.encode(sonic.PG_COUNTERS, pg_samples)
    for name, oid in names.items():
        leaves.append(Leaf("", (elem("COUNTERS"), elem(oid)), _json(encoded.get(name, {})), target=sonic.GNMI_TARGET))
    return leaves


def _json(value: object) -> Json:
    return Json(json.dumps(value, separators=(",", ":"), sort_keys=True))


def published_leaves(counters: SwitchCounters, queue_names: Mapping[int, str], stamp_ns: int = 0) -> list[Leaf]:
    return (openconfig_leaves(list(samples(counters, stamp_ns)), queue_names)
            + sonic_leaves(list(samples(counters, stamp_ns, shared_watermarks=True)), counters.port_names, counters.pg_counts))


__all__ = ["openconfig_leaves", "pg_object_id", "published_leaves", "samples", "sonic_leaves"]
