"""``qosforge whatif``: what-if capacity calculators over the analytic models.

Each subcommand is a module exposing ``SPEC`` (see ``_framework.py``); a module, and the model and
numpy behind it, is imported only when its command runs or ``whatif --help`` lists it.
"""

from __future__ import annotations

import importlib

import click

from qosforge.cli._lazy import HelpWhenBareGroup

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


class _WhatIfGroup(HelpWhenBareGroup):
    """Builds each what-if command from its module's SPEC on first use."""

    def _load(self, cmd_name: str) -> click.Command:
        from qosforge.cli.whatif._framework import build_command

        module = importlib.import_module(f"qosforge.cli.whatif.{COMMAND_MODULES[cmd_name]}")
        return build_command(module.SPEC)


@click.group("whatif", cls=_WhatIfGroup, lazy_subcommands={name: name for name in COMMAND_MODULES})
def whatif_group() -> None:
    """What-if capacity calculations from the transport and buffer models.

    Every command takes the model's inputs as flags with units, prints the result with its formula
    and source, and supports --format json, --sweep NAME=START:STOP:N, --plot FILE.png, --explain.
    """


__all__ = ["COMMAND_MODULES", "whatif_group"]
