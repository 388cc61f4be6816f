"""Render one :class:`~qosforge.ir.SwitchIR` as a SONiC CONFIG_DB fragment.

The output is ``config_db.json`` content for the QoS/buffer tables (the SONiC YANG models (sonic-buildimage src/sonic-yang-models/yang-models)): BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE, CABLE_LENGTH, WRED_PROFILE,
SCHEDULER, QUEUE, DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP,
PFC_PRIORITY_TO_PRIORITY_GROUP_MAP, MAP_PFC_PRIORITY_TO_QUEUE, PORT_QOS_MAP and PFC_WD. It
targets SONiC's *traditional* buffer model (pool sizes given; no DEVICE_METADATA is written).

How it works: this module turns the IR into a small view (names resolved, every number already
a decimal string), the Jinja2 templates in ``templates/sonic/`` lay the tables out as JSON (every
value through ``tojson``), the JSON is parsed, and :func:`~qosforge.backends.sonic.checks.check_config_db`
validates the result; a violation there is a qosforge bug
(:class:`ConfigDbViolationError`), never something to ship.

Naming (SONiC conventions, so SONiC's own tools keep working):

- All QoS maps are called ``AZURE``, as SONiC's ``qos_config.j2`` names them; CABLE_LENGTH's
  single entry too (sonic-yang-models sonic-cable-length.yang).
- The ingress pool that holds the lossless (xoff) profiles is ``ingress_lossless_pool``
  (hard-coded in sonic-swss cfgmgr/buffermgrdyn.cpp and its cfgmgr/buffer_*.lua plugins); other pools keep their IR names.
- The lossless PG profile of a port is named ``pg_lossless_<speed Mb/s>_<cable>m_profile``. In the
  traditional model buffermgrd writes ``BUFFER_PG|<port>|<pfc_enable ranges>`` with a profile of
  exactly that name whenever a port has ``pfc_enable`` and a non-zero cable length, and it reuses
  an existing profile of that name instead of creating one from ``pg_profile_lookup.ini`` (sonic-swss cfgmgr/buffermgr.cpp
  doSpeedUpdateTask). Using its name and its key makes our computed headroom the one that stays.
  Consequence: one lossless PG profile per port (buffermgrd writes one), and ports that share
  speed and cable share the profile — both are checked and reported as errors.
- The WRED profile used by lossless queues is ``AZURE_LOSSLESS`` when exactly one profile serves
  only lossless queues, so ``ecnconfig -q`` keeps working (sonic-utilities scripts/ecnconfig); other profiles keep their IR
  names, made to fit the YANG name pattern.
- Schedulers and lossy/egress buffer profiles keep their IR names.

Shapers: SONiC's SCHEDULER ``pir`` needs a ``cir`` (YANG ``must``, sonic-yang-models sonic-scheduler.yang). The IR only caps a
queue (``max_rate_bytes_per_s``, FastLane's 2 % notification queue), so we emit ``cir = pir =
cap`` with ``meter_type: bytes``. Rationale: a min-bandwidth guarantee equal to the cap never lets
the queue exceed the cap; for the strict-priority queues the compiler shapes, the guarantee adds
nothing strict priority does not already give; and it is always a rate the ASIC can program if
``pir`` is, whereas a token ``cir`` (e.g. 1 B/s) would depend on each vendor's rate granularity.
For a shaped DWRR queue ``cir = pir`` would also guarantee the cap, which is the nearest
expressible behaviour and is stated here rather than hidden.

Contract with the compiler (what this renderer refuses with :class:`~qosforge.errors.
QosforgeError`, because config_db cannot express it — the compiler must have turned each into a
``CapabilityGap`` for target ``sonic`` or an accepted approximation first):

- ``maps.dscp_to_color`` with a non-green color: SONiC has no DSCP_TO_COLOR table (none in sonic-yang-models nor in sonic-swss
  orchagent/qosorch.cpp m_qos_maps). An
  all-green map is what the switch does anyway and is accepted.
- ``WredIR.ect_marking``: config_db has no separate ECT marking thresholds (sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang, sonic-swss #4718).
- any ``CapabilityGap`` for target ``sonic`` without an accepted ``approximation``.
- PFC priorities on a port but no ``pfc_watchdog`` (SONiC's lossless chain needs it: sonic-swss orchagent/pfcwdorch.cpp).
- numbers SONiC stores as integers but the IR gives as fractions (drop probability in whole
  percent, ``dynamic_th`` exponent, port speed in whole Mb/s): the compiler quantises them.
  Byte sizes are rounded to whole bytes (a sub-byte part has no meaning).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

import jinja2

from qosforge.backends.sonic.capabilities import inexpressible
from qosforge.backends.sonic.checks import (
    LOSSLESS_POOL,
    NAME_PATTERN,
    Violation,
    check_config_db,
    contiguous_ranges,
)
from qosforge.errors import QosforgeError
from qosforge.ir import (
    BufferProfileIR,
    Derived,
    PortIR,
    SchedulerIR,
    SwitchIR,
    WredIR,
)

ConfigDb: TypeAlias = dict[str, dict[str, dict[str, str]]]

TARGET = "sonic"
#: SONiC's default map / cable-length entry name (sonic-buildimage qos_config.j2, buffers_config.j2).
MAP_NAME = "AZURE"
#: WRED profile name `ecnconfig -q` expects (the SONiC sources (sonic-buildimage, sonic-swss)).
LOSSLESS_WRED_NAME = "AZURE_LOSSLESS"
#: One template per table family, rendered in this order and merged.
TEMPLATES = ("buffers.json.j2", "qos_maps.json.j2", "queues.json.j2", "pfcwd.json.j2", "counters.json.j2", "trimming.json.j2")

_INTEGRAL_TOLERANCE = 1e-9


class ConfigDbViolationError(RuntimeError):
    """The renderer produced config_db that SONiC would reject: a qosforge bug."""

    def __init__(self, switch: str, violations: list[Violation]) -> None:
        self.switch = switch
        self.violations = violations
        lines = "\n".join(f"  {v.one_line()}" for v in violations)
        super().__init__(f"SONiC rendering of switch {switch} broke {len(violations)} rule(s):\n{lines}")


def counter_groups(switch: SwitchIR) -> list[str]:
    """The FLEX_COUNTER_TABLE groups ``qosforge watch`` needs on this switch
    (:data:`qosforge.backends.sonic.telemetry.PATHS`): port and queue counters and queue
    watermarks always; WRED/ECN queue counters where a WRED profile marks; priority-group
    watermarks and drops and the PFC watchdog's counters where a class is lossless."""
    from qosforge.backends.sonic.telemetry import PATHS

    lossless = any(port.pfc_priorities for port in switch.ports)
    marks = any(curve.mark for profile in switch.wred_profiles for curve in profile.curves)
    wanted = {"PORT", "QUEUE", "QUEUE_WATERMARK"}
    if marks:
        wanted.add("WRED_ECN_QUEUE")
    if lossless:
        wanted |= {"PG_WATERMARK", "PG_DROP"}
        if switch.pfc_watchdog is not None:
            wanted.add("PFCWD")
    catalogue = {p.flex_counter_group for p in PATHS if p.flex_counter_group}
    return sorted(wanted & catalogue)


