"""PFC checks: the watchdog, PORT_QOS_MAP, and the lossless chain of every PFC priority.

What is lossless comes from PFC (PORT_QOS_MAP ``pfc_enable`` with ``pfc_to_queue_map``, identity
when absent), never from a pool's name. Links into tables the file does not contain are not
checked: SONiC merges ``buffers.json``, ``qos.json`` and ``config_db.json`` at load.
"""

from __future__ import annotations

from collections.abc import Callable

from qosforge.backends.sonic.checks.schema import FIELDS
from qosforge.backends.sonic.checks.view import ConfigView
from qosforge.backends.sonic.checks.violation import Violation
from qosforge.backends.sonic.keys import priorities, uint

#: Without pfc_to_queue_map / pfc_to_pg_map SONiC pauses queue p / PG p for priority p.
_IDENTITY = {p: p for p in range(8)}


def check_pfc_watchdog(view: ConfigView, found: list[Violation]) -> None:
    table = view.entries("PFC_WD")
    poll = uint(table.get("GLOBAL", {}).get("POLL_INTERVAL"))
    for key, entry in table.items():
        for field in entry:
            on_global = field == "POLL_INTERVAL"
            if on_global != (key == "GLOBAL") and field in FIELDS["PFC_WD"]:
                where = "only on PFC_WD|GLOBAL" if on_global else "on ports, never on PFC_WD|GLOBAL"
                found.append(Violation("pfcwd-placement", "PFC_WD", key, field, f"{field} belongs {where}"))
        if key == "GLOBAL":
            continue
        if "detection_time" not in entry:
            found.append(Violation("missing-field", "PFC_WD", key, "detection_time",
                                   "orchagent: detection_time missing"))
        for field in ("detection_time", "restoration_time"):
            value = uint(entry.get(field))
            if poll is not None and value is not None and value < poll:
                found.append(Violation("pfcwd-poll-interval", "PFC_WD", key, field,
                                       f"{field} {value} < POLL_INTERVAL {poll}"))


def check_port_qos(view: ConfigView, found: list[Violation]) -> None:
    for key, entry in view.entries("PORT_QOS_MAP").items():
        if key == "global":
            for field in entry:
                if field != "dscp_to_tc_map":
                    found.append(Violation("port-qos-global", "PORT_QOS_MAP", key, field,
                                           "orchagent ignores every global field but dscp_to_tc_map"))
            continue
        stray = set(priorities(entry.get("pfcwd_sw_enable"))) - set(priorities(entry.get("pfc_enable")))
        if stray:
            found.append(Violation("pfcwd-priorities", "PORT_QOS_MAP", key, "pfcwd_sw_enable",
                                   f"priorities {sorted(stray)} are watched but not PFC-enabled"))


def _bound_map(view: ConfigView, table: str, name: str | None) -> dict[int, int] | None:
    """The map a port binds, identity when it binds none; None when the file cannot tell (the
    named map's table is not in the file, or the name does not resolve: dangling-reference)."""
    if name is None:
        return dict(_IDENTITY)
    return view.map(table, name)


def lossless_pgs(view: ConfigView, port: str, enabled: tuple[int, ...]) -> set[int]:
    """The PGs of ``port`` that hold lossless traffic: those buffermgrd writes from pfc_enable
    (traditional model, cable not 0 m; sonic-swss cfgmgr/buffermgr.cpp), those the file gives a
    lossless profile (xoff, or NULL in the dynamic model), and, when the file has no BUFFER_PG
    at all, the pfc_enable priorities (the PGs of the merged config follow them)."""
    pgs = {item_index for member in port.split(",") for item in view.indexed("BUFFER_PG", member)
           if view.lossless_profile(item.entry.get("profile", "")) for item_index in item.parsed.indices()}
    if view.buffermgrd_writes_pgs(port) or not view.has("BUFFER_PG"):
        pgs |= set(enabled)
    return pgs


def _zero_profile(view: ConfigView, name: str) -> bool:
    """A profile that can hold nothing: SONiC's ``*_zero_profile`` on reclaimed, admin-down ports
    (size 0 with static_th 0 or dynamic_th -8; sonic-buildimage buffers_config.j2, db_migrator
    reclaiming-buffer)."""
    profile = view.profile(name)
    return profile is not None and profile.get("size") == "0" and (
        profile.get("static_th") == "0" or profile.get("dynamic_th") == "-8")


