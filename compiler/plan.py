"""Class planning: traffic classes onto TCs, queues, PGs, PFC priorities, DSCPs and colors.

Conventions follow SONiC's defaults so the output reads familiar to operators: lossless classes
take PFC priorities / TCs 3 and 4 first, then 5 and 6 (SONiC's AZURE maps make 3 and 4 lossless,
sonic-buildimage files/build_templates/qos_config.j2), up to the vendor profile's lossless limit
where it is known; a TC maps to the queue of the same number, lossless TC n uses PG n, all lossy
traffic shares PG 0, and DSCPs no class claims fall into a best-effort default class on TC 0.

Whenever a class is lossless, lossy classes stay off TCs 3 and 4, SONiC's lossless pair: stock
SONiC makes both lossless together (sonic-buildimage files/build_templates/qos_config.j2
``LOSSLESS_TC = ['3','4']`` for ``pfc_enable``/``pfcwd_sw_enable``, ``TC_TO_PRIORITY_GROUP_MAP``
3 -> 3, 4 -> 4, ``PFC_PRIORITY_TO_PRIORITY_GROUP_MAP`` {3: 3, 4: 4}; buffers_config.j2 binds
``BUFFER_QUEUE|<port>|3-4`` to ``egress_lossless_profile``), and sonic-swss cfgmgr/buffermgr.cpp
and buffermgrdyn.cpp create lossless PGs for whatever ``pfc_enable`` names. A lossy class on TC 4
beside a lossless TC 3 becomes PFC-paused (and its queue lossless-buffered) as soon as any stock
default, ``config qos reload`` or a hand edit restores ``pfc_enable "3,4"``: a pause storm on the
lossless class then stops the lossy one too. Lossy classes take TC 7 instead when FastLane does not
use it, and the compiler refuses a plan that would need TC 3 or 4 for a lossy class.

Two classes are added for the transports' own signalling, each on its own strict-priority queue so
that notifications are never queued behind the data they throttle:

* CNP: whenever a DCQCN class exists (and IRN, which runs DCQCN's congestion control), RoCE
  congestion notification packets (DSCP ``design.cnp_dscp``, 48 by default) go to TC 6, lossy and
  strict priority, as SONiC's AZURE DSCP_TO_TC_MAP (48 -> 6), NVIDIA Cumulus ``nv set qos roce``
  and Dell Enterprise SONiC ``enable roce`` do. If lossless classes hold TC 6, the CNP class takes
  the highest free TC below it.
* FastLane: drop notifications on the strict-priority queue 7 (FastLane §3.2).
* Trimming: trimmed packets (FastLane's notification, delivered by the forward path) on the
  strict-priority queue 7 as well; their DSCP maps to TC 7 so every hop keeps them there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from qosforge.ir import ControlClassIR
from qosforge.transports import accepted_transports, roce_hint, transport

if TYPE_CHECKING:  # annotations only: the class names below are read without the intent schema
    from qosforge.compiler.intent import ClassSpec, Intent, TrimSpec
    from qosforge.compiler.loader import SourceMap
    from qosforge.vendor_profiles.schema import VendorProfile

#: TCs for lossless classes, in order: SONiC's RoCE pair 3 and 4, then upward (qos_config.j2).
LOSSLESS_TC_ORDER = (3, 4, 5, 6)
#: TCs tried for the CNP class: SONiC's AZURE map sends DSCP 48 to TC 6.
CNP_TC_ORDER = (6, 5, 2, 1)
CNP_CLASS_NAME = "cnp"
SOURCE_CNP = (
    "RoCE CNPs on their own strict-priority queue: sonic-buildimage files/build_templates/qos_config.j2 "
    "(DSCP_TO_TC_MAP AZURE 48 -> 6), NVIDIA Cumulus Linux `nv set qos roce`, Dell Enterprise SONiC `enable roce`"
)
#: TCs tried for lossy classes, in order; 0 is the default class, 7 the FastLane queue (free otherwise).
LOSSY_TC_ORDER = (1, 2, 5, 6, 3, 4, 7)
#: SONiC's lossless pair (qos_config.j2 LOSSLESS_TC): no lossy class there once any class is lossless.
SONIC_LOSSLESS_PAIR = (3, 4)
SOURCE_LOSSLESS_PAIR = (
    "SONiC makes TCs 3 and 4 lossless together: sonic-buildimage files/build_templates/qos_config.j2 "
    "(LOSSLESS_TC ['3','4'] for pfc_enable and pfcwd_sw_enable), buffers_config.j2 (BUFFER_QUEUE 3-4 "
    "egress_lossless_profile); sonic-swss cfgmgr/buffermgr.cpp makes the PGs pfc_enable names lossless"
)
DEFAULT_TC = 0
FASTLANE_TC = 7
#: Trimmed packets take FastLane's notification queue: both are the same signal (FastLane §3.2).
TRIM_TC = FASTLANE_TC
TRIM_CLASS_NAME = "trim"
SOURCE_TRIM_QUEUE = (
    "trimmed packets on their own queue, sharing the port by DWRR at the trimmed class's "
    "weight: NDP (Handley et al., SIGCOMM 2017) §3.1 (weighted round robin between header and "
    "data queues); NVIDIA Cumulus Linux 5.14+ 'Lossy Multi TC Profile' (trim TC 4 at DWRR 22 %, "
    "the largest trimmed TC's weight); FastLane §5 (5% buffer cap)"
)
LOSSY_PG = 0
DEFAULT_CLASS_NAME = "default"


@dataclass(frozen=True)
class PlannedClass:
    spec: ClassSpec | None
    """None for the implicit default class and the FastLane notification class."""
    name: str
    traffic_class: int
    queue: int
    priority_group: int
    lossless: bool
    strict_priority: bool = False

    @property
    def transport(self) -> str:
        return self.spec.transport if self.spec is not None else "tcp"


@dataclass(frozen=True)
class ClassPlan:
    classes: tuple[PlannedClass, ...]
    dscp_to_tc: tuple[tuple[int, int], ...]
    dscp_to_color: tuple[tuple[int, str], ...]
    control: tuple[ControlClassIR, ...] = ()
    """Classes added for transport signalling (CNPs, FastLane notifications); TC n uses queue n."""
    trim: TrimSpec | None = None
    """The switch's packet trimming setting when a class is trimmed (one per switch)."""
    trimmed_classes: tuple[str, ...] = ()

    @property
    def lossless_priorities(self) -> tuple[int, ...]:
        return tuple(sorted(c.traffic_class for c in self.classes if c.lossless))


