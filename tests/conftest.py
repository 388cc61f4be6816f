"""Fixtures shared by every test folder: the figures a command saves, read back for their axes;
the compiled-intent cache of a run; fewer hypothesis examples in the default tier."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

pytest_plugins = ("pytester",)  # tests/test_conftest.py runs pytest on the tiers below

_CACHE = "QOSFORGE_CACHE_DIR"


def distribution(current: str, args: Sequence[str]) -> str:
    """xdist's distribution for a run: per file (``loadfile``) where ``-n`` left xdist's default
    per-test ``load`` and the command names none, so each test file runs whole in one worker: a
    module's fixtures (a compiled fabric, certificates, a rendered document) are built once, not
    in every worker, and its tests reuse the worker's render and compile caches (16-20 CPU s less
    on 2 workers, docs/speed.md). Set here rather than in addopts, so ``-p no:xdist`` still runs."""
    named = any(arg in ("--dist", "-d", "--distload") or arg.startswith("--dist=") for arg in args)
    return "loadfile" if current == "load" and not named else current


def pytest_configure(config: pytest.Config) -> None:
    """One compiled-intent cache (qosforge/api/compile_cache.py) for the whole run, shared by the
    xdist workers and the CLI subprocesses (they inherit it): never the user's own cache. Under
    ``-n``, each test file whole in one worker (:func:`distribution`)."""
    if hasattr(config.option, "dist"):  # xdist's option; absent under -p no:xdist
        args = [*config.invocation_params.args, *os.environ.get("PYTEST_ADDOPTS", "").split()]
        config.option.dist = distribution(config.option.dist, args)
    if _CACHE not in os.environ:
        os.environ[_CACHE] = tempfile.mkdtemp(prefix="qosforge-test-cache-")
        config.stash[_CACHE_KEY] = os.environ[_CACHE]
    # At exit the interpreter's last garbage collections traverse every object the run left
    # alive (pyangbind's node classes, compiled fabrics, imported modules: 1-2 CPU s in each
    # xdist worker, docs/speed.md); frozen, they are skipped. The atexit handlers registered
    # before this one still run after it, and nothing a test checks happens at exit.
    atexit.register(gc.freeze)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_CACHE_KEY, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(_CACHE, None)


_CACHE_KEY = pytest.StashKey[str]()


def bytecode_note(dont_write_bytecode: bool, rewritten_cached: bool) -> list[str]:
    """The line a run ends with when Python writes no bytecode (``PYTHONDONTWRITEBYTECODE``) and
    none was left by an earlier run: every xdist worker then compiles qosforge's sources and
    pytest rewrites every test module's asserts again at collection (~9.8 CPU s a process instead
    of ~3.5, docs/speed.md), and so does every later run. Said, not overridden: the variable is
    the user's choice (.ci/run, on a clone it throws away, clears it)."""
    if not dont_write_bytecode or rewritten_cached:
        return []
    return ["PYTHONDONTWRITEBYTECODE is set: each worker compiles the sources and rewrites the "
            "test modules again (~6 CPU s a worker, docs/speed.md); unset it to reuse bytecode"]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # pytest's own name for a rewritten module's bytecode (_pytest/assertion/rewrite.py PYC_TAIL).
    cached = any(Path(__file__).parent.glob("__pycache__/conftest.*-pytest-*.pyc"))
    for line in bytecode_note(bool(sys.flags.dont_write_bytecode), cached):
        terminalreporter.write_line(line)

#: The default tier runs each property test with this fraction of the examples its ``@settings``
#: asks for (at least :data:`QUICK_EXAMPLES_FLOOR`); every tier (``-m ''``, as .ci/run runs)
#: runs them all.
QUICK_EXAMPLES_DIVISOR = 4
QUICK_EXAMPLES_FLOOR = 10


