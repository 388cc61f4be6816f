"""What openconfig-qos cannot express, coded once: the capability view and the renderer's check
both call :func:`inexpressible`.

From the published model (openconfig/public ``release/models/qos``, openconfig-qos 2026-01-16):

* **colors** — classifier terms only set a forwarding group or remark (``actions/config/
  target-group``, ``actions/remark``); there is no drop precedence, and a queue-management profile
  has one ``wred/uniform`` curve for all traffic, with ``enable-ecn`` marking at the drop
  thresholds (``openconfig-qos-mem-mgmt.yang``). TLT's color drop (TLT §4.1-4.2) and separate ECN
  (ECT) and drop thresholds cannot be carried: approximation ``tlt-without-color``.
* **PFC** — no PFC priorities, priority groups, xoff/xon headroom or PFC watchdog anywhere in the
  OpenConfig release models (only 802.3x link pause, ``openconfig-if-ethernet.yang``
  ``enable-flow-control``): approximation ``pfc-out-of-band``; the report lists the priorities,
  headroom and watchdog values qosforge computed, to configure natively.
* **pool sizes** — no buffer pool objects (``buffer-allocation-profiles`` are per queue: dedicated
  buffer and a static or dynamic shared limit): approximation ``pools-out-of-band``; the report
  lists the pool sizes computed for the ASIC.
* **packet trimming** — the release models have a ``/qos/packet-trim`` container (a DSCP and a
  fabric priority) and a per-queue ``trim-enable`` flag, but no trim size and no trim queue, and
  this renderer writes none of them: approximation ``trimming-out-of-band``; the report lists the
  trim size, DSCP, queue and trimmed classes to configure natively (SONiC SWITCH_TRIMMING).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from qosforge.backends.approximations import TLT_WITHOUT_COLOR, without_color
from qosforge.backends.registry import Approximation, CapabilityRefusal, Refused
from qosforge.ir import CapabilityGap, SwitchIR

TARGET_NAME = "openconfig"
PFC_OUT_OF_BAND = "pfc-out-of-band"
POOLS_OUT_OF_BAND = "pools-out-of-band"
TRIMMING_OUT_OF_BAND = "trimming-out-of-band"

Kind = Literal["color", "pfc", "pools", "trim"]

_APPROXIMATION_OF: dict[Kind, str] = {"color": TLT_WITHOUT_COLOR, "pfc": PFC_OUT_OF_BAND, "pools": POOLS_OUT_OF_BAND,
                                      "trim": TRIMMING_OUT_OF_BAND}
_INTENT_BLOCK: dict[Kind, str | None] = {"color": "tlt", "pfc": "lossless", "pools": None, "trim": "trim"}
_FEATURE: dict[Kind, str] = {
    "color": "TLT color-aware dropping (DSCP->color, per-color WRED, ECT marking thresholds separate from the drop thresholds)",
    "pfc": "PFC (lossless priority, priority-group xoff/xon headroom, PFC watchdog)",
    "pools": "buffer pool sizes",
    "trim": "packet trimming (trim size, trimmed packets' DSCP and queue, trimming on the class's queue)",
}
_DETAIL: dict[Kind, str] = {
    "color": "openconfig-qos classifier actions set only a forwarding group or a remark (no drop precedence), and a "
    "queue-management profile has one uniform WRED curve with ECN marking at its drop thresholds",
    "pfc": "openconfig-qos has no PFC, priority groups or headroom (only 802.3x link pause in openconfig-if-ethernet)",
    "pools": "openconfig-qos has no buffer pools; buffer-allocation-profiles set per-queue dedicated buffer and shared limits only",
    "trim": "openconfig-qos /qos/packet-trim has no trim size or trim queue, and qosforge's openconfig renderer writes no trimming",
}
_ALTERNATIVES: dict[Kind, tuple[str, ...]] = {
    "color": (
        "compile for the SAI target, which has DSCP_TO_COLOR maps and per-color WRED (exact TLT)",
        "remove the class's 'tlt' block (plain transport, no important-packet protection)",
        f"accept '{TLT_WITHOUT_COLOR}': the class is rendered without color-aware dropping",
    ),
    "pfc": (
        "compile for the sonic or sai target, which carry PFC, headroom and the watchdog",
        "make the class lossy ('lossless: false') and rely on ECN alone",
        f"accept '{PFC_OUT_OF_BAND}': queues, classifier and WRED/ECN go over OpenConfig; PFC is configured natively with the values in the report",
    ),
    "pools": (
        "compile for the sonic or sai target, which size the pools",
        f"accept '{POOLS_OUT_OF_BAND}': the device keeps its own pools; the report lists the pool sizes qosforge computed",
    ),
    "trim": (
        "compile for the sonic or sai target, which carry SWITCH_TRIMMING and SAI_SWITCH_ATTR_PACKET_TRIM_*",
        "remove the class's 'trim' block (the class drops when its queue is full)",
        f"accept '{TRIMMING_OUT_OF_BAND}': queues and schedulers go over OpenConfig; trimming is configured natively with the values in the report",
    ),
}
APPROXIMATIONS = (
    Approximation(TLT_WITHOUT_COLOR, _ALTERNATIVES["color"][2]),
    Approximation(PFC_OUT_OF_BAND, _ALTERNATIVES["pfc"][2]),
    Approximation(POOLS_OUT_OF_BAND, _ALTERNATIVES["pools"][1]),
    Approximation(TRIMMING_OUT_OF_BAND, _ALTERNATIVES["trim"][2]),
)


@dataclass(frozen=True)
class Inexpressible:
    kind: Kind
    class_names: tuple[str, ...]
    out_of_band: str
    """What must be configured natively instead, with the values qosforge computed ('' for colors)."""


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _bytes(value: float) -> str:
    return f"{value:,.0f} B"


def _pfc_values(switch: SwitchIR) -> str:
    """PFC priorities, per-profile headroom (with its ports) and the watchdog, as computed."""
    ports_by_profile: dict[str, list[str]] = {}
    for port in switch.ports:
        for group in port.priority_groups:
            if group.lossless:
                ports_by_profile.setdefault(group.buffer_profile, []).append(port.name)
    priorities = sorted({p for port in switch.ports for p in port.pfc_priorities})
    parts = [f"PFC on priorities {','.join(map(str, priorities))} (priority group = priority)"]
    for name, ports in sorted(ports_by_profile.items()):
        profile = switch.profile(name)
        xoff = profile.xoff_bytes.value if profile.xoff_bytes else 0.0
        xon = profile.xon_bytes.value if profile.xon_bytes else 0.0
        parts.append(f"headroom {name}: size {_bytes(profile.reserved_bytes.value)}, xoff {_bytes(xoff)}, xon {_bytes(xon)} on {len(ports)} port(s) ({ports[0]}..{ports[-1]})")
    if switch.pfc_watchdog is not None:
        watchdog = switch.pfc_watchdog
        parts.append(f"PFC watchdog detection {watchdog.detection_ms} ms, restoration {watchdog.restoration_ms} ms, action {watchdog.action}")
    return "; ".join(parts)


def _pool_values(switch: SwitchIR) -> str:
    return "; ".join(
        f"{pool.name} ({pool.direction}, {pool.mode}) {_bytes(pool.size_bytes.value)}"
        + (f" + shared headroom {_bytes(pool.shared_headroom_bytes.value)}" if pool.shared_headroom_bytes else "")
        for pool in switch.pools
    )


def _trim_values(switch: SwitchIR) -> str:
    trimming = switch.trimming
    assert trimming is not None
    queues = sorted({q.index for port in switch.ports for q in port.queues
                     if switch.profile(q.buffer_profile).discard_action == "trim"})
    return (f"trim size {_bytes(trimming.size_bytes.value)}, DSCP {trimming.dscp if trimming.dscp is not None else 'from TC ' + str(trimming.tc)}, "
            f"queue {trimming.queue if trimming.queue is not None else 'dynamic'} (strict priority, shaped like scheduler "
            f"{next(q.scheduler for q in switch.ports[0].queues if q.index == trimming.trim_queue)}); "
            f"packet_discard_action trim on queue(s) {','.join(map(str, queues))}")


def inexpressible(switch: SwitchIR) -> tuple[Inexpressible, ...]:
    found: list[Inexpressible] = []
    queue_classes = {(q.wred_profile): q.class_name for port in switch.ports for q in port.queues if q.wred_profile}
    colored = {dscp for dscp, color in switch.maps.dscp_to_color if color != "green"}
    color_classes = [c.name for c in switch.classes if colored & set(c.dscp)]
    for wred in switch.wred_profiles:
        if wred.ect_marking or len(wred.curves) > 1 or any(c.color != "green" for c in wred.curves):
            color_classes.append(queue_classes.get(wred.name, wred.name))
    if color_classes:
        found.append(Inexpressible("color", _unique(color_classes), ""))
    lossless = _unique(c.name for c in switch.classes if c.lossless)
    if lossless:
        found.append(Inexpressible("pfc", lossless, _pfc_values(switch)))
    if switch.pools:
        found.append(Inexpressible("pools", _unique(c.name for c in switch.classes), _pool_values(switch)))
    if switch.trimming is not None:
        trimmed = {q.class_name for port in switch.ports for q in port.queues if switch.profile(q.buffer_profile).discard_action == "trim"}
        found.append(Inexpressible("trim", _unique(c.name for c in switch.classes if c.name in trimmed), _trim_values(switch)))
    return tuple(found)


def unapproximated(switch: SwitchIR) -> tuple[Inexpressible, ...]:
    """What the switch still asks for that openconfig-qos cannot carry and no accepted
    approximation covers (the renderer refuses these)."""
    covered = {(g.class_name, g.approximation) for g in switch.gaps if g.target == TARGET_NAME and g.approximation}
    return tuple(
        item for item in inexpressible(switch)
        if item.kind == "color" or any((name, _APPROXIMATION_OF[item.kind]) not in covered for name in item.class_names)
    )


def _refused(item: Inexpressible, name: str) -> Refused:
    approximation = _APPROXIMATION_OF[item.kind]
    alternatives = _ALTERNATIVES[item.kind]
    return Refused(
        name,
        f"class '{name}' needs {_FEATURE[item.kind]}, which the openconfig target cannot express: {_DETAIL[item.kind]}. Alternatives: "
        + "; ".join(f"({n}) {text}" for n, text in enumerate(alternatives, start=1)),
        f"add 'approximations: [{approximation}]' (or --accept-approximation {approximation}), or compile for another target",
        _INTENT_BLOCK[item.kind],
    )


def openconfig_view(switch: SwitchIR, approximations: frozenset[str]) -> SwitchIR:
    """The switch as openconfig-qos carries it: colors removed under ``tlt-without-color``; PFC and
    pools recorded as gaps naming the values to configure out of band; otherwise a refusal."""
    found = inexpressible(switch)
    refused = [_refused(item, name) for item in found if _APPROXIMATION_OF[item.kind] not in approximations for name in item.class_names]
    if refused:
        raise CapabilityRefusal(tuple(refused))
    view = switch
    gaps: list[CapabilityGap] = []
    for item in found:
        if item.kind == "color":
            view = without_color(view, set(item.class_names), TARGET_NAME, _DETAIL["color"], _ALTERNATIVES["color"][:2])
            continue
        gaps += [
            CapabilityGap(TARGET_NAME, name, _FEATURE[item.kind], f"{_DETAIL[item.kind]}; configure out of band: {item.out_of_band}",
                          _ALTERNATIVES[item.kind][:-1], approximation=_APPROXIMATION_OF[item.kind])
            for name in item.class_names
        ]
    return replace(view, gaps=view.gaps + tuple(gaps))
