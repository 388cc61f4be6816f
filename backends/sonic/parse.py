"""CONFIG_DB -> typed view close to the compiler IR: the reverse mapping ``qosforge lint`` runs.

docs/architecture.md §1: "lint runs the other way for SONiC: config_db -> IR (reverse mapping) -> the same
model checks". :func:`parse_config_db` reads what a ``config_db.json`` says about buffers and QoS
(pools, profiles, PGs, queues, WRED per color, maps, schedulers, PFC, ports with speed and cable
length) into frozen dataclasses. The IR types of :mod:`qosforge.ir` are reused where a
config value fits them (:class:`BufferProfileIR`, :class:`WredIR` / :class:`ColorCurveIR`,
:class:`PriorityGroupIR`, :class:`QosMapsIR`); where config_db can say things the IR cannot (a
pool of type ``both`` or without ``size``, a ``WRR`` scheduler, a queue that belongs to no class,
a port whose speed is unknown, a watchdog without restoration time) this module has its own
types.

It is tolerant by design and never raises on malformed input: a value that does not parse is
left out (``None`` or missing), because :func:`~qosforge.backends.sonic.checks.check_config_db`
reports it under its own rule; the model checks then see only what SONiC would use. Every number
carries provenance naming where it was read (``config_db <file>: TABLE|key.field``).

Where a fact is not in the file, it is inferred only from SONiC's own conventions, and the
inference is recorded (``PortConfig.speed_source`` / ``cable_source``): a port's speed and cable
from the name of its lossless PG profile, ``pg_lossless_<speed>_<cable>_profile``, which
buffermgrd derives from exactly those two values (sonic-swss cfgmgr/buffermgr.cpp (traditional buffer model)).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from qosforge.backends.sonic.checks.encoding import config_db_text
from qosforge.backends.sonic.checks.schema import WRED_COLORS, ecn_colors
from qosforge.backends.sonic.facts import BufferModel, buffer_model
from qosforge.backends.sonic.keys import (
    MAX_DIGITS,
    TRADITIONAL_PG_PROFILE,
    cable_metres,
    parse_indexed_key,
    priorities,
    sint,
    uint,
)
from qosforge.ir import (
    BufferProfileIR,
    Color,
    ColorCurveIR,
    Derived,
    PriorityGroupIR,
    QosMapsIR,
    ThresholdMode,
    WredIR,
)
from qosforge.provenance import Derivation, Provenance

PoolType = Literal["ingress", "egress", "both"]
SchedulerType = Literal["STRICT", "DWRR", "WRR"]

#: SONiC stores PORT.speed in Mb/s (sonic-swss cfgmgr/buffermgr.cpp).
BPS_PER_MBPS = 1e6
#: YANG default of ``*_drop_probability`` and what orchagent adds for an enabled color (sonic-yang-models sonic-wred-profile.yang; sonic-swss orchagent/qosorch.cpp WredMapHandler).
DEFAULT_DROP_PROBABILITY_PERCENT = 100
_SMALL = re.compile(r"0|[1-9][0-9]{0,2}")


@dataclass(frozen=True)
class PoolConfig:
    name: str
    direction: PoolType | None
    mode: ThresholdMode | None
    size_bytes: Derived | None
    shared_headroom_bytes: Derived | None
    """``xoff`` of the pool: the shared headroom pool (SHP) size (sonic-yang-models sonic-buffer-pool.yang)."""
    percentage: int | None


@dataclass(frozen=True)
class SchedulerConfig:
    name: str
    kind: SchedulerType | None
    weight: int | None


@dataclass(frozen=True)
class QueueConfig:
    index: int
    scheduler: str | None
    wred_profile: str | None
    buffer_profile: str | None
    lossless: bool
    """An enabled PFC priority of the port pauses this queue (via pfc_to_queue_map, sonic-yang-models sonic-pfc-priority-queue-map.yang)."""


@dataclass(frozen=True)
class MapNames:
    """The map names a port binds in PORT_QOS_MAP (dscp_to_tc_map falls back to ``global``)."""

    dscp_to_tc: str | None = None
    tc_to_queue: str | None = None
    tc_to_pg: str | None = None
    pfc_to_pg: str | None = None
    pfc_to_queue: str | None = None


@dataclass(frozen=True)
class WatchdogConfig:
    detection_ms: int | None
    restoration_ms: int | None
    action: str | None


@dataclass(frozen=True)
class PortConfig:
    name: str
    speed_bps: float | None
    speed_source: str
    cable_m: float | None
    cable_source: str
    mtu_bytes: float | None
    lanes: int | None
    admin_status: str | None
    priority_groups: tuple[PriorityGroupIR, ...]
    queues: tuple[QueueConfig, ...]
    pfc_priorities: tuple[int, ...]
    watchdog_priorities: tuple[int, ...]
    maps: QosMapsIR
    map_names: MapNames
    watchdog: WatchdogConfig | None
    has_qos_entry: bool
    """The port has its own PORT_QOS_MAP entry."""

    def queue(self, index: int) -> QueueConfig | None:
        return next((q for q in self.queues if q.index == index), None)

    def priority_group(self, index: int) -> PriorityGroupIR | None:
        return next((pg for pg in self.priority_groups if pg.index == index), None)


@dataclass(frozen=True)
class TrafficPattern:
    """LOSSLESS_TRAFFIC_PATTERN (dynamic model inputs of the headroom plugin, sonic-yang-models sonic-lossless-traffic-pattern.yang)."""

    lossless_mtu_bytes: float | None = None
    small_packet_percent: float | None = None


@dataclass(frozen=True)
class ParsedConfigDb:
    file: str
    buffer_model: BufferModel
    pools: tuple[PoolConfig, ...]
    buffer_profiles: tuple[BufferProfileIR, ...]
    wred_profiles: tuple[WredIR, ...]
    schedulers: tuple[SchedulerConfig, ...]
    ports: tuple[PortConfig, ...]
    traffic_pattern: TrafficPattern
    over_subscribe_ratio: int | None
    poll_interval_ms: int | None
    _index: dict[str, dict[str, Any]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({
            "pool": {p.name: p for p in self.pools},
            "profile": {p.name: p for p in self.buffer_profiles},
            "wred": {w.name: w for w in self.wred_profiles},
            "port": {p.name: p for p in self.ports},
        })

    def pool(self, name: str | None) -> PoolConfig | None:
        found: PoolConfig | None = self._index["pool"].get(name) if name is not None else None
        return found

    def profile(self, name: str | None) -> BufferProfileIR | None:
        found: BufferProfileIR | None = self._index["profile"].get(name) if name is not None else None
        return found

    def wred(self, name: str | None) -> WredIR | None:
        found: WredIR | None = self._index["wred"].get(name) if name is not None else None
        return found

    def port(self, name: str) -> PortConfig | None:
        found: PortConfig | None = self._index["port"].get(name)
        return found

    @property
    def shared_headroom_pool(self) -> bool:
        """SHP is on when ingress_lossless_pool has xoff != 0 or over_subscribe_ratio != 0 (sonic-swss cfgmgr/buffer_headroom_mellanox.lua)."""
        pools_with_xoff = any(p.shared_headroom_bytes is not None and p.shared_headroom_bytes.value > 0
                              for p in self.pools)
        return pools_with_xoff or bool(self.over_subscribe_ratio)


# ---------------------------------------------------------------------------------------------
# Small tolerant readers


def _entries(config: Mapping[str, Any], table: str) -> dict[str, dict[str, str]]:
    """The well-formed ``key -> {field: string}`` part of ``table`` (anything else is skipped);
    computed once per table and parse (``config`` is the :class:`_Tables` of the parse)."""
    if isinstance(config, _Tables):
        return config.entries(table)
    return _Tables(config).entries(table)


class _Tables(dict[str, Any]):
    """The config being parsed, with each table's well-formed entries computed once."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        super().__init__(config)
        self._entries: dict[str, dict[str, dict[str, str]]] = {}

    def entries(self, table: str) -> dict[str, dict[str, str]]:
        cached = self._entries.get(table)
        if cached is not None:
            return cached
        raw = self.get(table)
        result: dict[str, dict[str, str]] = {}
        if isinstance(raw, Mapping):
            for key, entry in raw.items():
                if not isinstance(key, str) or not isinstance(entry, Mapping):
                    continue
                values = entry.values()
                if set(map(type, values)) <= {str} and set(map(type, entry)) <= {str}:
                    result[key] = entry  # type: ignore[assignment]  # all str, used read-only
                else:
                    # A JSON number or boolean is read as the string it means, as the checks do.
                    typed = {f: v if isinstance(v, str) else config_db_text(table, f, v) for f, v in entry.items() if isinstance(f, str)}
                    result[key] = {f: v for f, v in typed.items() if v is not None}
        self._entries[table] = result
        return result