def quick_examples(max_examples: int) -> int:
    """The examples a property test asking for ``max_examples`` runs in the default tier."""
    return min(max_examples, max(QUICK_EXAMPLES_FLOOR, max_examples // QUICK_EXAMPLES_DIVISOR))


def every_tier(config: pytest.Config) -> bool:
    """Whether this run selects every tier: an empty mark expression (``pytest -m ''``)."""
    return not str(config.getoption("markexpr", "")).strip()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Outside the every-tier run, scale each hypothesis test's ``max_examples`` down
    (:func:`quick_examples`). The test's settings live on its function as hypothesis's own
    pytest plugin keeps them (``_hypothesis_internal_use_settings``, which that plugin also
    replaces for parametrized tests); without that attribute a test keeps its full count."""
    if every_tier(config):
        return
    from hypothesis import settings

    scaled: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        test = getattr(test, "__func__", test)  # a method's function
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)
        if not isinstance(chosen, settings) or id(test) in scaled:
            continue  # not a property test, or one function under several parameters
        scaled.add(id(test))
        quick = settings(chosen, max_examples=quick_examples(chosen.max_examples))
        test._hypothesis_internal_use_settings = quick  # type: ignore[union-attr]


class SavedFigures:
    """Every matplotlib figure saved while the fixture is active, kept after ``plt.close``, with
    checks that what was drawn can be seen: each line's finite points inside its axes' limits, no
    offset or scale factor on a tick axis (a constant series drawn as swings around "+9.65"), and
    no legend on top of a drawn point."""

    def __init__(self) -> None:
        self.figures: list[object] = []
        self.renderers: list[object] = []
        """The renderer each figure was drawn with (``plt.close`` replaces its Agg canvas)."""

    def only(self) -> object:
        assert len(self.figures) == 1, f"{len(self.figures)} figures saved"
        return self.figures[0]

    def assert_readable(self) -> None:
        assert self.figures, "no figure was saved"
        for figure, renderer in zip(self.figures, self.renderers, strict=True):
            for axes in figure.axes:  # type: ignore[attr-defined]
                if not axes.axison:
                    continue
                _assert_lines_inside(axes)
                _assert_no_offset(axes)
                _assert_legend_clear(renderer, axes)


def _assert_lines_inside(axes: object) -> None:
    (x_low, x_high), (y_low, y_high) = sorted(axes.get_xlim()), sorted(axes.get_ylim())  # type: ignore[attr-defined]
    for line in axes.get_lines():  # type: ignore[attr-defined]
        x, y = (np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float))
        finite = np.isfinite(x) & np.isfinite(y)
        if not finite.any():
            continue
        x, y = x[finite], y[finite]
        label = line.get_label()
        assert x_low <= x.min() and x.max() <= x_high, f"{label!r}: x {x.min():g}..{x.max():g} outside {x_low:g}..{x_high:g}"
        assert y_low <= y.min() and y.max() <= y_high, f"{label!r} ({axes.get_ylabel()}): y {y.min():g}..{y.max():g} outside {y_low:g}..{y_high:g}"  # type: ignore[attr-defined]


def _assert_no_offset(axes: object) -> None:
    # ScalarFormatter.offset is the additive offset (the "+9.65" corner label); a power-of-ten
    # scale factor ("1e7") is fine: the tick values still read as the data.
    for axis in (axes.xaxis, axes.yaxis):  # type: ignore[attr-defined]
        offset = getattr(axis.get_major_formatter(), "offset", 0)
        assert offset == 0, f"{axes.get_ylabel()!r}: tick labels read relative to an offset {offset!r}"  # type: ignore[attr-defined]


def _assert_legend_clear(renderer: object, axes: object) -> None:
    legend = axes.get_legend()  # type: ignore[attr-defined]
    if legend is None:
        return
    box = legend.get_window_extent(renderer)
    for line in axes.get_lines():  # type: ignore[attr-defined]
        points = np.column_stack([np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)])
        points = points[np.isfinite(points).all(axis=1)]
        if points.size == 0:
            continue
        shown = line.get_transform().transform(points)
        covered = (shown[:, 0] > box.x0) & (shown[:, 0] < box.x1) & (shown[:, 1] > box.y0) & (shown[:, 1] < box.y1)
        assert not covered.any(), f"the legend covers {int(covered.sum())} points of {line.get_label()!r}"


@pytest.fixture
def saved_figures(monkeypatch: pytest.MonkeyPatch) -> Iterator[SavedFigures]:
    """Record every figure passed to ``Figure.savefig`` (the file is still written)."""
    from matplotlib.figure import Figure

    saved = SavedFigures()
    original = Figure.savefig

    def savefig(self: Figure, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        saved.figures.append(self)
        saved.renderers.append(self.canvas.get_renderer())  # type: ignore[attr-defined]

    monkeypatch.setattr(Figure, "savefig", savefig)
    yield saved
