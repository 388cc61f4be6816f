"""A SAI program: the operations one switch needs, in dependency order, with symbolic ids.

This is the SAI backend's output and the software switch's input (docs/architecture.md §5, §6). Objects the
switch creates itself at boot (ports, queues, ingress priority groups, scheduler groups) are not
created here: the program first *discovers* them with ``get`` operations whose attributes carry
the switch's answers (the ``g``/``G`` pairs of a sairedis recording, sonic-sairedis saiplayer/),
then creates pools, profiles, WRED, maps and schedulers and ``set``s the pre-existing objects.

Symbolic ids name every object: ``switch``, ``port:<name>``, ``queue:<port>:<position>``,
``ipg:<port>:<index>``, ``scheduler_group:<port>:<index>`` for discovered objects and
``<kind>:<name>`` (``wred:``, ``buffer_pool:``, ``buffer_profile:``, ``qos_map:``,
``scheduler:``) for created ones. Attribute values are typed by the SAI metadata
(:mod:`qosforge.backends.sai.metadata`): bool, int, an enum value name, an object id (a
symbolic id, or ``None`` for SAI_NULL_OBJECT_ID), a tuple of object ids, a QoS map list or a
map list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

OperationKind = Literal["create", "set", "get"]

SWITCH_ID = "switch"


@dataclass(frozen=True)
class QosMapEntry:
    """One ``sai_qos_map_t``: only the fields the map type uses are non-zero (SAI inc/saitypes.h, sai_qos_map_t).

    ``color`` is a ``sai_packet_color_t`` value name; the numeric fields are the sairedis JSON
    keys (``qidx`` is the queue index, sonic-sairedis meta/SaiSerialize.cpp).
    """

    key: tuple[tuple[str, int | str], ...]
    value: tuple[tuple[str, int | str], ...]


@dataclass(frozen=True)
class MapListEntry:
    """One ``sai_map_t`` (PFC deadlock intervals: TC -> milliseconds)."""

    key: int
    value: int


SaiValue = bool | int | str | None | tuple[str, ...] | tuple[QosMapEntry, ...] | tuple[MapListEntry, ...]


@dataclass(frozen=True)
class SaiOperation:
    """One SAI API call. ``set`` carries exactly one attribute, as ``set_*_attribute`` does."""

    op: OperationKind
    object_type: str
    object_id: str
    attributes: tuple[tuple[str, SaiValue], ...]

    def attribute(self, name: str) -> SaiValue:
        return next(value for attr, value in self.attributes if attr == name)

    def describe(self) -> str:
        return f"{self.op} {self.object_type} {self.object_id}"


@dataclass(frozen=True)
class SchedulerGroupShape:
    """One pre-existing scheduler group of a port: its children by index in the port's lists."""

    level: int
    child_groups: tuple[int, ...] = ()
    child_queues: tuple[int, ...] = ()
    """Positions in SAI_PORT_ATTR_QOS_QUEUE_LIST."""


@dataclass(frozen=True)
class LayoutPort:
    """One port the target switch creates at boot, at its position in SAI_SWITCH_ATTR_PORT_LIST."""

    lanes: tuple[int, ...] = ()
    """Its SAI_PORT_ATTR_HW_LANE_LIST where the layout publishes it, else empty."""


@dataclass(frozen=True)
class SwitchInventory:
    """The objects the target switch creates at boot, and where we learned their shape."""

    name: str
    source: str
    unicast_queues: int
    multicast_queues: int
    ingress_priority_groups: int
    scheduler_groups: tuple[SchedulerGroupShape, ...]
    ports: tuple[LayoutPort, ...] = ()
    """The switch's whole port list, in SAI_SWITCH_ATTR_PORT_LIST order; empty in programs written
    before layouts carried ports (then the program's own ports are the whole list)."""
    ports_source: str = ""

    @property
    def lanes_per_port(self) -> int | None:
        """The layout's lane count when every port has the same, published one."""
        counts = {len(port.lanes) for port in self.ports}
        return counts.pop() if len(counts) == 1 and 0 not in counts else None

    @property
    def queues_per_port(self) -> int:
        return self.unicast_queues + self.multicast_queues

    def parent_group(self, queue_position: int) -> int:
        """The scheduler group whose CHILD_LIST holds the queue (orchagent's getSchedulerGroup)."""
        for index, group in enumerate(self.scheduler_groups):
            if queue_position in group.child_queues:
                return index
        raise LookupError(f"queue {queue_position} has no parent scheduler group in inventory {self.name}")


@dataclass(frozen=True)
class PortContext:
    """Topology facts about a port that SAI does not carry (cable, peer) and its speed."""

    object_id: str
    name: str
    speed_bps: float
    cable_m: float
    peer: str | None
    layout_index: int | None = None
    """The port's position in the switch's SAI_SWITCH_ATTR_PORT_LIST (None: its own position in
    the program's ports, as programs written before port binding had it)."""


@dataclass(frozen=True)
class SaiProgram:
    switch_name: str
    vendor_profile: str
    sai_api_version: int
    inventory: SwitchInventory
    ports: tuple[PortContext, ...]
    operations: tuple[SaiOperation, ...]
    notes: tuple[str, ...] = field(default=())
    """Emulations and approximations the program relies on (e.g. per-color drop via WRED)."""


def port_id(name: str) -> str:
    return f"port:{name}"


def queue_id(port: str, position: int) -> str:
    return f"queue:{port}:{position}"


def ipg_id(port: str, index: int) -> str:
    return f"ipg:{port}:{index}"


def scheduler_group_id(port: str, index: int) -> str:
    return f"scheduler_group:{port}:{index}"


__all__ = [
    "SWITCH_ID",
    "LayoutPort",
    "MapListEntry",
    "OperationKind",
    "PortContext",
    "QosMapEntry",
    "SaiOperation",
    "SaiProgram",
    "SaiValue",
    "SchedulerGroupShape",
    "SwitchInventory",
    "ipg_id",
    "port_id",
    "queue_id",
    "scheduler_group_id",
]
