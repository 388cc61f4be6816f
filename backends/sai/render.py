"""Render one :class:`~qosforge.ir.SwitchIR` as a SAI program (docs/architecture.md §5).

Order (the SAI headers (opencomputeproject/SAI inc/) and sonic-sairedis item 1): discover the pre-existing objects (port list; per port
its queues, ingress priority groups and scheduler groups; the children of the scheduler groups
we configure), then create BUFFER_POOL -> BUFFER_PROFILE -> WRED, QOS_MAP, SCHEDULER, then set
the SWITCH, PORT, INGRESS_PRIORITY_GROUP, QUEUE and SCHEDULER_GROUP attributes that bind them.
The program is validated against the SAI metadata before it is returned; a violation is a
qosforge bug and raises.

Mapping choices, each as SONiC's orchagent makes it where it has one (sonic-swss orchagent/qosorch.cpp):

* WRED: one object per IR profile, ``WEIGHT = 0`` (orchagent always does; it makes WRED act on
  the instantaneous queue, which the step curves of DCTCP/TLT assume). A color that drops sets
  ``<COLOR>_ENABLE``; a color that marks is in ``ECN_MARK_MODE``; thresholds are bytes, in the
  32-bit attribute below 2^32 and the ``_64`` one from there (SAI inc/saiwred.h).
* TLT (TLT §4.1-4.2): unimportant DSCPs map to RED through DSCP_TO_COLOR, the red curve drops at
  K (min = max = K, 100 %); the transport's ECN marking of those packets uses the ECT thresholds
  (``ECN_RED_*``) with ``SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE``. SAI has no per-color tail-drop
  attribute (SAI inc/saiwred.h): the per-color WRED step is the standard emulation, recorded in the notes.
* Queue schedulers go on the queue's parent scheduler group, as orchagent applies them
  (``QosOrch::getSchedulerGroup``, sonic-swss orchagent/qosorch.cpp), not on ``SAI_QUEUE_ATTR_SCHEDULER_PROFILE_ID``.
* PFC: ``SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL`` bit vector (COMBINED mode, the default), TC->PG,
  PFC priority->PG and PFC priority->queue maps, lossless PG profiles with XOFF/XON (SAI inc/saiport.h
  SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL, inc/saibuffer.h XOFF_TH/XON_TH).
* PFC watchdog: SAI's own deadlock detection/recovery — per-port ``PFC_TC_DLD_INTERVAL`` /
  ``PFC_TC_DLR_INTERVAL`` (ms, keyed by TC) and ``SAI_QUEUE_ATTR_ENABLE_PFC_DLDR`` on lossless
  queues; the recovery action is the switch default ``SAI_PACKET_ACTION_DROP`` (SAI inc/saiport.h), the IR's.
"""

from __future__ import annotations

from collections.abc import Iterable

from qosforge.backends.sai.inventory import inventory_for_profile
from qosforge.backends.sai.metadata import sai_metadata
from qosforge.backends.sai.port_binding import bind_ports, port_list, profile_lanes_per_port
from qosforge.backends.sai.program import (
    SWITCH_ID,
    MapListEntry,
    PortContext,
    QosMapEntry,
    SaiOperation,
    SaiProgram,
    SaiValue,
    SwitchInventory,
    ipg_id,
    port_id,
    queue_id,
    scheduler_group_id,
)
from qosforge.backends.sai.validate import validate_program
from qosforge.errors import QosforgeError
from qosforge.ir import BufferProfileIR, Derived, PoolIR, SchedulerIR, SwitchIR, WredIR

_COLOR_NAMES = {"green": "GREEN", "yellow": "YELLOW", "red": "RED"}
_UINT32_MAX = 2**32 - 1

EMULATION_NOTE = (
    "per-color drop thresholds are programmed as per-color WRED (min = max = K, 100 %, weight 0): "
    "SAI has no per-color tail-drop attribute (SAI inc/saiwred.h)"
)
WATCHDOG_NOTE = (
    "PFC watchdog rendered as SAI hardware deadlock detection/recovery (PFC_TC_DLD/DLR_INTERVAL, "
    "SAI_QUEUE_ATTR_ENABLE_PFC_DLDR); SONiC's pfcwd polls counters in software instead"
)


def wred_id(name: str) -> str:
    return f"wred:{name}"


def pool_id(name: str) -> str:
    return f"buffer_pool:{name}"


def profile_id(name: str) -> str:
    return f"buffer_profile:{name}"


def scheduler_id(name: str) -> str:
    return f"scheduler:{name}"