def _uint(text: str | None) -> int | None:
    """Bounded by keys.MAX_DIGITS: longer digit strings are no config_db number (None)."""
    return uint(text) if text is not None and len(text) <= MAX_DIGITS else None


def _int(text: str | None) -> int | None:
    return sint(text) if text is not None and len(text) <= MAX_DIGITS + 1 else None


def _small(text: str) -> int | None:
    return int(text) if _SMALL.fullmatch(text) else None


class _Reader:
    """Builds provenance-carrying values for one file."""

    def __init__(self, file: str) -> None:
        self.file = file

    def derived(self, value: float, unit: str, quantity: str, table: str, key: str, field_name: str) -> Derived:
        return Derived(
            value=float(value),
            unit=unit,
            provenance=Provenance(
                model="config_db",
                inputs=(),
                derivations=(Derivation(quantity, f"{table}|{key}.{field_name}", f"config_db {self.file}"),),
            ),
            quantity=quantity,
        )

    def number(self, entry: Mapping[str, str], table: str, key: str, field_name: str, unit: str,
               quantity: str, *, signed: bool = False) -> Derived | None:
        value = (_int if signed else _uint)(entry.get(field_name))
        return None if value is None else self.derived(value, unit, quantity, table, key, field_name)


# ---------------------------------------------------------------------------------------------
# Tables


