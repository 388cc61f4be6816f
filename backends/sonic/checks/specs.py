"""Every rule of the config_db validator, declared once: id, severity, category, what it needs,
whether ``--fix`` repairs it, title, rationale (with its SONiC source) and fix hint.

``qosforge lint`` builds its registry from :data:`RULE_SPECS` and the SONiC renderer's
self-check runs the rules whose ``needs`` is ``config`` (plus ``pool-overcommit``, which needs
only the ASIC's buffer size, known to the renderer). Rule ids are stable: CI baselines,
``--disable`` lists and docs/rules.md anchors depend on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SpecSeverity = Literal["error", "warning", "info"]
SpecCategory = Literal["encoding", "schema", "consistency", "capacity", "transport"]
SpecNeeds = Literal["config", "profile", "intent"]


@dataclass(frozen=True)
class RuleSpec:
    id: str
    severity: SpecSeverity
    category: SpecCategory
    title: str
    rationale: str
    fix: str
    needs: SpecNeeds = "config"
    fixable: bool = False


def _spec(id: str, severity: SpecSeverity, category: SpecCategory, title: str, rationale: str, fix: str,
          *, needs: SpecNeeds = "config", fixable: bool = False) -> RuleSpec:
    return RuleSpec(id, severity, category, title, rationale, fix, needs, fixable)


E: SpecSeverity = "error"
W: SpecSeverity = "warning"
I: SpecSeverity = "info"  # noqa: E741 - severity letter

RULE_SPECS: tuple[RuleSpec, ...] = (
    _spec("structure", E, "encoding", "config_db is {table: {key: {field: value}}}",
          "config_db is {table: {key: {field: value}}} (sonic-cfggen, swsscommon ConfigDBConnector)",
          "make every table an object of entries and every entry an object of string fields"),
    _spec("value-not-string", E, "encoding", "every value is a JSON string",
          "every value is a JSON string: ConfigDBConnector writes redis hash fields, and YANG types "
          "are checked on the string form. Every other rule reads a JSON number or boolean as the "
          "string it means (2000000 as \"2000000\"), so a WRED min above its max is found either way",
          'quote numbers ("3302912") and booleans ("true"); lists of names or priorities are one '
          'comma-separated string ("3,4")', fixable=True),
    _spec("unknown-table", E, "encoding", "only known QoS/buffer table names",
          "a QoS/buffer table under a wrong name is ignored by every SONiC daemon: "
          "MAP_PFC_PRIORITY_TO_QUEUE, not PFC_PRIORITY_TO_QUEUE_MAP; near-misses of the QoS/buffer table "
          "names (BUFER_POOL) are reported, other tables of a whole config_db are left alone",
          "rename the table to the name the message suggests, or drop it", fixable=True),
    _spec("unknown-field", E, "encoding", "no field outside the table's YANG model",
          "no field outside the table's YANG model; orchagent rejects unknown SCHEDULER/WRED fields "
          "(sonic-swss orchagent/qosorch.cpp), YANG rejects all",
          "remove the field or correct its name"),
    _spec("missing-field", E, "encoding", "mandatory fields are present",
          "YANG-mandatory fields and fields orchagent needs on create are present (sonic-buffer-pool.yang, "
          "sonic-buffer-profile.yang, sonic-pfcwd.yang)",
          "add the field: YANG marks it mandatory or orchagent needs it on create"),
    _spec("bad-key", E, "encoding", "keys have the shape the table's YANG list key has",
          "key shape: PG `[0-7](-[0-7])?`, queue `(1[0-5]|[0-9])(-…)?`, on a VOQ chassis "
          "`<host>|<asic>|<port>|<queue>` (VOQ_BUFFER_QUEUE_LIST, VOQ_QUEUE_LIST), names without '|', N<=M",
          "write <port>|<index> with PG 0-7, queue 0-15, ranges N-M with N <= M; names without '|'"),
    _spec("multi-port-key", W, "encoding", "one port per key",
          "YANG keys on a single port leafref; comma-joined port lists (`Ethernet0,Ethernet4|3-4`) are the "
          "pre-YANG notation orchagent still splits (so a warning: the switch works), but GCU and YANG "
          "validation reject them and db_migrator does not rewrite them. Reported once per file",
          "write one key per port (Ethernet0|3-4, Ethernet4|3-4); --fix splits them", fixable=True),
    _spec("bracket-reference", E, "encoding", "references are bare names",
          "references are bare names since SONiC 202012; the `[TABLE|name]` notation is what db_migrator's "
          "version_3_0_2 step (migrate_qos_fieldval_reference_format, sonic-utilities scripts/db_migrator.py) "
          "rewrites to the bare name on load. Reported once per file",
          'write "ingress_lossless_pool", not "[BUFFER_POOL|ingress_lossless_pool]"; --fix rewrites them',
          fixable=True),
    _spec("dangling-reference", E, "schema", "every reference resolves",
          "every reference resolves to an existing object (YANG leafrefs). A reference into a table the "
          "file does not contain is not checked: SONiC merges buffers.json, qos.json and config_db.json",
          "create the referenced object or fix the name (orchagent retries the entry forever)"),
    _spec("bad-integer", E, "encoding", "integer fields are decimal integers",
          "integer fields are decimal integers (orchagent parses them with stoi/stoul)",
          "write the number in bytes (or ms, %) as a plain decimal string, without units"),
    _spec("integer-whitespace", W, "encoding", "integer fields carry no whitespace",
          "an integer written with spaces around it (' 166912', '6217728 '; SONiC's own Arista and Mellanox "
          "templates render some) still loads: orchagent parses it with std::stoul/stoi, which skip leading "
          "whitespace and ignore what follows the digits (sonic-swss orchagent/bufferorch.cpp, qosorch.cpp), "
          "and libyang trims it. Tools that compare the strings (GCU JSON patches, config diffs, other "
          "parsers) see a different value, so it is a warning, not bad-integer",
          "write the number without the spaces"),
    _spec("out-of-range", E, "schema", "values within the YANG ranges",
          "YANG ranges: dynamic_th -8..7, weight 1..100, drop probability 0..100, PFC_WD times, DSCP 0..63, "
          "TC 0..15, PG/priority 0..7, queue 0..9, uint32/uint64",
          "use a value inside the range the message gives"),
    _spec("bad-enum", E, "encoding", "values of enumerations are spelled exactly",
          "YANG enumerations (pool type/mode, scheduler type, ecn, PFC_WD action, ...)",
          "use one of the values the message lists (case matters)", fixable=True),
    _spec("bad-boolean", E, "encoding", 'booleans are exactly "true" or "false"',
          "booleans are exactly 'true'/'false' (orchagent convertBool)",
          'write "true" or "false" in lower case', fixable=True),
    _spec("bad-pattern", E, "encoding", "names and lists match the YANG patterns",
          "YANG patterns: names `[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}`, pfc_enable `([0-7](,[0-7])*)?`, cable "
          "length `[0-9]+m`, pfc_stat_history",
          'follow the pattern in the message: pfc_enable "3,4" without spaces, cable "40m"', fixable=True),
    _spec("wred-threshold-overflow", E, "schema", "WRED thresholds below 2^31",
          "WRED thresholds < 2^31 (orchagent qosorch.cpp parses them with stoi into SAI u32 attributes)",
          "use thresholds below 2147483648 bytes"),
    _spec("wred-min-gt-max", E, "schema", "WRED min <= max per color",
          "WRED min <= max per color (YANG must + orchagent)",
          "make <color>_min_threshold <= <color>_max_threshold", fixable=True),
    _spec("wred-color-consistency", E, "schema", "thresholds exactly for the colors that drop or mark",
          "thresholds only for colors that drop or mark (SAI @validonly; sonic-mgmt #26163) and both "
          "thresholds for every such color",
          "set wred_<color>_enable / ecn for the colors you configure, and give each such color both thresholds"),
    _spec("threshold-mode", E, "schema", "exactly one of dynamic_th / static_th",
          "exactly one of dynamic_th / static_th per BUFFER_PROFILE (sonic-buffer-profile.yang choice)",
          "keep dynamic_th (alpha = 2^n) or static_th (bytes), not both, not neither"),
    _spec("threshold-mode-pool", E, "schema", "dynamic model: threshold field matches the pool mode",
          "dynamic buffer model: the threshold field matches the pool mode (buffermgrdyn)",
          "use <pool mode>_th (dynamic_th on a dynamic pool)"),
    _spec("scheduler-priority", E, "schema", "SCHEDULER has no priority field",
          "SCHEDULER never has `priority` (orchagent qosorch.cpp: Unknown field)",
          "remove priority; make the queue strict with type STRICT", fixable=True),
    _spec("scheduler-rates", E, "schema", "scheduler rates are consistent (cir, pir, cbs, pbs)",
          "cbs/pir need cir > 0, pir >= cir, pbs needs pir and pbs >= cbs (sonic-scheduler.yang must)",
          "give cir > 0 with pir/cbs, pir >= cir, and pbs only with pir, pbs >= cbs"),
    _spec("pfcwd-placement", E, "schema", "PFC_WD fields on the right key",
          "POLL_INTERVAL only on PFC_WD|GLOBAL, port fields never there (sonic-pfcwd.yang)",
          "POLL_INTERVAL on PFC_WD|GLOBAL only; action/times/history on port keys only"),
    _spec("pfcwd-poll-interval", E, "schema", "watchdog times >= POLL_INTERVAL",
          "detection_time and restoration_time >= POLL_INTERVAL (sonic-utilities pfcwd)",
          "raise detection/restoration time or lower POLL_INTERVAL"),
    _spec("pfcwd-priorities", W, "consistency", "the watchdog watches PFC-enabled priorities",
          "pfcwd_sw_enable priorities are PFC-enabled (sonic-port-qos-map.yang)",
          "list in pfcwd_sw_enable only priorities that are in pfc_enable"),
    _spec("lossless-pool-name", E, "schema", "lossless PG profiles use ingress_lossless_pool",
          "a lossless PG profile (xoff, bound by BUFFER_PG, or named pg_lossless_<speed>_<cable>_profile as "
          "buffermgrd names the ones it creates) is in `ingress_lossless_pool`: buffermgrd creates its PG "
          "profiles there and the shared-headroom accounting reads that pool's xoff (sonic-swss "
          "cfgmgr/buffermgr.h INGRESS_LOSSLESS_PG_POOL_NAME, cfgmgr/buffer_pool_mellanox.lua). An xoff on a "
          "profile only queues use (a template's own egress_lossless_profile) is never headroom and is not "
          "reported",
          "put lossless PG profiles in ingress_lossless_pool"),
    _spec("profile-direction", E, "schema", "profiles are on pools of the right direction",
          "PG profiles on ingress pools, queue profiles on egress pools. Neither the YANG models nor "
          "orchagent's bufferorch check it in the traditional buffer model, and Marvell/Innovium Teralynx "
          "templates cross the directions on purpose, so lint reports it by vendor: error in the dynamic "
          "model (buffermgrdyn rejects an egress profile on a PG) and for a known non-Teralynx vendor, "
          "nothing on Teralynx, info when the vendor is unknown (--profile or DEVICE_METADATA platform "
          "names it)", "PG profiles on ingress pools, queue profiles on egress pools"),
    _spec("overlapping-keys", E, "schema", "PG/queue ranges of a port do not overlap",
          "PG/queue key ranges of one port do not overlap: bufferorch applies both, the last one wins",
          "split the ranges so every index has one entry"),
    _spec("dscp-map-incomplete", W, "consistency", "DSCP_TO_TC_MAP lists all 64 code points",
          "DSCP_TO_TC_MAP lists all 64 code points (unmapped DSCP behaviour is ASIC-defined)",
          "map every DSCP 0-63 (unmapped DSCPs get an ASIC-defined TC)"),
    _spec("port-qos-global", W, "schema", "PORT_QOS_MAP|global only carries dscp_to_tc_map",
          "PORT_QOS_MAP|global only carries dscp_to_tc_map (orchagent qosorch.cpp ignores the rest)",
          "move the other maps to the port entries"),
    _spec("lossless-chain", E, "consistency", "every PFC priority has the full lossless chain",
          "every PFC priority has the full chain: maps, a lossless PG with xoff, an egress queue, a matching "
          "TC->queue, a DSCP reaching it, CABLE_LENGTH, pfcwd_sw_enable. Links into tables the file does not "
          "contain are not checked (fragments), and in the traditional buffer model the lossless BUFFER_PG "
          "keys buffermgrd writes itself from pfc_enable (cable length not 0m) are not demanded",
          "complete the chain the message names: maps bound, lossless PG with xoff, egress queue, DSCP "
          "reaching the TC, CABLE_LENGTH, pfcwd_sw_enable"),
    _spec("lossless-queue-without-pfc", E, "consistency", "no lossless PG without PFC on the port",
          "a PG with an xoff profile reserves headroom and is lossless only if an enabled PFC priority of its port "
          "pauses it (PORT_QOS_MAP pfc_enable; sonic-swss orchagent/portsorch.cpp). What is lossless comes from "
          "PFC, never from a pool's name: SONiC's own templates put every egress queue in a pool called "
          "egress_lossless_pool. Needs PORT_QOS_MAP in the file (a buffers.json fragment cannot tell); a port "
          "whose pfc_enable misses the PG is lossless-chain",
          "enable PFC for the priority that maps to the PG, or give the PG a lossy profile"),
    _spec("pfc-priority-lossy-pg", E, "consistency", "PFC traffic lands in a lossless PG",
          "buffermgrd makes the PGs named by pfc_enable lossless (sonic-swss cfgmgr/buffermgr.cpp writes "
          "BUFFER_PG|<port>|<pfc_enable>); traffic of a PFC priority's TC is accounted to tc_to_pg_map[TC]. "
          "When that PG is not lossless (pfc_enable 4,5 with TC 4 -> PG 1) the 'lossless' class fills a lossy PG "
          "with no headroom and drops",
          "map each PFC priority's TC to its own lossless PG (TC n -> PG n for pfc_enable n)"),
    _spec("pool-size", E, "schema", "pools have size (traditional) or percentage (dynamic), not both",
          "traditional model: BUFFER_POOL has size; percentage only in the dynamic model and never with size "
          "(sonic-swss PR #1975). The dynamic model is taken from DEVICE_METADATA|localhost.buffer_model, or, "
          "when absent, from its signs (NULL PG profiles, size-less pools, DEFAULT_LOSSLESS_BUFFER_PARAMETER)",
          "give size in the traditional model; percentage only with buffer_model dynamic"),
    _spec("null-profile", E, "schema", "BUFFER_PG profile NULL only in the dynamic model",
          "BUFFER_PG profile NULL only in the dynamic buffer model (buffermgrdyn computes the headroom)",
          "name a real profile, or set DEVICE_METADATA|localhost.buffer_model dynamic"),
    _spec("pool-overcommit", E, "capacity", "pools fit the ASIC buffer",
          "sum of ingress pool sizes + xoff, and every single pool, fit the ASIC buffer "
          "(sonic-buildimage #28657)", "shrink the pools (and the shared headroom xoff) to fit the ASIC's buffer",
          needs="profile"),
    _spec("traditional-pg-overwrite", W, "consistency", "traditional model: lossless PGs as buffermgrd writes them",
          "traditional model: a lossless PG the file writes itself is overwritten by buffermgrd unless it has "
          "exactly buffermgrd's key (from pfc_enable) and profile (pg_lossless_<speed>_<cable>_profile) "
          "(sonic-swss cfgmgr/buffermgr.cpp). An absent key is not reported: buffermgrd writes it",
          "name the lossless profile pg_lossless_<speed>_<cable>_profile and key the PG from pfc_enable, or set "
          "the port's cable to 0m to own the PGs"),
    _spec("single-entry", W, "schema", "one entry in CABLE_LENGTH / LOSSLESS_TRAFFIC_PATTERN / "
          "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
          "CABLE_LENGTH / LOSSLESS_TRAFFIC_PATTERN / DEFAULT_LOSSLESS_BUFFER_PARAMETER have exactly one entry "
          "(buffermgrd reads the first)", "merge the entries into one"),
)

RULE_SPEC_BY_ID: dict[str, RuleSpec] = {spec.id: spec for spec in RULE_SPECS}

__all__ = ["RULE_SPECS", "RULE_SPEC_BY_ID", "RuleSpec", "SpecCategory", "SpecNeeds", "SpecSeverity"]