def qos_map_id(kind: str) -> str:
    return f"qos_map:{kind}"


def _bytes(value: Derived | float) -> int:
    number = value.value if isinstance(value, Derived) else value
    return round(number)


def _create(object_type: str, object_id: str, attributes: Iterable[tuple[str, SaiValue]]) -> SaiOperation:
    return SaiOperation("create", object_type, object_id, tuple(attributes))


def _set(object_type: str, object_id: str, name: str, value: SaiValue) -> SaiOperation:
    return SaiOperation("set", object_type, object_id, ((name, value),))


def _get(object_type: str, object_id: str, name: str, value: SaiValue) -> SaiOperation:
    return SaiOperation("get", object_type, object_id, ((name, value),))


def _pool(pool: PoolIR) -> SaiOperation:
    attributes: list[tuple[str, SaiValue]] = [
        ("SAI_BUFFER_POOL_ATTR_TYPE", f"SAI_BUFFER_POOL_TYPE_{pool.direction.upper()}"),
        ("SAI_BUFFER_POOL_ATTR_SIZE", _bytes(pool.size_bytes)),
        ("SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE", f"SAI_BUFFER_POOL_THRESHOLD_MODE_{pool.mode.upper()}"),
    ]
    if pool.shared_headroom_bytes is not None and _bytes(pool.shared_headroom_bytes) > 0:
        attributes.append(("SAI_BUFFER_POOL_ATTR_XOFF_SIZE", _bytes(pool.shared_headroom_bytes)))
    return _create("SAI_OBJECT_TYPE_BUFFER_POOL", pool_id(pool.name), attributes)


def _profile(profile: BufferProfileIR) -> SaiOperation:
    attributes: list[tuple[str, SaiValue]] = [
        ("SAI_BUFFER_PROFILE_ATTR_POOL_ID", pool_id(profile.pool)),
        ("SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE", _bytes(profile.reserved_bytes)),
    ]
    if profile.dynamic_th is not None:
        attributes += [
            ("SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE", "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC"),
            # Same encoding as SONiC's dynamic_th: alpha = 2^n (SAI inc/saibuffer.h).
            ("SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH", round(profile.dynamic_th.value)),
        ]
    elif profile.static_th_bytes is not None:
        attributes += [
            ("SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE", "SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC"),
            ("SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH", _bytes(profile.static_th_bytes)),
        ]
    for name, value in (("XOFF_TH", profile.xoff_bytes), ("XON_TH", profile.xon_bytes), ("XON_OFFSET_TH", profile.xon_offset_bytes)):
        if value is not None:
            attributes.append((f"SAI_BUFFER_PROFILE_ATTR_{name}", _bytes(value)))
    if profile.discard_action == "trim":
        # SAI inc/saibuffer.h: the original is dropped (and counted so), a trimmed copy is sent.
        attributes.append(("SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION",
                           "SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP_AND_TRIM"))
    return _create("SAI_OBJECT_TYPE_BUFFER_PROFILE", profile_id(profile.name), attributes)


def _threshold(prefix: str, which: str, value: Derived) -> tuple[str, SaiValue]:
    number = _bytes(value)
    suffix = "_64" if number > _UINT32_MAX else ""
    return (f"SAI_WRED_ATTR_{prefix}_{which}_THRESHOLD{suffix}", number)


def _percent(value: Derived) -> int:
    return round(value.value)


def ecn_mark_mode(colors: set[str]) -> str:
    """The sai_ecn_mark_mode_t value marking exactly these colors (saiwred.h:39)."""
    order = [c for c in ("GREEN", "YELLOW", "RED") if c in colors]
    if not order:
        return "SAI_ECN_MARK_MODE_NONE"
    if len(order) == 3:
        return "SAI_ECN_MARK_MODE_ALL"
    return "SAI_ECN_MARK_MODE_" + "_".join(order)


def ecn_marked_colors(mode: str) -> frozenset[str]:
    """The colors a sai_ecn_mark_mode_t value marks (the inverse of :func:`ecn_mark_mode`)."""
    name = mode.removeprefix("SAI_ECN_MARK_MODE_")
    if name == "NONE":
        return frozenset()
    if name == "ALL":
        return frozenset(_COLOR_NAMES.values())
    return frozenset(name.split("_"))


