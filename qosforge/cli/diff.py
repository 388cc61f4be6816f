"""``qosforge diff``: read /qos from devices over gNMI and report drift from the intended
rendering, path by path (configuration leaves only, module prefixes normalised)."""

from __future__ import annotations

from typing import Any

import click

from qosforge.cli._gnmi import gnmi_options, resolve, run


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
    from qosforge.deliver.session import diff

    params["dry_run"] = False
    pairs, password, as_json = resolve(params, push=False)
    run(pairs, diff, password, as_json, "read", params)
