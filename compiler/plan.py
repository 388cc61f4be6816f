"""Class planning: traffic classes onto TCs, queues, PGs, PFC priorities, DSCPs and colors.

Conventions follow SONiC's defaults so the output reads familiar to operators: lossless classes
take PFC priorities / TCs 3 and 4 first (SONiC's AZURE maps, the SONiC sources (sonic-buildimage, sonic-swss)), a TC
maps to the queue of the same number, lossless TC n uses PG n, all lossy traffic shares PG 0, and
DSCPs no class claims fall into a best-effort default class on TC 0. A FastLane notification
class gets the strict-priority queue 7 (FastLane §3.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from qosforge.compiler.intent import ClassSpec, Intent
from qosforge.compiler.loader import SourceMap
from qosforge.vendor_profiles.schema import VendorProfile

#: TCs tried for lossless classes, in order (SONiC uses 3 and 4 for RoCE).
LOSSLESS_TC_ORDER = (3, 4, 2, 5, 6, 1)
#: TCs tried for lossy classes, in order; 0 is the default class, 7 the FastLane queue.
LOSSY_TC_ORDER = (1, 2, 5, 6, 3, 4)
DEFAULT_TC = 0
FASTLANE_TC = 7
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

    @property
    def lossless_priorities(self) -> tuple[int, ...]:
        return tuple(sorted(c.traffic_class for c in self.classes if c.lossless))


def plan_classes(intent: Intent, source_map: SourceMap, profile: VendorProfile) -> ClassPlan:
    seen: set[str] = set()
    for index, spec in enumerate(intent.classes):
        if spec.name in seen or spec.name in (DEFAULT_CLASS_NAME, "fastlane"):
            reason = "is used twice" if spec.name in seen else "is reserved for an implicit class"
            raise source_map.error(("classes", index, "name"), f"class name '{spec.name}' {reason}", "give every class a unique name other than 'default' and 'fastlane'")
        seen.add(spec.name)
    owner: dict[int, tuple[int, str]] = {}
    for index, spec in enumerate(intent.classes):
        claims = [("dscp", i, code) for i, code in enumerate(spec.dscp)]
        if spec.tlt is not None:
            claims += [("tlt", i, code) for i, code in enumerate(spec.tlt.important_dscp)]
        if spec.fastlane is not None:
            claims.append(("fastlane", 0, spec.fastlane.dscp))
        for field_name, position, code in claims:
            if code in owner:
                path: tuple[str | int, ...] = ("classes", index, field_name, position)
                if field_name == "tlt":
                    path = ("classes", index, "tlt", "important_dscp", position)
                elif field_name == "fastlane":
                    path = ("classes", index, "fastlane", "dscp")
                raise source_map.error(path, f"DSCP {code} is already used by class '{owner[code][1]}'", "give each DSCP to exactly one class")
            owner[code] = (index, spec.name)

    lossless_specs = [s for s in intent.classes if s.lossless]
    lossy_specs = [s for s in intent.classes if not s.lossless]
    max_lossless = profile.max_lossless_classes.value
    if max_lossless is not None and len(lossless_specs) > max_lossless:
        index = intent.classes.index(lossless_specs[max_lossless])
        raise source_map.error(("classes", index, "lossless"), f"{len(lossless_specs)} lossless classes, but {profile.name} supports {max_lossless}", f"make at most {max_lossless} classes lossless (source: {profile.max_lossless_classes.source})")
    if len(lossless_specs) > len(LOSSLESS_TC_ORDER):
        index = intent.classes.index(lossless_specs[len(LOSSLESS_TC_ORDER)])
        raise source_map.error(("classes", index, "lossless"), f"{len(lossless_specs)} lossless classes; at most {len(LOSSLESS_TC_ORDER)} fit beside the default and FastLane queues", "merge lossless classes")
    for index, spec in enumerate(intent.classes):
        if spec.transport == "dcqcn" and not spec.lossless:
            raise source_map.error(("classes", index, "lossless"), "DCQCN (RoCEv2) needs a lossless class", "set lossless: true (DCQCN §2 relies on PFC)")

    planned: list[PlannedClass] = []
    used: set[int] = {DEFAULT_TC}
    for spec in lossless_specs:
        tc = next(t for t in LOSSLESS_TC_ORDER if t not in used)
        used.add(tc)
        planned.append(PlannedClass(spec, spec.name, tc, tc, tc, True))
    needs_fastlane = any(s.fastlane is not None for s in intent.classes)
    for spec in lossy_specs:
        free = [t for t in LOSSY_TC_ORDER if t not in used]
        if not free:
            index = intent.classes.index(spec)
            total = len(intent.classes) + 1 + int(needs_fastlane)
            raise source_map.error(("classes", index), f"{total} queues needed (classes + default{' + FastLane' if needs_fastlane else ''}) but a port has 8", "merge classes that can share a queue")
        tc = free[0]
        used.add(tc)
        planned.append(PlannedClass(spec, spec.name, tc, tc, LOSSY_PG, False))
    if needs_fastlane:
        if not profile.fastlane_support.value:
            index = next(i for i, s in enumerate(intent.classes) if s.fastlane is not None)
            raise source_map.error(("classes", index, "fastlane"), f"FastLane needs switch support (drop notifications) that {profile.name} does not have ({profile.fastlane_support.source})", "remove the fastlane block, or use a vendor profile that declares fastlane_support")
        planned.append(PlannedClass(None, "fastlane", FASTLANE_TC, FASTLANE_TC, LOSSY_PG, False, strict_priority=True))
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
    dscp_to_tc = tuple((code, tc_of.get(code, DEFAULT_TC)) for code in range(64))
    dscp_to_color = tuple((code, color_of.get(code, "green")) for code in range(64))
    return ClassPlan(tuple(sorted(planned, key=lambda c: c.traffic_class)), dscp_to_tc, dscp_to_color)