def check_lossless_chain(view: ConfigView, found: list[Violation]) -> None:
    port_maps = view.entries("PORT_QOS_MAP")
    global_dscp = port_maps.get("global", {}).get("dscp_to_tc_map")
    for port, entry in port_maps.items():
        if port == "global":
            continue
        enabled = priorities(entry.get("pfc_enable"))

        def broken(message: str, field: str | None = None, port: str = port) -> None:
            found.append(Violation("lossless-chain", "PORT_QOS_MAP", port, field, message))

        dscp_map_name = entry.get("dscp_to_tc_map") or global_dscp
        if enabled:
            for field in ("tc_to_pg_map", "tc_to_queue_map"):
                if not entry.get(field):
                    broken(f"PFC is enabled ({entry['pfc_enable']}) but {field} is not set", field)
            if dscp_map_name is None and not entry.get("dot1p_to_tc_map"):
                broken("PFC is enabled but no dscp_to_tc_map (port or global) or dot1p_to_tc_map classifies "
                       "traffic", "dscp_to_tc_map")
            if view.has("CABLE_LENGTH") and port not in view.cables and "," not in port:
                broken("PFC is enabled but the port has no CABLE_LENGTH (buffermgrd waits forever)")
        tc_to_pg = view.map("TC_TO_PRIORITY_GROUP_MAP", entry.get("tc_to_pg_map"))
        tc_to_queue = view.map("TC_TO_QUEUE_MAP", entry.get("tc_to_queue_map"))
        pfc_to_queue = _bound_map(view, "MAP_PFC_PRIORITY_TO_QUEUE", entry.get("pfc_to_queue_map"))
        pfc_to_pg = _bound_map(view, "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", entry.get("pfc_to_pg_map"))
        dscp_to_tc = view.map("DSCP_TO_TC_MAP", dscp_map_name)
        port_has_queues = bool(view.indexed("BUFFER_QUEUE", port))

        def through(mapping: dict[int, int], field: str, priority: int,
                    entry: dict[str, str] = entry) -> int | None:
            """Where ``mapping`` (bound by ``field``) sends ``priority``; reported when it does not."""
            if priority not in mapping:
                broken(f"PFC priority {priority} is missing from {entry.get(field)}", field)
            return mapping.get(priority)

        for priority in enabled:
            if pfc_to_pg is None:
                break
            pg = through(pfc_to_pg, "pfc_to_pg_map", priority)
            if pg is None:
                continue
            if "," in port:
                _check_joined_pgs(view, port, priority, pg, broken)
            else:
                _check_lossless_pg(view, port, priority, pg, broken)
            queue = None if pfc_to_queue is None else through(pfc_to_queue, "pfc_to_queue_map", priority)
            if queue is None:
                continue
            if port_has_queues and view.covering("BUFFER_QUEUE", port, queue) is None:
                broken(f"PFC priority {priority}: {port} has BUFFER_QUEUE entries but none for queue {queue}")
            if tc_to_pg is None:
                continue
            tcs = sorted(tc for tc, mapped_pg in tc_to_pg.items() if mapped_pg == pg)
            if not tcs:
                if priority in tc_to_pg:
                    continue  # TC p goes to another PG: pfc-priority-lossy-pg reports it
                broken(f"PFC priority {priority}: no TC maps to lossless PG {pg}", "tc_to_pg_map")
                continue
            for tc in tcs:
                if tc_to_queue is not None and tc_to_queue.get(tc) != queue:
                    broken(f"TC {tc} fills lossless PG {pg} but goes to queue {tc_to_queue.get(tc)}, "
                           f"while PFC priority {priority} pauses queue {queue}", "tc_to_queue_map")
            if dscp_to_tc is not None and not any(tc in tcs for tc in dscp_to_tc.values()):
                broken(f"PFC priority {priority}: no DSCP maps to TC {tcs} (lossless PG {pg} unused)",
                       "dscp_to_tc_map")


def check_unpaused_lossless_pgs(view: ConfigView, found: list[Violation]) -> None:
    """A PG with an xoff profile that no enabled PFC priority pauses reserves headroom for
    nothing and is not lossless: ``lossless-queue-without-pfc`` when the port enables no PFC at
    all, ``lossless-chain`` when its pfc_enable misses the PG. Needs PORT_QOS_MAP in the file."""
    if not view.has("PORT_QOS_MAP"):
        return
    port_maps = view.entries("PORT_QOS_MAP")
    qos_keys = view.port_qos_keys()
    for port, items in view.port_index("BUFFER_PG").items():
        if port == "global" or items[0].parsed.chassis is not None:
            continue
        entry = port_maps.get(qos_keys.get(port, port), {})
        enabled = priorities(entry.get("pfc_enable"))
        pfc_to_pg = _bound_map(view, "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", entry.get("pfc_to_pg_map"))
        if pfc_to_pg is None:
            continue
        paused = {pfc_to_pg[p] for p in enabled if p in pfc_to_pg}
        for item in items:
            profile_name = item.entry.get("profile", "")
            profile_entry = view.profile(profile_name)
            if profile_entry is None or "xoff" not in profile_entry or _zero_profile(view, profile_name):
                continue
            unpaused = [pg for pg in item.parsed.indices() if pg not in paused]
            if not unpaused:
                continue
            if enabled:
                found.append(Violation("lossless-chain", "BUFFER_PG", item.key, "profile",
                                       f"PG {unpaused} has a lossless profile but no PFC priority of {port} "
                                       f"(pfc_enable {entry.get('pfc_enable')}) pauses it"))
            else:
                why = "has no PORT_QOS_MAP entry" if port not in qos_keys else "enables no PFC priority"
                found.append(Violation("lossless-queue-without-pfc", "BUFFER_PG", item.key, "profile",
                                       f"PG {unpaused} of {port} has a lossless (xoff) profile but the port {why}: "
                                       "the headroom is reserved for nothing and the PG is not lossless"))