def _wred(wred: WredIR) -> SaiOperation:
    attributes: list[tuple[str, SaiValue]] = [("SAI_WRED_ATTR_WEIGHT", 0)]
    marked: set[str] = set()
    for curve in wred.curves:
        color = _COLOR_NAMES[curve.color]
        # A marking color is enabled as well: SAIs that honour the spec apply neither drop nor
        # mark on a disabled color (sonic-buildimage issue #4545); SONiC templates enable both.
        # Not with ECT thresholds (TLT): chips that apply color drop to ECT packets there would
        # drop TLT's important packets on the marking curve (TLT §4 requires they are not).
        if curve.drop or (curve.mark and not wred.ect_marking):
            attributes.append((f"SAI_WRED_ATTR_{color}_ENABLE", True))
        if curve.mark:
            marked.add(color)
        attributes += [
            _threshold(color, "MIN", curve.min_bytes),
            _threshold(color, "MAX", curve.max_bytes),
            (f"SAI_WRED_ATTR_{color}_DROP_PROBABILITY", _percent(curve.probability_percent)),
        ]
    for ect in wred.ect_marking:
        color = _COLOR_NAMES[ect.color]
        marked.add(color)
        attributes += [
            _threshold(f"ECN_{color}", "MIN", ect.min_bytes),
            _threshold(f"ECN_{color}", "MAX", ect.max_bytes),
            (f"SAI_WRED_ATTR_ECN_{color}_MARK_PROBABILITY", _percent(ect.probability_percent)),
        ]
    attributes.insert(1, ("SAI_WRED_ATTR_ECN_MARK_MODE", ecn_mark_mode(marked)))
    return _create("SAI_OBJECT_TYPE_WRED", wred_id(wred.name), attributes)


def _scheduler(scheduler: SchedulerIR) -> SaiOperation:
    attributes: list[tuple[str, SaiValue]] = [("SAI_SCHEDULER_ATTR_SCHEDULING_TYPE", f"SAI_SCHEDULING_TYPE_{scheduler.kind}")]
    if scheduler.kind == "DWRR":
        attributes.append(("SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT", scheduler.weight if scheduler.weight is not None else 1))
    if scheduler.max_rate_bytes_per_s is not None:
        attributes += [
            ("SAI_SCHEDULER_ATTR_METER_TYPE", "SAI_METER_TYPE_BYTES"),
            ("SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE", _bytes(scheduler.max_rate_bytes_per_s)),
        ]
    return _create("SAI_OBJECT_TYPE_SCHEDULER", scheduler_id(scheduler.name), attributes)


def _map(kind: str, map_type: str, entries: Iterable[tuple[tuple[str, int | str], tuple[str, int | str]]]) -> SaiOperation:
    values = tuple(QosMapEntry(key=(key,), value=(value,)) for key, value in entries)
    return _create("SAI_OBJECT_TYPE_QOS_MAP", qos_map_id(kind), (
        ("SAI_QOS_MAP_ATTR_TYPE", f"SAI_QOS_MAP_TYPE_{map_type}"),
        ("SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST", values),
    ))


def _maps(switch: SwitchIR) -> list[tuple[str, SaiOperation]]:
    """(port binding attribute, create operation) for every map the switch needs."""
    maps = switch.maps
    result = [
        ("SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP", _map("dscp_to_tc", "DSCP_TO_TC", ((("dscp", d), ("tc", t)) for d, t in maps.dscp_to_tc))),
    ]
    if any(color != "green" for _, color in maps.dscp_to_color):
        result.append(("SAI_PORT_ATTR_QOS_DSCP_TO_COLOR_MAP", _map("dscp_to_color", "DSCP_TO_COLOR", (
            (("dscp", d), ("color", f"SAI_PACKET_COLOR_{_COLOR_NAMES[c]}")) for d, c in maps.dscp_to_color))))
    result += [
        ("SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP", _map("tc_to_queue", "TC_TO_QUEUE", ((("tc", t), ("qidx", q)) for t, q in maps.tc_to_queue))),
        ("SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP", _map("tc_to_pg", "TC_TO_PRIORITY_GROUP", ((("tc", t), ("pg", g)) for t, g in maps.tc_to_priority_group))),
    ]
    if maps.pfc_priority_to_priority_group:
        result.append(("SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", _map("pfc_prio_to_pg", "PFC_PRIORITY_TO_PRIORITY_GROUP", ((("prio", p), ("pg", g)) for p, g in maps.pfc_priority_to_priority_group))))
    if maps.pfc_priority_to_queue:
        result.append(("SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP", _map("pfc_prio_to_queue", "PFC_PRIORITY_TO_QUEUE", ((("prio", p), ("qidx", q)) for p, q in maps.pfc_priority_to_queue))))
    return result