def plan_classes(intent: Intent, source_map: SourceMap, profile: VendorProfile) -> ClassPlan:
    seen: set[str] = set()
    for index, spec in enumerate(intent.classes):
        if spec.name in seen or spec.name in (DEFAULT_CLASS_NAME, "fastlane", CNP_CLASS_NAME, TRIM_CLASS_NAME):
            reason = "is used twice" if spec.name in seen else "is reserved for an implicit class"
            raise source_map.error(("classes", index, "name"), f"class name '{spec.name}' {reason}", "give every class a unique name other than 'default', 'fastlane', 'cnp' and 'trim'")
        seen.add(spec.name)
    owner: dict[int, tuple[int, str]] = {}
    for index, spec in enumerate(intent.classes):
        claims = [("dscp", i, code) for i, code in enumerate(spec.dscp)]
        if spec.tlt is not None:
            claims += [("tlt", i, code) for i, code in enumerate(spec.tlt.important_dscp)]
        if spec.fastlane is not None:
            claims.append(("fastlane", 0, spec.fastlane.dscp))
        if spec.trim is not None and isinstance(spec.trim.dscp, int) and index == _first_trimmed(intent):
            claims.append(("trim", 0, spec.trim.dscp))
        for field_name, position, code in claims:
            if code in owner:
                path: tuple[str | int, ...] = ("classes", index, field_name, position)
                if field_name == "tlt":
                    path = ("classes", index, "tlt", "important_dscp", position)
                elif field_name in ("fastlane", "trim"):
                    path = ("classes", index, field_name, "dscp")
                raise source_map.error(path, f"DSCP {code} is already used by class '{owner[code][1]}'", "give each DSCP to exactly one class")
            owner[code] = (index, spec.name)
    _check_transports(intent, source_map)
    needs_cnp = any(transport(s.transport).host.nic_dcqcn for s in intent.classes)
    cnp_dscp = intent.design.cnp_dscp
    if needs_cnp and cnp_dscp in owner:
        raise source_map.error(("design", "cnp_dscp"), f"the RoCE CNP DSCP {cnp_dscp} is also used by class '{owner[cnp_dscp][1]}'", "set design.cnp_dscp to a code point no class uses (48 by default)")

    lossless_specs = [s for s in intent.classes if s.lossless]
    lossy_specs = [s for s in intent.classes if not s.lossless]
    max_lossless = profile.max_lossless_classes.value
    if max_lossless is not None and len(lossless_specs) > max_lossless:
        index = intent.classes.index(lossless_specs[max_lossless])
        raise source_map.error(("classes", index, "lossless"), f"{len(lossless_specs)} lossless classes, but {profile.name} supports {max_lossless}", f"make at most {max_lossless} classes lossless (source: {profile.max_lossless_classes.source})")
    if len(lossless_specs) > len(LOSSLESS_TC_ORDER):
        index = intent.classes.index(lossless_specs[len(LOSSLESS_TC_ORDER)])
        tcs = ", ".join(str(t) for t in LOSSLESS_TC_ORDER)
        raise source_map.error(("classes", index, "lossless"), f"{len(lossless_specs)} lossless classes; lossless classes take TCs {tcs}, so at most {len(LOSSLESS_TC_ORDER)}", "merge lossless classes or make some lossy")

    planned: list[PlannedClass] = []
    used: set[int] = {DEFAULT_TC}
    for spec in lossless_specs:
        tc = next(t for t in LOSSLESS_TC_ORDER if t not in used)
        used.add(tc)
        planned.append(PlannedClass(spec, spec.name, tc, tc, tc, True))
    needs_fastlane = any(s.fastlane is not None for s in intent.classes)
    trim = _trim_setting(intent, source_map, profile)
    if trim is not None and needs_fastlane:
        index = next(i for i, s in enumerate(intent.classes) if s.fastlane is not None)
        raise source_map.error(("classes", index, "fastlane"), "FastLane notifications and packet trimming both claim the notification queue (TC 7)",
                               "keep one: trimming is FastLane's notification carried by the forward path")
    control: list[ControlClassIR] = []
    if needs_cnp:
        tc = next(t for t in CNP_TC_ORDER if t not in used)  # lossless classes hold at most 3-6: 2 and 1 stay free
        used.add(tc)
        planned.append(PlannedClass(None, CNP_CLASS_NAME, tc, tc, LOSSY_PG, False, strict_priority=True))
        control.append(ControlClassIR(CNP_CLASS_NAME, "RoCE congestion notification packets (DCQCN CNPs)", tc, tc, (cnp_dscp,), SOURCE_CNP))
    if needs_fastlane or trim is not None:
        used.add(FASTLANE_TC)
    lossy_order = _lossy_tc_order(bool(lossless_specs))
    for spec in lossy_specs:
        free = [t for t in lossy_order if t not in used]
        if not free:
            index = intent.classes.index(spec)
            extras = ["default", *(["CNP"] if needs_cnp else []), *(["FastLane"] if needs_fastlane else []), *(["trim"] if trim is not None else [])]
            total = len(intent.classes) + len(extras)
            if lossless_specs and any(t not in used for t in SONIC_LOSSLESS_PAIR):
                raise source_map.error(("classes", index), f"class '{spec.name}' would need TC 3 or 4 beside a lossless class: {SOURCE_LOSSLESS_PAIR}, so a lossy class there is paused by PFC once stock pfc_enable \"3,4\" is back", "merge lossy classes that can share a queue, or make this class lossless")
            raise source_map.error(("classes", index), f"{total} queues needed (classes + {' + '.join(extras)}) but a port has 8", "merge classes that can share a queue")
        tc = free[0]
        used.add(tc)
        planned.append(PlannedClass(spec, spec.name, tc, tc, LOSSY_PG, False))
    if needs_fastlane:
        if not profile.fastlane_support.value:
            index = next(i for i, s in enumerate(intent.classes) if s.fastlane is not None)
            raise source_map.error(("classes", index, "fastlane"), f"FastLane needs switch support (drop notifications) that {profile.name} does not have ({profile.fastlane_support.source})", "remove the fastlane block, or use a vendor profile that declares fastlane_support")
        planned.append(PlannedClass(None, "fastlane", FASTLANE_TC, FASTLANE_TC, LOSSY_PG, False, strict_priority=True))
        fastlane_dscps = tuple(s.fastlane.dscp for s in intent.classes if s.fastlane is not None)
        control.append(ControlClassIR("fastlane", "FastLane drop notifications", FASTLANE_TC, FASTLANE_TC, fastlane_dscps, "FastLane §3.2 (notifications in a strict-priority queue)"))
    if trim is not None:
        planned.append(PlannedClass(None, TRIM_CLASS_NAME, TRIM_TC, TRIM_TC, LOSSY_PG, False))
        trim_dscps = (trim.dscp,) if isinstance(trim.dscp, int) else ()
        control.append(ControlClassIR(TRIM_CLASS_NAME, "trimmed packets (packet trimming: FastLane's loss notification on the forward path)",
                                      TRIM_TC, TRIM_TC, trim_dscps, SOURCE_TRIM_QUEUE))
    planned.insert(0, PlannedClass(None, DEFAULT_CLASS_NAME, DEFAULT_TC, DEFAULT_TC, LOSSY_PG, False))

    tc_of: dict[int, int] = {}
    color_of: dict[int, str] = {}
    by_name = {c.name: c for c in planned}
    for spec in intent.classes:
        tc = by_name[spec.name].traffic_class
        for code in spec.dscp:
            tc_of[code] = tc
            # TLT §4.2: unimportant packets are the ones dropped first, so they are colored red.
            color_of[code] = "red" if spec.tlt is not None else "green"
        if spec.tlt is not None:
            for code in spec.tlt.important_dscp:
                tc_of[code] = tc
                color_of[code] = "green"
        if spec.fastlane is not None:
            tc_of[spec.fastlane.dscp] = FASTLANE_TC
            color_of[spec.fastlane.dscp] = "green"
    if needs_cnp:
        tc_of[cnp_dscp] = by_name[CNP_CLASS_NAME].traffic_class
        color_of[cnp_dscp] = "green"
    if trim is not None and isinstance(trim.dscp, int):
        tc_of[trim.dscp] = TRIM_TC
        color_of[trim.dscp] = "green"
    dscp_to_tc = tuple((code, tc_of.get(code, DEFAULT_TC)) for code in range(64))
    dscp_to_color = tuple((code, color_of.get(code, "green")) for code in range(64))
    trimmed = tuple(s.name for s in intent.classes if s.trim is not None)
    return ClassPlan(tuple(sorted(planned, key=lambda c: c.traffic_class)), dscp_to_tc, dscp_to_color, tuple(control), trim, trimmed)


