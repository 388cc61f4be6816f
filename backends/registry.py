"""The target registry: every backend is one registered :class:`Target` (as pyang's output plugins
register a format name, their options and an emitter).

A target declares its name, the named approximations it offers, its *capability view* of the IR
(what it can express of a switch: the switch unchanged, the switch with an accepted approximation
applied and recorded as a :class:`~qosforge.ir.CapabilityGap`, or a :class:`CapabilityRefusal`
naming the alternatives), its renderer (switches in, files out) and every further phase it
supports (:mod:`qosforge.backends.phases`: explain, patch against a running config, the file lint
reads, delivery); a phase left ``None`` is absent and the command needing it refuses the target
by name (:func:`require_phase`). A value the renderer cannot carry is raised as
:class:`~qosforge.backends.phases.RenderValueError` (switch, IR path), which the compiler places
at the intent field behind it. The intent schema, the CLI's ``--target`` choices, the compiler's
capability step and every command's phase all read this registry, so adding a backend is one
folder with a ``target`` module and one entry in the ``qosforge.targets`` entry-point group
(qosforge/plugins.py for a built-in, a plugin's own metadata otherwise; docs/extending/target.md);
the compiler imports no backend but this registry (an import-linter contract in pyproject.toml).

Target modules stay light (the IR and plain data): renderers are imported when a target renders.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from qosforge import plugins
from qosforge.backends.phases import (
    Delivery,
    Explainer,
    LintReader,
    Patcher,
    PhaseNotSupported,
    RenderValueError,
)
from qosforge.ir import SwitchIR


@dataclass(frozen=True)
class RenderedFile:
    """One output file of a switch: ``<output>/<switch>/<file_name>``."""

    switch: str
    file_name: str
    text: str


@dataclass(frozen=True)
class Refused:
    """Why one class cannot be expressed by a target, and what the operator can do instead."""

    class_name: str
    message: str
    hint: str
    intent_block: str | None
    """The class's intent field that asks for it (``tlt``): where the compile error points
    (``None``: nothing in the class asks for it; the error points at ``targets``)."""


class CapabilityRefusal(Exception):
    """A target cannot express part of a switch's IR and no accepted approximation covers it.

    The compiler turns it into an intent error at the first refused class (in intent order)."""

    def __init__(self, refused: tuple[Refused, ...]) -> None:
        super().__init__(refused[0].message)
        self.refused = refused


CapabilityView = Callable[[SwitchIR, frozenset[str]], SwitchIR]
Renderer = Callable[[tuple[SwitchIR, ...]], Iterable[RenderedFile]]


@dataclass(frozen=True)
class Approximation:
    name: str
    summary: str


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    file_names: tuple[str, ...]
    """The files written per switch (for help texts and the summary)."""
    view: CapabilityView
    render: Renderer
    approximations: tuple[Approximation, ...] = ()
    model: Callable[[], str] | None = None
    """The data model and revision the output follows, named in the report (read lazily)."""
    explain: Explainer | None = None
    """``qosforge explain``; None: the target explains nothing."""
    patch: Patcher | None = None
    """``compile --base``; None: no patch against a running config."""
    lint: LintReader | None = None
    """``qosforge lint``; None: lint does not read this target's output."""
    delivery: Delivery | None = None
    """``qosforge push`` / ``diff``; None: not delivered to devices."""


#: Each optional phase: its Target field and how commands name it in refusals.
PHASES: dict[str, str] = {
    "explain": "explain",
    "patch": "--base (a patch against a running config)",
    "lint": "lint",
    "delivery": "push and diff",
}


#: Targets registered at run time (:func:`register_target`: a test's own), after the entry points'.
_EXTRA: dict[str, Target] = {}


@functools.cache
def _builtin_targets() -> dict[str, Target]:
    registered: dict[str, Target] = {}
    for reference, target in plugins.load(plugins.TARGETS, Target):
        registered[reference.name] = target
    return registered


def _targets() -> dict[str, Target]:
    return {**_builtin_targets(), **_EXTRA} if _EXTRA else _builtin_targets()


def register_target(target: Target) -> None:
    """Add a target at run time (a test's own); a plugin declares it as an entry point."""
    if target.name in _targets():
        raise RuntimeError(f"target {target.name!r} registered twice")
    _EXTRA[target.name] = target


def unregister_target(name: str) -> None:
    """Remove a target added by :func:`register_target`."""
    del _EXTRA[name]


def target_names() -> tuple[str, ...]:
    return tuple(_targets())


def get_target(name: str) -> Target:
    return _targets()[name]


def approximation_names() -> tuple[str, ...]:
    """Every approximation any target offers, in registration order."""
    names: dict[str, None] = {}
    for target in _targets().values():
        names.update((a.name, None) for a in target.approximations)
    return tuple(names)


def targets_supporting(phase: str) -> tuple[str, ...]:
    """The registered targets that own ``phase`` (a key of :data:`PHASES`), in registration order."""
    return tuple(name for name, target in _targets().items() if getattr(target, phase) is not None)


def require_phase(target_name: str, phase: str, *, place: str = "--target") -> Target:
    """``target_name``'s target when it owns ``phase``; else a one-line refusal naming the
    targets that do (exit 2)."""
    target = get_target(target_name)
    if getattr(target, phase) is not None:
        return target
    names = ", ".join(targets_supporting(phase)) or "none"
    raise PhaseNotSupported(f"target '{target_name}' does not support {PHASES[phase]}",
                            place=place, hint=f"targets that support it: {names}")


def render_targets(targets: Iterable[str], switches_for: Callable[[str], tuple[SwitchIR, ...]]) -> Iterator[RenderedFile]:
    """The render loop: every file of every selected target."""
    for name in targets:
        yield from get_target(name).render(switches_for(name))


__all__ = [
    "PHASES",
    "Approximation",
    "CapabilityRefusal",
    "CapabilityView",
    "Refused",
    "RenderValueError",
    "RenderedFile",
    "Renderer",
    "Target",
    "approximation_names",
    "get_target",
    "register_target",
    "render_targets",
    "require_phase",
    "target_names",
    "targets_supporting",
    "unregister_target",
]
