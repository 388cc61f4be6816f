"""The phases a target may own besides its capability view and renderer (docs/extending/target.md).

As a pyang output plugin owns its options and the steps it takes part in, a
:class:`~qosforge.backends.registry.Target` owns every phase it supports; a phase it leaves
``None`` is *absent*, and the command that needs it refuses that target by name, listing the
targets that do support it (exit 2). The phases:

- ``explain``: how one rendered value was derived (:class:`Explainer`);
- ``patch``: the change from a device's running config to the compiled one (``compile --base``,
  :class:`Patcher`);
- ``lint``: the file a linter reads back (:class:`LintReader`);
- ``delivery``: the document ``push``/``diff`` send and compare (:class:`Delivery`).

A value a renderer cannot carry (out of the range its output format takes) is raised as one
:class:`RenderValueError` naming the switch and the IR path of the value; the compiler maps the IR
path to the intent field that drives it (compiler/rendered_inputs.py), so every target's value
errors point at FILE:LINE of the intent (exit 2), with no knowledge of the target's file format.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from qosforge.errors import QosforgeError
from qosforge.ir import SwitchIR
from qosforge.provenance import Derivation, InputValue

IrPath = tuple[str | int, ...]
"""A path into one :class:`~qosforge.ir.SwitchIR`: attribute names and tuple indices, e.g.
``("wred_profiles", 2, "curves", 0, "max_bytes")`` or ``("pfc_watchdog", "detection_ms")``."""


class RenderValueError(QosforgeError):
    """A value of ``switch`` at ``ir_path`` that the target's output cannot carry: computed from an
    input no earlier check bounds, so bad input (exit 2), not a qosforge bug.

    ``message`` and ``hint`` are the target's words (what its format refuses and why); the
    compiler puts them at the intent field behind ``ir_path``. Raised outside a compile (the
    software switch renders SAI itself), it is still one located line: ``switch NAME``."""

    def __init__(self, switch: str, ir_path: IrPath, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, place=f"switch {switch}", hint=hint)
        self.switch = switch
        self.ir_path = ir_path

    def with_place(self, place: str) -> QosforgeError:
        return QosforgeError(self.message, place=place, hint=self.hint)


def ir_value(switch: SwitchIR, path: IrPath) -> Any:
    """The object at ``path`` in ``switch`` (attributes by name, tuple items by index)."""
    node: Any = switch
    for part in path:
        node = node[part] if isinstance(part, int) else getattr(node, part)
    return node


@dataclass(frozen=True)
class Explanation:
    """How one rendered value was derived: its model, formula, inputs and source."""

    path: str
    rendered: str
    value: float
    unit: str
    model: str
    quantity: str
    inputs: tuple[InputValue, ...]
    derivations: tuple[Derivation, ...]


@dataclass(frozen=True)
class Explainer:
    """``qosforge explain``: ``subject`` says which option names what is explained (``--switch NAME``
    or ``--host KIND``); with ``switch`` only that switch is compiled. ``explain(switches, subject,
    path)`` gets the target's view of the compiled switches."""

    subject: Literal["switch", "host"]
    path_help: str
    explain: Callable[[tuple[SwitchIR, ...], str, str], Explanation]


@dataclass(frozen=True)
class RenderedText:
    """One rendered file of the target, as ``patch`` receives them (``switch`` None: fabric-wide)."""

    switch: str | None
    file_name: str
    text: str


@dataclass(frozen=True)
class PatchResult:
    """What ``compile --base`` makes of one switch: files to add to the output (file name, text) and
    lines for stderr (what the patch cannot deliver)."""

    switch: str
    files: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()
    patched: bool = True
    """False where the patch was not written (the notes say why and how to deploy instead)."""


@dataclass(frozen=True)
class Patcher:
    """``compile --base PATH``: the change from the running config at ``PATH`` to the rendered one.
    ``summary`` says what the patch is, for the refusal of targets without one.
    ``patch(base, rendered, switches, output_root)`` gets this target's rendered files and view."""

    summary: str
    patch: Callable[[Path, tuple[RenderedText, ...], tuple[SwitchIR, ...], Path], Iterable[PatchResult]]


@dataclass(frozen=True)
class LintReader:
    """``qosforge lint``: the file the linter reads back (``file_name`` in each switch folder) and
    what it is (for help and refusals); ``parse`` reads its tables back towards the IR."""

    file_name: str
    description: str
    parse: Callable[..., Any]


@dataclass(frozen=True)
class Delivery:
    """``qosforge push`` / ``diff``: the rendered file they send (``config_file`` per switch folder),
    where a push saves the device's previous config (``backup_file``), ``read(path)`` to load and
    check a rendered file, and ``revision()`` the model revision the device is checked against."""

    config_file: str
    backup_file: str
    read: Callable[[Path], dict[str, Any]]
    revision: Callable[[], str]


class PhaseNotSupported(QosforgeError):
    """A command asked a target for a phase it declares absent (exit 2)."""


__all__ = [
    "Delivery",
    "Explainer",
    "Explanation",
    "IrPath",
    "LintReader",
    "PatchResult",
    "Patcher",
    "PhaseNotSupported",
    "RenderValueError",
    "RenderedText",
    "ir_value",
]