def _first_trimmed(intent: Intent) -> int | None:
    return next((i for i, s in enumerate(intent.classes) if s.trim is not None), None)


def _trim_setting(intent: Intent, source_map: SourceMap, profile: VendorProfile) -> TrimSpec | None:
    """The switch's one trimming setting (SONiC SWITCH_TRIMMING|GLOBAL is a single entry, SAI's
    PACKET_TRIM_* are switch attributes), checked against the ASIC."""
    first = _first_trimmed(intent)
    if first is None:
        return None
    trim = intent.classes[first].trim
    assert trim is not None
    for index, spec in enumerate(intent.classes):
        if spec.trim is not None and spec.trim != trim:
            raise source_map.error(("classes", index, "trim"), f"class '{spec.name}' trims with other settings than class '{intent.classes[first].name}', "
                                   "but a switch has one trimming setting (SONiC SWITCH_TRIMMING|GLOBAL, SAI SAI_SWITCH_ATTR_PACKET_TRIM_*)",
                                   "give every trimmed class the same size, dscp, tc and queue")
    if not profile.packet_trimming.value:
        raise source_map.error(("classes", first, "trim"), f"packet trimming needs ASIC support that {profile.name} ({profile.vendor} {profile.asic}) "
                               f"does not have ({profile.packet_trimming.source})",
                               "remove the trim block, or use a vendor profile with packet_trimming: true (e.g. mellanox-spectrum-4)")
    if trim.dscp == "from-tc":
        raise source_map.error(("classes", first, "trim", "dscp"), "dscp 'from-tc' takes the trimmed packets' DSCP from each port's TC_TO_DSCP_MAP "
                               "(SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_FROM_TC), the port's egress remarking map, which "
                               "rewrites every packet it sends by TC, not only trimmed ones; qosforge compiles no remarking",
                               "give the DSCP of trimmed packets, e.g. dscp: 11 (the NVIDIA Cumulus default)")
    size = profile.packet_trim_size.known("packet_trim_size")
    if not (size.min_bytes <= trim.size <= size.max_bytes) or round(trim.size) % size.step_bytes or trim.size != round(trim.size):
        raise source_map.error(("classes", first, "trim", "size"), f"{profile.name} trims to {size.min_bytes}..{size.max_bytes} B in steps of "
                               f"{size.step_bytes} B, not {trim.size:g} B ({profile.packet_trim_size.source})",
                               f"give a size in that range, e.g. {size.min_bytes}B")
    return trim


def _lossy_tc_order(has_lossless: bool) -> tuple[int, ...]:
    """LOSSY_TC_ORDER without SONiC's lossless pair when any class is lossless."""
    if not has_lossless:
        return LOSSY_TC_ORDER
    return tuple(t for t in LOSSY_TC_ORDER if t not in SONIC_LOSSLESS_PAIR)


def _check_transports(intent: Intent, source_map: SourceMap) -> None:
    """Transport requirements the switch configuration cannot meet or that defeat the transport."""
    for index, spec in enumerate(intent.classes):
        known = transport(spec.transport)
        rule = known.lossless
        if rule is not None and spec.lossless == (rule.need == "refused"):
            raise source_map.error(("classes", index, "lossless"), rule.message.replace("{name}", spec.name), rule.hint)
        if known.refused is not None:
            raise source_map.error(("classes", index, "transport"), f"class '{spec.name}': transport {spec.transport} is refused: {known.refused}",
                                   f"accepted transports: {', '.join(accepted_transports())}; {roce_hint()} run RoCE on ECN marks")
