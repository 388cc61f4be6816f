"""Where OpenConfig publishes the counters ``qosforge watch`` reads (docs/telemetry.md).

Sources (openconfig/public, ``release/models``; the revisions the bindings record,
:func:`qosforge.backends.openconfig.model.model_revision`):

- ``qos/openconfig-qos-interfaces.yang``, grouping ``qos-interface-queue-state``, at
  ``/qos/interfaces/interface[interface-id]/output/queues/queue[name]/state``: ``max-queue-len``
  and ``avg-queue-len`` (``units bytes``), ``transmit-pkts``/``-octets``, ``dropped-pkts``/
  ``-octets``, ``ecn-marked-pkts``/``-octets`` (counter64). The queue's ``name`` is the
  ``/qos/queues/queue[name]`` entry, whose ``queue-id`` gives the index
  (``qos/openconfig-qos-elements.yang``); qosforge names each queue after its class.
- ``interfaces/openconfig-interfaces.yang``, ``/interfaces/interface[name]/state/counters``:
  ``in-pkts``, ``out-pkts``, ``in-discards``, ``out-discards``.
- ``interfaces/openconfig-if-ethernet.yang``, ``/interfaces/interface[name]/ethernet/state/
  counters``: ``in-mac-pause-frames``, ``out-mac-pause-frames`` (802.3x link pause).

OpenConfig has no priority groups, no per-priority PFC counters, no pause durations and no PFC
watchdog (none of the published modules defines them), so those counters are absent here and
``watch`` reports them as unavailable on an OpenConfig-only target.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qosforge.backends.counters import Counter, CounterKey, Sample


@dataclass(frozen=True)
class Elem:
    """One gNMI path element: a name and its list keys (``*`` = every entry)."""

    name: str
    keys: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        return self.name + "".join(f"[{k}={v}]" for k, v in self.keys)


def _e(element: str, **keys: str) -> Elem:
    return Elem(element, tuple((k.replace("_", "-"), v) for k, v in keys.items()))


QUEUE_STATE: tuple[Elem, ...] = (_e("qos"), _e("interfaces"), _e("interface", interface_id="*"), _e("output"),
                                 _e("queues"), _e("queue", name="*"), _e("state"))
INTERFACE_COUNTERS: tuple[Elem, ...] = (_e("interfaces"), _e("interface", name="*"), _e("state"), _e("counters"))
ETHERNET_COUNTERS: tuple[Elem, ...] = (_e("interfaces"), _e("interface", name="*"), _e("ethernet"), _e("state"), _e("counters"))
QUEUE_IDS: tuple[Elem, ...] = (_e("qos"), _e("queues"), _e("queue", name="*"), _e("state"), _e("queue-id"))
"""Read once (Get) to map a queue's name to its index."""

QOS_INTERFACES = "openconfig/public release/models/qos/openconfig-qos-interfaces.yang (grouping qos-interface-queue-state)"
INTERFACES = "openconfig/public release/models/interfaces/openconfig-interfaces.yang (interface-counters-state)"
ETHERNET = "openconfig/public release/models/interfaces/openconfig-if-ethernet.yang (ethernet-interface-state-counters)"


@dataclass(frozen=True)
class OpenConfigCounterPath:
    counter: Counter
    container: tuple[Elem, ...]
    leaf: str
    source: str

    def path_text(self) -> str:
        return "/" + "/".join(e.text() for e in self.container) + "/" + self.leaf


