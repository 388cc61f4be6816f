"""The counters ``qosforge watch`` reads, named once for every target (docs/telemetry.md).

A :class:`Counter` says *what* is counted (a queue's peak occupancy, a priority group's headroom
peak, PFC frames received on a priority, ...), on which kind of object (:class:`Scope`), how the
device accumulates it (:class:`Kind`) and in which unit. Each target family says *where* a device
publishes it: :mod:`qosforge.backends.openconfig.telemetry` (openconfig-qos and
openconfig-interfaces state) and :mod:`qosforge.backends.sonic.telemetry` (sonic-gnmi's
``COUNTERS_DB`` paths). Both the gNMI client (``deliver``) and the software switch's gNMI target
(``softswitch``) import these tables, so they speak the same paths; the layering puts them here,
below both (docs/architecture.md §1).

A counter a family has no path for is simply absent from that family's table: ``watch`` reports it
once as unavailable, never derives it from something else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypeVar


class Scope(StrEnum):
    """The object a counter belongs to. ``index`` of a :class:`CounterKey` is the queue index,
    the priority-group index or the PFC priority (0-7) for the three indexed scopes."""

    PORT = "port"
    QUEUE = "queue"
    PRIORITY_GROUP = "priority-group"
    PRIORITY = "priority"


class Kind(StrEnum):
    """How a device accumulates the value.

    ``cumulative``: a monotonic count since the device last cleared it; only differences between
    two samples mean anything. ``peak``: the highest value since the device last cleared the
    watermark (SONiC clears it at every poll of its flex-counter group, sonic-swss
    ``orchagent/watermark_queue.lua``; openconfig leaves the window to the implementation).
    ``mean``: an average over an implementation-defined window. ``status``: a text state.
    """

    CUMULATIVE = "cumulative"
    PEAK = "peak"
    MEAN = "mean"
    STATUS = "status"


class Counter(StrEnum):
    QUEUE_TRANSMIT_PACKETS = "queue-transmit-packets"
    QUEUE_TRANSMIT_BYTES = "queue-transmit-bytes"
    QUEUE_DROPPED_PACKETS = "queue-dropped-packets"
    QUEUE_DROPPED_BYTES = "queue-dropped-bytes"
    QUEUE_WATERMARK_BYTES = "queue-watermark-bytes"
    QUEUE_AVERAGE_BYTES = "queue-average-bytes"
    QUEUE_ECN_MARKED_PACKETS = "queue-ecn-marked-packets"
    QUEUE_ECN_MARKED_BYTES = "queue-ecn-marked-bytes"
    QUEUE_WRED_DROPPED_PACKETS = "queue-wred-dropped-packets"
    PG_HEADROOM_WATERMARK_BYTES = "pg-headroom-watermark-bytes"
    PG_SHARED_WATERMARK_BYTES = "pg-shared-watermark-bytes"
    PG_DROPPED_PACKETS = "pg-dropped-packets"
    PFC_RX_PACKETS = "pfc-rx-packets"
    PFC_TX_PACKETS = "pfc-tx-packets"
    PFC_RX_PAUSE_US = "pfc-rx-pause-us"
    PFC_TX_PAUSE_US = "pfc-tx-pause-us"
    PFCWD_STATUS = "pfcwd-status"
    PFCWD_DEADLOCK_DETECTED = "pfcwd-deadlock-detected"
    PFCWD_DEADLOCK_RESTORED = "pfcwd-deadlock-restored"
    PORT_IN_PACKETS = "port-in-packets"
    PORT_OUT_PACKETS = "port-out-packets"
    PORT_IN_DISCARDS = "port-in-discards"
    PORT_OUT_DISCARDS = "port-out-discards"
    PORT_IN_PAUSE_FRAMES = "port-in-pause-frames"
    PORT_OUT_PAUSE_FRAMES = "port-out-pause-frames"


@dataclass(frozen=True)
class CounterSpec:
    counter: Counter
    scope: Scope
    kind: Kind
    unit: str
    """``packets``, ``bytes``, ``us`` (microseconds), ``frames``, or ``""`` for a status."""
    meaning: str


def _spec(counter: Counter, scope: Scope, kind: Kind, unit: str, meaning: str) -> CounterSpec:
    return CounterSpec(counter, scope, kind, unit, meaning)


C, S, K = Counter, Scope, Kind
SPECS: dict[Counter, CounterSpec] = {s.counter: s for s in (
    _spec(C.QUEUE_TRANSMIT_PACKETS, S.QUEUE, K.CUMULATIVE, "packets", "packets the egress queue transmitted"),
    _spec(C.QUEUE_TRANSMIT_BYTES, S.QUEUE, K.CUMULATIVE, "bytes", "bytes the egress queue transmitted"),
    _spec(C.QUEUE_DROPPED_PACKETS, S.QUEUE, K.CUMULATIVE, "packets", "packets the egress queue dropped (any reason)"),
    _spec(C.QUEUE_DROPPED_BYTES, S.QUEUE, K.CUMULATIVE, "bytes", "bytes the egress queue dropped (any reason)"),
    _spec(C.QUEUE_WATERMARK_BYTES, S.QUEUE, K.PEAK, "bytes", "peak occupancy of the egress queue (shared buffer)"),
    _spec(C.QUEUE_AVERAGE_BYTES, S.QUEUE, K.MEAN, "bytes", "average occupancy of the egress queue"),
    _spec(C.QUEUE_ECN_MARKED_PACKETS, S.QUEUE, K.CUMULATIVE, "packets", "packets WRED/ECN marked CE in the queue"),
    _spec(C.QUEUE_ECN_MARKED_BYTES, S.QUEUE, K.CUMULATIVE, "bytes", "bytes WRED/ECN marked CE in the queue"),
    _spec(C.QUEUE_WRED_DROPPED_PACKETS, S.QUEUE, K.CUMULATIVE, "packets", "packets WRED dropped in the queue"),
    _spec(C.PG_HEADROOM_WATERMARK_BYTES, S.PRIORITY_GROUP, K.PEAK, "bytes", "peak headroom (XOFF room) use of the ingress priority group"),
    _spec(C.PG_SHARED_WATERMARK_BYTES, S.PRIORITY_GROUP, K.PEAK, "bytes", "peak shared-buffer use of the ingress priority group"),
    _spec(C.PG_DROPPED_PACKETS, S.PRIORITY_GROUP, K.CUMULATIVE, "packets", "packets the ingress priority group dropped"),
    _spec(C.PFC_RX_PACKETS, S.PRIORITY, K.CUMULATIVE, "frames", "PFC frames received for the priority (the peer paused us)"),
    _spec(C.PFC_TX_PACKETS, S.PRIORITY, K.CUMULATIVE, "frames", "PFC frames sent for the priority (we paused the peer)"),
    _spec(C.PFC_RX_PAUSE_US, S.PRIORITY, K.CUMULATIVE, "us", "time the port's egress was paused by received PFC, per priority"),
    _spec(C.PFC_TX_PAUSE_US, S.PRIORITY, K.CUMULATIVE, "us", "time the port held its peer paused by sent PFC, per priority"),
    _spec(C.PFCWD_STATUS, S.QUEUE, K.STATUS, "", "PFC watchdog state of the queue: operational or stormed"),
    _spec(C.PFCWD_DEADLOCK_DETECTED, S.QUEUE, K.CUMULATIVE, "events", "PFC storms the watchdog detected on the queue"),
    _spec(C.PFCWD_DEADLOCK_RESTORED, S.QUEUE, K.CUMULATIVE, "events", "PFC storms the watchdog restored on the queue"),
    _spec(C.PORT_IN_PACKETS, S.PORT, K.CUMULATIVE, "packets", "packets received on the interface"),
    _spec(C.PORT_OUT_PACKETS, S.PORT, K.CUMULATIVE, "packets", "packets sent on the interface"),
    _spec(C.PORT_IN_DISCARDS, S.PORT, K.CUMULATIVE, "packets", "inbound packets discarded without an error"),
    _spec(C.PORT_OUT_DISCARDS, S.PORT, K.CUMULATIVE, "packets", "outbound packets discarded without an error"),
    _spec(C.PORT_IN_PAUSE_FRAMES, S.PORT, K.CUMULATIVE, "frames", "MAC control pause frames received"),
    _spec(C.PORT_OUT_PAUSE_FRAMES, S.PORT, K.CUMULATIVE, "frames", "MAC control pause frames sent"),
)}
del C, S, K

PFC_PRIORITIES = range(8)
"""IEEE 802.1Qbb: eight priorities, 0-7."""


@dataclass(frozen=True, order=True)
class CounterKey:
    """Which object a value belongs to: a port, and for indexed scopes the queue, priority group or
    PFC priority index."""

    port: str
    index: int | None = None


@dataclass(frozen=True)
class Sample:
    """One value as a target published it: ``value`` is an int for counts and a str for a status;
    ``timestamp_ns`` is the notification's timestamp (gNMI: nanoseconds since the Unix epoch, the
    time the target took the value, gNMI specification §2.2.1)."""

    counter: Counter
    key: CounterKey
    value: int | str
    timestamp_ns: int
    path: str
    """The path the value came from, as the family writes it (for messages and provenance)."""


class ReadsCounter(Protocol):
    """A family's path to one counter (backends/sonic/telemetry.py, backends/openconfig/telemetry.py)."""

    @property
    def counter(self) -> Counter: ...


FamilyPath = TypeVar("FamilyPath", bound=ReadsCounter)


def paths_of(paths: Iterable[FamilyPath], counter: Counter) -> tuple[FamilyPath, ...]:
    """Every one of a family's ``paths`` that reads ``counter`` (empty: the family does not
    publish it)."""
    return tuple(path for path in paths if path.counter is counter)


__all__ = ["PFC_PRIORITIES", "SPECS", "Counter", "CounterKey", "CounterSpec", "Kind", "ReadsCounter", "Sample", "Scope", "paths_of"]
