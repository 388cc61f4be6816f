"""The target registry: every backend is one registered :class:`Target` (as pyang's output plugins
register a format name, their options and an emitter).

A target declares its name, the named approximations it offers, its *capability view* of the IR
(what it can express of a switch: the switch unchanged, the switch with an accepted approximation
applied and recorded as a :class:`~qosforge.ir.CapabilityGap`, or a :class:`CapabilityRefusal`
naming the alternatives) and its renderer (switches in, files out). The intent schema, the CLI's
``--target`` choices, the compiler's capability step and ``compile``'s render loop all read this
registry, so adding a backend is one folder with a ``target`` module and one line in
:data:`BACKEND_MODULES`.

Target modules stay light (the IR and plain data): renderers are imported when a target renders.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from qosforge.ir import SwitchIR

#: One line per backend: the module that defines its ``TARGET``.
BACKEND_MODULES = (
    "qosforge.backends.sonic.target",
    "qosforge.backends.sai.target",
    "qosforge.backends.openconfig.target",
    "qosforge.backends.host.target",
)


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


@functools.cache
def _targets() -> dict[str, Target]:
    registered: dict[str, Target] = {}
    for module_name in BACKEND_MODULES:
        target: Target = importlib.import_module(module_name).TARGET
        if target.name in registered:
            raise RuntimeError(f"target {target.name!r} registered twice ({module_name})")
        registered[target.name] = target
    return registered


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


def render_targets(targets: Iterable[str], switches_for: Callable[[str], tuple[SwitchIR, ...]]) -> Iterator[RenderedFile]:
    """The render loop: every file of every selected target."""
    for name in targets:
        yield from get_target(name).render(switches_for(name))


__all__ = [
    "BACKEND_MODULES",
    "Approximation",
    "CapabilityRefusal",
    "CapabilityView",
    "Refused",
    "RenderedFile",
    "Renderer",
    "Target",
    "approximation_names",
    "get_target",
    "render_targets",
    "target_names",
]
