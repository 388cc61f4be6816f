"""The what-if calculators: one module per ``qosforge whatif`` command, each exposing ``SPEC``
(:class:`~qosforge.api.calculators._framework.WhatIf`), registered from the
``qosforge.calculators`` entry-point group (qosforge/plugins.py: the built-ins in ``--help``
order, then any installed plugin's). A module, and the model and numpy behind it, is imported
only when its calculator runs or ``whatif --help`` lists it.

Adding a calculator: a module with its ``SPEC``, its entry point and a test; the CLI command and
``qosforge sweep whatif NAME`` follow from the spec (docs/extending/calculator.md).
"""

from __future__ import annotations

from qosforge import plugins
from qosforge.api.calculators._framework import WhatIf
from qosforge.errors import QosforgeError


def calculator_names() -> tuple[str, ...]:
    """Every calculator's command name, in ``--help`` order (nothing imported)."""
    return plugins.names(plugins.CALCULATORS)


def calculator(name: str) -> WhatIf:
    """The spec of the calculator ``name`` (one of :func:`calculator_names`)."""
    reference = plugins.find(plugins.CALCULATORS, name)
    if reference is None:
        raise QosforgeError(
            f"{name!r} is not a what-if calculator",
            place="whatif",
            hint=f"one of: {', '.join(calculator_names())}",
        )
    return plugins.load_one(reference, WhatIf)


__all__ = ["calculator", "calculator_names"]
