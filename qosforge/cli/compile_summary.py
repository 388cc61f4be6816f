"""What ``qosforge compile`` prints: a fabric summary by default, every table with ``--verbose``.

The summary has one row per switch *kind* (switches whose compiled numbers are identical, i.e.
the same profile, port speeds and cables): how many there are, their buffer and ingress pools,
the PFC headroom they need and each class's thresholds, every number formatted by
:func:`qosforge.units.format_value`. Sources are not repeated per row: they are in report.json
and in ``--verbose``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qosforge.units import format_value

if TYPE_CHECKING:
    from rich.console import Console

    from qosforge.ir import FabricIR
    from qosforge.outputs import OutputPlan


@dataclass(frozen=True)
class SwitchKind:
    names: tuple[str, ...]
    switch: dict[str, Any]
    """The report entry of the first switch of the kind (all are equal but for names)."""


def _kind_key(switch: dict[str, Any]) -> str:
    comparable = {key: value for key, value in switch.items() if key != "name"}
    comparable["pfc_headroom"] = [{k: v for k, v in group.items() if k != "ports"} for group in switch["pfc_headroom"]]
    return json.dumps(comparable, sort_keys=True)


def switch_kinds(report: dict[str, Any]) -> list[SwitchKind]:
    """Group the report's switches by identical compiled content, in first-seen order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for switch in report["switches"]:
        groups.setdefault(_kind_key(switch), []).append(switch)
    return [SwitchKind(tuple(s["name"] for s in members), members[0]) for members in groups.values()]


def names_text(names: tuple[str, ...]) -> str:
    """Switch names, numbered runs folded: ``leaf1..leaf12, spine1..spine4``."""
    pattern = re.compile(r"^(.*?)(\d+)$")
    runs: list[tuple[str, int, int]] = []  # (prefix, first, last) in order; last < 0: no number
    for name in names:
        match = pattern.match(name)
        if match is None:
            runs.append((name, -1, -1))
            continue
        prefix, number = match.group(1), int(match.group(2))
        if runs and runs[-1][0] == prefix and runs[-1][2] == number - 1 and runs[-1][1] >= 0:
            runs[-1] = (prefix, runs[-1][1], number)
        else:
            runs.append((prefix, number, number))
    parts = [prefix if first < 0 else f"{prefix}{first}" if first == last else f"{prefix}{first}..{prefix}{last}"
             for prefix, first, last in runs]
    return ", ".join(parts[:4]) + (f", … (+{len(parts) - 4} more)" if len(parts) > 4 else "")


def _quantity(q: dict[str, Any] | None) -> str:
    return "-" if q is None else format_value(float(q["value"]), q["unit"], exact=False)


def _headroom_text(switch: dict[str, Any]) -> str:
    lines = []
    for group in switch["pfc_headroom"]:
        speed = format_value(group["speed_bps"], "bps")
        for profile in group["profiles"]:
            lines.append(f"{speed} {group['cable_m']:g} m: xoff {_quantity(profile['xoff'])}, size {_quantity(profile['size'])}")
    return "\n".join(dict.fromkeys(lines)) or "-"


#: Short names for the summary (the report's labels are the long, unambiguous ones).
_SHORT_LABELS = {
    "ecn_marking_threshold_bytes": "ECN K",
    "tlt_color_drop_threshold_bytes": "TLT K",
    "kmin_bytes": "K_min",
    "kmax_bytes": "K_max",
    "pmax_percent": "P_max",
    "t_min_bytes": "t_min",
    "t_max_bytes": "t_max",
    "error_kilobytes": "fit error",
}


def _thresholds_text(cls: dict[str, Any]) -> str:
    numbers = [f"{_SHORT_LABELS.get(item.get('label', item['quantity']), item['quantity'])} {_quantity(item)}" for item in cls["thresholds"]]
    text = ", ".join(numbers) or "-"
    # A switch with several port speeds has one row per speed: say which.
    return f"{format_value(cls['speed_bps'], 'bps')}: {text}" if cls.get("speed_bps") else text


