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
import re
from collections.abc import Iterator, Mapping

from qosforge.backends import counters as catalogue
from qosforge.backends.counters import Counter, CounterKey, Sample
from qosforge.backends.openconfig import telemetry as oc
from qosforge.backends.sonic import telemetry as sonic
from qosforge.softswitch.device.counters import SwitchCounters
from qosforge.softswitch.device.paths import Elem, Json, Leaf, LeafIndex, elem

#: SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP (SAI inc/saitypes.h sai_object_type_t, 26): the type
#: byte at the top of a SAI object id, as sonic-sairedis lays ids out; the rest numbers the group.
_PG_OBJECT_TYPE = 0x1A


def pg_object_id(port_index: int, pg: int) -> str:
    return f"oid:0x{_PG_OBJECT_TYPE:02x}{port_index * 8 + pg + 1:014x}"


Slot = tuple[Counter, str, int | None]
"""What one published value is: its counter, port and index (queue, PG or priority)."""


def _slots(counters: SwitchCounters) -> list[Slot]:
    """Every value the switch publishes, in publishing order: depends only on the switch's
    layout (ports, queues, PGs, monitored queues, watchdog), not on the counts."""
    C = Counter
    out: list[Slot] = []
    for p, port in enumerate(counters.port_names):
        for q in range(counters.queue_counts[p]):
            out += [(C.QUEUE_TRANSMIT_PACKETS, port, q), (C.QUEUE_TRANSMIT_BYTES, port, q), (C.QUEUE_DROPPED_PACKETS, port, q),
                    (C.QUEUE_WRED_DROPPED_PACKETS, port, q), (C.QUEUE_ECN_MARKED_PACKETS, port, q), (C.QUEUE_WATERMARK_BYTES, port, q)]
            if (p, q) in counters.queue_average_bytes:
                out.append((C.QUEUE_AVERAGE_BYTES, port, q))
        for g in range(counters.pg_counts[p]):
            out += [(C.PG_SHARED_WATERMARK_BYTES, port, g), (C.PG_HEADROOM_WATERMARK_BYTES, port, g), (C.PG_DROPPED_PACKETS, port, g)]
        for priority in catalogue.PFC_PRIORITIES:
            out += [(C.PFC_RX_PACKETS, port, priority), (C.PFC_TX_PACKETS, port, priority), (C.PFC_RX_PAUSE_US, port, priority),
                    (C.PFC_TX_PAUSE_US, port, priority)]
            queue = int(counters.pfc_queue[p, priority])
            if counters.pfc_watchdog_enabled[p, priority] and queue >= 0:
                out += [(C.PFCWD_STATUS, port, queue), (C.PFCWD_DEADLOCK_DETECTED, port, queue), (C.PFCWD_DEADLOCK_RESTORED, port, queue)]
        out += [(C.PORT_OUT_PACKETS, port, None), (C.PORT_OUT_DISCARDS, port, None), (C.PORT_IN_DISCARDS, port, None)]
    return out


