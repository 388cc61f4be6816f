"""Numbers as people read them: the presentation boundary of every JSON document qosforge prints
or writes (whatif, explain, fit, simulate, report.json, lint).

Models compute in binary floating point, so 12 MB/30 comes out as 399999.99999999994 and
0.1 + 0.2 as 0.30000000000000004. Those digits are noise far below any input's precision; shown,
they make a reader doubt the value and defeat text comparison across runs. :func:`tidy` rounds
each float to 12 significant digits *when it is written out*; the models and the values they pass
on keep full precision (nothing here is imported by a model).
"""

from __future__ import annotations

import math
from typing import Any

#: Far above any input's precision (rates, sizes and times carry at most ~6 significant digits),
#: far below a double's ~15.9: removes representation noise and nothing else.
SIGNIFICANT_DIGITS = 12


def presentable(value: float) -> float:
    """``value`` rounded to :data:`SIGNIFICANT_DIGITS` (0, infinities and NaN unchanged)."""
    if value == 0.0 or not math.isfinite(value):
        return value
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


def tidy(document: Any) -> Any:
    """A copy of a JSON-able ``document`` with every float :func:`presentable` (bools and ints,
    which JSON writes exactly, are left alone)."""
    if isinstance(document, float):
        return presentable(document)
    if isinstance(document, dict):
        return {key: tidy(value) for key, value in document.items()}
    if isinstance(document, (list, tuple)):
        return [tidy(value) for value in document]
    return document


def as_text(value: object) -> str:
    """``str(value)``, a float :func:`presentable` first (table cells of inputs)."""
    return str(presentable(value)) if isinstance(value, float) else str(value)


__all__ = ["PIPE_WIDTH", "SIGNIFICANT_DIGITS", "as_text", "output_width", "presentable", "tidy"]


#: Width of human output written to a pipe or file: wide enough that no table cell wraps (a CI log
#: scrolls sideways; it cannot un-wrap a cut cell).
PIPE_WIDTH = 240


def output_width(minimum: int) -> int:
    """The width to lay out human output at: the terminal's (at least ``minimum``), or
    :data:`PIPE_WIDTH` without a terminal, where rich would otherwise assume 80 columns and wrap
    the compile summary's cells at the right border. Tables still take only the width they need."""
    from rich.console import Console

    console = Console()
    return max(minimum, console.width) if console.is_terminal else max(minimum, PIPE_WIDTH)