def render_config_db(switch: SwitchIR) -> ConfigDb:
    """The config_db tables for ``switch``; raises if the IR asks for what SONiC cannot express."""
    _refuse_inexpressible(switch)
    view = _build_view(switch)
    environment = _environment()
    config: ConfigDb = {}
    for template_name in TEMPLATES:
        text = environment.get_template(template_name).render(**view)
        for table, entries in json.loads(text, object_pairs_hook=_no_duplicate_keys).items():
            if table in config:
                raise ConfigDbViolationError(switch.name, [Violation(
                    "structure", table, "", None, f"rendered twice ({template_name})")])
            if entries:
                config[table] = entries
    violations = check_config_db(config, asic_buffer_bytes=switch.buffer_bytes.as_int)
    if violations:
        raise ConfigDbViolationError(switch.name, violations)
    return config


def render_fabric(switches: Iterable[SwitchIR]) -> Iterator[tuple[SwitchIR, ConfigDb]]:
    """Render every switch. Switches whose IR differs only in name and port peers (the compiler's
    shared plans: config_db carries neither) are rendered and checked once."""
    rendered: dict[SwitchIR, ConfigDb] = {}
    for switch in switches:
        key = replace(switch, name="", ports=tuple(replace(port, peer=None) for port in switch.ports))
        if key not in rendered:
            rendered[key] = render_config_db(switch)
        yield switch, rendered[key]