def _values(counters: SwitchCounters, shared_watermarks: bool) -> list[int | str]:
    """The values of :func:`_slots`, in the same order (from lists, not per-element array reads:
    this runs for every published snapshot). A queue's watermark is its whole occupancy's peak
    (openconfig ``max-queue-len``), or with ``shared_watermarks`` its shared-buffer part
    (SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES)."""
    c = counters
    tx, tx_bytes, dropped, wred, marked = (a.tolist() for a in (c.transmit_packets, c.transmit_bytes, c.dropped_packets, c.wred_dropped_packets,
                                                               c.ecn_marked_packets))
    peaks = (c.queue_shared_watermark_bytes if shared_watermarks else c.queue_watermark_bytes).tolist()
    pg_shared, pg_headroom, pg_drops = c.pg_shared_watermark_bytes.tolist(), c.pg_headroom_watermark_bytes.tolist(), c.pg_dropped_packets.tolist()
    rx, tx_pfc = c.pfc_rx_frames.tolist(), c.pfc_tx_frames.tolist()
    # round(seconds * 1e6) as Python rounds (half to even, as numpy.round), on the same doubles
    rx_us, tx_us = (c.pfc_rx_pause_s * 1e6).tolist(), (c.pfc_tx_pause_s * 1e6).tolist()
    queues, enabled = c.pfc_queue.tolist(), c.pfc_watchdog_enabled.tolist()
    recovering, deadlocks = c.pfc_watchdog_recovering.tolist(), c.pfc_deadlocks.tolist()
    out: list[int | str] = []
    for p in range(len(c.port_names)):
        n = c.queue_counts[p]
        for q in range(n):
            out += [int(tx[p][q]), int(tx_bytes[p][q]), int(dropped[p][q]), int(wred[p][q]), int(marked[p][q]), int(peaks[p][q])]
            if (p, q) in c.queue_average_bytes:
                out.append(round(float(c.queue_average_bytes[(p, q)])))
        for g in range(c.pg_counts[p]):
            out += [int(pg_shared[p][g]), int(pg_headroom[p][g]), int(pg_drops[p][g])]
        for priority in catalogue.PFC_PRIORITIES:
            out += [int(rx[p][priority]), int(tx_pfc[p][priority]), round(rx_us[p][priority]), round(tx_us[p][priority])]
            if enabled[p][priority] and queues[p][priority] >= 0:
                storming, detected = int(recovering[p][priority]), int(deadlocks[p][priority])
                # Every detection starts a recovery that ends in a restoration (engine/kernel.py
                # deadlock_recovered), so those restored are those detected less one in progress.
                out += ["stormed" if storming else "operational", detected, max(detected - storming, 0)]
        out += [int(sum(tx[p][:n])), int(sum(dropped[p][:n])), int(sum(pg_drops[p][:c.pg_counts[p]]))]
    return out


def samples(counters: SwitchCounters, stamp_ns: int, *, shared_watermarks: bool = False) -> Iterator[Sample]:
    """Every value the switch publishes, one Sample per counter and object (see :func:`_values`
    for the watermark a queue publishes)."""
    for (counter, port, index), value in zip(_slots(counters), _values(counters, shared_watermarks), strict=True):
        yield Sample(counter, CounterKey(port, index), value, stamp_ns, "")


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


#: The counters each sonic-gnmi path holds (so each path encodes only its own samples).
_SONIC_COUNTERS: dict[tuple[str, ...], frozenset[Counter]] = {
    table: frozenset(spec.counter for spec in sonic.PATHS if spec.table_path == table) for table in (*sonic.SUBSCRIPTIONS, sonic.PG_COUNTERS)}


def sonic_leaves(values: list[Sample], port_names: tuple[str, ...], pg_counts: tuple[int, ...]) -> list[Leaf]:
    """One JSON-valued leaf per sonic-gnmi path: each virtual path with every port's objects
    (``Ethernet*``) and each port's own (``Ethernet0``), the PG name map and each PG's entry."""
    leaves: list[Leaf] = []
    by_counter: dict[Counter, list[Sample]] = {}
    for sample in values:
        by_counter.setdefault(sample.counter, []).append(sample)
    for table in sonic.SUBSCRIPTIONS:
        every = sonic.encode(table, [s for counter in _SONIC_COUNTERS[table] for s in by_counter.get(counter, ())])
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
    encoded = sonic.encode(sonic.PG_COUNTERS, [s for counter in _SONIC_COUNTERS[sonic.PG_COUNTERS] for s in by_counter.get(counter, ())])
    for name, oid in names.items():
        leaves.append(Leaf("", (elem("COUNTERS"), elem(oid)), _json(encoded.get(name, {})), target=sonic.GNMI_TARGET))
    return leaves


def _json(value: object) -> Json:
    return Json(json.dumps(value, separators=(",", ":"), sort_keys=True))


OPENCONFIG = "openconfig"
SONIC = "sonic"
FAMILIES = (OPENCONFIG, SONIC)


def published_leaves(counters: SwitchCounters, queue_names: Mapping[int, str], family: str) -> list[Leaf]:
    """The leaves of one family (built separately: a client of one family does not pay for the other)."""
    if family == OPENCONFIG:
        return openconfig_leaves(list(samples(counters, 0)), queue_names)
    return sonic_leaves(list(samples(counters, 0, shared_watermarks=True)), counters.port_names, counters.pg_counts)