def _trimming(switch: SwitchIR) -> list[SaiOperation]:
    """The switch's trimming attributes (SAI inc/saiswitch.h): each mode is set before the value
    its ``@validonly`` depends on, as sonic-swss orchagent/switchorch.cpp does."""
    trimming = switch.trimming
    if trimming is None:
        return []
    attributes: list[tuple[str, SaiValue]] = [("SAI_SWITCH_ATTR_PACKET_TRIM_SIZE", _bytes(trimming.size_bytes))]
    if trimming.dscp is None:
        attributes += [("SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE", "SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_FROM_TC"),
                       ("SAI_SWITCH_ATTR_PACKET_TRIM_TC_VALUE", trimming.tc if trimming.tc is not None else 0)]
    else:
        attributes += [("SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE", "SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_DSCP_VALUE"),
                       ("SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE", trimming.dscp)]
    if trimming.queue is None:
        attributes.append(("SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE", "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_DYNAMIC"))
    else:
        attributes += [("SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE", "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC"),
                       ("SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX", trimming.queue)]
    return [_set("SAI_OBJECT_TYPE_SWITCH", SWITCH_ID, name, value) for name, value in attributes]


def _refuse_inexpressible(switch: SwitchIR) -> None:
    for gap in switch.gaps:
        if gap.target == "sai" and gap.approximation is None:
            raise QosforgeError(
                f"class '{gap.class_name}' needs {gap.feature}, which the SAI target cannot express on this switch: {gap.detail}",
                place=f"switch {switch.name}",
                hint="; ".join(gap.alternatives),
            )
    if switch.pfc_watchdog is not None and switch.pfc_watchdog.action != "drop":
        raise QosforgeError(
            f"PFC watchdog action '{switch.pfc_watchdog.action}' is not expressible with the bundled SAI metadata (only the default SAI_PACKET_ACTION_DROP)",
            place=f"switch {switch.name}", hint="use the drop action",
        )


def _discovery(program_ports: tuple[PortContext, ...], inventory: SwitchInventory) -> list[SaiOperation]:
    queues, groups, scheduler_groups = inventory.queues_per_port, inventory.ingress_priority_groups, len(inventory.scheduler_groups)
    # The whole port list of the switch layout, with the topology's ports at their bound positions.
    operations = [_get("SAI_OBJECT_TYPE_SWITCH", SWITCH_ID, "SAI_SWITCH_ATTR_PORT_LIST", port_list(program_ports, inventory))]
    for port in program_ports:
        operations += [
            _get("SAI_OBJECT_TYPE_PORT", port.object_id, "SAI_PORT_ATTR_SPEED", round(port.speed_bps / 1e6)),
            _get("SAI_OBJECT_TYPE_PORT", port.object_id, "SAI_PORT_ATTR_QOS_QUEUE_LIST", tuple(queue_id(port.name, i) for i in range(queues))),
            _get("SAI_OBJECT_TYPE_PORT", port.object_id, "SAI_PORT_ATTR_INGRESS_PRIORITY_GROUP_LIST", tuple(ipg_id(port.name, i) for i in range(groups))),
            _get("SAI_OBJECT_TYPE_PORT", port.object_id, "SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST", tuple(scheduler_group_id(port.name, i) for i in range(scheduler_groups))),
        ]
    return operations


