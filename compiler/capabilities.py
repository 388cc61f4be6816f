"""Apply each target's capability view (docs/architecture.md, "Capabilities").

The compiler plans one full-fidelity IR; each registered target (qosforge.backends.registry) then
gets its *view* of it. What a target cannot express is decided by the target itself (e.g.
``backends/sonic/capabilities.py``); here a :class:`~qosforge.backends.registry.CapabilityRefusal`
becomes an intent error at the refused class's field, and accepted approximations are passed in.
"""

from __future__ import annotations

from dataclasses import replace

from qosforge.backends.registry import CapabilityRefusal, get_target, target_names
from qosforge.compiler.intent import Intent
from qosforge.compiler.loader import SourceMap
from qosforge.errors import QosforgeError
from qosforge.ir import FabricIR, TargetView


def check_targets(targets: tuple[str, ...], source_map: SourceMap, *, from_cli: bool) -> None:
    available = target_names()
    for index, target in enumerate(targets):
        if target in available:
            continue
        message = f"target '{target}' is not available in this qosforge version"
        if from_cli:
            raise QosforgeError(message, place="--target", hint=f"use one of: {', '.join(available)}")
        raise source_map.error(("targets", index), message, f"use one of: {', '.join(available)}")


def apply_target_capabilities(fabric: FabricIR, intent: Intent, source_map: SourceMap, approximations: tuple[str, ...]) -> FabricIR:
    """Attach one view per target to the fabric (the fabric's own switches stay full-fidelity)."""
    accepted = frozenset(approximations)
    views = []
    for name in fabric.targets:
        view = get_target(name).view
        try:
            views.append(TargetView(name, tuple(view(switch, accepted) for switch in fabric.switches)))
        except CapabilityRefusal as refusal:
            order = {spec.name: index for index, spec in enumerate(intent.classes)}
            first = min(refusal.refused, key=lambda r: order.get(r.class_name, len(order)))
            index = order.get(first.class_name)
            place: tuple[str | int, ...] = ("classes", index, first.intent_block) if index is not None and first.intent_block else ("targets",)
            raise source_map.error(place, first.message, first.hint) from None
    return replace(fabric, views=tuple(views))