#: Marks a slot's value in a SONiC template while it is built: JSON escapes the control
#: characters around the slot number, so the marker cannot occur in a name or a field.
_MARK = "\x00"
_MARK_JSON = json.dumps(_MARK)[1:-1]
_SLOT = re.compile(re.escape(_MARK_JSON) + r"(\d+)" + re.escape(_MARK_JSON))


def _layout_key(counters: SwitchCounters) -> tuple[object, ...]:
    """What the published paths depend on (see :func:`_slots`)."""
    return (counters.port_names, counters.queue_counts, counters.pg_counts, tuple(sorted(counters.queue_average_bytes)),
            counters.pfc_watchdog_enabled.tobytes(), counters.pfc_queue.tobytes())


class _Template:
    """One JSON leaf of the SONiC family with its values left out: its text with ``%s`` where a
    value goes and the slots those values come from."""

    def __init__(self, text: str) -> None:
        self.slots = [int(m.group(1)) for m in _SLOT.finditer(text)]
        self.text = _SLOT.sub("%s", text.replace("%", "%%"))

    def fill(self, values: list[str]) -> Json:
        return Json(self.text % tuple(values[i] for i in self.slots))


class Publisher:
    """The leaves one family publishes for a switch, built once per switch layout: every path,
    and for the SONiC family every JSON text with its values left out (built by the same
    :func:`sonic_leaves` / :func:`openconfig_leaves` as the values, so byte for byte what they
    give). Each snapshot then only reads its values into them (:meth:`index`), and the leaf
    index by path prefix is the layout's, shared by every snapshot's leaves."""

    def __init__(self, family: str, queue_names: Mapping[int, str]) -> None:
        if family not in FAMILIES:
            raise ValueError(f"unknown family {family!r}")
        self.family = family
        self.queue_names = dict(queue_names)
        self._key: tuple[object, ...] | None = None
        self._base: LeafIndex | None = None
        self._templates: list[tuple[Leaf, _Template]] = []
        self._openconfig: list[tuple[int, Leaf]] = []
        """(slot, leaf with value 0) of each counter OpenConfig publishes; the rest constant."""
        self._constant: list[Leaf] = []

    def _build(self, counters: SwitchCounters) -> None:
        slots = _slots(counters)
        if self.family == SONIC:
            marked = [Sample(counter, CounterKey(port, index), f"{_MARK}{i}{_MARK}", 0, "") for i, (counter, port, index) in enumerate(slots)]
            leaves = sonic_leaves(marked, counters.port_names, counters.pg_counts)
            self._templates = [(leaf, _Template(str(leaf.value))) for leaf in leaves]
        else:
            self._constant = openconfig_leaves([], self.queue_names)
            self._openconfig = []
            for i, (counter, port, index) in enumerate(slots):
                name = self.queue_names.get(index) if index is not None else None
                encoded = oc.encode_leaf(Sample(counter, CounterKey(port, index), 0, 0, ""), name) if counter is not Counter.PFCWD_STATUS else None
                if encoded is not None:
                    self._openconfig.append((i, Leaf("openconfig", _elems(encoded[0]), 0)))
        self._base = None
        self._key = _layout_key(counters)

    def leaves(self, counters: SwitchCounters) -> list[Leaf]:
        if self._key != _layout_key(counters):
            self._build(counters)
        values = _values(counters, shared_watermarks=self.family == SONIC)
        if self.family == SONIC:
            text = [str(v) for v in values]
            return [Leaf(leaf.origin, leaf.elems, template.fill(text) if template.slots else leaf.value, leaf.target)
                    for leaf, template in self._templates]
        return [*self._constant, *(Leaf(leaf.origin, leaf.elems, int(values[i]), leaf.target) for i, leaf in self._openconfig)]

    def index(self, counters: SwitchCounters) -> LeafIndex:
        """The snapshot's leaves, indexed by path (the index shared while the layout stays)."""
        leaves = self.leaves(counters)
        if self._base is None:
            self._base = LeafIndex(leaves)
            return self._base
        return self._base.refreshed(leaves)


__all__ = ["FAMILIES", "OPENCONFIG", "SONIC", "Publisher", "openconfig_leaves", "pg_object_id", "published_leaves", "samples", "sonic_leaves"]
