"""``qosforge push`` and ``qosforge diff`` as a typed request: what to send, where, and the
outcome per device.

What to send: ``intent`` with ``switches`` (compiled for the delivering target through
:func:`qosforge.api.compile.compile_fabric`, as ``compile`` would) or ``config`` (a rendered
``openconfig.json``, sent unchanged; with an inventory, a folder holding
``<switch>/openconfig.json`` per switch). Where: one ``address`` or an ``inventory`` file.
:func:`plan_delivery` resolves a request into (device, intended document) pairs without opening a
connection; :func:`deliver` pushes or compares them (Capabilities, Get /qos, one Set replace,
Get and compare: deliver/session.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.backends.phases import Delivery
    from qosforge.deliver.devices import Device
    from qosforge.deliver.devices import GnmiConnection as GnmiConnection
    from qosforge.deliver.session import Intended, Outcome

#: Exit codes of push and diff: in sync, differences, a device that could not be used.
IN_SYNC, DIFFERENT, UNUSABLE = 0, 1, 2


@dataclass(frozen=True)
class ConnectionRequest:
    """How to reach the devices (push, diff and watch share it)."""

    address: str | None = None
    inventory: Path | None = None
    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    skip_verify: bool = False
    insecure: bool = False
    username: str | None = None
    timeout: str = "10s"
    """As typed (``10s``, ``500ms``): parsed with the flag named in the error."""


def gnmi_connection(request: ConnectionRequest) -> GnmiConnection:
    """The connection settings, checked: an address and an inventory, or TLS settings with
    plaintext, are refused."""
    from qosforge.deliver.devices import GnmiConnection, parse_timeout

    if request.address and request.inventory:
        raise QosforgeError(
            "give --address or --inventory, not both",
            place="--address",
            hint="one device: --address; a fabric: --inventory",
        )
    if request.insecure and (request.tls_ca or request.tls_cert or request.skip_verify):
        raise QosforgeError(
            "--insecure turns TLS off; TLS options make no sense with it",
            place="--insecure",
            hint="drop --insecure, or the TLS options",
        )
    return GnmiConnection(
        tls_ca=request.tls_ca,
        tls_cert=request.tls_cert,
        tls_key=request.tls_key,
        skip_verify=request.skip_verify,
        insecure=request.insecure,
        username=request.username,
        timeout_s=parse_timeout(request.timeout, "--timeout"),
    )


@dataclass(frozen=True)
class DeliveryRequest:
    """One push or diff."""

    action: Literal["push", "diff"]
    connection: ConnectionRequest
    intent: Path | None = None
    config: Path | None = None
    switches: tuple[str, ...] = ()
    approximations: tuple[str, ...] = ()
    target: str | None = None
    """The delivering target (None: the first registered target with a delivery phase)."""
    dry_run: bool = False
    """push only: build the Set requests, open no connection."""
    backup: Path | None = None
    """push only: where to save each device's previous /qos."""


@dataclass(frozen=True)
class DeliveryPlan:
    """What a request resolves to before any connection: (device, intended document) pairs."""

    target: str
    pairs: tuple[tuple[Device, Intended], ...]
    dry_run: bool

    @property
    def needs_password(self) -> bool:
        return not self.dry_run and any(device.connection.username for device, _ in self.pairs)

    def plaintext_password_warnings(self) -> tuple[str, ...]:
        """Devices a password would reach in plaintext (``--insecure`` with a username)."""
        return tuple(
            f"{device.name} ({device.address}): --insecure sends the password in plaintext"
            for device, _ in self.pairs
            if device.connection.insecure and device.connection.username
        )


@dataclass(frozen=True)
class DeliveryResult:
    outcomes: tuple[Outcome, ...]
    exit_code: int = field(default=IN_SYNC)
    """2 when a device could not be used, else 1 when one differs, else 0."""


def delivery_target(name: str | None) -> tuple[str, Delivery]:
    """The target push/diff deliver (``name``, default the first with a delivery phase) and its
    :class:`~qosforge.backends.phases.Delivery`; a target without one is refused (exit 2)."""
    from qosforge.backends.registry import require_phase, targets_supporting

    chosen = name or targets_supporting("delivery")[0]
    delivery = require_phase(chosen, "delivery").delivery
    assert delivery is not None  # require_phase refuses a target without the phase
    return chosen, delivery


