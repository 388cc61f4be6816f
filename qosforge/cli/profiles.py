"""``qosforge profiles list | show NAME``: the bundled vendor profiles and each value's source.

Human output is a rich table; ``--format json`` prints the stable documents of
:mod:`qosforge.api.profiles`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from qosforge.cli._lazy import HelpWhenBareGroup
from qosforge.cli.options import format_option
from qosforge.units import format_bytes, format_rate

if TYPE_CHECKING:  # the profile schema (pydantic) is imported when a command runs
    from rich.console import Console

    from qosforge.vendor_profiles import BreakoutMode, PortGroup

_FORMAT = format_option("table", "json")

#: Fields whose integer value is a byte count (shown with units in tables).
_BYTE_FIELDS = frozenset({"buffer_bytes", "cell_bytes", "red.threshold_granularity_bytes"})


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False, markup=False, soft_wrap=False, width=max(100, Console().width))


def _speed_text(rate_bps: float) -> str:
    return format_rate(rate_bps).replace(" ", "").removesuffix("bps")


def _ports_text(groups: list[PortGroup]) -> str:
    return " + ".join(f"{group.count}x{_speed_text(group.speed_bps)}" for group in groups)


def _breakout_text(modes: list[BreakoutMode]) -> str:
    """``1x100G/40G, 2x50G``: ports per front-panel port and the speeds each may run at."""
    return ", ".join(
        f"{mode.ports}x{'/'.join(_speed_text(s) for s in mode.speeds_bps)}" for mode in modes
    )


def _value_text(field: str, value: Any) -> str:
    if value is None:
        return "unknown"
    if field in _BYTE_FIELDS:
        pretty = format_bytes(value)
        return pretty if pretty == f"{value} B" else f"{pretty} ({value} B)"
    if field == "ports":
        return _ports_text(value)
    if field == "breakout_modes":
        return _breakout_text(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


@click.group("profiles", cls=HelpWhenBareGroup)
def profiles_group() -> None:
    """Bundled vendor (ASIC) profiles: buffer, cells, ports, RED quantisation, capabilities."""


@profiles_group.command("list")
@_FORMAT
def list_command(output_format: str) -> None:
    """List the bundled vendor profiles.

    \b
    Example:
      qosforge profiles list --format json
    """
    from rich.table import Table

    from qosforge.api.profiles import list_profiles, profile_summary

    profiles = list_profiles()
    if output_format == "json":
        click.echo(json.dumps([profile_summary(profile) for profile in profiles], indent=2))
        return
    table = Table(title="vendor profiles", title_justify="left")
    table.add_column("name", no_wrap=True)
    for column in ("buffer", "MMUs", "cell", "ports", "RED steps", "SONiC headroom", "unknown"):
        table.add_column(column, no_wrap=True)
    for profile in profiles:
        sonic = profile.pfc_headroom.sonic
        table.add_row(
            profile.name,
            _value_text("buffer_bytes", profile.buffer_bytes.value).split(" (")[0],
            _value_text("mmu_count", profile.mmu_count.value),
            _value_text("cell_bytes", profile.cell_bytes.value).split(" (")[0],
            _value_text("ports", profile.ports.value),
            _value_text("red.steps", profile.red.steps.value),
            sonic.script if sonic else "-",
            str(len(profile.unknown_fields())),
        )
    console = _console()
    console.print(table)
    console.print("Details and sources: qosforge profiles show NAME", markup=False)


@profiles_group.command("show")
@click.argument("name")
@_FORMAT
def show_command(name: str, output_format: str) -> None:
    """Show every value of profile NAME (or an alias) with its source.

    \b
    Example:
      qosforge profiles show broadcom-trident2
    """
    from rich.table import Table

    from qosforge.api.profiles import profile_document, show_profile
    from qosforge.vendor_profiles import SOURCED_FIELDS

    profile = show_profile(name)
    if output_format == "json":
        click.echo(json.dumps(profile_document(profile), indent=2))
        return
    console = _console()
    aliases = f" (aliases: {', '.join(profile.aliases)})" if profile.aliases else ""
    console.print(f"{profile.name}: {profile.vendor} {profile.asic}{aliases}", markup=False)
    console.print(profile.description, markup=False)
    values = Table(title="values", title_justify="left")
    for column in ("field", "value", "source", "note"):
        values.add_column(column, overflow="fold")
    for field in SOURCED_FIELDS:
        sourced = profile.sourced(field)
        values.add_row(field, _value_text(field, sourced.value), sourced.source, sourced.note or "")
    console.print(values)
    sonic = profile.pfc_headroom.sonic
    if sonic is not None:
        title = f"SONiC ASIC_TABLE {sonic.name} ({sonic.source})"
        headroom = Table(title=title, title_justify="left")
        headroom.add_column("field")
        headroom.add_column("value")
        for key, value in sonic.model_dump(exclude={"source", "note", "name"}).items():
            headroom.add_row(key, "-" if value is None else str(value))
        console.print(headroom)
    if profile.pfc_headroom.note:
        console.print(f"PFC headroom: {profile.pfc_headroom.note}", markup=False)
    sources = Table(title="sources", title_justify="left")
    for column in ("id", "citation", "url"):
        sources.add_column(column, overflow="fold")
    for entry in profile.sources:
        sources.add_row(entry.id, entry.citation, entry.url or "")
    console.print(sources)


__all__ = ["profiles_group"]
