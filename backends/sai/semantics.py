"""QoS meaning checks that SAI's headers state in prose and sairedis does not enforce.

sonic-sairedis vslib/: sairedis does not check "value ranges (e.g. probability <= 100,
weight <= 15, min <= max), qos-map type vs. binding attribute, qos-map key/value field usage";
so qosforge validates them itself. Each rule cites the header text it enforces.
"""

from __future__ import annotations

from qosforge.backends.sai.port_binding import port_list
from qosforge.backends.sai.program import (
    SWITCH_ID,
    MapListEntry,
    QosMapEntry,
    SaiOperation,
    SaiProgram,
    ipg_id,
    queue_id,
    scheduler_group_id,
)
from qosforge.backends.sai.walk import SaiObject, Walk

#: Key fields -> value fields each map type uses (SAI inc/saiqosmap.h type comments;
#: confirmed by orchagent's handlers for the non-color maps, sonic-swss orchagent/qosorch.cpp).
MAP_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "SAI_QOS_MAP_TYPE_DOT1P_TO_TC": (frozenset({"dot1p"}), frozenset({"tc"})),
    "SAI_QOS_MAP_TYPE_DOT1P_TO_COLOR": (frozenset({"dot1p"}), frozenset({"color"})),
    "SAI_QOS_MAP_TYPE_DSCP_TO_TC": (frozenset({"dscp"}), frozenset({"tc"})),
    "SAI_QOS_MAP_TYPE_DSCP_TO_COLOR": (frozenset({"dscp"}), frozenset({"color"})),
    "SAI_QOS_MAP_TYPE_TC_TO_QUEUE": (frozenset({"tc"}), frozenset({"qidx"})),
    "SAI_QOS_MAP_TYPE_TC_AND_COLOR_TO_DSCP": (frozenset({"tc", "color"}), frozenset({"dscp"})),
    "SAI_QOS_MAP_TYPE_TC_AND_COLOR_TO_DOT1P": (frozenset({"tc", "color"}), frozenset({"dot1p"})),
    "SAI_QOS_MAP_TYPE_TC_TO_PRIORITY_GROUP": (frozenset({"tc"}), frozenset({"pg"})),
    "SAI_QOS_MAP_TYPE_PFC_PRIORITY_TO_PRIORITY_GROUP": (frozenset({"prio"}), frozenset({"pg"})),
    "SAI_QOS_MAP_TYPE_PFC_PRIORITY_TO_QUEUE": (frozenset({"prio"}), frozenset({"qidx"})),
    "SAI_QOS_MAP_TYPE_MPLS_EXP_TO_TC": (frozenset({"mpls_exp"}), frozenset({"tc"})),
    "SAI_QOS_MAP_TYPE_MPLS_EXP_TO_COLOR": (frozenset({"mpls_exp"}), frozenset({"color"})),
    "SAI_QOS_MAP_TYPE_TC_AND_COLOR_TO_MPLS_EXP": (frozenset({"tc", "color"}), frozenset({"mpls_exp"})),
    "SAI_QOS_MAP_TYPE_DSCP_TO_FORWARDING_CLASS": (frozenset({"dscp"}), frozenset({"fc"})),
    "SAI_QOS_MAP_TYPE_MPLS_EXP_TO_FORWARDING_CLASS": (frozenset({"mpls_exp"}), frozenset({"fc"})),
}

#: Field ranges: DSCP is 6 bits, 802.1p and PFC priorities 3 bits, MPLS EXP 3 bits; TC 0..15 as
#: SONiC's YANG allows (the SONiC YANG models (sonic-buildimage src/sonic-yang-models/yang-models)); pg and qidx are checked against the inventory.
FIELD_RANGES = {"dscp": 63, "dot1p": 7, "prio": 7, "mpls_exp": 7, "tc": 15, "fc": 255}

_PERCENT_SUFFIXES = ("_DROP_PROBABILITY", "_MARK_PROBABILITY")
_WRED_PAIRS = tuple(
    (f"SAI_WRED_ATTR_{prefix}{color}_MIN_THRESHOLD{size}", f"SAI_WRED_ATTR_{prefix}{color}_MAX_THRESHOLD{size}")
    for prefix in ("", "ECN_")
    for color in ("GREEN", "YELLOW", "RED", "COLOR_UNAWARE")
    for size in ("", "_64")
    if not (prefix == "" and color == "COLOR_UNAWARE")
)


