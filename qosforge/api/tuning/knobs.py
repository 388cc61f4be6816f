"""The knobs ``tune`` searches: the settings an intent leaves to the compiler's models.

A knob is free when the intent does not state it (a stated value is the operator's, and stays);
``--free PATH`` frees a stated block, starting the search from the stated value. Knobs the
software switch responds to, per class and for the fabric:

- a DCQCN class's RED marking (its ``dcqcn:`` block: K_min, K_max as a ratio to K_min, P_max;
  DCQCN §5, SAI inc/saiwred.h ECN thresholds);
- any other ECN class's marking per port speed (its ``ecn:`` list: min, max as a ratio to min,
  pmax);
- the dynamic-threshold alpha (``design.alpha``, a power of two: SAI
  SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH is its exponent), when any class is lossy or the
  intent leaves it.

Threshold ranges are tied to the class's bandwidth-delay product at that speed (the compiler's
``bdp_bytes``): min from BDP/32 to 8 BDP, max = min × ratio, clipped at 32 BDP. That holds every
published setting we know of (DCTCP §3.1's K of BDP/7, DCQCN §5's 5 kB / 200 kB at 40G) and
the start, and is widened to include the start when an operator's stated value lies outside.
Left out (docs/tune.md): the NIC's DCQCN rate
parameters (fixed by the NIC profile, not the intent), scheduler weights the intent states,
and the headroom margin (the compiler sizes headroom to the cable; tuning it down risks loss).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from qosforge.errors import QosforgeError

#: Ranges as multiples of the class's BDP at the speed (module docstring).
THRESHOLD_LOW_BDP = 1 / 32
THRESHOLD_HIGH_BDP = 8.0
#: A ramp's max (min × ratio) is clipped here: beyond it the queue limit of a shared buffer
#: under the dynamic threshold is usually below max, which the compiler refuses (the ramp would
#: end at tail drop).
MAX_THRESHOLD_BDP = 32.0
RATIO_RANGE = (1.0, 16.0)
#: DCQCN's ramp is long by design (DCQCN §5: K_min 5 kB, K_max 200 kB, a ratio of 40).
DCQCN_RATIO_HIGH = 64.0
#: P_max in whole percent: sonic-swss reads WRED_PROFILE's green_drop_probability with stoi
#: into SAI_WRED_ATTR_GREEN_DROP_PROBABILITY (orchagent/qosorch.cpp,
#: WredMapHandler::convertFieldValuesToAttributes), so the SONiC renderer refuses a fraction.
PMAX_PERCENT_RANGE = (1, 100)
#: design.alpha = 2^k for k in this range (SONiC's dynamic_th takes -8..8 on most ASICs; the
#: profiles' lint rules narrow it per chip, and a refused value is never simulated).
ALPHA_EXPONENT_RANGE = (-4, 3)


@dataclass(frozen=True)
class Knob:
    """One searched value. ``path``: where its block goes in the intent (``classes.rdma.dcqcn``,
    ``classes.tcp.ecn@100G``, ``design.alpha``); ``field``: which of the block's numbers."""

    name: str
    low: float
    high: float
    start: float
    scale: Literal["log", "int", "int-log"]
    unit: str


@dataclass(frozen=True)
class MarkingBlock:
    """A class's marking the search sets: its DCQCN block, or its ``ecn`` entry at one speed."""

    class_name: str
    kind: Literal["dcqcn", "ecn"]
    speed_bps: float | None
    prefix: str
    """Knob names' prefix: ``rdma.dcqcn`` or ``tcp.ecn@100G``."""
    bdp_bytes: float


@dataclass(frozen=True)
class KnobSpace:
    knobs: tuple[Knob, ...]
    blocks: tuple[MarkingBlock, ...]
    alpha: bool
    left_out: tuple[str, ...]
    """Settings the intent states (not searched), one line each."""

    def start(self) -> dict[str, float]:
        return {knob.name: knob.start for knob in self.knobs}


def _speed_text(speed_bps: float) -> str:
    return f"{speed_bps / 1e9:g}G"


@dataclass(frozen=True)
class ClassMarking:
    """A class's compiled marking at one speed (bytes, percent) and its BDP there."""

    class_name: str
    transport: str
    speed_bps: float
    min_bytes: float
    max_bytes: float
    pmax_percent: float
    bdp_bytes: float


def _threshold_knob(name: str, start: float, bdp: float) -> Knob:
    low, high = bdp * THRESHOLD_LOW_BDP, bdp * THRESHOLD_HIGH_BDP
    return Knob(name, min(low, start), max(high, start), start, "log", "B")


def _marking_knobs(prefix: str, start: ClassMarking) -> list[Knob]:
    ratio = start.max_bytes / start.min_bytes if start.min_bytes > 0 else 1.0
    ratio_low, ratio_high = RATIO_RANGE
    if start.transport in ("dcqcn", "irn"):
        ratio_high = DCQCN_RATIO_HIGH
    pmax_low, pmax_high = PMAX_PERCENT_RANGE
    return [
        _threshold_knob(f"{prefix}.min", max(start.min_bytes, 1.0), start.bdp_bytes),
        Knob(
            f"{prefix}.ratio", ratio_low, max(ratio_high, ratio), max(ratio, ratio_low), "log", "x"
        ),
        Knob(
            f"{prefix}.pmax",
            pmax_low,
            pmax_high,
            min(max(round(start.pmax_percent), pmax_low), pmax_high),
            "int-log",
            "%",
        ),
    ]