def config_db_to_json(config: ConfigDb) -> str:
    """Stable text form for files and goldens: tables, keys and fields in natural order
    (``Ethernet4`` before ``Ethernet12``, DSCP 2 before 10), 2-space indent, trailing newline."""
    ordered = {
        table: {
            key: {field: entry[field] for field in sorted(entry, key=_natural)}
            for key, entry in sorted(config[table].items(), key=lambda item: _natural(item[0]))
        }
        for table in sorted(config)
    }
    return json.dumps(ordered, indent=2) + "\n"


def _natural(text: str) -> list[tuple[int, int | str]]:
    """Sort key that compares digit runs as numbers."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part]


@functools.cache
def _environment() -> jinja2.Environment:
    """One environment per process, so templates are compiled once, not once per switch."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("qosforge.templates", "sonic"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # JSON, not HTML: tojson does the escaping
        keep_trailing_newline=True,
    )
    # Jinja's built-in tojson also HTML-escapes <>&' for embedding in pages; config_db is plain
    # JSON, and json.dumps is several times faster on the ~10^5 values of a large switch.
    environment.filters["tojson"] = json.dumps
    return environment


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"template rendered key {key!r} twice")
        result[key] = value
    return result


# ---------------------------------------------------------------------------------------------
# Refusals: what config_db cannot carry


def _capability_error(switch: SwitchIR, classes: Iterable[str], message: str) -> QosforgeError:
    names = ", ".join(sorted(set(classes))) or "(no class)"
    return QosforgeError(
        f"{message}: capability gap of the sonic target",
        place=f"switch {switch.name}, class {names}",
        hint="the compiler must record it as a CapabilityGap for target 'sonic' (or apply an "
        "accepted approximation) before rendering; see sonic-swss orchagent/qosorch.cpp, sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang",
    )


def _refuse_inexpressible(switch: SwitchIR) -> None:
    for item in inexpressible(switch):
        raise _capability_error(switch, item.class_names, item.description)
    for gap in switch.gaps:
        if gap.target == TARGET and gap.approximation is None:
            raise _capability_error(switch, [gap.class_name],
                                    f"unresolved capability gap {gap.feature}: {gap.detail}")


# ---------------------------------------------------------------------------------------------
# Numbers -> decimal strings


def _integral(value: float, what: str, switch: SwitchIR, hint: str) -> int:
    if not math.isfinite(value) or abs(value - round(value)) > _INTEGRAL_TOLERANCE:
        raise QosforgeError(f"{what} is {value!r}, but SONiC stores a whole number",
                            place=f"switch {switch.name}", hint=hint)
    return round(value)


def _bytes(derived: Derived, what: str, switch: SwitchIR) -> str:
    """Byte counts: rounded to whole bytes (a fraction of a byte has no meaning on a switch)."""
    if not math.isfinite(derived.value) or derived.value < 0:
        raise QosforgeError(f"{what} is {derived.value!r} B", place=f"switch {switch.name}",
                            hint="byte sizes and thresholds must be finite and >= 0")
    return str(math.floor(derived.value + 0.5))


def _whole(derived: Derived, what: str, switch: SwitchIR) -> str:
    return str(_integral(derived.value, what, switch,
                         hint="the compiler quantises it to what the chip programs"))


# ---------------------------------------------------------------------------------------------
# The view the templates lay out


@dataclass(frozen=True)
class _Names:
    pools: dict[str, str]
    """IR pool name -> CONFIG_DB name."""
    lossless_pg_profile: dict[str, str]
    """port -> CONFIG_DB name of its lossless PG profile (buffermgrd's name)."""
    wred: dict[str, str]


def _speed_mbps(port: PortIR, switch: SwitchIR) -> int:
    return _integral(port.speed_bps / 1e6, f"port {port.name} speed in Mb/s", switch,
                     hint="SONiC PORT.speed is whole Mb/s")


def cable_length_text(cable_m: float) -> str:
    """CABLE_LENGTH value ``<n>m``; fractional lengths round up (the longer cable needs more headroom)."""
    return f"{math.ceil(cable_m - _INTEGRAL_TOLERANCE)}m"