def _pools(config: Mapping[str, Any], reader: _Reader) -> tuple[PoolConfig, ...]:
    pools = []
    for name, entry in _entries(config, "BUFFER_POOL").items():
        kind = entry.get("type")
        mode = entry.get("mode")
        pools.append(PoolConfig(
            name=name,
            direction=kind if kind in ("ingress", "egress", "both") else None,  # type: ignore[arg-type]
            mode=mode if mode in ("dynamic", "static") else None,  # type: ignore[arg-type]
            size_bytes=reader.number(entry, "BUFFER_POOL", name, "size", "B", "size_bytes"),
            shared_headroom_bytes=reader.number(entry, "BUFFER_POOL", name, "xoff", "B", "shared_headroom_bytes"),
            percentage=_uint(entry.get("percentage")),
        ))
    return tuple(pools)


def _profiles(config: Mapping[str, Any], reader: _Reader) -> tuple[BufferProfileIR, ...]:
    profiles = []
    for name, entry in _entries(config, "BUFFER_PROFILE").items():
        size = reader.number(entry, "BUFFER_PROFILE", name, "size", "B", "reserved_bytes")
        pool = entry.get("pool")
        if size is None or pool is None:
            continue  # YANG-mandatory fields (missing-field); SONiC refuses the profile (sonic-yang-models sonic-buffer-profile.yang)
        profiles.append(BufferProfileIR(
            name=name,
            pool=pool,
            reserved_bytes=size,
            dynamic_th=reader.number(entry, "BUFFER_PROFILE", name, "dynamic_th", "1", "dynamic_th", signed=True),
            static_th_bytes=reader.number(entry, "BUFFER_PROFILE", name, "static_th", "B", "static_th_bytes"),
            xon_bytes=reader.number(entry, "BUFFER_PROFILE", name, "xon", "B", "xon_bytes"),
            xoff_bytes=reader.number(entry, "BUFFER_PROFILE", name, "xoff", "B", "xoff_bytes"),
            xon_offset_bytes=reader.number(entry, "BUFFER_PROFILE", name, "xon_offset", "B", "xon_offset_bytes"),
            # sonic-buffer-profile.yang packet_discard_action: drop (the default) or trim.
            discard_action="trim" if entry.get("packet_discard_action") == "trim" else "drop",
        ))
    return tuple(profiles)


