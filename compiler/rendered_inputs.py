"""The intent input behind a config_db value the SONiC renderer refused.

The renderer checks its own output against what SONiC accepts (backends/sonic/checks: YANG ranges,
WRED thresholds below 2^31, pools within the ASIC). The intent schema and the compiler refuse the
inputs they know to be out of range (compiler/bounds.py, compiler/reachable.py); a value that
still breaks a config_db field was computed from an input no earlier check bounds, which is bad
input, not a qosforge bug: the error names the config_db field, the value, and the intent field
that drives it (exit 2). Violations of structure (a key or a table rendered wrong, no field) stay
qosforge bugs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from qosforge.backends.sonic.checks.violation import Violation
from qosforge.compiler.intent import ClassSpec, Intent
from qosforge.compiler.loader import IntentError, SourceMap
from qosforge.compiler.reachable import rtt_input_path
from qosforge.transports import transport

Path = tuple[str | int, ...]

#: config_db fields copied from one design input (backends/sonic templates).
_DESIGN_FIELDS: dict[tuple[str, str], str] = {
    ("PFC_WD", "detection_time"): "pfc_watchdog_detection",
    ("PFC_WD", "restoration_time"): "pfc_watchdog_restoration",
    ("LOSSLESS_TRAFFIC_PATTERN", "mtu"): "lossless_mtu",
    ("LOSSLESS_TRAFFIC_PATTERN", "small_packet_percentage"): "small_packet_percent",
    ("BUFFER_PROFILE", "dynamic_th"): "alpha",
}
#: compiler/thresholds.py wred_profile_name: ``<class>_<speed>G`` with ``.`` written ``p``.
_PER_SPEED_NAME = re.compile(r"(?P<class_name>.+)_[0-9p]+G")


def rendered_value_error(switch: str, violations: Sequence[Violation], intent: Intent, source_map: SourceMap) -> IntentError | None:
    """A positioned error for the first refused config_db value, or None when no violation is about
    a value (then the renderer is at fault)."""
    values = [(v, v.field) for v in violations if v.field is not None]
    if not values:
        return None
    first, field = values[0]
    more = f" (and {len(values) - 1} more value(s))" if len(values) > 1 else ""
    return source_map.error(
        _input_path(intent, first.table, first.key, field),
        f"switch '{switch}': the rendered config_db value {first.table}|{first.key}.{field} is refused: "
        f"{first.message}{more}; it is computed from this input",
        "bring this input into the range config_db takes (qosforge explain shows how the value is derived)",
    )


def _input_path(intent: Intent, table: str, key: str, field: str) -> Path:
    design = _DESIGN_FIELDS.get((table, field))
    if design is not None:
        return ("design", design)
    if table == "WRED_PROFILE":
        spec = _wred_class(intent, key)
        if spec is not None:
            return _threshold_input(intent, spec, field)
    return ("topology",)  # headroom, pool and port values follow the topology's ports, speeds and cables


def _wred_class(intent: Intent, profile_name: str) -> ClassSpec | None:
    from qosforge.backends.sonic.render import (
        LOSSLESS_WRED_NAME,  # the name the renderer gives the lossless class's profile
    )

    if profile_name == LOSSLESS_WRED_NAME:
        return next((s for s in intent.classes if s.lossless), None)
    named = _PER_SPEED_NAME.fullmatch(profile_name)  # compiler/thresholds.py wred_profile_name: <class>_<speed>G
    return next((s for s in intent.classes if named is not None and s.name == named["class_name"]), None)


def _threshold_input(intent: Intent, spec: ClassSpec, field: str) -> Path:
    """The class input that sets a WRED threshold: a given DCQCN K_min/K_max or TLT K, else the RTT."""
    index = intent.classes.index(spec)
    known, block = transport(spec.transport), spec.parameters()
    if known.block is not None and known.marking_fields is not None and block is not None:
        low, high = known.marking_fields
        if field.endswith("max_threshold") and getattr(block, high) is not None:
            return ("classes", index, known.block, high)
        if field.endswith("min_threshold") and getattr(block, low) is not None:
            return ("classes", index, known.block, low)
    if field.startswith("red_") and spec.tlt is not None and spec.tlt.threshold is not None:
        return ("classes", index, "tlt", "threshold")
    return rtt_input_path(intent, spec)


__all__ = ["rendered_value_error"]
