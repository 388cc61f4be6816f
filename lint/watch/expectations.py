"""What the compiler predicted, per switch, port and class: read from a compile output folder's
``report.json`` (layout: :mod:`qosforge.backends.report`). Every predicted number keeps the
provenance the report gives it (model, formula, source), so a finding can show it.

A report that is missing, not JSON, or not a qosforge report is bad input (exit 2) named by file
and JSON path, never a traceback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qosforge.errors import QosforgeError

REPORT_FILE = "report.json"
REPORT_SCHEMA = "qosforge.report/v1"


class ExpectationError(QosforgeError):
    """An unusable compile output folder or report (exit code 2)."""


@dataclass(frozen=True)
class Predicted:
    """A predicted number and where it comes from (a report quantity)."""

    value: float
    unit: str
    quantity: str
    formula: str
    source: str

    def values(self, prefix: str = "predicted") -> dict[str, float | str]:
        return {prefix: self.value, f"{prefix}_unit": self.unit, f"{prefix}_quantity": self.quantity,
                f"{prefix}_formula": self.formula, f"{prefix}_source": self.source}


@dataclass(frozen=True)
class MarkingCurve:
    """The class's ECN marking curve (a WRED profile curve with ``mark``): marking starts above
    ``min``, is certain above ``max``; ``probability`` (percent) is P_max at ``max``."""

    color: str
    min: Predicted
    max: Predicted
    probability: Predicted


@dataclass(frozen=True)
class ClassExpectation:
    name: str
    transport: str
    queue: int
    priority_group: int | None
    lossless: bool
    dscp: tuple[int, ...]
    marking: MarkingCurve | None
    tlt_threshold: Predicted | None


@dataclass(frozen=True)
class HeadroomExpectation:
    profile: str
    xoff: Predicted
    size: Predicted


@dataclass(frozen=True)
class WatchdogExpectation:
    detection_ms: int
    restoration_ms: int
    action: str
    source: str


@dataclass(frozen=True)
class SwitchExpectation:
    name: str
    classes: tuple[ClassExpectation, ...]
    control_queues: dict[int, str]
    """Queues of the compiler's control classes (RoCE CNPs, FastLane): planned, lossy."""
    headroom: dict[str, HeadroomExpectation]
    """Per port with lossless priority groups: the headroom profile the compiler sized."""
    watchdog: WatchdogExpectation | None
    report: str

    def class_of_queue(self, queue: int) -> ClassExpectation | None:
        return next((c for c in self.classes if c.queue == queue), None)

    def class_of_pg(self, pg: int) -> ClassExpectation | None:
        return next((c for c in self.classes if c.priority_group == pg), None)

    def planned_queues(self) -> dict[int, str]:
        return {**self.control_queues, **{c.queue: c.name for c in self.classes}}


def _fail(path: Path, where: str, message: str) -> ExpectationError:
    return ExpectationError(f"{where}: {message}" if where else message, place=str(path),
                            hint="give the output folder of qosforge compile (it holds report.json); recompile if it is from another version")


def _get(node: Any, key: str, path: Path, where: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(node, dict) or key not in node:
        raise _fail(path, where, f"missing {key!r}")
    value = node[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float, (int, float))):
        raise _fail(path, f"{where}.{key}", f"expected {getattr(kind, '__name__', 'a value')}, found {type(value).__name__}")
    return value


def _predicted(node: Any, path: Path, where: str) -> Predicted:
    if not isinstance(node, dict):
        raise _fail(path, where, "expected a quantity object")
    value = _get(node, "value", path, where, (int, float))
    return Predicted(float(value), str(node.get("unit") or ""), str(node.get("quantity") or ""),
                     str(node.get("formula") or ""), str(node.get("source") or ""))


def _marking(cls: dict[str, Any], path: Path, where: str) -> MarkingCurve | None:
    curves = [w for w in cls.get("wred", []) if isinstance(w, dict) and w.get("mark")]
    if not curves:
        return None
    # The green curve is what ECN-capable data packets see; any marking curve if there is none.
    curve = next((c for c in curves if c.get("color") == "green"), curves[0])
    index = cls["wred"].index(curve)
    at = f"{where}.wred[{index}]"
    return MarkingCurve(str(curve.get("color")), _predicted(curve.get("min"), path, f"{at}.min"),
                        _predicted(curve.get("max"), path, f"{at}.max"), _predicted(curve.get("probability"), path, f"{at}.probability"))