def choose_names(switch: SwitchIR) -> _Names:
    profiles = {p.name: p for p in switch.buffer_profiles}
    lossless_pools = sorted({p.pool for p in switch.buffer_profiles if p.lossless})
    if len(lossless_pools) > 1:
        raise QosforgeError(
            f"lossless profiles use pools {lossless_pools}", place=f"switch {switch.name}",
            hint=f"SONiC supports one lossless ingress pool ({LOSSLESS_POOL}); put all xoff profiles in it")
    pools = {p.name: p.name for p in switch.pools}
    if lossless_pools:
        pools[lossless_pools[0]] = LOSSLESS_POOL
        clash = [p for p in pools if p != lossless_pools[0] and pools[p] == LOSSLESS_POOL]
        if clash:
            raise QosforgeError(f"pool {clash[0]} is named {LOSSLESS_POOL} but holds no lossless profile",
                                place=f"switch {switch.name}",
                                hint=f"{LOSSLESS_POOL} is reserved for the lossless ingress pool")

    lossless_pg_profile: dict[str, str] = {}
    owner: dict[str, str] = {}  # buffermgrd name -> IR profile
    for port in switch.ports:
        used = sorted({pg.buffer_profile for pg in port.priority_groups
                       if pg.lossless and profiles[pg.buffer_profile].lossless})
        if not used:
            continue
        if len(used) > 1:
            raise QosforgeError(
                f"port {port.name} uses lossless PG profiles {used}", place=f"switch {switch.name}",
                hint="SONiC's buffermgrd writes one lossless profile per port (pg_lossless_<speed>_"
                "<cable>_profile); give all lossless PGs of a port one profile")
        name = f"pg_lossless_{_speed_mbps(port, switch)}_{cable_length_text(port.cable_m)}_profile"
        previous = owner.setdefault(name, used[0])
        if previous != used[0] and _profile_fields(profiles[previous], pools, switch) != \
                _profile_fields(profiles[used[0]], pools, switch):
            raise QosforgeError(
                f"ports with the same speed and cable need different lossless profiles "
                f"({previous}, {used[0]}) but SONiC names both {name}",
                place=f"switch {switch.name}, port {port.name}",
                hint="buffermgrd keys lossless profiles by speed and cable length only")
        lossless_pg_profile[port.name] = name
    taken = [name for name, ir_profile in owner.items() if name in profiles and name != ir_profile]
    if taken:
        raise QosforgeError(f"IR buffer profile {taken[0]} has a buffermgrd name for another port signature",
                            place=f"switch {switch.name}", hint="rename that profile in the compiler")
    return _Names(pools, lossless_pg_profile, _wred_names(switch))


def wred_profile_names(switch: SwitchIR) -> dict[str, str]:
    """IR WRED profile name -> its ``WRED_PROFILE`` key in config_db (``rdma_100G`` ->
    ``AZURE_LOSSLESS``), for the report, which names profiles as the IR does."""
    return _wred_names(switch)


def _wred_names(switch: SwitchIR) -> dict[str, str]:
    lossless = {q.wred_profile for p in switch.ports for q in p.queues if q.lossless and q.wred_profile}
    lossy = {q.wred_profile for p in switch.ports for q in p.queues if not q.lossless and q.wred_profile}
    names: dict[str, str] = {}
    for wred in switch.wred_profiles:
        candidate = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in wred.name)
        if not candidate[:1].isalnum():
            candidate = "w" + candidate
        names[wred.name] = candidate[:32]
    if len(lossless) == 1 and not (lossless & lossy):
        names[next(iter(lossless))] = LOSSLESS_WRED_NAME
    chosen = list(names.values())
    for name in chosen:
        if chosen.count(name) > 1 or NAME_PATTERN.fullmatch(name) is None:
            raise QosforgeError(f"WRED profile names collide or are invalid after SONiC naming: {name}",
                                place=f"switch {switch.name}",
                                hint="give WRED profiles distinct names of letters, digits, - and _")
    return names


def _profile_fields(profile: BufferProfileIR, pools: dict[str, str], switch: SwitchIR) -> dict[str, str | None]:
    what = f"buffer profile {profile.name}"
    optional = {
        "xon": profile.xon_bytes, "xoff": profile.xoff_bytes, "xon_offset": profile.xon_offset_bytes,
    }
    return {
        "pool": pools.get(profile.pool, profile.pool),
        "size": _bytes(profile.reserved_bytes, f"{what} size", switch),
        "dynamic_th": None if profile.dynamic_th is None else _whole(profile.dynamic_th, f"{what} dynamic_th", switch),
        "static_th": None if profile.static_th_bytes is None else _bytes(profile.static_th_bytes, f"{what} static_th", switch),
        **{k: None if v is None else _bytes(v, f"{what} {k}", switch) for k, v in optional.items()},
        # Written only when trimming: "drop" is what a profile without the field does (sonic-swss
        # orchagent/bufferorch.cpp sets the SAI attribute only when the field is present).
        "packet_discard_action": "trim" if profile.discard_action == "trim" else None,
    }