def _int(obj: SaiObject, name: str) -> int | None:
    value = obj.attributes.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _check_wred(walk: Walk, obj: SaiObject) -> None:
    for name, value in obj.attributes.items():
        if name.endswith(_PERCENT_SUFFIXES) and isinstance(value, int) and value > 100:
            walk.flag("out-of-range", name, f"{name}={value}: probabilities are percentages 0..100 (saiwred.h 'Percentage 0 ~ 100')", "use 0..100")
    weight = _int(obj, "SAI_WRED_ATTR_WEIGHT")
    if weight is not None and weight > 15:
        walk.flag("out-of-range", "SAI_WRED_ATTR_WEIGHT", f"SAI_WRED_ATTR_WEIGHT={weight}: saiwred.h allows 'Weight 0 ~ 15'", "use 0 (instantaneous queue) .. 15")
    for low_name, high_name in _WRED_PAIRS:
        low, high = _int(obj, low_name), _int(obj, high_name)
        if low is not None and high is not None and low > high:
            walk.flag("min-gt-max", low_name, f"{low_name}={low} exceeds {high_name}={high}", "make the minimum threshold <= the maximum")
    for name in obj.attributes:
        if name + "_64" in obj.attributes:
            walk.flag("threshold-32-and-64", name, f"{name} and {name}_64 are both set; SAI does not say which wins (SAI inc/saiwred.h)", "set only one form: the 32-bit one below 2^32 bytes, else _64")


def _check_scheduler(walk: Walk, obj: SaiObject) -> None:
    weight = _int(obj, "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT")
    if weight is not None and weight == 0:
        walk.flag("out-of-range", "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT", "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT=0: saischeduler.h 'Range [0 - 255], 0-invalid weight'", "use 1..255")
    low, high = _int(obj, "SAI_SCHEDULER_ATTR_MIN_BANDWIDTH_RATE"), _int(obj, "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE")
    if low and high and low > high:
        walk.flag("min-gt-max", "SAI_SCHEDULER_ATTR_MIN_BANDWIDTH_RATE", f"guaranteed rate {low} B/s exceeds the maximum rate {high} B/s", "make MIN_BANDWIDTH_RATE <= MAX_BANDWIDTH_RATE")


def _check_qos_map(walk: Walk, program: SaiProgram, obj: SaiObject) -> None:
    map_type = obj.attributes.get("SAI_QOS_MAP_ATTR_TYPE")
    entries = obj.attributes.get("SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST", ())
    name = "SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST"
    if not isinstance(map_type, str) or not isinstance(entries, tuple):
        return
    fields = MAP_FIELDS.get(map_type)
    if fields is None:
        walk.flag("map-type-unsupported", "SAI_QOS_MAP_ATTR_TYPE", f"{map_type} cannot round-trip through sairedis (no dei/vc keys, sonic-sairedis meta/SaiSerialize.cpp)", "use a map type sairedis serialises")
        return
    limits = dict(FIELD_RANGES, pg=program.inventory.ingress_priority_groups - 1, qidx=program.inventory.queues_per_port - 1)
    colors = walk.metadata.enums.get("sai_packet_color_t", {})
    seen: set[tuple[tuple[str, int | str], ...]] = set()
    for position, entry in enumerate(entries):
        if not isinstance(entry, QosMapEntry):
            continue
        for side, params, allowed in (("key", entry.key, fields[0]), ("value", entry.value, fields[1])):
            for field, value in params:
                if field not in allowed:
                    walk.flag("map-field", name, f"{map_type} entry {position} sets {side}.{field}, which this map type does not use", f"{side} fields for {map_type}: {', '.join(sorted(allowed))}")
                elif field == "color":
                    if value not in colors:
                        walk.flag("bad-enum", name, f"entry {position} {side}.color={value!r} is not a sai_packet_color_t", f"use one of: {', '.join(colors)}")
                elif isinstance(value, int) and not 0 <= value <= limits[field]:
                    walk.flag("out-of-range", name, f"{map_type} entry {position} {side}.{field}={value} is outside 0..{limits[field]}", f"{field} ranges 0..{limits[field]} on this switch")
        if entry.key in seen:
            walk.flag("duplicate-map-key", name, f"{map_type} maps key {dict(entry.key)} twice", "map every key once")
        seen.add(entry.key)


