"""What ``qosforge push`` and ``qosforge diff`` share: the options that say what to send and where,
resolving them into (device, intended document) pairs, the password, and the report.

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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from qosforge.backends.registry import approximation_names, target_names
from qosforge.cli.options import RegistryChoice
from qosforge.errors import QosforgeError

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
        click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), function)


def connection(params: dict[str, Any]) -> Any:
    """The connection flags as a :class:`~qosforge.deliver.devices.GnmiConnection`, checked."""
    from qosforge.deliver.devices import GnmiConnection, parse_timeout

    if params["address"] and params["inventory"]:
        raise QosforgeError("give --address or --inventory, not both", place="--address", hint="one device: --address; a fabric: --inventory")
    if params["insecure"] and (params["tls_ca"] or params["tls_cert"] or params["skip_verify"]):
        raise QosforgeError("--insecure turns TLS off; TLS options make no sense with it", place="--insecure", hint="drop --insecure, or the TLS options")
    return GnmiConnection(
        tls_ca=Path(params["tls_ca"]) if params["tls_ca"] else None,
        tls_cert=Path(params["tls_cert"]) if params["tls_cert"] else None,
        tls_key=Path(params["tls_key"]) if params["tls_key"] else None,
        skip_verify=params["skip_verify"], insecure=params["insecure"], username=params["username"],
        timeout_s=parse_timeout(params["timeout"], "--timeout"),
    )


def delivery_target(params: dict[str, Any]) -> tuple[str, Any]:
    """The target push/diff deliver (``--target``, default the first with a delivery phase) and
    its :class:`~qosforge.backends.phases.Delivery`; a target without one is refused (exit 2)."""
    from qosforge.backends.registry import require_phase, targets_supporting

    name = params.get("target_name") or targets_supporting("delivery")[0]
    return name, require_phase(name, "delivery").delivery


def _compiled(intent: str, switches: Sequence[str], approximations: tuple[str, ...],
              inventory: dict[str, str | None] | None = None, target: str = "openconfig") -> dict[str, dict[str, Any]]:
    """The intent's openconfig documents of ``switches``; ``inventory`` (switch -> where the
    inventory defines it) when the names came from an inventory rather than --switch."""
    from qosforge.backends.registry import get_target
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.compiler.topology import resolve_topology

    loaded, source_map = load_intent(Path(intent))
    if inventory is not None:
        known = [switch.name for switch in resolve_topology(loaded, source_map).switches]
        missing = [name for name in switches if name not in known]
        if missing:
            shown = ", ".join(known[:8]) + (" ..." if len(known) > 8 else "")
            others = [name for name in switches if name in known]
            pick = " ".join(f"--switch {name}" for name in others[:3]) if others else f"--switch {known[0]}"
            raise QosforgeError(
                f"the inventory names {', '.join(repr(m) for m in missing)}, which {intent} does not have (its switches: {shown})",
                place=inventory.get(missing[0]) or "--inventory",
                hint=f"act only on switches of the intent with {pick}{' ...' if len(others) > 3 else ''}, or fix the inventory",
            )
    fabric = compile_intent(loaded, source_map, switches=tuple(switches), accepted_approximations=approximations, targets=(target,))
    return {f.switch: json.loads(f.text) for f in get_target(target).render(fabric.for_target(target))}


def _read_config(path: Path, target: str = "openconfig") -> dict[str, Any]:
    """A rendered file of ``target``, read and checked by the target's delivery phase."""
    from qosforge.backends.registry import require_phase

    delivery = require_phase(target, "delivery").delivery
    assert delivery is not None  # require_phase refuses a target without the phase
    return delivery.read(path)


def compiled_switch_of(path: Path) -> str | None:
    """The switch whose compile output folder holds ``path`` (``OUT/<switch>/...``, with OUT's
    manifest recording files of that switch there), else None: a folder's name alone says
    nothing about which device a file is for."""
    from qosforge.outputs import load_manifest

    folder = path.resolve().parent
    try:
        recorded = load_manifest(folder.parent)
    except QosforgeError:
        return None  # an unreadable manifest proves nothing either
    return folder.name if any(entry.switch == folder.name and entry.path.startswith(f"{folder.name}/") for entry in recorded) else None


def _config_switch(path: Path, switches: tuple[str, ...]) -> str:
    """The device ``--config FILE`` is for: its compiled switch folder's switch, or ``--switch``."""
    compiled = compiled_switch_of(path)
    if len(switches) > 1:
        raise QosforgeError("one --config FILE for several switches", place="--config", hint=f"give the compile output folder (with <switch>/{CONFIG_FILE}) or one --switch")
    if compiled is not None and switches and switches[0] != compiled:
        raise QosforgeError(f"{path} was compiled for switch {compiled}, not {switches[0]}", place="--switch",
                            hint=f"give --switch {compiled}, or the {CONFIG_FILE} compiled for {switches[0]}")
    if compiled is None and not switches:
        raise QosforgeError(f"{path} is not in a compiled switch folder, so the device it is for is unknown", place="--config",
                            hint="name it with --switch NAME (e.g. --switch leaf1)")
    return compiled or switches[0]


