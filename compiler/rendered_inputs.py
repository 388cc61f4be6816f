"""The intent input behind a rendered value a target refused.

Every target checks its own output against what its format accepts (SONiC: backends/sonic/checks,
YANG ranges, WRED thresholds below 2^31; SAI: the switch layout's port list). The intent schema
and the compiler refuse the inputs they know to be out of range (compiler/bounds.py,
compiler/reachable.py); a value that still breaks the output was computed from an input no
earlier check bounds, which is bad input, not a qosforge bug. The target raises it as a
:class:`~qosforge.backends.phases.RenderValueError` naming the switch and the value's path in the
IR; here that IR path is followed back to the intent field that drives it, through the IR itself
(a WRED profile's queues name their class), so no target's naming is parsed (exit 2, at
FILE:LINE of that field).
"""

from __future__ import annotations

from qosforge.backends.registry import RenderValueError
from qosforge.compiler.compile import switch_ports_path
from qosforge.compiler.intent import ClassSpec, Intent
from qosforge.compiler.loader import IntentError, SourceMap
from qosforge.compiler.reachable import rtt_input_path
from qosforge.ir import SwitchIR
from qosforge.transports import transport

Path = tuple[str | int, ...]

#: IR values copied from one design input (compiler/compile.py, compiler/buffers.py).
_DESIGN_FIELDS: dict[tuple[str, str], str] = {
    ("pfc_watchdog", "detection_ms"): "pfc_watchdog_detection",
    ("pfc_watchdog", "restoration_ms"): "pfc_watchdog_restoration",
    ("buffer_profiles", "dynamic_th"): "alpha",
}


def rendered_value_error(error: RenderValueError, switches: tuple[SwitchIR, ...], intent: Intent, source_map: SourceMap) -> IntentError:
    """``error`` (the target's message and hint) at the intent field behind its IR path;
    ``switches`` are the target's view of the compiled switches."""
    switch = next((s for s in switches if s.name == error.switch), None)
    path = _input_path(intent, source_map, switch, error.ir_path) if switch is not None else ("topology",)
    if error.ir_path == ("ports",):
        # The whole port list is at fault, not the one entry or generator field whose line is
        # shown: the place is that line without a field path (which would name one port entry).
        line, column, _field = source_map.locate(path)
        return IntentError(error.message, place=f"{source_map.file}:{line}:{column}", hint=error.hint)
    return source_map.error(path, error.message, error.hint)


def _input_path(intent: Intent, source_map: SourceMap, switch: SwitchIR, ir_path: Path) -> Path:
    if ir_path == ("ports",):  # the switch's port list as a whole: what gives it its ports
        return switch_ports_path(intent, source_map, switch.name)
    if len(ir_path) >= 2:
        design = _DESIGN_FIELDS.get((str(ir_path[0]), str(ir_path[-1])))
        if design is not None:
            return ("design", design)
    if len(ir_path) == 5 and ir_path[0] == "wred_profiles" and ir_path[2] == "curves":
        wred_index, curve_index, attribute = ir_path[1], ir_path[3], ir_path[4]
        assert isinstance(wred_index, int) and isinstance(curve_index, int)
        wred = switch.wred_profiles[wred_index]
        spec = _wred_class(intent, switch, wred.name)
        if spec is not None:
            return _threshold_input(intent, spec, wred.curves[curve_index].color, str(attribute))
    return ("topology",)  # headroom, pool and port values follow the topology's ports, speeds and cables


def _wred_class(intent: Intent, switch: SwitchIR, wred_name: str) -> ClassSpec | None:
    """The intent class whose queues use the WRED profile (the IR's queues name their class)."""
    used_by = (q.class_name for port in switch.ports for q in port.queues if q.wred_profile == wred_name)
    class_name = next(used_by, None)
    return next((s for s in intent.classes if s.name == class_name), None)


def _threshold_input(intent: Intent, spec: ClassSpec, color: str, attribute: str) -> Path:
    """The class input that sets a WRED threshold: a given DCQCN K_min/K_max or TLT K, else the RTT."""
    index = intent.classes.index(spec)
    known, block = transport(spec.transport), spec.parameters()
    if known.block is not None and known.marking_fields is not None and block is not None:
        low, high = known.marking_fields
        if attribute == "max_bytes" and getattr(block, high) is not None:
            return ("classes", index, known.block, high)
        if attribute == "min_bytes" and getattr(block, low) is not None:
            return ("classes", index, known.block, low)
    if color == "red" and spec.tlt is not None and spec.tlt.threshold is not None:
        return ("classes", index, "tlt", "threshold")
    return rtt_input_path(intent, spec)


__all__ = ["rendered_value_error"]