def _compiled(
    intent: Path,
    switches: Sequence[str],
    approximations: tuple[str, ...],
    inventory: dict[str, str | None] | None,
    target: str,
) -> dict[str, dict[str, Any]]:
    """The intent's documents of ``switches`` for ``target``; ``inventory`` (switch -> where the
    inventory defines it) when the names came from an inventory rather than --switch."""
    import json

    from qosforge.api.compile import compile_fabric
    from qosforge.backends.registry import get_target

    def check_switches(known: tuple[str, ...]) -> None:
        missing = [name for name in switches if name not in known]
        if inventory is None or not missing:
            return
        shown = ", ".join(known[:8]) + (" ..." if len(known) > 8 else "")
        others = [name for name in switches if name in known]
        pick = (
            " ".join(f"--switch {name}" for name in others[:3])
            if others
            else f"--switch {known[0]}"
        )
        raise QosforgeError(
            f"the inventory names {', '.join(repr(m) for m in missing)}, which {intent} does not "
            f"have (its switches: {shown})",
            place=inventory.get(missing[0]) or "--inventory",
            hint=f"act only on switches of the intent with {pick}"
            f"{' ...' if len(others) > 3 else ''}, or fix the inventory",
        )

    compiled = compile_fabric(
        str(intent),
        tuple(switches),
        approximations,
        (target,),
        check_switches if inventory is not None else None,
    )
    fabric = compiled.fabric
    return {
        f.switch: json.loads(f.text) for f in get_target(target).render(fabric.for_target(target))
    }


def read_config(path: Path, target: str) -> dict[str, Any]:
    """A rendered file of ``target``, read and checked by the target's delivery phase."""
    return delivery_target(target)[1].read(path)


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
    return (
        folder.name
        if any(
            entry.switch == folder.name and entry.path.startswith(f"{folder.name}/")
            for entry in recorded
        )
        else None
    )


def _config_switch(path: Path, switches: tuple[str, ...], config_file: str) -> str:
    """The device ``--config FILE`` is for: its compiled switch folder's switch, or ``--switch``."""
    compiled = compiled_switch_of(path)
    if len(switches) > 1:
        raise QosforgeError(
            "one --config FILE for several switches",
            place="--config",
            hint=f"give the compile output folder (with <switch>/{config_file}) or one --switch",
        )
    if compiled is not None and switches and switches[0] != compiled:
        raise QosforgeError(
            f"{path} was compiled for switch {compiled}, not {switches[0]}",
            place="--switch",
            hint=f"give --switch {compiled}, or the {config_file} compiled for {switches[0]}",
        )
    if compiled is None and not switches:
        raise QosforgeError(
            f"{path} is not in a compiled switch folder, so the device it is for is unknown",
            place="--config",
            hint="name it with --switch NAME (e.g. --switch leaf1)",
        )
    return compiled or switches[0]


def _listed(names: Sequence[str]) -> str:
    return f"{', '.join(list(names)[:8])}{' ...' if len(names) > 8 else ''}"


def _inventory_devices(
    request: DeliveryRequest, inventory: Path, config_file: str
) -> tuple[dict[str, Device], list[str]]:
    from qosforge.deliver.devices import load_inventory

    devices = {d.name: d for d in load_inventory(inventory, gnmi_connection(request.connection))}
    unknown = [s for s in request.switches if s not in devices]
    if unknown:
        raise QosforgeError(
            f"switch(es) {', '.join(unknown)} not in the inventory {inventory}",
            place="--switch",
            hint=f"inventory switches: {_listed(list(devices))}; or add them to the inventory",
        )
    names = list(request.switches) or list(devices)
    config = request.config
    if config is not None and not config.is_dir():
        names = [_config_switch(config, request.switches, config_file)]
        if names[0] not in devices:
            raise QosforgeError(
                f"switch {names[0]} (of --config {config}) is not in the inventory {inventory}",
                place="--config",
                hint=f"inventory switches: {_listed(list(devices))}",
            )
    return devices, names


def _address_device(
    request: DeliveryRequest, config_file: str
) -> tuple[dict[str, Device], list[str]]:
    from qosforge.deliver.devices import Device, parse_address

    config, address = request.config, request.connection.address
    names = (
        [_config_switch(config, request.switches, config_file)]
        if config is not None and not config.is_dir()
        else list(request.switches)
    )
    if len(names) != 1:
        raise QosforgeError(
            "name one switch (--switch NAME) for --address, or use --inventory",
            place="--switch",
            hint="e.g. --switch leaf1 --address 10.0.0.1:9339",
        )
    if address is None and not request.dry_run:
        # diff has no --dry-run: what it would compare with is push --dry-run's document.
        without_device = (
            "or --dry-run to see the document without a device"
            if request.action == "push"
            else "to see the intended document without a device: qosforge push ... --dry-run"
        )
        raise QosforgeError(
            "no device address",
            place="--address",
            hint=f"give --address HOST:PORT or --inventory FILE ({without_device})",
        )
    host, port = parse_address(address, "--address") if address else ("-", 0)
    return {names[0]: Device(names[0], host, port, gnmi_connection(request.connection))}, names


