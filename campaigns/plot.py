"""``--plot FILE.png``: each numeric output against the first swept parameter, one line per
combination of the other swept parameters (the row order is the grid's, so lines are sorted).

The x axis is numeric when the first parameter's values are numbers in one unit (``10us``,
``40us``), and categorical otherwise (transports, intents). Outputs that take one value over the
whole campaign are listed under the figure instead of drawn as flat lines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qosforge.campaigns.grid import Axis
from qosforge.campaigns.point import param_text
from qosforge.campaigns.store import Row
from qosforge.campaigns.table import flatten
from qosforge.errors import UnitError
from qosforge.files import write_atomically
from qosforge.plotting import legend_beside, plain_ticks
from qosforge.units import split_quantity

#: Lines drawn per panel before the rest are left out (and said so in the legend).
MAX_LINES = 12


def _x_positions(axis: Axis) -> tuple[list[float], str, list[str] | None]:
    """Numeric positions, the unit, and tick labels when the axis is categorical."""
    try:
        split = [split_quantity(value) if isinstance(value, str) else (float(value), "") for value in axis.values]
    except UnitError:
        split = []
    units = {unit for _, unit in split}
    if split and len(units) == 1:
        return [number for number, _ in split], units.pop(), None
    return [float(index) for index in range(len(axis.values))], "", [param_text(value) for value in axis.values]


def numeric_outputs(rows: Sequence[Row]) -> dict[str, list[float | None]]:
    """Every numeric result leaf (bools are not numbers here), one value per row."""
    flat = [flatten(row.result or {}) for row in rows]
    names = list(dict.fromkeys(name for item in flat for name in item))
    outputs: dict[str, list[float | None]] = {}
    for name in names:
        values = [item.get(name) for item in flat]
        numbers = [value for value in values if value is not None]
        if numbers and all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in numbers):
            outputs[name] = [None if value is None else float(value) for value in values]
    return outputs


def _constant(values: Sequence[float]) -> bool:
    """One value up to float rounding (a link's goodput 9.65 and 9.65 + 1e-12 from two seeds'
    sums): drawn, it would be swings on an axis of offsets, so it is listed as constant instead."""
    return not values or math.isclose(min(values), max(values), rel_tol=1e-9, abs_tol=1e-12)


def plot_campaign(path: Path, title: str, axes: Sequence[Axis], rows: Sequence[Row]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    ok_rows = [row for row in rows if row.ok]
    # A result key that only echoes a swept parameter (simulate's "flows") is the x axis or a legend.
    outputs = {name: values for name, values in numeric_outputs(ok_rows).items() if name not in {axis.key for axis in axes}}
    varying = {name: values for name, values in outputs.items() if not _constant([value for value in values if value is not None])}
    constant = [f"{name}={next(value for value in values if value is not None):g}" for name, values in outputs.items() if name not in varying]
    x_axis, others = axes[0], axes[1:]
    positions, unit, labels = _x_positions(x_axis)
    position_of = {param_text(value): position for value, position in zip(x_axis.values, positions, strict=True)}
    lines: dict[str, list[int]] = {}
    for index, row in enumerate(ok_rows):
        label = ", ".join(f"{axis.key}={param_text(row.params[axis.key])}" for axis in others) or "all"
        lines.setdefault(label, []).append(index)
    panels = max(1, len(varying))
    columns = min(3, panels)
    figure, subplots = plt.subplots(math.ceil(panels / columns), columns, figsize=(5.2 * columns, 3.2 * math.ceil(panels / columns)), squeeze=False)
    for subplot, (name, values) in zip(subplots.flat, varying.items(), strict=False):
        for count, (label, indices) in enumerate(lines.items()):
            if count == MAX_LINES:
                subplot.plot([], [], " ", label=f"(+{len(lines) - MAX_LINES} more not drawn)")
                break
            points = [(position_of[param_text(ok_rows[i].params[x_axis.key])], values[i]) for i in indices if values[i] is not None]
            points.sort()
            subplot.plot([x for x, _ in points], [y for _, y in points], marker="o", markersize=3, linewidth=1, label=label)
        plain_ticks(subplot)
        subplot.set_title(name, fontsize="small")
        subplot.set_xlabel(f"{x_axis.key} [{unit}]" if unit else x_axis.key, fontsize="small")
        if labels is not None:
            subplot.set_xticks(positions, labels, fontsize="small", rotation=30)
        elif all(isinstance(value, int) for value in x_axis.values):
            # A count (flows, ports) has no 2.5: ticks at whole numbers only.
            subplot.xaxis.set_major_locator(MaxNLocator(integer=True))
        subplot.grid(True, alpha=0.3)
    for subplot in list(subplots.flat)[len(varying):]:
        subplot.axis("off")
    if others and varying:
        legend_beside(subplots.flat[0], fontsize="x-small")
    if not varying:
        subplots.flat[0].text(0.5, 0.5, "no numeric output varies over this campaign", ha="center", va="center")
    footer = "constant: " + ", ".join(constant) if constant else ""
    if len(footer) > 400:
        footer = footer[:400] + " ..."
    figure.suptitle(f"{title} ({len(ok_rows)} of {len(rows)} points ok)")
    # Room for about three lines of footnote and for the title, whatever the figure's height
    # (tight_layout lays out the panels only: in a tall figure the title sat on the first row).
    height = figure.get_figheight()
    figure.tight_layout(rect=(0, 0.5 / height if footer else 0, 1, 1 - 0.4 / height))
    if footer:
        figure.text(0.01, 0.005, footer, fontsize="x-small", wrap=True)
    write_atomically(path, lambda temporary: _save(figure, temporary))
    plt.close(figure)


def _save(figure: Any, temporary: Path) -> None:
    figure.savefig(temporary, dpi=100)


__all__ = ["MAX_LINES", "numeric_outputs", "plot_campaign"]
