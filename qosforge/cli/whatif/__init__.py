"""``qosforge whatif``: what-if capacity calculators over the analytic models.

Each subcommand is made from a calculator's spec (qosforge/api/calculators/, see
``_framework.py`` here); a calculator's module, and the model and numpy behind it, is imported
only when its command runs or ``whatif --help`` lists it.
"""

from __future__ import annotations

import click

from qosforge.api.calculators import calculator_names
from qosforge.cli._lazy import HelpWhenBareGroup


class _WhatIfGroup(HelpWhenBareGroup):
    """Builds each what-if command from its calculator's SPEC on first use."""

    def _load(self, cmd_name: str) -> click.Command:
        from qosforge.api.calculators import calculator
        from qosforge.cli.whatif._framework import build_command

        return build_command(calculator(cmd_name))


@click.group(
    "whatif", cls=_WhatIfGroup, lazy_subcommands={name: name for name in calculator_names()}
)
def whatif_group() -> None:
    """What-if capacity calculations from the transport and buffer models.

    Every command takes the model's inputs as flags with units, prints the result with its formula
    and source, and supports --format json, --sweep NAME=START:STOP:N, --plot FILE.png, --explain.
    """


__all__ = ["whatif_group"]