def _expected_map_type(attribute: str) -> str | None:
    for prefix in ("SAI_PORT_ATTR_QOS_", "SAI_SWITCH_ATTR_QOS_"):
        if attribute.startswith(prefix) and attribute.endswith("_MAP"):
            return "SAI_QOS_MAP_TYPE_" + attribute.removeprefix(prefix).removesuffix("_MAP")
    return None


def _check_bindings(walk: Walk, op: SaiOperation) -> None:
    for name, value in op.attributes:
        expected = _expected_map_type(name)
        if expected is None or not isinstance(value, str) or value not in walk.objects:
            continue
        actual = walk.objects[value].attributes.get("SAI_QOS_MAP_ATTR_TYPE")
        if actual != expected:
            walk.flag("map-type-mismatch", name, f"{name} binds {value}, a {actual} map; it needs a {expected} map", f"bind a QoS map created with SAI_QOS_MAP_ATTR_TYPE={expected}")


def _pool_type(walk: Walk, profile_id: object) -> object:
    profile = walk.objects.get(profile_id) if isinstance(profile_id, str) else None
    pool_id = profile.attributes.get("SAI_BUFFER_PROFILE_ATTR_POOL_ID") if profile else None
    pool = walk.objects.get(pool_id) if isinstance(pool_id, str) else None
    return pool.attributes.get("SAI_BUFFER_POOL_ATTR_TYPE") if pool else None


def _check_buffer_direction(walk: Walk, op: SaiOperation) -> None:
    wanted = {
        "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE": "SAI_BUFFER_POOL_TYPE_INGRESS",
        "SAI_QUEUE_ATTR_BUFFER_PROFILE_ID": "SAI_BUFFER_POOL_TYPE_EGRESS",
    }
    for name, value in op.attributes:
        if name in wanted and value is not None:
            pool_type = _pool_type(walk, value)
            if pool_type not in (wanted[name], "SAI_BUFFER_POOL_TYPE_BOTH"):
                walk.flag("buffer-pool-direction", name, f"{name}={value} draws from a {pool_type} pool; it needs {wanted[name]}", "bind a profile of a pool of the right direction")


def _check_buffer_objects(walk: Walk, obj: SaiObject) -> None:
    if obj.object_type == "SAI_OBJECT_TYPE_BUFFER_POOL":
        size, xoff = _int(obj, "SAI_BUFFER_POOL_ATTR_SIZE"), _int(obj, "SAI_BUFFER_POOL_ATTR_XOFF_SIZE")
        if xoff:
            if obj.attributes.get("SAI_BUFFER_POOL_ATTR_TYPE") != "SAI_BUFFER_POOL_TYPE_INGRESS":
                walk.flag("xoff-on-egress", "SAI_BUFFER_POOL_ATTR_XOFF_SIZE", "XOFF_SIZE is 'Only valid for the ingress buffer pool' (saibuffer.h)", "set the shared headroom on the ingress pool")
            if size is not None and xoff > size:
                walk.flag("min-gt-max", "SAI_BUFFER_POOL_ATTR_XOFF_SIZE", f"shared headroom {xoff} B exceeds the pool size {size} B it is included in (saibuffer.h)", "size the pool to include its shared headroom")
    if obj.object_type == "SAI_OBJECT_TYPE_BUFFER_PROFILE" and _int(obj, "SAI_BUFFER_PROFILE_ATTR_XOFF_TH"):
        pool_id = obj.attributes.get("SAI_BUFFER_PROFILE_ATTR_POOL_ID")
        pool = walk.objects.get(pool_id) if isinstance(pool_id, str) else None
        if pool is not None and pool.attributes.get("SAI_BUFFER_POOL_ATTR_TYPE") == "SAI_BUFFER_POOL_TYPE_EGRESS":
            walk.flag("xoff-on-egress", "SAI_BUFFER_PROFILE_ATTR_XOFF_TH", "XOFF_TH is 'Valid only for ingress PG' (saibuffer.h) but the profile's pool is egress", "put lossless PG profiles in an ingress pool")


