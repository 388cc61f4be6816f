"""What SONiC's Generic Config Updater refuses before it applies a patch: its field-operation
validators, transcribed from sonic-utilities (commit 691b1bbc) so ``compile --base`` can tell,
offline, whether ``config apply-patch`` would carry the change at all.

``config apply-patch`` (``generic_config_updater/generic_updater.py: PatchApplier.apply``) takes
the running config (old) and the patched one (target), and runs
``gu_common.py: ConfigWrapper.validate_field_operation(old, target)`` on GCU's *own* diff,
``jsonpatch.JsonPatch.from_diff(old, target)``, not on the operations as the patch wrote them:

* removing ``/PFC_WD/GLOBAL`` or ``/PFC_WD/GLOBAL/POLL_INTERVAL`` is illegal outright;
* every operation on a table listed in ``gcu_field_operation_validators.conf.json`` must pass the
  table's validators (``field_operation_validators.py``):

  - ``BUFFER_POOL`` and ``PFC_WD``: ``rdma_config_update_validator`` (exact field match, path
    tokens with a digit dropped as port names). BUFFER_POOL's one scenario lists no fields, so
    every change to it is refused; PFC_WD allows its fields on the listed ASICs;
  - ``BUFFER_PROFILE``: ``buffer_profile_config_update_validator``: a whole profile
    (``/BUFFER_PROFILE/<name>``) may be added, removed or replaced; a field only as its
    scenarios allow (``dynamic_th`` and ``xoff`` replace, ``packet_discard_action``), matched on
    the last path token; a whole-table ``add /BUFFER_PROFILE`` matches no field and is refused;
  - an ASIC GCU cannot name (``get_asic_name`` -> ``unknown``) fails every scenario.

SONiC branch versions are not checked here (the running image's version is not in config_db):
the verdict is the most GCU can accept, on its newest branch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonpatch
import jsonpointer

#: gu_common.py validate_field_operation: removals GCU refuses on every platform.
_ILLEGAL_REMOVALS = ("/PFC_WD/GLOBAL/POLL_INTERVAL", "/PFC_WD/GLOBAL")


@dataclass(frozen=True)
class _Scenario:
    name: str
    fields: tuple[str, ...]
    operations: tuple[str, ...]
    asics: frozenset[str]
    """GCU ASIC names whose platform entry is non-empty (an empty string fails the check)."""


_EVERY_RDMA_ASIC = frozenset({"cisco-8000", "j2c+", "marvell-teralynx", "q2c+", "q3d", "spc1", "spc2", "spc3", "spc4", "spc5",
                              "spc6", "td2", "td3", "td4", "th", "th2", "th3", "th4", "th5", "th6"})
#: gcu_field_operation_validators.conf.json ``tables.<table>.validator_data.rdma_config_update_validator``.
_SCENARIOS: Mapping[str, tuple[_Scenario, ...]] = {
    "PFC_WD": (_Scenario("PFCWD enable/disable", ("restoration_time", "detection_time", "action", "global/poll_interval",
                                                   "pfc_stat_history", ""), ("remove", "add", "replace"), _EVERY_RDMA_ASIC),),
    "BUFFER_POOL": (_Scenario("Shared/headroom pool size changes", (), (), frozenset()),),
    "BUFFER_PROFILE": (
        _Scenario("Dynamic threshold tuning", ("dynamic_th",), ("replace",), _EVERY_RDMA_ASIC),
        _Scenario("PG headroom modification", ("xoff",), ("replace",), _EVERY_RDMA_ASIC - {"td2", "marvell-teralynx"}),
        _Scenario("Packet trimming eligibility modification", ("packet_discard_action",), ("add", "replace"),
                  frozenset({"spc4", "spc5", "spc6", "th5", "th6"})),
    ),
}


@dataclass(frozen=True)
class Refusal:
    operation: str
    path: str
    reason: str

    def text(self) -> str:
        return f"{self.operation} {self.path} ({self.reason})"


def _cleaned_fields(element: Mapping[str, Any], *, remove_port: bool) -> list[str]:
    """field_operation_validators.py rdma_config_update_validator_common._get_fields_in_patch."""
    elements = jsonpointer.JsonPointer(element["path"]).parts[1:]
    if remove_port:
        elements = [part for part in elements if not any(char.isdigit() for char in part)]
    cleaned = "/".join(elements).lower()
    value = element.get("value")
    if isinstance(value, dict):
        return [f"{cleaned}/{key}" if cleaned else key for key in value]
    return [cleaned]


def _scenario_refusal(table: str, element: Mapping[str, Any], asic: str | None, *, exact: bool, remove_port: bool) -> str | None:
    """rdma_config_update_validator_common: None when allowed, else why not."""
    if asic is None:
        return "GCU knows no ASIC for this HWSKU (get_asic_name: unknown), so every scenario fails"
    for field in _cleaned_fields(element, remove_port=remove_port):
        candidate = field if exact else field.split("/")[-1]
        scenario = next((s for s in _SCENARIOS[table] if candidate in s.fields), None)
        if scenario is None:
            allowed = ", ".join(f for s in _SCENARIOS[table] for f in s.fields if f) or "none"
            return f"{table} field {field or '(whole entry)'!r} is not one GCU lets change (fields it allows: {allowed})"
        if asic not in scenario.asics:
            return f"{scenario.name!r} is not allowed on ASIC {asic}"
        if element["op"] not in scenario.operations:
            return f"{scenario.name!r} allows only {', '.join(scenario.operations)}, not {element['op']}"
    return None


def _refusal(element: Mapping[str, Any], asic: str | None) -> str | None:
    op, path = element["op"], element["path"]
    if op == "remove" and path in _ILLEGAL_REMOVALS:
        return "GCU never removes it (gu_common.py illegal_operations_to_fields_map)"
    table = jsonpointer.JsonPointer(path).parts[0]
    if table in ("PFC_WD", "BUFFER_POOL"):
        return _scenario_refusal(table, element, asic, exact=True, remove_port=True)
    if table == "BUFFER_PROFILE":
        if len(jsonpointer.JsonPointer(path).parts) == 2:  # a whole profile: add/remove/replace pass
            return None if op in ("add", "remove", "replace") else f"a whole profile may be added, removed or replaced, not {op}"
        return _scenario_refusal(table, element, asic, exact=False, remove_port=False)
    return None


def gcu_refusals(running: Mapping[str, Any], patch: Sequence[Mapping[str, Any]], asic: str | None) -> list[Refusal]:
    """The operations of GCU's own diff (running -> running + ``patch``) its field-operation
    validators refuse; ``asic`` is GCU's name for the switch's ASIC (``td2``, ``spc2``, ...), None
    when GCU would not know it."""
    target = jsonpatch.apply_patch(running, list(patch))
    refusals = []
    for element in jsonpatch.JsonPatch.from_diff(dict(running), target):
        reason = _refusal(element, asic)
        if reason is not None:
            refusals.append(Refusal(element["op"], element["path"], reason))
    return refusals


__all__ = ["Refusal", "gcu_refusals"]