def _check_joined_pgs(view: ConfigView, key: str, priority: int, pg: int, broken: Callable[[str], None]) -> None:
    """PFC enabled under a comma-joined PORT_QOS_MAP key. orchagent splits the key and enables PFC
    on every port (sonic-swss orchagent/qosorch.cpp), but the traditional buffermgrd keeps
    pfc_enable under the key as written (sonic-swss cfgmgr/buffermgr.cpp doPortQosTableTask) and
    never finds it for a port, so it writes no lossless PG for any of them: only the PGs the
    config gives itself exist. One finding per key and priority, naming that cause."""
    if not view.has("BUFFER_PG") or view.dynamic:
        return
    ports = list(dict.fromkeys(key.split(",")))
    missing = [port for port in ports if view.covering("BUFFER_PG", port, pg) is None]
    if missing:
        shown = ", ".join(missing[:4]) + (f" (+{len(missing) - 4} more)" if len(missing) > 4 else "")
        broken(f"PFC priority {priority}: no lossless PG {pg} on {len(missing)} of the {len(ports)} ports "
               f"({shown}) because their pfc_enable is under one comma-joined PORT_QOS_MAP key: buffermgrd stores "
               "it under that key, matches it to no port and writes no lossless PG (orchagent still enables PFC "
               "there, so the class is paused without headroom)")
    for port in ports:
        if port not in missing:
            _check_lossless_pg(view, port, priority, pg, broken)
            break  # the PGs the template wrote: one port's check stands for the key's


def _check_lossless_pg(view: ConfigView, port: str, priority: int, pg: int, broken: Callable[[str], None]) -> None:
    if not view.has("BUFFER_PG"):
        return  # a qos.json fragment: BUFFER_PG comes from buffers.json
    covering = view.covering("BUFFER_PG", port, pg)
    if covering is None:
        if not view.buffermgrd_writes_pgs(port):
            how = "dynamic model" if view.dynamic else "cable length 0m: buffermgrd leaves the port to you"
            broken(f"PFC priority {priority}: no BUFFER_PG for {port}|{pg} ({how})")
        return
    if "," in covering.parsed.port and view.buffermgrd_writes_pgs(port):
        return  # buffermgrd writes BUFFER_PG|<port>|<pg> with its own lossless profile beside the joined key
    profile = covering.entry.get("profile", "")
    if profile == "NULL" or not view.has("BUFFER_PROFILE") or view.profile(profile) is None:
        return  # NULL: null-profile's business; an unknown profile: dangling-reference's
    if not view.lossless_profile(profile) and not _zero_profile(view, profile):
        broken(f"PFC priority {priority}: BUFFER_PG|{covering.key} profile {profile!r} has no xoff (not lossless)")


def check_pfc_priority_pg(view: ConfigView, found: list[Violation]) -> None:
    """pfc-priority-lossy-pg: the TC of each PFC priority must land in a lossless PG."""
    for port, entry in view.entries("PORT_QOS_MAP").items():
        enabled = priorities(entry.get("pfc_enable"))
        tc_to_pg = view.map("TC_TO_PRIORITY_GROUP_MAP", entry.get("tc_to_pg_map"))
        if port == "global" or not enabled or tc_to_pg is None:
            continue
        lossless = lossless_pgs(view, port, enabled)
        if not lossless:
            continue  # no lossless PG at all: lossless-chain reports the missing PGs
        for priority in enabled:
            pg = tc_to_pg.get(priority)
            if pg is None:
                found.append(Violation(
                    "pfc-priority-lossy-pg", "PORT_QOS_MAP", port, "tc_to_pg_map",
                    f"PFC priority {priority} is enabled but TC {priority} is not in {entry['tc_to_pg_map']}: "
                    "its traffic lands in the ASIC's default PG, which is not lossless"))
            elif pg not in lossless:
                found.append(Violation(
                    "pfc-priority-lossy-pg", "PORT_QOS_MAP", port, "tc_to_pg_map",
                    f"PFC priority {priority}: TC {priority} maps to PG {pg} ({entry['tc_to_pg_map']}), but the "
                    f"lossless PGs are {sorted(lossless)}: lossless traffic lands in a lossy PG"))


__all__ = ["check_lossless_chain", "check_pfc_priority_pg", "check_pfc_watchdog", "check_port_qos", "check_unpaused_lossless_pgs", "lossless_pgs"]