def _wred_profiles(config: Mapping[str, Any], reader: _Reader) -> tuple[WredIR, ...]:
    profiles = []
    for name, entry in _entries(config, "WRED_PROFILE").items():
        marked = ecn_colors(entry.get("ecn", "ecn_none"))
        curves = []
        for color in WRED_COLORS:
            low = reader.number(entry, "WRED_PROFILE", name, f"{color}_min_threshold", "B", "min_bytes")
            high = reader.number(entry, "WRED_PROFILE", name, f"{color}_max_threshold", "B", "max_bytes")
            if low is None or high is None:
                continue
            probability = reader.number(entry, "WRED_PROFILE", name, f"{color}_drop_probability", "%",
                                        "probability_percent")
            if probability is None:
                probability = reader.derived(DEFAULT_DROP_PROBABILITY_PERCENT, "%", "probability_percent",
                                             "WRED_PROFILE", name, f"{color}_drop_probability (YANG default)")
            curves.append(ColorCurveIR(
                color=_color(color),
                drop=entry.get(f"wred_{color}_enable") == "true",
                mark=color in marked,
                min_bytes=low,
                max_bytes=high,
                probability_percent=probability,
            ))
        profiles.append(WredIR(name, tuple(curves)))
    return tuple(profiles)


def _color(name: str) -> Color:
    if name == "green":
        return "green"
    return "yellow" if name == "yellow" else "red"


def _schedulers(config: Mapping[str, Any]) -> tuple[SchedulerConfig, ...]:
    return tuple(
        SchedulerConfig(
            name=name,
            kind=entry.get("type", "WRR") if entry.get("type", "WRR") in ("STRICT", "DWRR", "WRR") else None,  # type: ignore[arg-type]
            weight=_uint(entry.get("weight")),
        )
        for name, entry in _entries(config, "SCHEDULER").items()
    )


class _Maps:
    """Named maps parsed once, as sorted (from, to) pairs."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self._config = config
        self._parsed: dict[tuple[str, str], tuple[tuple[int, int], ...]] = {}

    def pairs(self, table: str, name: str | None) -> tuple[tuple[int, int], ...]:
        if name is None:
            return ()
        cached = self._parsed.get((table, name))
        if cached is not None:
            return cached
        pairs = []
        for source, target in _entries(self._config, table).get(name, {}).items():
            source_value, target_value = _small(source), _small(target)
            if source_value is not None and target_value is not None:
                pairs.append((source_value, target_value))
        self._parsed[(table, name)] = result = tuple(sorted(pairs))
        return result


def _port_names(config: Mapping[str, Any]) -> list[str]:
    """Every single-port name a QoS table mentions, in first-seen order (comma keys split)."""
    names: dict[str, None] = {}

    def add(text: str) -> None:
        for name in text.split(","):
            if name and name not in ("global", "GLOBAL", "CPU"):
                names.setdefault(name, None)

    for key in _entries(config, "PORT"):
        add(key)
    for table in ("PORT_QOS_MAP", "PFC_WD", "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"):
        for key in _entries(config, table):
            add(key)
    for table in ("BUFFER_PG", "BUFFER_QUEUE", "QUEUE"):
        for key in _entries(config, table):
            if key.count("|") == 1:
                add(key.split("|")[0])
    for lengths in _entries(config, "CABLE_LENGTH").values():
        for port in lengths:
            add(port)
    return list(names)


def _by_port(entries: dict[str, dict[str, str]], table: str) -> dict[str, list[tuple[range, dict[str, str]]]]:
    """Indexed keys grouped by port (legacy comma-joined port lists split, as orchagent does);
    VOQ keys of other linecards (``<host>|<asic>|<port>|<queue>``) are not this switch's ports."""
    grouped: dict[str, list[tuple[range, dict[str, str]]]] = {}
    for key, entry in entries.items():
        parsed = parse_indexed_key(table, key)
        if parsed is None or parsed.chassis is not None:
            continue
        for port in parsed.port.split(","):
            grouped.setdefault(port, []).append((parsed.indices(), entry))
    return grouped


@dataclass(frozen=True)
class _PortTables:
    """Everything per port, grouped once so building 5,000 ports stays linear."""

    ports: dict[str, dict[str, str]]
    qos: dict[str, dict[str, str]]
    watchdog: dict[str, dict[str, str]]
    pgs: dict[str, list[tuple[range, dict[str, str]]]]
    buffer_queues: dict[str, list[tuple[range, dict[str, str]]]]
    queues: dict[str, list[tuple[range, dict[str, str]]]]
    cables: dict[str, str]