def _keyed_ranges(port: str, indexed: list[tuple[int, str]]) -> list[dict[str, str]]:
    """``<port>|N`` / ``<port>|N-M`` entries: ranges only where contiguous and the same profile."""
    entries: list[dict[str, str]] = []
    for profile in dict.fromkeys(name for _i, name in indexed):
        for low, high in contiguous_ranges([i for i, name in indexed if name == profile]):
            index = f"{low}" if low == high else f"{low}-{high}"
            entries.append({"key": f"{port}|{index}", "profile": profile, "first": str(low)})
    return sorted(entries, key=lambda e: int(e["first"]))


def _pairs(pairs: Iterable[tuple[int, int]]) -> list[tuple[str, str]]:
    return [(str(a), str(b)) for a, b in sorted(pairs)]


def _ecn(colors: set[str]) -> str:
    """The WRED ``ecn`` enum for the set of marking colors (sonic-yang-models sonic-wred-profile.yang; sonic-swss orchagent/qosorch.cpp WredMapHandler)."""
    if not colors:
        return "ecn_none"
    if len(colors) == 3:
        return "ecn_all"
    return "ecn_" + "_".join(c for c in ("green", "yellow", "red") if c in colors)


def _wred_view(wred: WredIR, name: str, switch: SwitchIR) -> dict[str, Any]:
    colors = []
    for color in ("green", "yellow", "red"):
        curve = wred.curve(color)
        if curve is None or not (curve.drop or curve.mark):
            continue  # thresholds of an inactive color are rejected by some SAIs (sonic-mgmt #26163)
        what = f"WRED {wred.name} {color}"
        colors.append({
            "color": color,
            "min": _bytes(curve.min_bytes, f"{what} min", switch),
            "max": _bytes(curve.max_bytes, f"{what} max", switch),
            "probability": _whole(curve.probability_percent, f"{what} drop probability (%)", switch),
        })
    # A marking color is enabled too, as every SONiC qos.json template does (sonic-buildimage
    # device/*/qos.json.j2 pairs ``ecn`` with ``wred_<color>_enable: "true"``): Broadcom/Innovium
    # SAIs ignore ECN on a disabled color (sonic-buildimage issue #4545). Non-ECT packets of the
    # class are then WRED-dropped between min and max, the RED-with-ECN behaviour of DCTCP §3.1.
    enabled = {c.color: ("true" if c.drop or c.mark else "false") for c in wred.curves}
    return {
        "name": name,
        "enable": [(color, enabled.get(color, "false")) for color in ("green", "yellow", "red")],
        "ecn": _ecn({c.color for c in wred.curves if c.mark}),
        "colors": colors,
    }


def _scheduler_view(scheduler: SchedulerIR, switch: SwitchIR) -> dict[str, Any]:
    rate = None
    if scheduler.max_rate_bytes_per_s is not None:
        rate = _bytes(scheduler.max_rate_bytes_per_s, f"scheduler {scheduler.name} max rate (B/s)", switch)
    return {
        "name": scheduler.name,
        "type": scheduler.kind,
        "weight": None if scheduler.weight is None else str(scheduler.weight),
        # cir = pir = cap: see the module docstring ("Shapers").
        "cir": rate,
        "pir": rate,
    }


def _trimming_view(switch: SwitchIR) -> dict[str, str | None] | None:
    """SWITCH_TRIMMING|GLOBAL (sonic-trimming.yang): the DSCP, or from-tc with tc_value; the queue,
    or dynamic (resolved from the trimmed packet's DSCP through the port's maps)."""
    trimming = switch.trimming
    if trimming is None:
        return None
    return {
        "size": _bytes(trimming.size_bytes, "trim size", switch),
        "dscp_value": "from-tc" if trimming.dscp is None else str(trimming.dscp),
        "tc_value": None if trimming.tc is None else str(trimming.tc),
        "queue_index": "dynamic" if trimming.queue is None else str(trimming.queue),
    }


