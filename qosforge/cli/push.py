"""``qosforge push``: deliver the OpenConfig rendering to devices over gNMI (docs/openconfig.md).

Capabilities -> Get /qos (saved as a backup, so ``push --config BACKUP`` restores it) -> one Set
replacing /qos (the device applies all or nothing) -> Get and compare
(:mod:`qosforge.api.delivery`).
"""

from __future__ import annotations

from typing import Any

import click

from qosforge.api.delivery import deliver, plan_delivery, set_request_texts
from qosforge.cli._gnmi import BACKUP_FILE, delivery_request, gnmi_options, password_for, render
from qosforge.cli.options import OutputPath


@click.command("push")
@gnmi_options
@click.option("--backup", type=OutputPath("qos-backup.json"), help=f"Where to save the device's previous /qos (default: {BACKUP_FILE} beside --config, or ./<switch>.{BACKUP_FILE}).")
@click.option("--dry-run", is_flag=True, help="Print the SetRequest; open no connection.")
def push_command(**params: Any) -> None:
    """Push /qos (openconfig-qos, JSON_IETF) to devices with one gNMI Set replace, then read it back.

    \b
    Exit codes: 0 applied and in sync; 1 applied but the read-back differs; 2 unusable input,
    unreachable device, TLS/authentication failure, timeout, or a Set the device rejected.
    \b
    Examples:
      qosforge push examples/openconfig-fabric.yaml --switch leaf1 --address 10.0.0.1:9339 --tls-ca ca.pem --username netops
      qosforge push --config out/leaf1/openconfig.json --address 10.0.0.1:9339 --dry-run
      qosforge push examples/openconfig-fabric.yaml --inventory fabric-inventory.yaml
    """
    plan = plan_delivery(delivery_request(params, "push"))
    if plan.dry_run:
        for (device, intended), text in zip(plan.pairs, set_request_texts(plan), strict=True):
            click.echo(f"# SetRequest for {device.name} ({device.address if device.port else 'no address'}) from {intended.source}; dry run: no connection opened")
            click.echo(text)
        return
    render(deliver(plan, "push", password_for(plan)), params["output_format"] == "json", "applied")