def _port_tables(config: Mapping[str, Any]) -> _PortTables:
    cables: dict[str, str] = {}
    for lengths in _entries(config, "CABLE_LENGTH").values():
        for port, length in lengths.items():
            for name in port.split(","):
                cables.setdefault(name, length)
    qos: dict[str, dict[str, str]] = {}
    for key, entry in _entries(config, "PORT_QOS_MAP").items():
        for name in key.split(","):
            qos.setdefault(name, entry)
    watchdog: dict[str, dict[str, str]] = {}
    for key, entry in _entries(config, "PFC_WD").items():
        for name in key.split(","):
            watchdog.setdefault(name, entry)
    return _PortTables(
        ports=_entries(config, "PORT"),
        qos=qos,
        watchdog=watchdog,
        pgs=_by_port(_entries(config, "BUFFER_PG"), "BUFFER_PG"),
        buffer_queues=_by_port(_entries(config, "BUFFER_QUEUE"), "BUFFER_QUEUE"),
        queues=_by_port(_entries(config, "QUEUE"), "QUEUE"),
        cables=cables,
    )


def _port(name: str, tables: _PortTables, maps: _Maps, profiles: dict[str, BufferProfileIR],
          dynamic_model: bool, global_dscp_map: str | None) -> PortConfig:
    port_entry = tables.ports.get(name, {})
    qos = tables.qos.get(name, {})
    names = MapNames(
        dscp_to_tc=qos.get("dscp_to_tc_map") or global_dscp_map,
        tc_to_queue=qos.get("tc_to_queue_map"),
        tc_to_pg=qos.get("tc_to_pg_map"),
        pfc_to_pg=qos.get("pfc_to_pg_map"),
        pfc_to_queue=qos.get("pfc_to_queue_map"),
    )
    port_maps = QosMapsIR(
        dscp_to_tc=maps.pairs("DSCP_TO_TC_MAP", names.dscp_to_tc),
        dscp_to_color=(),  # config_db has no DSCP->color table (none in sonic-swss orchagent/qosorch.cpp m_qos_maps): every packet is green
        tc_to_queue=maps.pairs("TC_TO_QUEUE_MAP", names.tc_to_queue),
        tc_to_priority_group=maps.pairs("TC_TO_PRIORITY_GROUP_MAP", names.tc_to_pg),
        pfc_priority_to_priority_group=maps.pairs("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", names.pfc_to_pg),
        pfc_priority_to_queue=maps.pairs("MAP_PFC_PRIORITY_TO_QUEUE", names.pfc_to_queue),
    )
    pfc = priorities(qos.get("pfc_enable"))
    # Without a pfc_to_queue_map SONiC's implicit identity applies (checks.py lossless-chain, sonic-yang-models sonic-port-qos-map.yang).
    pfc_queue = dict(port_maps.pfc_priority_to_queue) if names.pfc_to_queue else {p: p for p in range(8)}
    paused_queues = {pfc_queue[p] for p in pfc if p in pfc_queue}

    groups: dict[int, PriorityGroupIR] = {}
    for indices, entry in tables.pgs.get(name, []):
        profile_name = entry.get("profile", "")
        profile = profiles.get(profile_name)
        lossless = (profile is not None and profile.lossless) or (profile_name == "NULL" and dynamic_model)
        for index in indices:
            groups.setdefault(index, PriorityGroupIR(index, profile_name, lossless))
    queue_profiles: dict[int, str] = {}
    for indices, entry in tables.buffer_queues.get(name, []):
        for index in indices:
            queue_profiles.setdefault(index, entry.get("profile", ""))
    queue_entries: dict[int, dict[str, str]] = {}
    for indices, entry in tables.queues.get(name, []):
        for index in indices:
            queue_entries.setdefault(index, entry)
    queues = tuple(
        QueueConfig(
            index=index,
            scheduler=queue_entries.get(index, {}).get("scheduler"),
            wred_profile=queue_entries.get(index, {}).get("wred_profile"),
            buffer_profile=queue_profiles.get(index),
            lossless=index in paused_queues,
        )
        for index in sorted(set(queue_profiles) | set(queue_entries))
    )

    speed_mbps = _uint(port_entry.get("speed"))
    cable = cable_metres(tables.cables.get(name))
    speed_source = "PORT.speed" if speed_mbps else "unknown (no PORT.speed)"
    cable_source = "CABLE_LENGTH" if cable is not None else "unknown (no CABLE_LENGTH)"
    if not speed_mbps or cable is None:
        # buffermgrd names a port's lossless profile after its speed and cable (sonic-swss cfgmgr/buffermgr.cpp), so the
        # name carries both when the PORT / CABLE_LENGTH tables are not part of the file.
        for group in groups.values():
            match = TRADITIONAL_PG_PROFILE.fullmatch(group.buffer_profile)
            if group.lossless and match is not None and len(match.group(1)) <= MAX_DIGITS:
                if not speed_mbps and int(match.group(1)) > 0:
                    speed_mbps = int(match.group(1))
                    speed_source = f"BUFFER_PROFILE name {group.buffer_profile} (buffermgrd naming, sonic-swss cfgmgr/buffermgr.cpp)"
                if cable is None:
                    cable = cable_metres(match.group(2))
                    cable_source = f"BUFFER_PROFILE name {group.buffer_profile} (buffermgrd naming, sonic-swss cfgmgr/buffermgr.cpp)"
                break
    lanes_text = port_entry.get("lanes")
    watchdog_entry = tables.watchdog.get(name)
    return PortConfig(
        name=name,
        speed_bps=speed_mbps * BPS_PER_MBPS if speed_mbps else None,
        speed_source=speed_source,
        cable_m=cable,
        cable_source=cable_source,
        mtu_bytes=float(mtu) if (mtu := _uint(port_entry.get("mtu"))) else None,
        lanes=len(lanes_text.split(",")) if lanes_text else None,
        admin_status=port_entry.get("admin_status"),
        priority_groups=tuple(groups[i] for i in sorted(groups)),
        queues=queues,
        pfc_priorities=pfc,
        watchdog_priorities=priorities(qos.get("pfcwd_sw_enable")),
        maps=port_maps,
        map_names=names,
        watchdog=None if watchdog_entry is None else WatchdogConfig(
            detection_ms=_uint(watchdog_entry.get("detection_time")),
            restoration_ms=_uint(watchdog_entry.get("restoration_time")),
            action=watchdog_entry.get("action"),
        ),
        has_qos_entry=name in tables.qos,
    )


