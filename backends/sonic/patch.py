"""``compile --base`` for the sonic target: per switch, the GCU patch (``gcu-patch.json``) from its
running config_db to the compiled one, and the stderr lines for what the patch cannot deliver
(docs/deploy-sonic.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from qosforge.backends.phases import PatchResult, RenderedText
from qosforge.backends.sonic.base_config import BasePatch, base_patches
from qosforge.ir import SwitchIR

PATCH_FILE = "gcu-patch.json"


def gcu_patches(base: Path, rendered: tuple[RenderedText, ...], switches: tuple[SwitchIR, ...], output_root: Path) -> Iterator[PatchResult]:
    from qosforge.vendor_profiles import load_vendor_profile

    configs = {item.switch: json.loads(item.text) for item in rendered if item.switch is not None}
    speeds = {switch.name: {port.name: port.speed_bps for port in switch.ports} for switch in switches}
    profiles = {switch.name: load_vendor_profile(switch.vendor_profile) for switch in switches}
    for patch in base_patches(base, configs, profiles, speeds):
        files = ((PATCH_FILE, patch.text),) if patch.text is not None else ()
        notes = tuple(base_patch_notes(patch, output_root))
        yield PatchResult(patch.switch, files, notes, patched=patch.text is not None)


def base_patch_notes(patch: BasePatch, root: Path) -> list[str]:
    """stderr lines for one switch's ``--base`` result: the ports whose QoS the change removes,
    and, where GCU would refuse the patch, why and the way to deploy instead
    (docs/deploy-sonic.md: ``config qos clear`` + ``config load`` merges the compiled tables)."""
    notes = []
    if patch.ports_losing_qos:
        shown = ", ".join(patch.ports_losing_qos[:8]) + (f" and {len(patch.ports_losing_qos) - 8} more" if len(patch.ports_losing_qos) > 8 else "")
        notes.append(f"warning: {patch.switch}: the change removes the QoS of {len(patch.ports_losing_qos)} port(s) the intent does not list: "
                     f"{shown} (their PORT_QOS_MAP, QUEUE, BUFFER_PG, ... entries); list them in the intent to keep them configured")
    if patch.refusals:
        shown = "; ".join(refusal.text() for refusal in patch.refusals[:3]) + (f"; and {len(patch.refusals) - 3} more" if len(patch.refusals) > 3 else "")
        fragment = root / patch.switch / "config_db.json"
        notes.append(f"note: {patch.switch}: no gcu-patch.json: 'config apply-patch' would refuse {len(patch.refusals)} of its changes "
                     f"(sonic-utilities generic_config_updater field-operation validators): {shown}. Deploy {fragment} instead with "
                     f"'sudo config qos clear && sudo config load {fragment} -y' (merges the compiled QoS tables; PFC_WD is updated in place), "
                     "or a 'config reload' of the saved config with these tables replaced (docs/deploy-sonic.md ways 2 and 3)")
    elif patch.required_branch is not None and patch.branch is None:
        notes.append(f"note: {patch.switch}: GCU accepts gcu-patch.json on SONiC branch "
                     f"{patch.required_branch} or later only (sonic-utilities "
                     "gcu_field_operation_validators.conf.json); the running config does not say "
                     "its version: check 'show version', or add its build_version to "
                     "DEVICE_METADATA|localhost in the base to have it checked")
    return notes


__all__ = ["PATCH_FILE", "base_patch_notes", "gcu_patches"]
