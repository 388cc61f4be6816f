"""Small matplotlib helpers every ``--plot`` shares, so what is drawn can be read.

Checked by tests/cli/test_plots_readable.py, which reads each saved figure's axes back."""

from __future__ import annotations

from typing import Any


def plain_ticks(axes: Any) -> None:
    """Tick labels as the values themselves, never ``+9.65`` plus small offsets: matplotlib's
    default offset turns a series constant up to float rounding into swings of 1e-12."""
    for axis in ("x", "y"):
        try:
            axes.ticklabel_format(axis=axis, useOffset=False)
        except AttributeError:  # categorical ticks: no ScalarFormatter to configure
            pass


def legend_beside(axes: Any, fontsize: str = "small") -> None:
    """The legend to the right of the axes, where it cannot cover a trace (a queue held at its
    limit fills any corner inside); ``tight_layout``/``bbox_inches`` make room for it."""
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=fontsize)


__all__ = ["legend_beside", "plain_ticks"]