def render_summary(report: dict[str, Any], console: Console) -> None:
    from rich.table import Table

    kinds = switch_kinds(report)
    count = len(report["switches"])
    title = (f"Fabric {report['fabric']}: {count} switch{'es' if count != 1 else ''}, {len(kinds)} kind{'s' if len(kinds) != 1 else ''}, "
             f"targets {', '.join(report['targets']) or '-'}")
    table = Table(title=title, title_justify="left")
    # The switches column is at least as wide as its longest name range, so a narrow terminal wraps
    # between ranges ("pod1-leaf1..pod1-leaf4," on one line), never inside one.
    longest_range = max((len(part) + 1 for kind in kinds for part in names_text(kind.names).split(", ")), default=8)
    for column in ("switches", "count", "profile", "buffer", "ingress pools", "PFC headroom (lossless PGs)"):
        table.add_column(column, overflow="fold", min_width=longest_range if column == "switches" else None)
    for kind in kinds:
        switch = kind.switch
        totals = switch["pool_totals"]
        verdict = "" if totals["ingress_fits"] else " OVERCOMMITTED"
        pools = f"{format_value(totals['ingress_bytes'], 'B', exact=False)} ({totals['ingress_fraction_of_buffer']:.1%}){verdict}"
        table.add_row(names_text(kind.names), str(len(kind.names)), switch["vendor_profile"], _quantity(switch["buffer"]), pools,
                      _headroom_text(switch))
    console.print(table)
    classes = Table(title="Classes", title_justify="left")
    for column in ("class", "transport", "TC/queue/PG", "switches", "thresholds"):
        classes.add_column(column, overflow="fold")
    rows: dict[tuple[str, str, str, str], list[str]] = {}
    for kind in kinds:
        for cls in kind.switch["classes"]:
            pg = "-" if cls["priority_group"] is None else str(cls["priority_group"])
            transport = cls["transport"] + (" (lossless)" if cls["lossless"] else "")
            key = (cls["name"], transport, f"{cls['traffic_class']}/{cls['queue']}/{pg}", _thresholds_text(cls))
            rows.setdefault(key, []).extend(kind.names)
    for (name, transport, mapping, thresholds), names in rows.items():
        shown = "all" if len(names) == count else names_text(tuple(names))
        classes.add_row(name, transport, mapping, shown, thresholds)
    console.print(classes)
    gaps = {(gap["target"], gap["class"], gap["feature"], gap["approximation"] or "") for s in report["switches"] for gap in s["gaps"]}
    for target, class_name, feature, approximation in sorted(gaps):
        what = f"approximated ({approximation})" if approximation else "unresolved"
        console.print(f"{target}: class {class_name}: {feature} {what}", markup=False)


def print_compile_summary(fabric: FabricIR, report: dict[str, Any], *, verbose: bool, output_dir: Path, plan: OutputPlan) -> None:
    from rich.console import Console

    from qosforge.presentation import output_width

    console = Console(highlight=False, markup=False, width=output_width(110))
    if verbose:
        from qosforge.api.compile import print_report_tables

        print_report_tables(fabric, console)
    else:
        render_summary(report, console)
    written = [path for path in plan.writes if path != "report.json"]
    kinds = sorted({Path(path).name for path in written})
    line = f"wrote {len(written)} file(s) ({', '.join(kinds)}) and report.json to {output_dir}/"
    if plan.removals:
        line += f"; removed {len(plan.removals)} stale file(s) of earlier runs"
    console.print(line, markup=False, soft_wrap=True)
    for path in plan.kept_modified:
        console.print(f"kept {output_dir / path}: changed since qosforge wrote it (no longer in the manifest)", markup=False, soft_wrap=True)
    if not verbose:
        console.print("every table: --verbose; sources of every number: report.json or qosforge explain", markup=False, soft_wrap=True)


__all__ = ["SwitchKind", "names_text", "print_compile_summary", "render_summary", "switch_kinds"]
