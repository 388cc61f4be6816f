"""Per-class views of a run: which switch queue carries each class on a port, and each class's
drops by cause (softswitch/metrics.py class_drops)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from qosforge.softswitch.metrics import ClassQueue, SimulationResult, class_drops

if TYPE_CHECKING:  # the dumbbell imports this module too, and needs neither the IR nor the fabric
    from qosforge.ir.model import SwitchIR
    from qosforge.softswitch.config import PortConfig, SwitchConfig
    from qosforge.softswitch.helper.fabric import Fabric
    from qosforge.softswitch.traffic.spec import FlowSpec

_OPEN_LOOP_NOT_ECT = (
    "an open-loop UDP source sets no ECN codepoint (RFC 3168 §5 leaves ECT to "
    "the sender): WRED's drop curve applies where the profile enables it"
)
_OPEN_LOOP_ECT = (
    "this scenario's open-loop source stands in for an ECN-capable sender (as RoCEv2 "
    "NICs mark ECT, DCQCN §3.1), so WRED marks it instead of dropping"
)
#: Why a flow's packets are (or are not) ECN-capable, by transport and ECT bit.
_ECT_WHY: dict[tuple[str, bool], str] = {
    ("dctcp", True): "DCTCP negotiates ECN and sets ECT(0) on data (RFC 8257 §3.1)",
    ("tcp-ecn", True): "TCP with ECN negotiated sets ECT on data (RFC 3168 §6.1)",
    ("tbtcp", True): "TBTCP reacts to CE marks (ECN negotiated, RFC 3168 §6.1)",
    ("dcqcn", True): "RoCEv2 NICs running DCQCN send data ECT (DCQCN, SIGCOMM 2015 §3.1)",
    ("newreno", False): "TCP without ECN negotiated: not ECT, so WRED drops instead of marking "
    "(RFC 3168 §6.1.1)",
    ("poisson", False): _OPEN_LOOP_NOT_ECT,
    ("cbr", False): _OPEN_LOOP_NOT_ECT,
    ("poisson", True): _OPEN_LOOP_ECT,
    ("cbr", True): _OPEN_LOOP_ECT,
}


def _ranges(indexes: list[int]) -> str:
    parts: list[str] = []
    start = previous = indexes[0]
    for index in [*indexes[1:], None]:
        if index is not None and index == previous + 1:
            previous = index
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if index is not None:
            start = previous = index
    return ",".join(parts)


def flow_ect(flows: Sequence[FlowSpec]) -> list[dict[str, object]]:
    """Which flows send ECN-capable (ECT) packets and why, one entry per (transport, DSCP, ECT)
    group of flows (``flows`` lists the flow indexes, as ranges)."""
    groups: dict[tuple[str, int, bool], list[int]] = {}
    for index, flow in enumerate(flows):
        groups.setdefault((flow.kind, flow.dscp, flow.ect), []).append(index)
    return [
        {
            "flows": _ranges(indexes),
            "transport": kind,
            "dscp": dscp,
            "ect": ect,
            "why": _ECT_WHY.get((kind, ect), "as the scenario sets it"),
        }
        for (kind, dscp, ect), indexes in groups.items()
    ]


def port_classes(ir: SwitchIR, port: PortConfig) -> tuple[ClassQueue, ...]:
    """The switch's classes (and control classes, lossy) on ``port``: the queue each one's TC
    maps to there (the port's TC_TO_QUEUE map). A switch with ports of several speeds holds one
    ClassIR per class and speed (thresholds differ by speed); the class is still one class, on one
    TC, so it is listed once."""
    queue_of = port.tc_to_queue
    classes: dict[str, ClassQueue] = {}
    for c in ir.classes:
        classes.setdefault(c.name, ClassQueue(c.name, c.lossless, queue_of[c.traffic_class]))
    for control in ir.control_classes:
        classes.setdefault(control.name,
                           ClassQueue(control.name, False, queue_of[control.traffic_class]))
    return tuple(classes.values())


def all_port_classes(fabric: Fabric) -> list[tuple[int, tuple[ClassQueue, ...]]]:
    """Every engine port of a fabric with its switch's classes there."""
    ports = []
    port = 0
    for switch in fabric.switches:
        for config_port in switch.config.ports:
            ports.append((port, port_classes(switch.ir, config_port)))
            port += 1
    return ports


def switch_class_drops(
    result: SimulationResult, ir: SwitchIR, config: SwitchConfig, first_port: int
) -> dict[str, dict[str, object]]:
    """Each class's drops at one switch, whose ports start at engine port ``first_port``."""
    ports = [(first_port + i, port_classes(ir, port)) for i, port in enumerate(config.ports)]
    return class_drops(result.drops, ports)


__all__ = ["all_port_classes", "flow_ect", "port_classes", "switch_class_drops"]
