"""The what-if calculators: one module per ``qosforge whatif`` command, each exposing ``SPEC``
(:class:`~qosforge.api.calculators._framework.WhatIf`). A module, and the model and numpy behind
it, is imported only when its calculator runs or ``whatif --help`` lists it.

Adding a calculator: a module here with its ``SPEC``, its line in :data:`COMMAND_MODULES`, and a
test; the CLI command and ``qosforge sweep whatif NAME`` follow from the spec.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qosforge.api.calculators._framework import WhatIf

#: Command name -> module in this package exposing SPEC. Explicit so `--help` order is stable.
COMMAND_MODULES = {
    "tlt": "tlt",
    "buffer": "buffer",
    "pfc-headroom": "pfc_headroom",
    "dctcp": "dctcp",
    "d2tcp": "d2tcp",
    "ear": "ear",
    "dcqcn": "dcqcn",
    "tbtcp": "tbtcp",
    "fastlane": "fastlane",
}


def calculator(name: str) -> WhatIf:
    """The spec of the calculator ``name`` (a key of :data:`COMMAND_MODULES`)."""
    from qosforge.errors import QosforgeError

    if name not in COMMAND_MODULES:
        raise QosforgeError(f"{name!r} is not a what-if calculator", place="whatif", hint=f"one of: {', '.join(COMMAND_MODULES)}")
    spec: WhatIf = importlib.import_module(f"qosforge.api.calculators.{COMMAND_MODULES[name]}").SPEC
    return spec


__all__ = ["COMMAND_MODULES", "calculator"]
