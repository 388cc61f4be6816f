"""``qosforge whatif``: what-if capacity calculators over the analytic models (DESIGN.md §3)."""

from __future__ import annotations

import importlib

import click

from qosforge.cli.whatif._framework import WhatIf, build_command

# One module per subcommand, each exposing SPEC. Listed explicitly so `--help` order is stable.
_COMMAND_MODULES = (
    "tlt",
    "buffer",
    "pfc_headroom",
    "dctcp",
    "d2tcp",
    "ear",
    "dcqcn",
    "tbtcp",
    "fastlane",
)


@click.group("whatif")
def whatif_group() -> None:
    """What-if capacity calculations from the transport and buffer models.

    Every command takes the model's inputs as flags with units, prints the result with its formula
    and source, and supports --format json, --sweep NAME=START:STOP:N, --plot FILE.png, --explain.
    """


def _load_specs() -> list[WhatIf]:
    specs = []
    for module_name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(f"qosforge.cli.whatif.{module_name}")
        except ModuleNotFoundError as missing:  # TEMPORARY while helpers land their modules
            if missing.name != f"qosforge.cli.whatif.{module_name}":
                raise
            continue
        specs.append(module.SPEC)
    return specs


for _spec in _load_specs():
    whatif_group.add_command(build_command(_spec))
