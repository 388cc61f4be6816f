"""``qosforge init``: write a starter intent file that compiles as written
(:mod:`qosforge.api.init`).

The answers come from flags, else (on a terminal only) from prompts, else from defaults.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from qosforge.api.init import (
    DEFAULT_CLASSES,
    DEFAULT_HOSTS_PER_LEAF,
    DEFAULT_LEAVES,
    DEFAULT_PROFILE,
    DEFAULT_SPINES,
    InitRequest,
    check_profile,
    check_speed,
    parse_class,
    profile_speed,
    write_starter_intent,
)
from qosforge.cli.options import OutputPath
from qosforge.errors import QosforgeError


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _ask(value: Any, prompt: str, default: Any, kind: Any) -> Any:
    if value is not None:
        return value
    if _interactive():
        return click.prompt(prompt, default=default, type=kind)
    return default


@click.command("init")
@click.option("-o", "--output", "output_path", required=True, type=OutputPath("fabric.yaml", dir_okay=False), help="The intent file to write.")
@click.option("--profile", default=None, metavar="NAME", help=f"Vendor profile of every switch (qosforge profiles list) [default: {DEFAULT_PROFILE}].")
@click.option("--leaves", type=click.IntRange(1, 8192), default=None, help=f"Leaf switches [default: {DEFAULT_LEAVES}].")
@click.option("--spines", type=click.IntRange(1, 512), default=None, help=f"Spine switches [default: {DEFAULT_SPINES}].")
@click.option("--hosts-per-leaf", type=click.IntRange(1, 512), default=None, help=f"Host ports per leaf [default: {DEFAULT_HOSTS_PER_LEAF}].")
@click.option("--speed", default=None, metavar="RATE", help="Port speed of every link, e.g. 100G [default: the profile's port speed].")
@click.option("--class", "class_specs", multiple=True, metavar="NAME:TRANSPORT:DSCPS[:lossless]", help=f"A traffic class, repeatable [default: {' '.join(DEFAULT_CLASSES)}].")
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init_command(output_path: str, profile: str | None, leaves: int | None, spines: int | None, hosts_per_leaf: int | None, speed: str | None, class_specs: tuple[str, ...], force: bool) -> None:
    """Write a starter intent file that compiles as written.

    Flags answer the questions; on a terminal the rest are asked, otherwise defaults are used.

    \b
    Example:
      qosforge init -o fabric.yaml --profile mellanox-spectrum-2 --leaves 8 --spines 4 \\
          --class rdma:dcqcn:26:lossless --class web:dctcp:0,10
      qosforge compile fabric.yaml -o out
    """
    output = Path(output_path)
    # The flags first: a wrong flag is the error to fix, whether or not the file exists.
    if profile is not None:
        check_profile(profile)
    for text in class_specs:
        parse_class(text)
    if speed is not None:
        check_speed(speed)
    if output.exists() and not force:
        raise QosforgeError("the file exists and is kept", place=str(output), hint="pass --force to overwrite it, or choose another -o")
    chosen_profile = _ask(profile, "Vendor profile (qosforge profiles list)", DEFAULT_PROFILE, str)
    check_profile(chosen_profile)
    classes = class_specs
    if not classes and _interactive():
        typed = click.prompt("Classes, NAME:TRANSPORT:DSCPS[:lossless] separated by spaces", default=" ".join(DEFAULT_CLASSES))
        classes = tuple(typed.split())
        for text in classes:
            parse_class(text)
    request = InitRequest(
        output=output,
        profile=chosen_profile,
        leaves=_ask(leaves, "Leaf switches", DEFAULT_LEAVES, click.IntRange(1, 8192)),
        spines=_ask(spines, "Spine switches", DEFAULT_SPINES, click.IntRange(1, 512)),
        hosts_per_leaf=_ask(hosts_per_leaf, "Host ports per leaf", DEFAULT_HOSTS_PER_LEAF, click.IntRange(1, 512)),
        speed=speed if speed is not None else check_speed(_ask(None, "Port speed of every link", profile_speed(chosen_profile), str)),
        classes=classes or DEFAULT_CLASSES,
        force=force,
    )
    result = write_starter_intent(request)
    # A folder per intent: compile refuses a folder that holds another intent's output.
    click.echo(f"wrote {result.output}; next: qosforge compile {result.output} -o {result.output.stem}-out")


__all__ = ["init_command"]