def render_sai_program(switch: SwitchIR) -> SaiProgram:
    """The SAI operations that configure ``switch``, validated against the SAI metadata."""
    _refuse_inexpressible(switch)
    inventory, inventory_note = inventory_for_profile(switch.vendor_profile)
    positions = bind_ports(switch.name, [p.name for p in switch.ports], inventory, profile_lanes_per_port(switch.vendor_profile),
                           speeds_bps=[p.speed_bps for p in switch.ports], profile_name=switch.vendor_profile)
    ports = tuple(PortContext(port_id(p.name), p.name, p.speed_bps, p.cable_m, p.peer, position) for p, position in zip(switch.ports, positions, strict=True))
    maps = _maps(switch)
    parents: dict[str, set[int]] = {}
    creates = [_pool(p) for p in switch.pools] + [_profile(p) for p in switch.buffer_profiles]
    creates += [_wred(w) for w in switch.wred_profiles] + [op for _, op in maps] + [_scheduler(s) for s in switch.schedulers]
    sets: list[SaiOperation] = []
    if any(w.ect_marking for w in switch.wred_profiles):
        sets.append(_set("SAI_OBJECT_TYPE_SWITCH", SWITCH_ID, "SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE", True))
    sets += _trimming(switch)
    watchdog = switch.pfc_watchdog
    scheduler_sets: list[SaiOperation] = []
    group_reads: list[SaiOperation] = []
    for port in switch.ports:
        pid = port_id(port.name)
        sets += [_set("SAI_OBJECT_TYPE_PORT", pid, attribute, op.object_id) for attribute, op in maps]
        if port.pfc_priorities:
            sets.append(_set("SAI_OBJECT_TYPE_PORT", pid, "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL", sum(1 << p for p in port.pfc_priorities)))
            if watchdog is not None:
                sets += [
                    _set("SAI_OBJECT_TYPE_PORT", pid, "SAI_PORT_ATTR_PFC_TC_DLD_INTERVAL", tuple(MapListEntry(p, watchdog.detection_ms) for p in port.pfc_priorities)),
                    _set("SAI_OBJECT_TYPE_PORT", pid, "SAI_PORT_ATTR_PFC_TC_DLR_INTERVAL", tuple(MapListEntry(p, watchdog.restoration_ms) for p in port.pfc_priorities)),
                ]
        for group in port.priority_groups:
            sets.append(_set("SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP", ipg_id(port.name, group.index), "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE", profile_id(group.buffer_profile)))
        for queue in port.queues:
            qid = queue_id(port.name, queue.index)
            sets.append(_set("SAI_OBJECT_TYPE_QUEUE", qid, "SAI_QUEUE_ATTR_BUFFER_PROFILE_ID", profile_id(queue.buffer_profile)))
            if queue.wred_profile is not None:
                sets.append(_set("SAI_OBJECT_TYPE_QUEUE", qid, "SAI_QUEUE_ATTR_WRED_PROFILE_ID", wred_id(queue.wred_profile)))
            if queue.lossless and watchdog is not None:
                sets.append(_set("SAI_OBJECT_TYPE_QUEUE", qid, "SAI_QUEUE_ATTR_ENABLE_PFC_DLDR", True))
            parent = inventory.parent_group(queue.index)
            if parent not in parents.setdefault(port.name, set()):
                parents[port.name].add(parent)
                shape = inventory.scheduler_groups[parent]
                children = tuple(scheduler_group_id(port.name, g) for g in shape.child_groups) + tuple(queue_id(port.name, q) for q in shape.child_queues)
                group_reads.append(_get("SAI_OBJECT_TYPE_SCHEDULER_GROUP", scheduler_group_id(port.name, parent), "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST", children))
            scheduler_sets.append(_set("SAI_OBJECT_TYPE_SCHEDULER_GROUP", scheduler_group_id(port.name, parent), "SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID", scheduler_id(queue.scheduler)))
    _refuse_shared_parents(switch, scheduler_sets)
    operations = _discovery(ports, inventory)
    operations += group_reads + creates + sets + scheduler_sets
    notes = [note for note in (inventory_note,) if note is not None]
    if any(c.drop and c.color != "green" for w in switch.wred_profiles for c in w.curves):
        notes.append(EMULATION_NOTE)
    if watchdog is not None and any(p.pfc_priorities for p in switch.ports):
        notes.append(WATCHDOG_NOTE)
    notes += [f"{gap.class_name}: {gap.feature} approximated as '{gap.approximation}': {gap.detail}" for gap in switch.gaps if gap.target == "sai"]
    program = SaiProgram(
        switch_name=switch.name,
        vendor_profile=switch.vendor_profile,
        sai_api_version=sai_metadata().api_version,
        inventory=inventory,
        ports=ports,
        operations=tuple(operations),
        notes=tuple(notes),
    )
    validate_program(program)
    return program


def _refuse_shared_parents(switch: SwitchIR, scheduler_sets: list[SaiOperation]) -> None:
    """Two queues under one scheduler group must want the same scheduler (orchagent's model)."""
    chosen: dict[str, SaiValue] = {}
    for op in scheduler_sets:
        value = op.attributes[0][1]
        if chosen.setdefault(op.object_id, value) != value:
            raise QosforgeError(
                f"queues sharing scheduler group {op.object_id} need different schedulers ({chosen[op.object_id]} and {value})",
                place=f"switch {switch.name}",
                hint="on this switch layout a queue and its multicast twin share a group; keep one scheduler per queue index",
            )


__all__ = ["ecn_mark_mode", "ecn_marked_colors", "pool_id", "profile_id", "qos_map_id", "render_sai_program", "scheduler_id", "wred_id"]
