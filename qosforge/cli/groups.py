"""Command groups whose subcommands live in heavier modules (imported on use, see ``_lazy``)."""

from __future__ import annotations

import click

from qosforge.cli._lazy import HelpWhenBareGroup


@click.group(
    "fit",
    cls=HelpWhenBareGroup,
    lazy_subcommands={"red": "qosforge.cli.fit:red_command"},
    # fit.py imports numpy and the fitter at module level: list it without loading it.
    short_helps={
        "red": "Fit P_max (and optionally t_max) of a step RED profile to TBTCP's ideal curve."
    },
)
def fit_group() -> None:
    """Fit switch marking curves to what a transport needs (TBTCP §4.4, §6.2)."""


__all__ = ["fit_group"]