C = Counter
PATHS: tuple[OpenConfigCounterPath, ...] = (
    OpenConfigCounterPath(C.QUEUE_WATERMARK_BYTES, QUEUE_STATE, "max-queue-len", QOS_INTERFACES),
    OpenConfigCounterPath(C.QUEUE_AVERAGE_BYTES, QUEUE_STATE, "avg-queue-len", QOS_INTERFACES),
    OpenConfigCounterPath(C.QUEUE_TRANSMIT_PACKETS, QUEUE_STATE, "transmit-pkts", QOS_INTERFACES),
    OpenConfigCounterPath(C.QUEUE_TRANSMIT_BYTES, QUEUE_STATE, "transmit-octets", QOS_INTERFACES),
    OpenConfigCounterPath(C.QUEUE_DROPPED_PACKETS, QUEUE_STATE, "dropped-pkts", QOS_INTERFACES),
    OpenConfigCounterPath(C.QUEUE_DROPPED_BYTES, QUEUE_STATE, "dropped-octets", QOS_INTERFACES),
    OpenConfigCounterPath(C.QUEUE_ECN_MARKED_PACKETS, QUEUE_STATE, "ecn-marked-pkts", QOS_INTERFACES),
    OpenConfigCounterPath(C.QUEUE_ECN_MARKED_BYTES, QUEUE_STATE, "ecn-marked-octets", QOS_INTERFACES),
    OpenConfigCounterPath(C.PORT_IN_PACKETS, INTERFACE_COUNTERS, "in-pkts", INTERFACES),
    OpenConfigCounterPath(C.PORT_OUT_PACKETS, INTERFACE_COUNTERS, "out-pkts", INTERFACES),
    OpenConfigCounterPath(C.PORT_IN_DISCARDS, INTERFACE_COUNTERS, "in-discards", INTERFACES),
    OpenConfigCounterPath(C.PORT_OUT_DISCARDS, INTERFACE_COUNTERS, "out-discards", INTERFACES),
    OpenConfigCounterPath(C.PORT_IN_PAUSE_FRAMES, ETHERNET_COUNTERS, "in-mac-pause-frames", ETHERNET),
    OpenConfigCounterPath(C.PORT_OUT_PAUSE_FRAMES, ETHERNET_COUNTERS, "out-mac-pause-frames", ETHERNET),
)
del C

SUBSCRIPTIONS: tuple[tuple[Elem, ...], ...] = (QUEUE_STATE, INTERFACE_COUNTERS, ETHERNET_COUNTERS)

_BY_LEAF: dict[tuple[tuple[str, ...], str], OpenConfigCounterPath] = {
    (tuple(e.name for e in p.container), p.leaf): p for p in PATHS}
_CONTAINERS = tuple(tuple(e.name for e in path) for path in SUBSCRIPTIONS)


def _local(name: str) -> str:
    """RFC 7951 member names may carry a module prefix (``openconfig-qos:state``)."""
    return name.split(":", 1)[-1]


def decode(elements: Sequence[Elem], value: Any, timestamp_ns: int, queue_index: Mapping[str, int]) -> Iterator[Sample]:
    """Samples from one update: ``elements`` its full path (prefix joined), ``value`` a scalar for
    a leaf path, or the JSON (RFC 7951) of a ``state``/``counters`` container. ``queue_index``
    maps a queue's name to its index (from :data:`QUEUE_IDS`); a queue not in it is skipped (its
    index is unknown, so its counters cannot be attributed)."""
    names = tuple(_local(e.name) for e in elements)
    keys = {k: v for e in elements for k, v in e.keys}
    for container in _CONTAINERS:
        if names == container:
            if isinstance(value, (bytes, str)):
                value = json.loads(value)
            leaves = {_local(k): v for k, v in value.items()} if isinstance(value, dict) else {}
            break
        if names[:-1] == container:
            leaves = {names[-1]: value}
            break
    else:
        return
    if container[0] == "qos":
        port, queue = keys.get("interface-id"), keys.get("name")
        if port is None or queue is None or queue not in queue_index:
            return
        key = CounterKey(port, queue_index[queue])
    else:
        port = keys.get("name")
        if port is None:
            return
        key = CounterKey(port)
    shown = "/" + "/".join(e.text() for e in elements)
    for leaf, raw in leaves.items():
        spec = _BY_LEAF.get((container, leaf))
        text = str(raw).strip()
        if spec is None or not text.isdigit():
            continue
        yield Sample(spec.counter, key, int(text), timestamp_ns, shown if names[-1] == leaf else f"{shown}/{leaf}")


def encode_leaf(sample: Sample, queue_name: str | None = None) -> tuple[tuple[Elem, ...], int] | None:
    """The leaf path and value a gNMI target publishes ``sample`` at (None: no OpenConfig path).
    ``queue_name`` names the queue for queue counters (the ``/qos/queues/queue`` name)."""
    for spec in PATHS:
        if spec.counter is not sample.counter:
            continue
        path = []
        for element in spec.container:
            if element.name == "interface":
                element = Elem("interface", ((element.keys[0][0], sample.key.port),))
            elif element.name == "queue":
                if queue_name is None:
                    return None
                element = Elem("queue", (("name", queue_name),))
            path.append(element)
        return (*path, Elem(spec.leaf)), int(sample.value)
    return None


__all__ = [
    "ETHERNET_COUNTERS",
    "INTERFACE_COUNTERS",
    "PATHS",
    "QUEUE_IDS",
    "QUEUE_STATE",
    "SUBSCRIPTIONS",
    "Elem",
    "OpenConfigCounterPath",
    "decode",
    "encode_leaf",
]
