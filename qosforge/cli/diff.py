"""``qosforge diff``: read /qos from devices over gNMI and report drift from the intended
rendering, path by path (configuration leaves only, module prefixes normalised;
:mod:`qosforge.api.delivery`)."""

from __future__ import annotations

from typing import Any

import click

from qosforge.api.delivery import deliver, plan_delivery
from qosforge.cli._gnmi import delivery_request, gnmi_options, password_for, render


@click.command("diff")
@gnmi_options
def diff_command(**params: Any) -> None:
    """Compare each device's /qos with the intended OpenConfig rendering (a nightly CI check).

    \b
    Exit codes: 0 in sync; 1 drifted (the differences are printed); 2 unusable input,
    unreachable device, TLS/authentication failure or timeout.
    \b
    Examples:
      qosforge diff examples/openconfig-fabric.yaml --inventory fabric-inventory.yaml --format json
      qosforge diff --config out/leaf1/openconfig.json --address 10.0.0.1:9339 --tls-ca ca.pem
    """
    plan = plan_delivery(delivery_request(params, "diff"))
    render(deliver(plan, "diff", password_for(plan)), params["output_format"] == "json", "read")