def _class(cls: Any, path: Path, where: str) -> ClassExpectation:
    name = _get(cls, "name", path, where, str)
    pg = cls.get("priority_group")
    if pg is not None and (not isinstance(pg, int) or isinstance(pg, bool)):
        raise _fail(path, f"{where}.priority_group", "expected an integer or null")
    tlt = next((t for t in cls.get("thresholds", []) if isinstance(t, dict) and t.get("label") == "tlt_color_drop_threshold_bytes"), None)
    return ClassExpectation(
        name=name, transport=str(cls.get("transport", "")), queue=_get(cls, "queue", path, where, int), priority_group=pg,
        lossless=bool(_get(cls, "lossless", path, where, bool)), dscp=tuple(cls.get("dscp", [])),
        marking=_marking(cls, path, where),
        tlt_threshold=None if tlt is None else _predicted(tlt, path, f"{where}.thresholds[tlt]"))


def _headroom(switch: dict[str, Any], path: Path, where: str) -> dict[str, HeadroomExpectation]:
    out: dict[str, HeadroomExpectation] = {}
    for g, group in enumerate(switch.get("pfc_headroom", [])):
        at = f"{where}.pfc_headroom[{g}]"
        profiles = _get(group, "profiles", path, at, list)
        if not profiles:
            continue
        profile = profiles[0]
        size = _predicted(profile.get("size"), path, f"{at}.profiles[0].size")
        xoff = _predicted(profile["xoff"], path, f"{at}.profiles[0].xoff") if profile.get("xoff") is not None else size
        for port in _get(group, "ports", path, at, list):
            out[str(port)] = HeadroomExpectation(str(profile.get("name", "")), xoff, size)
    return out


def _switch(switch: Any, path: Path, where: str) -> SwitchExpectation:
    name = _get(switch, "name", path, where, str)
    classes = tuple(_class(c, path, f"{where}.classes[{i}]") for i, c in enumerate(_get(switch, "classes", path, where, list)))
    control = {int(c["queue"]): str(c["name"]) for c in switch.get("control_classes", []) if isinstance(c, dict) and "queue" in c}
    wd = switch.get("pfc_watchdog")
    watchdog = None if not isinstance(wd, dict) else WatchdogExpectation(
        int(wd.get("detection_ms", 0)), int(wd.get("restoration_ms", 0)), str(wd.get("action", "")), str(wd.get("source", "")))
    return SwitchExpectation(name, classes, control, _headroom(switch, path, where), watchdog, str(path))


def load_expectations(output_dir: Path) -> dict[str, SwitchExpectation]:
    """Every switch's predictions from ``OUTPUT_DIR/report.json``."""
    path = output_dir / REPORT_FILE if output_dir.is_dir() else output_dir
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExpectationError(f"no {REPORT_FILE} here", place=str(output_dir),
                               hint="give the output folder of qosforge compile (qosforge compile INTENT -o OUT)") from None
    except OSError as error:
        raise ExpectationError(f"cannot read: {error.strerror}", place=str(path), hint="check the path and its permissions") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise _fail(path, "", f"not JSON: {error}") from None
    except RecursionError:  # Python's json parser recurses once per [ or {
        raise _fail(path, "", "nested too deeply to be a qosforge report") from None
    if not isinstance(document, dict) or document.get("schema") != REPORT_SCHEMA:
        raise _fail(path, "schema", f"not a qosforge report (expected schema {REPORT_SCHEMA!r})")
    switches = _get(document, "switches", path, "", list)
    return {s.name: s for s in (_switch(item, path, f"switches[{i}]") for i, item in enumerate(switches))}


__all__ = [
    "REPORT_FILE",
    "ClassExpectation",
    "ExpectationError",
    "HeadroomExpectation",
    "MarkingCurve",
    "Predicted",
    "SwitchExpectation",
    "WatchdogExpectation",
    "load_expectations",
]