def _build_view(switch: SwitchIR) -> dict[str, Any]:
    names = choose_names(switch)
    maps = switch.maps
    profiles = {p.name: p for p in switch.buffer_profiles}

    rendered_profiles: dict[str, dict[str, str | None]] = {}
    renamed_only = {pg.buffer_profile for port in switch.ports for pg in port.priority_groups
                    if port.name in names.lossless_pg_profile and pg.lossless
                    and profiles[pg.buffer_profile].lossless}
    used_by_ir_name = {pg.buffer_profile for port in switch.ports for pg in port.priority_groups
                       if pg.buffer_profile not in renamed_only} | {
        q.buffer_profile for port in switch.ports for q in port.queues}
    for profile in switch.buffer_profiles:
        if profile.name not in renamed_only or profile.name in used_by_ir_name:
            rendered_profiles[profile.name] = _profile_fields(profile, names.pools, switch)
    for port in switch.ports:
        name = names.lossless_pg_profile.get(port.name)
        if name is not None and name not in rendered_profiles:
            ir_profile = next(pg.buffer_profile for pg in port.priority_groups
                              if pg.lossless and profiles[pg.buffer_profile].lossless)
            rendered_profiles[name] = _profile_fields(profiles[ir_profile], names.pools, switch)

    def pg_profile(port: PortIR, profile: str, lossless: bool) -> str:
        if lossless and profiles[profile].lossless:
            return names.lossless_pg_profile[port.name]
        return profile

    has = {
        "dscp_to_tc": bool(maps.dscp_to_tc), "tc_to_queue": bool(maps.tc_to_queue),
        "tc_to_pg": bool(maps.tc_to_priority_group),
        "pfc_to_pg": bool(maps.pfc_priority_to_priority_group),
        "pfc_to_queue": bool(maps.pfc_priority_to_queue),
    }
    watchdog = switch.pfc_watchdog
    if watchdog is None and any(port.pfc_priorities for port in switch.ports):
        raise QosforgeError(
            "PFC is enabled but the IR has no PFC watchdog", place=f"switch {switch.name}",
            hint="SONiC's lossless chain includes pfcwd_sw_enable and PFC_WD (sonic-swss orchagent/pfcwdorch.cpp); "
            "the compiler sets PfcWatchdogIR for every switch with lossless classes")
    ports = []
    for port in switch.ports:
        pfc = ",".join(str(p) for p in sorted(set(port.pfc_priorities)))
        ports.append({
            "name": port.name,
            "cable": cable_length_text(port.cable_m),
            "pgs": _keyed_ranges(port.name, [(pg.index, pg_profile(port, pg.buffer_profile, pg.lossless))
                                             for pg in port.priority_groups]),
            "buffer_queues": _keyed_ranges(port.name, [(q.index, q.buffer_profile) for q in port.queues]),
            "queues": [{"key": f"{port.name}|{q.index}", "scheduler": q.scheduler,
                        "wred_profile": None if q.wred_profile is None else names.wred[q.wred_profile]}
                       for q in sorted(port.queues, key=lambda q: q.index)],
            "pfc_enable": pfc or None,
            "pfcwd_sw_enable": pfc if pfc and watchdog is not None else None,
        })
    return {
        "map_name": MAP_NAME,
        "pools": [{"name": names.pools[p.name], "type": p.direction, "mode": p.mode,
                   "size": _bytes(p.size_bytes, f"pool {p.name} size", switch),
                   "xoff": None if p.shared_headroom_bytes is None else
                   _bytes(p.shared_headroom_bytes, f"pool {p.name} shared headroom", switch)}
                  for p in switch.pools],
        "profiles": [{"name": name, **fields} for name, fields in rendered_profiles.items()],
        "ports": ports,
        "has": has,
        "dscp_to_tc": _pairs(maps.dscp_to_tc),
        "tc_to_queue": _pairs(maps.tc_to_queue),
        "tc_to_pg": _pairs(maps.tc_to_priority_group),
        "pfc_to_pg": _pairs(maps.pfc_priority_to_priority_group),
        "pfc_to_queue": _pairs(maps.pfc_priority_to_queue),
        "wred_profiles": [_wred_view(w, names.wred[w.name], switch) for w in switch.wred_profiles],
        "schedulers": [_scheduler_view(s, switch) for s in switch.schedulers],
        "counter_groups": counter_groups(switch),
        "trimming": _trimming_view(switch),
        "watchdog": None if watchdog is None else {
            "action": watchdog.action,
            "detection_time": str(watchdog.detection_ms),
            "restoration_time": str(watchdog.restoration_ms),
            "poll_interval": str(watchdog.poll_interval_ms),
        },
    }