def _single_entry(config: Mapping[str, Any], table: str) -> dict[str, str]:
    entries = _entries(config, table)
    return next(iter(entries.values())) if entries else {}


def parse_config_db(config: Mapping[str, Any], *, file: str = "config_db.json") -> ParsedConfigDb:
    """The buffer/QoS content of ``config`` (a config_db dict) as typed values; never raises."""
    config = _Tables(config if isinstance(config, Mapping) else {})
    reader = _Reader(file)
    model = buffer_model(config).model
    dynamic_model = model == "dynamic"
    profiles = _profiles(config, reader)
    by_name = {p.name: p for p in profiles}
    maps = _Maps(config)
    global_dscp = _entries(config, "PORT_QOS_MAP").get("global", {}).get("dscp_to_tc_map")
    tables = _port_tables(config)
    pattern = _single_entry(config, "LOSSLESS_TRAFFIC_PATTERN")
    parameters = _single_entry(config, "DEFAULT_LOSSLESS_BUFFER_PARAMETER")
    mtu = _uint(pattern.get("mtu"))
    spp = _uint(pattern.get("small_packet_percentage"))
    return ParsedConfigDb(
        file=file,
        buffer_model=model,
        pools=_pools(config, reader),
        buffer_profiles=profiles,
        wred_profiles=_wred_profiles(config, reader),
        schedulers=_schedulers(config),
        ports=tuple(_port(name, tables, maps, by_name, dynamic_model, global_dscp) for name in _port_names(config)),
        traffic_pattern=TrafficPattern(
            lossless_mtu_bytes=float(mtu) if mtu else None,
            small_packet_percent=float(spp) if spp is not None and spp <= 100 else None,
        ),
        over_subscribe_ratio=_uint(parameters.get("over_subscribe_ratio")),
        poll_interval_ms=_uint(_entries(config, "PFC_WD").get("GLOBAL", {}).get("POLL_INTERVAL")),
    )


__all__ = [
    "MapNames",
    "ParsedConfigDb",
    "PoolConfig",
    "PortConfig",
    "QueueConfig",
    "SchedulerConfig",
    "TrafficPattern",
    "WatchdogConfig",
    "parse_config_db",
]
