"""What ``qosforge push`` and ``qosforge diff`` share: the options that say what to send and where
(parsed into :class:`qosforge.api.delivery.DeliveryRequest`), the password prompt, and the report.

What to send: ``INTENT --switch S`` (compiled for the openconfig target, as ``compile`` would) or
``--config FILE`` (a rendered ``openconfig.json``, sent unchanged; with ``--inventory``, ``--config
DIR`` takes ``DIR/<switch>/openconfig.json`` per switch). Where: ``--address HOST:PORT`` or
``--inventory FILE``.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import click

from qosforge.api.delivery import ConnectionRequest, DeliveryRequest, gnmi_connection
from qosforge.api.registry import approximation_names, target_names
from qosforge.cli.options import RegistryChoice, format_option
from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.api.delivery import DeliveryPlan, DeliveryResult, GnmiConnection

PASSWORD_VARIABLE = "QOSFORGE_GNMI_PASSWORD"
#: The openconfig target's file names (its Delivery phase), for help texts.
CONFIG_FILE = "openconfig.json"
BACKUP_FILE = "openconfig.backup.json"

F = TypeVar("F", bound=Callable[..., Any])


def connection_options() -> list[Callable[[F], F]]:
    """Where the devices are and how to reach them: what push, diff and watch share."""
    return [
        click.option("--address", metavar="HOST:PORT", help="The device's gNMI address."),
        click.option("--inventory", type=click.Path(dir_okay=False), help="YAML: switch -> address and TLS settings (docs/openconfig.md)."),
        click.option("--tls-ca", type=click.Path(dir_okay=False), help="CA certificate (PEM) that signs the device's certificate (default: system roots)."),
        click.option("--tls-cert", type=click.Path(dir_okay=False), help="Client certificate (PEM) for mutual TLS."),
        click.option("--tls-key", type=click.Path(dir_okay=False), help="Client private key (PEM) for mutual TLS."),
        click.option("--skip-verify", is_flag=True, help="Accept any server certificate (TLS without verification: testing only)."),
        click.option("--insecure", is_flag=True, help="Plaintext gRPC without TLS (only for targets that offer nothing else)."),
        click.option("--username", help=f"gNMI username; the password comes from ${PASSWORD_VARIABLE} or a prompt, never a flag."),
        click.option("--timeout", default="10s", show_default=True, help="Deadline of each RPC."),
    ]


def gnmi_options(function: F) -> F:
    options = [
        click.argument("intent", required=False, type=click.Path(dir_okay=False)),
        click.option("--switch", "switches", multiple=True, metavar="NAME", help="Switch(es) of the intent or inventory to act on (repeatable; default: every inventory switch)."),
        click.option("--config", "config_path", type=click.Path(), help=f"A rendered {CONFIG_FILE} to send unchanged (or, with --inventory, the compile output folder holding <switch>/{CONFIG_FILE})."),
        *connection_options(),
        click.option("--accept-approximation", "approximations", multiple=True, type=RegistryChoice(approximation_names),
                     help="With INTENT: accept a named approximation, as for compile."),
        click.option("--target", "target_name", type=RegistryChoice(target_names), default=None,
                     help="The target whose rendering to deliver (default: openconfig, the one target with push and diff)."),
        format_option("text", "json"),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), function)


def connection_request(params: dict[str, Any]) -> ConnectionRequest:
    """The connection flags as the application layer's request."""
    def path(name: str) -> Path | None:
        return Path(params[name]) if params[name] else None

    return ConnectionRequest(
        address=params["address"], inventory=path("inventory"), tls_ca=path("tls_ca"), tls_cert=path("tls_cert"),
        tls_key=path("tls_key"), skip_verify=params["skip_verify"], insecure=params["insecure"], username=params["username"],
        timeout=params["timeout"],
    )


def connection(params: dict[str, Any]) -> GnmiConnection:
    """The connection flags as a :class:`~qosforge.deliver.devices.GnmiConnection`, checked."""
    return gnmi_connection(connection_request(params))


def delivery_request(params: dict[str, Any], action: Literal["push", "diff"]) -> DeliveryRequest:
    """push's or diff's flags as the application layer's request."""
    return DeliveryRequest(
        action=action, connection=connection_request(params),
        intent=Path(params["intent"]) if params["intent"] else None,
        config=Path(params["config_path"]) if params["config_path"] else None,
        switches=tuple(params["switches"]), approximations=tuple(params["approximations"]), target=params["target_name"],
        dry_run=bool(params.get("dry_run")), backup=Path(params["backup"]) if params.get("backup") else None,
    )


def password_for(plan: DeliveryPlan) -> str | None:
    """The gNMI password when a device needs one (None otherwise), with a warning for each device
    it would reach in plaintext."""
    password = ask_password() if plan.needs_password else None
    if password is not None:
        for warning in plan.plaintext_password_warnings():
            click.echo(f"warning: {warning}", err=True)
    return password


def ask_password() -> str:
    password = os.environ.get(PASSWORD_VARIABLE)
    if password is not None:
        return password
    if not sys.stdin.isatty():
        raise QosforgeError(f"no password: ${PASSWORD_VARIABLE} is not set and there is no terminal to ask on", place="--username",
                            hint=f"export {PASSWORD_VARIABLE} (never pass a password as a flag)")
    return str(click.prompt("gNMI password", hide_input=True, err=True))


def render(result: DeliveryResult, as_json: bool, verb: str) -> None:
    """Print every device's outcome and exit 0 (in sync), 1 (differences) or 2 (a device could
    not be used)."""
    for outcome in result.outcomes:
        for warning in outcome.warnings:
            click.echo(f"warning: {warning}", err=True)
        if outcome.error is not None:
            click.echo(f"error: {outcome.error}", err=True)
    if as_json:
        click.echo(json.dumps({"switches": [o.to_json() for o in result.outcomes]}, indent=2))
    else:
        for outcome in result.outcomes:
            if outcome.error is not None:
                continue
            state = "in sync" if outcome.in_sync else f"{len(outcome.differences)} difference(s)"
            backup = f"; backup of the previous /qos in {outcome.backup}" if outcome.backup else ""
            click.echo(f"{outcome.name} ({outcome.address}): {verb}, {state}{backup}")
            for d in outcome.differences:
                click.echo(f"  {d.path}: intended {d.intended if d.intended is not None else '(absent)'}, actual {d.actual if d.actual is not None else '(absent)'}")
    raise click.exceptions.Exit(result.exit_code)
