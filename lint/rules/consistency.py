"""Consistency rules: tables that SONiC accepts one by one but that contradict each other.

SONiC validates little across tables (sonic-utilities config/main.py and the SONiC YANG models "Not checked anywhere in
SONiC"); the failures below are the ones operators hit in the field (SONiC GitHub issues on buffers, WRED and PFC).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from qosforge.backends.sonic.checks import WRED_COLORS, ecn_colors
from qosforge.backends.sonic.facts import TERALYNX, vendor_from_metadata
from qosforge.backends.sonic.hwsku import GCU_ASIC_OF_PROFILE, asic_name, gcu_asic_of_hwsku
from qosforge.backends.sonic.keys import bare_reference
from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.rules.base import rule
from qosforge.lint.rules.helpers import ports_text, raw_entries

_DSCP = re.compile(r"[0-9]{1,2}")

W, E = Severity.WARNING, Severity.ERROR


def _active(entry: dict[str, object]) -> bool:
    ecn = entry.get("ecn", "ecn_none")
    marked = ecn_colors(ecn) if isinstance(ecn, str) else frozenset()
    return bool(marked) or any(entry.get(f"wred_{color}_enable") == "true" for color in WRED_COLORS)


def _wred_bindings(ctx: LintContext) -> dict[str, list[str]]:
    """WRED profile name -> QUEUE keys that bind it."""
    bound: dict[str, list[str]] = defaultdict(list)
    for key, entry in raw_entries(ctx.tables, "QUEUE").items():
        name = entry.get("wred_profile")
        if isinstance(name, str):
            bound[name].append(key)
    return bound


@rule(
    "wred-unbound", W, "consistency", "active WRED profiles are bound to a queue",
    rationale="A WRED profile takes effect only when a QUEUE entry references it (sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang"
         "); an unbound profile that drops or marks suggests a missing QUEUE binding.",
    fix="bind it with QUEUE|<port>|<queue>.wred_profile, or remove it",
)
def _wred_unbound(ctx: LintContext) -> Iterator[Finding]:
    bound = _wred_bindings(ctx)
    # Queues that bind no WRED profile at all are a queue layout without WRED (SONiC's
    # qos_config.j2 writes AZURE_LOSSLESS for every SKU, and SKUs with their own
    # generate_queue_config, e.g. device/arista/x86_64-arista_7060x6_64pe, or without QUEUE, e.g.
    # device/wistron/x86_64-wistron_6512_32r-r0, bind none): a note. A profile left out while
    # others are bound is the lost binding this rule is for.
    none_bound = not bound
    for name, entry in raw_entries(ctx.tables, "WRED_PROFILE").items():
        if _active(entry) and name not in bound:
            finding = _wred_unbound.report(ctx, "WRED_PROFILE", name, None,
                f"WRED profile {name} drops or marks, but no QUEUE entry binds it: it has no effect"
                + (" (no queue binds any WRED profile: these queues run without WRED/ECN)" if none_bound else ""))
            yield replace(finding, severity=Severity.INFO) if none_bound else finding


@rule(
    "wred-inactive", E, "consistency", "bound WRED profiles drop or mark",
    rationale="WRED defaults every wred_<color>_enable to false and ecn to ecn_none (sonic-yang-models sonic-wred-profile.yang; sonic-swss orchagent/qosorch.cpp WredMapHandler), so a bound profile "
         "without them does nothing: the queue has neither WRED nor ECN. This is the ecnconfig failure of "
         "sonic-buildimage #4545.",
    fix="set ecn (e.g. ecn_green) for ECN marking and/or wred_<color>_enable: \"true\" for dropping",
)
def _wred_inactive(ctx: LintContext) -> Iterator[Finding]:
    profiles = raw_entries(ctx.tables, "WRED_PROFILE")
    for name, queues in sorted(_wred_bindings(ctx).items()):
        entry = profiles.get(name)
        if entry is None or _active(entry):
            continue
        yield _wred_inactive.report(ctx, "WRED_PROFILE", name, None,
            f"bound to {len(queues)} queue(s) ({ports_text(queues)}) but no color drops or marks "
            "(every wred_<color>_enable is false and ecn is ecn_none): those queues get neither WRED nor ECN",
            values={"queues": len(queues)})


#: Vendors whose SAI gives a color neither WRED nor ECN unless SAI_WRED_ATTR_<COLOR>_ENABLE is set
#: (sonic-buildimage issue #4545 on Innovium; sonic-utilities PR #1412 added ecnconfig -genable for
#: Broadcom and Innovium). That dependence is documented for no other vendor, and NVIDIA's own
#: Spectrum-4/5 templates (device/mellanox/x86_64-nvidia_sn5600-r0 ... qos.json.j2) write ecn_all with
#: only wred_green_enable, so other known vendors are not warned.
ENABLE_HONOURING_VENDORS = ("broadcom", TERALYNX)


@rule(
    "ecn-color-disabled", W, "consistency", "a color that ECN marks is WRED-enabled",
    rationale="Reported by platform: a warning for Broadcom and Innovium/Teralynx, nothing for other known vendors "
         "(the dependence is documented only for those two; NVIDIA's own Spectrum-4/5 templates write ecn_all "
         "with only wred_green_enable), info when the vendor is unknown. "
         "SAI allows ECN without WRED (opencomputeproject/SAI PR #112), but on SAIs that honour "
         "SAI_WRED_ATTR_<COLOR>_ENABLE a disabled color gets neither WRED nor ECN (sonic-buildimage "
         "issue #4545, Innovium; sonic-utilities PR #1412 added ecnconfig -genable for it), and every "
         "SONiC qos.json template pairs ecn with wred_<color>_enable: \"true\". Enabling also WRED-drops "
         "the class's non-ECT packets between min and max, as RED with ECN does (DCTCP §3.1).",
    fix="set wred_<color>_enable: \"true\" for every color in ecn",
)
def _ecn_color_disabled(ctx: LintContext) -> Iterator[Finding]:
    vendor = ctx.vendor.vendor
    profiles = raw_entries(ctx.tables, "WRED_PROFILE")
    for name, queues in sorted(_wred_bindings(ctx).items()):
        entry = profiles.get(name)
        ecn = entry.get("ecn", "ecn_none") if entry is not None else None
        if entry is None or not isinstance(ecn, str):
            continue
        disabled = sorted(c for c in ecn_colors(ecn) if entry.get(f"wred_{c}_enable") != "true")
        if disabled and vendor in (None, *ENABLE_HONOURING_VENDORS):
            finding = _ecn_color_disabled.report(ctx, "WRED_PROFILE", name, f"wred_{disabled[0]}_enable",
                f"ecn {ecn} marks {', '.join(disabled)} but wred_<color>_enable is not true for it: on SAIs that "
                f"honour the enable (Broadcom, Innovium/Teralynx) {ports_text(queues)} get no ECN marks for that "
                "color" + ("" if vendor is not None else
                           " (the ASIC vendor is unknown: give --profile or DEVICE_METADATA|localhost.platform)"),
                values={"colors": len(disabled)})
            yield finding if vendor is not None else replace(finding, severity=Severity.INFO)


@rule(
    "dscp-conflict", W, "consistency", "a DSCP means one class on every port",
    rationale="DSCP_TO_TC_MAP is one map per name (sonic-yang-models sonic-dscp-tc-map.yang); when ports bind different maps, a DSCP that maps to "
         "different TCs puts the same traffic in two classes depending on the ingress port; a DSCP must mean "
         "one class on the whole switch.",
    fix="use one DSCP map, or make the maps agree on the listed DSCPs",
)
def _dscp_conflict(ctx: LintContext) -> Iterator[Finding]:
    users: dict[str, list[str]] = defaultdict(list)
    for port in ctx.parsed.ports:
        if port.map_names.dscp_to_tc is not None:
            users[port.map_names.dscp_to_tc].append(port.name)
    global_map = raw_entries(ctx.tables, "PORT_QOS_MAP").get("global", {}).get("dscp_to_tc_map")
    if isinstance(global_map, str):
        users[global_map].append("global")
    maps = raw_entries(ctx.tables, "DSCP_TO_TC_MAP")
    # DSCP -> TC -> maps that send it there: linear in (maps in use) x 64, however many maps.
    targets: dict[int, dict[object, list[str]]] = defaultdict(lambda: defaultdict(list))
    for name in sorted(name for name in users if name in maps):
        for dscp, tc in maps[name].items():
            if _DSCP.fullmatch(dscp) and isinstance(tc, str):
                targets[int(dscp)][tc].append(name)
    for code, by_tc in sorted(targets.items()):
        if len(by_tc) < 2:
            continue
        # Report at the map used by the fewest ports: the likely odd one out.
        odd_maps = min(by_tc.values(), key=lambda names: sum(len(users[m]) for m in names))
        shown = "; ".join(f"TC {tc} in {', '.join(names[:3])} (used by {ports_text(p for m in names for p in users[m])})"
                          for tc, names in sorted(by_tc.items(), key=lambda item: str(item[0])))
        yield _dscp_conflict.report(ctx, "DSCP_TO_TC_MAP", odd_maps[0], str(code),
            f"DSCP {code} goes to different TCs depending on the ingress port: {shown}",
            values={"dscp": code, "tcs": len(by_tc)})


#: PORT_QOS_MAP field -> the map table it binds (sonic-port-qos-map.yang).
_PORT_BINDINGS = {"dscp_to_tc_map": "DSCP_TO_TC_MAP", "dot1p_to_tc_map": "DOT1P_TO_TC_MAP",
                  "tc_to_queue_map": "TC_TO_QUEUE_MAP", "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
                  "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
                  "tc_to_dscp_map": "TC_TO_DSCP_MAP"}
#: TUNNEL fields that bind maps (dual-ToR tunnels: sonic-tunnel.yang encap_/decap_ maps).
_TUNNEL_BINDINGS = {"encap_tc_to_dscp_map": "TC_TO_DSCP_MAP", "encap_tc_to_queue_map": "TC_TO_QUEUE_MAP",
                    "decap_dscp_to_tc_map": "DSCP_TO_TC_MAP", "decap_tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP"}


#: Maps whose absence SONiC fills with the identity (priority p pauses queue p / PG p when a port
#: binds none: sonic-yang-models sonic-port-qos-map.yang, as backends/sonic/parse.py reads it), so
#: an unbound identity map changes nothing. SONiC's own Arista and Dell qos templates define one.
_IDENTITY_DEFAULT = frozenset({"MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"})
_IDENTITY_PRIORITIES = {str(p): str(p) for p in range(8)}


@rule(
    "map-unbound", W, "consistency", "QoS maps are bound somewhere",
    rationale="A QoS map takes effect only when PORT_QOS_MAP (or, for the dual-ToR tunnel maps, TUNNEL) binds it "
         "(sonic-port-qos-map.yang, sonic-tunnel.yang; orchagent qosorch.cpp applies maps per port). A map bound "
         "nowhere usually means a binding was lost (a misspelled field, a port key dropped by a duplicate). Tunnel-"
         "bindable maps in a fragment without TUNNEL are not reported (SONiC merges the files).",
    fix="bind it in PORT_QOS_MAP|<port> (or TUNNEL), or remove it",
)
def _map_unbound(ctx: LintContext) -> Iterator[Finding]:
    bound: dict[str, set[str]] = defaultdict(set)
    for bindings, table in ((_PORT_BINDINGS, "PORT_QOS_MAP"), (_TUNNEL_BINDINGS, "TUNNEL")):
        for entry in raw_entries(ctx.tables, table).values():
            for field_name, map_table in bindings.items():
                value = entry.get(field_name)
                if isinstance(value, str):
                    bound[map_table].add(bare_reference(value))
    # A fragment (no DEVICE_METADATA) without TUNNEL: the tunnel that binds a map may be in another file.
    tunnel_elsewhere = "TUNNEL" not in ctx.tables and "DEVICE_METADATA" not in ctx.tables
    for table in sorted(set(_PORT_BINDINGS.values())):
        if tunnel_elsewhere and table in _TUNNEL_BINDINGS.values():
            continue
        for name, mapping in raw_entries(ctx.tables, table).items():
            if table in _IDENTITY_DEFAULT and mapping == _IDENTITY_PRIORITIES:
                continue  # unbound, the port gets the same identity (see _IDENTITY_DEFAULT)
            if name not in bound[table]:
                yield _map_unbound.report(ctx, table, name, None,
                                 f"{table} {name} is defined but no PORT_QOS_MAP entry (or TUNNEL) binds it: it has "
                                 "no effect")


@rule(
    "lossless-pg-zero-headroom", E, "consistency", "lossless PGs have headroom",
    rationale="xoff is the headroom above the XOFF threshold (sonic-yang-models sonic-buffer-profile.yang); xoff 0 leaves none, and lossless traffic is "
         "dropped with PFC enabled, as in sonic-net/SONiC #480.",
    fix="size xoff for the port's speed and cable (qosforge whatif pfc-headroom, or lint --profile)",
)
def _zero_headroom(ctx: LintContext) -> Iterator[Finding]:
    parsed = ctx.parsed
    users: dict[str, list[str]] = defaultdict(list)
    for port in parsed.ports:
        for group in port.priority_groups:
            if group.lossless:
                users[group.buffer_profile].append(port.name)
    for name, ports in sorted(users.items()):
        profile = parsed.profile(name)
        if profile is not None and profile.xoff_bytes is not None and profile.xoff_bytes.value == 0:
            yield _zero_headroom.report(ctx, "BUFFER_PROFILE", name, "xoff",
                f"xoff is 0 on the lossless PG profile used by {ports_text(ports)}: the PG has no headroom, "
                "so frames still in flight after PFC XOFF are dropped",
                values={"configured_bytes": 0})


def _private_headroom_profiles(ctx: LintContext) -> Iterator[tuple[str, float, float, float]]:
    """(name, size, xon, xoff) of the lossless PG profiles in use when there is no shared headroom
    pool (ingress_lossless_pool without xoff, no over_subscribe_ratio)."""
    parsed = ctx.parsed
    if parsed.shared_headroom_pool:
        return
    used = {g.buffer_profile for port in parsed.ports for g in port.priority_groups if g.lossless}
    for name in sorted(used):
        profile = parsed.profile(name)
        if profile is None or profile.xoff_bytes is None:
            continue
        xon = profile.xon_bytes.value if profile.xon_bytes is not None else 0.0
        yield name, profile.reserved_bytes.value, xon, profile.xoff_bytes.value


_NO_SHP = "ingress_lossless_pool has no xoff and over_subscribe_ratio is not set"


@rule(
    "shared-headroom-missing", W, "consistency", "a profile that relies on shared headroom has one",
    rationale="Mellanox only (the size = xon + xoff reading is SONiC's Mellanox buffer model; Broadcom profiles reserve "
         "size without headroom). Without a shared headroom pool a lossless PG reserves size = xon + xoff privately (sonic-swss cfgmgr/buffer_headroom_mellanox.lua); "
         "size < xon + xoff means the headroom is expected from the pool's xoff (SHP). With no pool xoff and "
         "no over_subscribe_ratio, SONiC's Mellanox plugin force-enables SHP at a default size and a SAI "
         "sanity check can abort orchagent (sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2; sonic-swss PR #3387, SONiC GitHub issues on buffers, WRED and PFC). "
         "Reported for xoff <= size < xon + xoff: there the PG still holds its xoff after XOFF, only its XOFF "
         "threshold size − xoff sits below xon; size below xoff is the error lossless-pg-size-below-xoff.",
    fix="set size = xon + xoff (private headroom), or give ingress_lossless_pool an xoff (shared headroom)",
    vendor="mellanox",
)
def _shared_headroom_missing(ctx: LintContext) -> Iterator[Finding]:
    for name, size, xon, xoff in _private_headroom_profiles(ctx):
        if xoff <= size < xon + xoff:  # below xoff: lossless-pg-size-below-xoff, an error
            yield _shared_headroom_missing.report(ctx, "BUFFER_PROFILE", name, "size",
                f"size {size:,.0f} B < xon + xoff = {xon + xoff:,.0f} B, which SONiC reads as "
                f"headroom from a shared headroom pool, but {_NO_SHP}",
                values={"size_bytes": size, "xon_plus_xoff_bytes": xon + xoff})


@rule(
    "lossless-pg-size-below-xoff", E, "consistency", "a lossless PG without shared headroom holds its xoff",
    rationale="Mellanox only: on Spectrum a lossless PG's size is its whole headroom. Without a shared headroom pool "
         "(BUFFER_POOL|ingress_lossless_pool.xoff 0 or absent, no over_subscribe_ratio) Mellanox's SAI programs "
         "the PG's XOFF threshold at size − xoff (Mellanox/SAI-Implementation mlnx_sai/src/mlnx_sai_buffer.c, "
         "unsigned 32-bit arithmetic); only a pool mapped to shared headroom makes it xon and lends "
         "xoff − (size − xon) from the pool (same file, max_pool_loan; SONiC 'Shared headroom pool design' HLD: "
         "with SHP the xoff is no longer reserved per PG and size = xon). size < xoff therefore leaves no room for "
         "the bytes in flight after PFC XOFF (IEEE 802.1Qbb; the headroom model of sonic-swss "
         "cfgmgr/buffer_headroom_mellanox.lua): lossless traffic drops, as in sonic-net/SONiC #480. With a shared "
         "headroom pool size < xoff is the intended reading and is not reported.",
    fix="set size to at least xon + xoff (private headroom), or give ingress_lossless_pool an xoff (shared "
         "headroom pool)",
    vendor="mellanox",
)
def _size_below_xoff(ctx: LintContext) -> Iterator[Finding]:
    for name, size, _xon, xoff in _private_headroom_profiles(ctx):
        if size < xoff:
            yield _size_below_xoff.report(ctx, "BUFFER_PROFILE", name, "size",
                f"size {size:,.0f} B < xoff {xoff:,.0f} B with no shared headroom pool ({_NO_SHP}): Spectrum's "
                f"SAI sets the PG's XOFF threshold at size − xoff, which is negative, so the PG cannot absorb "
                f"the {xoff:,.0f} B in flight after PFC XOFF and lossless traffic drops",
                values={"size_bytes": size, "xoff_bytes": xoff})


@rule(
    "port-admin-status", W, "consistency", "PFC ports have admin_status",
    rationale="The traditional buffermgrd treats a PORT without admin_status as down and creates no lossless PG "
         "for it (sonic-swss cfgmgr/buffermgr.cpp); breakout ports lost their lossless PGs this way (sonic-buildimage #23354, SONiC GitHub issues on buffers, WRED and PFC).",
    fix='set PORT|<port>.admin_status to "up"',
)
def _admin_status(ctx: LintContext) -> Iterator[Finding]:
    parsed = ctx.parsed
    if parsed.buffer_model != "traditional":
        return
    ports = raw_entries(ctx.tables, "PORT")
    missing = [p.name for p in parsed.ports if p.pfc_priorities and p.name in ports and p.admin_status is None]
    if missing:
        yield _admin_status.report(ctx, "PORT", missing[0], "admin_status",
            f"PFC-enabled port(s) {ports_text(missing)} have no admin_status; the traditional buffermgrd "
            "treats them as down and creates no lossless PG for them",
            values={"ports": len(missing)})


@rule(
    "pfcwd-missing", W, "consistency", "watched ports have a PFC_WD entry",
    rationale="pfcwd_sw_enable chooses the priorities the watchdog monitors, but the watchdog runs only on ports "
         "with a PFC_WD|<port> entry with detection_time (sonic-yang-models sonic-port-qos-map.yang, sonic-pfcwd.yang; "
         "sonic-swss orchagent/pfcwdorch.cpp). `pfcwd start_default` (sonic-utilities pfcwd/main.py; run by "
         "`config load_minigraph` and at boot) writes those entries for every PFC port when "
         "DEVICE_METADATA|localhost.default_pfcwd_status is enable, so a config without any PFC_WD table is "
         "reported only when its DEVICE_METADATA says that default is off (SONiC's buffers.json and qos.json "
         "never hold PFC_WD); a PFC_WD table that leaves watched ports out is always reported.",
    fix="add PFC_WD|<port> with action, detection_time and restoration_time, or set "
         "DEVICE_METADATA|localhost.default_pfcwd_status to enable",
)
def _watchdog_missing(ctx: LintContext) -> Iterator[Finding]:
    missing = [p.name for p in ctx.parsed.ports
               if p.watchdog_priorities and (p.watchdog is None or p.watchdog.detection_ms is None)]
    if not missing:
        return
    why = ""
    if "PFC_WD" not in ctx.tables:
        # No PFC_WD table at all: `pfcwd start_default` (sonic-utilities pfcwd/main.py, run by
        # `config load_minigraph` and at boot) writes it for every PFC port when
        # DEVICE_METADATA|localhost.default_pfcwd_status is enable. SONiC's buffers.json/qos.json
        # never hold PFC_WD, so only a config that says the default is off is reported.
        status = raw_entries(ctx.tables, "DEVICE_METADATA").get("localhost", {}).get("default_pfcwd_status")
        if "DEVICE_METADATA" not in ctx.tables or status == "enable":
            return
        why = (f" and DEVICE_METADATA|localhost.default_pfcwd_status is {status or 'not set (YANG default disable)'}, "
               "so `pfcwd start_default` writes none either")
    yield _watchdog_missing.report(ctx, "PORT_QOS_MAP", missing[0], "pfcwd_sw_enable",
        f"pfcwd_sw_enable is set on {ports_text(missing)} but PFC_WD has no entry with detection_time for "
        f"them{why}: the PFC watchdog never starts there, so a PFC storm is not broken",
        values={"ports": len(missing)})


#: SONiC's lossless pair: stock configs make TCs 3 and 4 lossless together (qos_config.j2 LOSSLESS_TC).
SONIC_LOSSLESS_PAIR = frozenset({3, 4})


@rule(
    "lossy-tc-in-lossless-pair", W, "consistency", "lossy classes stay off SONiC's lossless pair",
    rationale="Stock SONiC makes TCs 3 and 4 lossless together: sonic-buildimage files/build_templates/qos_config.j2 "
         "writes pfc_enable and pfcwd_sw_enable from LOSSLESS_TC ['3','4'], maps TC 3 -> PG 3 and 4 -> PG 4 "
         "(TC_TO_PRIORITY_GROUP_MAP, PFC_PRIORITY_TO_PRIORITY_GROUP_MAP), and buffers_config.j2 binds "
         "BUFFER_QUEUE|<port>|3-4 to egress_lossless_profile; sonic-swss cfgmgr/buffermgr.cpp and "
         "buffermgrdyn.cpp create lossless PGs for whatever pfc_enable names. With one of 3/4 lossless, a lossy "
         "class on the other is one `config qos reload`, template default or hand edit away from being "
         "PFC-paused (a pause storm on the lossless class then stops it too) and lossless-buffered.",
    fix="move the lossy class to a TC outside 3-4 (1, 2, 5, 6 or 7), or make the pair's other TC lossless "
         "on purpose",
)
def _lossy_in_lossless_pair(ctx: LintContext) -> Iterator[Finding]:
    """A lossy class on one TC of 3/4 while the other is lossless (the compiler's plan never makes
    this; qosforge.compiler.plan keeps lossy classes off the pair)."""
    hazards: dict[tuple[int, int, tuple[int, ...]], list[str]] = defaultdict(list)
    for port in ctx.parsed.ports:
        lossless = SONIC_LOSSLESS_PAIR & set(port.pfc_priorities)
        if len(lossless) != 1:
            continue
        (lossy_tc,) = SONIC_LOSSLESS_PAIR - lossless
        dscps = tuple(sorted(dscp for dscp, tc in port.maps.dscp_to_tc if tc == lossy_tc))
        if dscps:
            hazards[(lossy_tc, next(iter(lossless)), dscps)].append(port.name)
    for (lossy_tc, lossless_tc, dscps), ports in sorted(hazards.items()):
        shown = ", ".join(str(d) for d in dscps[:8]) + (", ..." if len(dscps) > 8 else "")
        yield _lossy_in_lossless_pair.report(ctx, "PORT_QOS_MAP", ports[0], "pfc_enable",
            f"TC {lossy_tc} carries lossy traffic (DSCP {shown}) beside lossless TC {lossless_tc} on "
            f"{ports_text(ports)}: stock SONiC makes TCs 3 and 4 lossless together, so a restored default "
            f"pfc_enable \"3,4\" PFC-pauses this class and gives its PG lossless headroom",
            values={"lossy_tc": lossy_tc, "lossless_tc": lossless_tc, "ports": len(ports)})


__all__ = ["ENABLE_HONOURING_VENDORS", "SONIC_LOSSLESS_PAIR"]


@rule(
    "asic-mismatch", W, "consistency", "the config is for the ASIC it is linted against",
    rationale="Buffer pools, headroom and thresholds are sized for one ASIC's buffer (the vendor "
              "profile's); a config "
    "written for another ASIC, checked against this profile (from --profile or the intent), passes "
    "or fails for the "
    "wrong chip. The config's own ASIC is read from DEVICE_METADATA|localhost (hwsku as SONiC's "
    "Generic Config Updater "
    "reads it, sonic-utilities generic_config_updater/field_operation_validators.py get_asic_name; "
    "else asic_type or platform) or, for a file qosforge "
    "compile wrote, from the report.json of its output folder (the switch's vendor_profile).",
    fix="lint the config against its own ASIC (--profile, or the intent it was compiled from), or "
        "check that the file is this switch's",
    needs="profile",
)
def _asic_mismatch(ctx: LintContext) -> Iterator[Finding]:
    profile = ctx.profile
    assert profile is not None
    localhost = raw_entries(ctx.tables, "DEVICE_METADATA").get("localhost", {})
    hwsku = localhost.get("hwsku")
    running = gcu_asic_of_hwsku(hwsku) if isinstance(hwsku, str) else None
    expected = GCU_ASIC_OF_PROFILE.get(profile.name)
    against = f"vendor profile {profile.name} ({profile.vendor} {profile.asic})"
    if running is not None and expected is not None and running != expected:
        yield _asic_mismatch.report(
            ctx,
            "DEVICE_METADATA",
            "localhost",
            "hwsku",
            f"HWSKU {hwsku} is a {asic_name(running)} switch, but the file is linted against "
            f"{against}",
        )
        return
    vendor = vendor_from_metadata(ctx.tables)
    mine = profile.vendor.lower()
    other = vendor.vendor if vendor.vendor in ("mellanox", "broadcom", "barefoot") else None
    if running is None and other is not None and other not in mine:
        yield _asic_mismatch.report(
            ctx,
            "DEVICE_METADATA",
            "localhost",
            None,
            f"{vendor.source} says a {vendor.vendor} switch, but the file is linted against "
            f"{against}",
        )
        return
    compiled = _compiled_profile(ctx)
    if compiled is not None and compiled[1] != profile.name:
        yield _asic_mismatch.report(
            ctx,
            "DEVICE_METADATA",
            "localhost",
            None,
            f"qosforge compiled this file for switch {compiled[0]} with vendor profile "
            f"{compiled[1]} "
            f"({compiled[2]}), but it is linted against {against}",
        )


def _compiled_profile(ctx: LintContext) -> tuple[str, str, str] | None:
    """(switch, vendor profile, report path) when the file is ``<folder>/<switch>/config_db.json``
    of a qosforge output folder whose report.json lists that switch."""
    path = Path(ctx.file)
    report = path.parent.parent / "report.json"

    def read() -> dict[str, str]:
        try:
            document = json.loads(report.read_text(encoding="utf-8"))
            return {str(s["name"]): str(s["vendor_profile"]) for s in document["switches"]
                    if isinstance(s, dict) and "name" in s and "vendor_profile" in s}
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return {}

    profiles = ctx.cache.get(("compiled-report", str(report)), read)
    switch = path.parent.name
    return (switch, profiles[switch], str(report)) if switch in profiles else None