def resolve(params: dict[str, Any], *, push: bool) -> tuple[list[tuple[Any, Any]], str | None, bool]:
    """[(Device, Intended)], the password (None when no username), and whether to print JSON."""
    from qosforge.deliver.devices import Device, load_inventory, parse_address
    from qosforge.deliver.session import Intended

    target_name, delivery = delivery_target(params)
    config_file, backup_file = delivery.config_file, delivery.backup_file
    intent, config, switches = params["intent"], params["config_path"], tuple(params["switches"])
    if (intent is None) == (config is None):
        raise QosforgeError("give either INTENT (with --switch or --inventory) or --config FILE", place="arguments", hint="see --help")
    devices: dict[str, Device]
    if params["inventory"]:
        devices = {d.name: d for d in load_inventory(Path(params["inventory"]), connection(params))}
        unknown = [s for s in switches if s not in devices]
        if unknown:
            raise QosforgeError(f"switch(es) {', '.join(unknown)} not in the inventory {params['inventory']}", place="--switch",
                                hint=f"inventory switches: {', '.join(list(devices)[:8])}{' ...' if len(devices) > 8 else ''}; or add them to the inventory")
        names = list(switches) or list(devices)
        if config and not Path(config).is_dir():
            names = [_config_switch(Path(config), switches)]
            if names[0] not in devices:
                raise QosforgeError(f"switch {names[0]} (of --config {config}) is not in the inventory {params['inventory']}", place="--config",
                                    hint=f"inventory switches: {', '.join(list(devices)[:8])}{' ...' if len(devices) > 8 else ''}")
    else:
        if config and not Path(config).is_dir():
            names = [_config_switch(Path(config), switches)]
        else:
            names = list(switches)
        if len(names) != 1:
            raise QosforgeError("name one switch (--switch NAME) for --address, or use --inventory", place="--switch", hint="e.g. --switch leaf1 --address 10.0.0.1:9339")
        if params["address"] is None and not params["dry_run"]:
            # diff has no --dry-run: what it would compare with is push --dry-run's document.
            without_device = "or --dry-run to see the document without a device" if push else "to see the intended document without a device: qosforge push ... --dry-run"
            raise QosforgeError("no device address", place="--address", hint=f"give --address HOST:PORT or --inventory FILE ({without_device})")
        host, port = parse_address(params["address"], "--address") if params["address"] else ("-", 0)
        devices = {names[0]: Device(names[0], host, port, connection(params))}
    if intent is not None:
        from_inventory = {n: devices[n].defined_at for n in names} if params["inventory"] and not switches else None
        documents = _compiled(intent, names, tuple(params["approximations"]), from_inventory, target_name)
        sources = {n: f"{intent} (switch {n})" for n in names}
        backups = {n: Path.cwd() / f"{n}.{backup_file}" for n in names}
    else:
        root = Path(config)
        files = {n: (root / n / config_file if root.is_dir() else root) for n in names}
        if not root.is_dir() and len(names) > 1:
            raise QosforgeError("one --config FILE for several switches", place="--config", hint=f"give the compile output folder (with <switch>/{config_file}) or one --switch")
        # one argument for the default target: tests swap this reader for openconfig.json files
        documents = {n: _read_config(path) if target_name == "openconfig" else _read_config(path, target_name) for n, path in files.items()}
        sources = {n: str(path) for n, path in files.items()}
        # pushing a backup back must not overwrite it with the state it replaces
        backups = {n: path.parent / (backup_file if path.name != backup_file else f"previous.{backup_file}") for n, path in files.items()}
    if push and params.get("backup"):
        chosen = Path(params["backup"])
        backups = {n: (chosen / f"{n}.{backup_file}" if len(names) > 1 or chosen.is_dir() else chosen) for n in names}
    pairs = [(devices[n], Intended(n, documents[n], sources[n], backups[n])) for n in names]
    password = ask_password() if any(d.connection.username for d, _ in pairs) and not params.get("dry_run") else None
    for device, _ in pairs:
        if password is not None and device.connection.insecure and device.connection.username:
            click.echo(f"warning: {device.name} ({device.address}): --insecure sends the password in plaintext", err=True)
    return pairs, password, params["output_format"] == "json"


def ask_password() -> str:
    password = os.environ.get(PASSWORD_VARIABLE)
    if password is not None:
        return password
    if not sys.stdin.isatty():
        raise QosforgeError(f"no password: ${PASSWORD_VARIABLE} is not set and there is no terminal to ask on", place="--username",
                            hint=f"export {PASSWORD_VARIABLE} (never pass a password as a flag)")
    return str(click.prompt("gNMI password", hide_input=True, err=True))


def run(pairs: list[tuple[Any, Any]], action: Callable[..., Any], password: str | None, as_json: bool, verb: str,
        params: dict[str, Any] | None = None) -> None:
    """Act on every device, print the results, exit 0 (in sync), 1 (differences) or 2 (a device
    could not be used); several devices: every one is tried and the worst code wins."""
    from qosforge.deliver.session import Outcome

    revision = delivery_target(params or {})[1].revision()
    outcomes: list[Outcome] = []
    for device, intended in pairs:
        try:
            outcomes.append(action(device, intended, password, revision))
        except QosforgeError as error:
            outcomes.append(Outcome(device.name, device.address, None, error=error.one_line()))
    for outcome in outcomes:
        for warning in outcome.warnings:
            click.echo(f"warning: {warning}", err=True)
        if outcome.error is not None:
            click.echo(f"error: {outcome.error}", err=True)
    if as_json:
        click.echo(json.dumps({"switches": [o.to_json() for o in outcomes]}, indent=2))
    else:
        for outcome in outcomes:
            if outcome.error is not None:
                continue
            state = "in sync" if outcome.in_sync else f"{len(outcome.differences)} difference(s)"
            backup = f"; backup of the previous /qos in {outcome.backup}" if outcome.backup else ""
            click.echo(f"{outcome.name} ({outcome.address}): {verb}, {state}{backup}")
            for d in outcome.differences:
                click.echo(f"  {d.path}: intended {d.intended if d.intended is not None else '(absent)'}, actual {d.actual if d.actual is not None else '(absent)'}")
    code = 2 if any(o.error for o in outcomes) else 1 if any(not o.in_sync for o in outcomes) else 0
    raise click.exceptions.Exit(code)