def _check_interval_maps(walk: Walk, op: SaiOperation) -> None:
    for name, value in op.attributes:
        if name.endswith(("_PFC_TC_DLD_INTERVAL", "_PFC_TC_DLR_INTERVAL")) and isinstance(value, tuple):
            for entry in value:
                if isinstance(entry, MapListEntry) and not (0 <= entry.key <= 7 and entry.value > 0):
                    walk.flag("out-of-range", name, f"{name} maps TC {entry.key} to {entry.value} ms; TCs are 0..7 and intervals positive", "use TC 0..7 and a positive interval in milliseconds")


def check_operation(walk: Walk, program: SaiProgram, op: SaiOperation) -> None:
    """Semantic checks after an operation passed the generic metadata checks."""
    obj = walk.objects.get(op.object_id)
    if obj is None:
        return
    if op.op == "get":
        _check_discovery_get(walk, program, op)
        return
    if obj.object_type == "SAI_OBJECT_TYPE_WRED":
        _check_wred(walk, obj)
    elif obj.object_type == "SAI_OBJECT_TYPE_SCHEDULER":
        _check_scheduler(walk, obj)
    elif obj.object_type == "SAI_OBJECT_TYPE_QOS_MAP":
        _check_qos_map(walk, program, obj)
    _check_buffer_objects(walk, obj)
    _check_bindings(walk, op)
    _check_buffer_direction(walk, op)
    _check_interval_maps(walk, op)


def _expect_list(walk: Walk, name: str, got: object, expected: tuple[str, ...], what: str) -> None:
    if got != expected:
        count = len(got) if isinstance(got, tuple) else 0
        walk.flag("discovery-mismatch", name, f"{name} answers {count} object(s) where the switch inventory has {len(expected)} {what}", "regenerate the program for this switch; saiplayer refuses lists of another length (sonic-sairedis saiplayer/)")


def _check_discovery_get(walk: Walk, program: SaiProgram, op: SaiOperation) -> None:
    inventory = program.inventory
    if op.object_id == SWITCH_ID:
        for name, value in op.attributes:
            if name == "SAI_SWITCH_ATTR_PORT_LIST":
                _expect_list(walk, name, value, port_list(program.ports, inventory), "ports")
        return
    port = walk.ports.get(op.object_id)
    if port is not None:
        lists = {
            "SAI_PORT_ATTR_QOS_QUEUE_LIST": (queue_id, inventory.queues_per_port, "queues"),
            "SAI_PORT_ATTR_INGRESS_PRIORITY_GROUP_LIST": (ipg_id, inventory.ingress_priority_groups, "priority groups"),
            "SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST": (scheduler_group_id, len(inventory.scheduler_groups), "scheduler groups"),
        }
        for name, value in op.attributes:
            if name in lists:
                make_id, count, what = lists[name]
                _expect_list(walk, name, value, tuple(make_id(port.name, i) for i in range(count)), what)
        return
    prefix, _, rest = op.object_id.partition(":")
    if prefix == "scheduler_group":
        port_name, _, index_text = rest.rpartition(":")
        if not index_text.isdigit() or int(index_text) >= len(inventory.scheduler_groups):
            return
        shape = inventory.scheduler_groups[int(index_text)]
        children = tuple(scheduler_group_id(port_name, g) for g in shape.child_groups) + tuple(queue_id(port_name, q) for q in shape.child_queues)
        for name, value in op.attributes:
            if name == "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST":
                _expect_list(walk, name, value, children, "children")


def check_discovery(walk: Walk, program: SaiProgram) -> None:
    """Programs that set pre-existing objects must have discovered the switch's port list."""
    switch = walk.objects[SWITCH_ID]
    touches_ports = any(o.discovered and o.object_type != "SAI_OBJECT_TYPE_SWITCH" for o in walk.objects.values())
    if touches_ports and "SAI_SWITCH_ATTR_PORT_LIST" not in switch.attributes:
        walk.index, walk.operation = 0, program.operations[0]
        walk.flag("discovery-missing", "SAI_SWITCH_ATTR_PORT_LIST", "the program uses ports without reading SAI_SWITCH_ATTR_PORT_LIST", "discover the ports with a get of SAI_SWITCH_ATTR_PORT_LIST first")


__all__ = ["FIELD_RANGES", "MAP_FIELDS", "check_discovery", "check_operation"]