def knob_space(
    intent_yaml: Mapping[str, Any],
    markings: Sequence[ClassMarking],
    alpha_start: float,
    free: Sequence[str] = (),
) -> KnobSpace:
    """The free knobs of an intent (its YAML as read), from the compiled markings and alpha."""
    classes = {
        str(item.get("name")): item
        for item in intent_yaml.get("classes", [])
        if isinstance(item, Mapping)
    }
    design = intent_yaml.get("design") or {}
    freed = set(free)
    for path in freed:
        if not _known_free_path(path, classes):
            raise QosforgeError(
                f"{path!r} is not a block tune searches",
                place="--free",
                hint="give classes.NAME.dcqcn, classes.NAME.ecn or design.alpha",
            )
    knobs: list[Knob] = []
    blocks: list[MarkingBlock] = []
    left_out: list[str] = []
    dcqcn_seen: set[str] = set()
    for marking in markings:
        spec = classes.get(marking.class_name, {})
        if marking.transport in ("dcqcn", "irn"):
            if marking.class_name in dcqcn_seen:
                continue  # one dcqcn block per class, for every speed: searched at the fastest
            dcqcn_seen.add(marking.class_name)
            path = f"classes.{marking.class_name}.dcqcn"
            if "dcqcn" in spec and path not in freed:
                left_out.append(f"{path} (stated in the intent; --free {path} searches it)")
                continue
            prefix = f"{marking.class_name}.dcqcn"
            blocks.append(
                MarkingBlock(marking.class_name, "dcqcn", None, prefix, marking.bdp_bytes)
            )
        else:
            path = f"classes.{marking.class_name}.ecn"
            if "ecn" in spec and path not in freed:
                left_out.append(f"{path} (stated in the intent; --free {path} searches it)")
                continue
            if any(block in spec for block in ("d2tcp", "tbtcp", "ear")):
                left_out.append(
                    f"classes.{marking.class_name} (its transport block sets the marking)"
                )
                continue
            prefix = f"{marking.class_name}.ecn@{_speed_text(marking.speed_bps)}"
            blocks.append(
                MarkingBlock(
                    marking.class_name, "ecn", marking.speed_bps, prefix, marking.bdp_bytes
                )
            )
        knobs += _marking_knobs(prefix, marking)
    alpha = "alpha" not in design or "design.alpha" in freed
    if alpha:
        exponent = math.log2(alpha_start)
        low, high = ALPHA_EXPONENT_RANGE
        knobs.append(
            Knob(
                "design.alpha_log2",
                min(low, exponent),
                max(high, exponent),
                exponent,
                "int",
                "log2",
            )
        )
    else:
        left_out.append("design.alpha (stated in the intent; --free design.alpha searches it)")
    for name, spec in classes.items():
        if "weight" in spec:
            left_out.append(f"classes.{name}.weight (stated in the intent)")
    return KnobSpace(tuple(knobs), tuple(blocks), alpha, tuple(left_out))


def _known_free_path(path: str, classes: Mapping[str, Any]) -> bool:
    if path == "design.alpha":
        return True
    parts = path.split(".")
    return (
        len(parts) == 3
        and parts[0] == "classes"
        and parts[1] in classes
        and parts[2] in ("dcqcn", "ecn")
    )


def overrides(space: KnobSpace, values: Mapping[str, float]) -> dict[str, Any]:
    """The intent fields a point sets, as a mapping in the intent's own shape: ``classes`` by
    name (each class's block replaced whole) and ``design``. Sizes are whole bytes and
    percentages keep three significant digits, as an operator would write them."""
    classes: dict[str, dict[str, Any]] = {}
    for block in space.blocks:
        low = max(1, round(values[f"{block.prefix}.min"]))
        ceiling = max(low, round(block.bdp_bytes * MAX_THRESHOLD_BDP))
        high = min(max(low, round(low * values[f"{block.prefix}.ratio"])), ceiling)
        pmax = round(values[f"{block.prefix}.pmax"])
        entry = classes.setdefault(block.class_name, {})
        if block.kind == "dcqcn":
            entry["dcqcn"] = {"kmin": f"{low}B", "kmax": f"{high}B", "pmax": f"{pmax:g}%"}
        else:
            assert block.speed_bps is not None
            entry.setdefault("ecn", []).append(
                {
                    "speed": _speed_text(block.speed_bps),
                    "min": f"{low}B",
                    "max": f"{high}B",
                    "pmax": f"{pmax:g}%",
                }
            )
    out: dict[str, Any] = {"classes": classes} if classes else {}
    if space.alpha:
        out["design"] = {"alpha": 2.0 ** round(values["design.alpha_log2"])}
    return out


def apply_overrides(intent_yaml: Any, changes: Mapping[str, Any]) -> None:
    """Write ``changes`` (from :func:`overrides`) into a ruamel round-trip intent in place."""
    for name, blocks in changes.get("classes", {}).items():
        item = next(item for item in intent_yaml["classes"] if item.get("name") == name)
        for key, value in blocks.items():
            item[key] = value
    if "design" in changes:
        if intent_yaml.get("design") is None:
            intent_yaml["design"] = {}
        for key, value in changes["design"].items():
            intent_yaml["design"][key] = value


__all__ = [
    "ClassMarking",
    "Knob",
    "KnobSpace",
    "MarkingBlock",
    "apply_overrides",
    "knob_space",
    "overrides",
]