def plan_delivery(request: DeliveryRequest) -> DeliveryPlan:
    """The request's (device, intended document) pairs; opens no connection."""
    from qosforge.deliver.session import Intended

    target_name, delivery = delivery_target(request.target)
    config_file, backup_file = delivery.config_file, delivery.backup_file
    intent, config, inventory = request.intent, request.config, request.connection.inventory
    if (intent is None) == (config is None):
        raise QosforgeError(
            "give either INTENT (with --switch or --inventory) or --config FILE",
            place="arguments",
            hint="see --help",
        )
    if inventory is not None:
        devices, names = _inventory_devices(request, inventory, config_file)
    else:
        devices, names = _address_device(request, config_file)
    if intent is not None:
        from_inventory = (
            {n: devices[n].defined_at for n in names}
            if inventory is not None and not request.switches
            else None
        )
        documents = _compiled(intent, names, request.approximations, from_inventory, target_name)
        sources = {n: f"{intent} (switch {n})" for n in names}
        backups = {n: Path.cwd() / f"{n}.{backup_file}" for n in names}
    else:
        assert config is not None
        files = {n: (config / n / config_file if config.is_dir() else config) for n in names}
        if not config.is_dir() and len(names) > 1:
            raise QosforgeError(
                "one --config FILE for several switches",
                place="--config",
                hint=f"give the compile output folder (with <switch>/{config_file}) "
                "or one --switch",
            )
        documents = {n: read_config(path, target_name) for n, path in files.items()}
        sources = {n: str(path) for n, path in files.items()}
        # pushing a backup back must not overwrite it with the state it replaces
        backups = {
            n: path.parent
            / (backup_file if path.name != backup_file else f"previous.{backup_file}")
            for n, path in files.items()
        }
    if request.action == "push" and request.backup is not None:
        chosen = request.backup
        backups = {
            n: (chosen / f"{n}.{backup_file}" if len(names) > 1 or chosen.is_dir() else chosen)
            for n in names
        }
    pairs = tuple((devices[n], Intended(n, documents[n], sources[n], backups[n])) for n in names)
    return DeliveryPlan(target_name, pairs, request.dry_run)


def check_devices(connection: ConnectionRequest, switches: tuple[str, ...]) -> None:
    """The switches a later push will reach are in the inventory (or one is named for
    ``--address``) and their TLS files readable: checked before a long run (``tune --push``)
    rather than after it."""
    from qosforge.deliver.tls import check_connection_files

    request = DeliveryRequest("push", connection, switches=switches, dry_run=True)
    if connection.inventory is not None:
        devices, names = _inventory_devices(request, connection.inventory, "")
    else:
        devices, names = _address_device(request, "")
    # push --dry-run does not check these: it prints SetRequests on a machine that may hold no
    # certificate.
    for device in (devices[n] for n in names):
        tls = device.connection
        check_connection_files(
            tls.insecure, tls.tls_ca, tls.tls_cert, tls.tls_key, f"{device.name} ({device.address})"
        )


def set_request_texts(plan: DeliveryPlan) -> tuple[str, ...]:
    """push --dry-run: each device's SetRequest as text, in the plan's order."""
    from qosforge.deliver.gnmi import request_text, set_request

    return tuple(request_text(set_request(intended.document)) for _, intended in plan.pairs)


def deliver(
    plan: DeliveryPlan, action: Literal["push", "diff"], password: str | None
) -> DeliveryResult:
    """Push to (or compare with) every device of ``plan``; each is tried, a device that cannot be
    used is an outcome with its error, and the worst exit code wins."""
    from qosforge.deliver.session import Outcome, diff, push

    act = push if action == "push" else diff
    revision = delivery_target(plan.target)[1].revision()
    outcomes: list[Outcome] = []
    for device, intended in plan.pairs:
        try:
            outcomes.append(act(device, intended, password, revision))
        except QosforgeError as error:
            outcomes.append(Outcome(device.name, device.address, None, error=error.one_line()))
    code = (
        UNUSABLE
        if any(o.error for o in outcomes)
        else DIFFERENT
        if any(not o.in_sync for o in outcomes)
        else IN_SYNC
    )
    return DeliveryResult(tuple(outcomes), code)


__all__ = [
    "ConnectionRequest",
    "DeliveryPlan",
    "DeliveryRequest",
    "DeliveryResult",
    "check_devices",
    "compiled_switch_of",
    "deliver",
    "delivery_target",
    "gnmi_connection",
    "plan_delivery",
    "read_config",
    "set_request_texts",
]
