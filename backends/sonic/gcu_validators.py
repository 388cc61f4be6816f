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
  - an ASIC GCU cannot name (``get_asic_name`` -> ``unknown``) fails every scenario;
  - each scenario names, per ASIC, the first SONiC branch that allows it (``platforms``:
    ``"20191100"``; empty: never). GCU takes the branch from the image's ``build_version`` (the
    last eight-digit part of ``SONiC.20220532.29``-style versions, /etc/sonic/sonic_version.yml)
    and refuses a scenario on an older branch; a version without such a part (a master build) is
    not checked.

A running config_db does not carry the image's version: where its ``DEVICE_METADATA|localhost``
has a ``build_version`` (copied from ``show version``), it is checked as GCU does; otherwise the
verdict is GCU's on a new enough branch, and :func:`required_branch` says which branch that is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonpatch
import jsonpointer

#: gcu_field_operation_validators.conf.json (commit 691b1bbc): the first SONiC branch (YYYYMM00)
#: of each ASIC on which "PFCWD enable/disable" and "Dynamic threshold tuning" are allowed.
_RDMA_BRANCHES: Mapping[str, str] = {
    "spc1": "20181100", "spc2": "20191100", "spc3": "20220500", "spc4": "20221100",
    "spc5": "20241200", "spc6": "20260500", "td2": "20181100", "th": "20181100", "th2": "20181100",
    "th3": "20240500", "th4": "20240500", "th5": "20240500", "th6": "20251100", "td3": "20201200",
    "td4": "20241100", "q2c+": "20241100", "j2c+": "20220500", "q3d": "20251100",
    "cisco-8000": "20201200", "marvell-teralynx": "20241100",
}
#: The same file's "PG headroom modification": later on Broadcom, never on Trident2 (empty) nor
#: Teralynx (absent).
_XOFF_BRANCHES: Mapping[str, str] = {
    **{asic: branch for asic, branch in _RDMA_BRANCHES.items() if asic != "marvell-teralynx"},
    "spc1": "20191100", "td2": "", "th": "20221100", "th2": "20221100", "td3": "20221100",
}

#: gu_common.py validate_field_operation: removals GCU refuses on every platform.
_ILLEGAL_REMOVALS = ("/PFC_WD/GLOBAL/POLL_INTERVAL", "/PFC_WD/GLOBAL")


@dataclass(frozen=True)
class _Scenario:
    name: str
    fields: tuple[str, ...]
    operations: tuple[str, ...]
    platforms: Mapping[str, str]
    """GCU ASIC name -> the first SONiC branch that allows the scenario (empty or absent: none)."""


#: gcu_field_operation_validators.conf.json ``tables.<table>.validator_data.rdma_config_update_validator``.
_SCENARIOS: Mapping[str, tuple[_Scenario, ...]] = {
    "PFC_WD": (_Scenario("PFCWD enable/disable",
                         ("restoration_time", "detection_time", "action", "global/poll_interval",
                          "pfc_stat_history", ""),
                         ("remove", "add", "replace"), _RDMA_BRANCHES),),
    "BUFFER_POOL": (_Scenario("Shared/headroom pool size changes", (), (), {}),),
    "BUFFER_PROFILE": (
        _Scenario("Dynamic threshold tuning", ("dynamic_th",), ("replace",), _RDMA_BRANCHES),
        _Scenario("PG headroom modification", ("xoff",), ("replace",), _XOFF_BRANCHES),
        _Scenario("Packet trimming eligibility modification", ("packet_discard_action",), ("add", "replace"),
                  {"spc4": "20241200", "spc5": "20241200", "spc6": "20260500", "th5": "20241200",
                   "th6": "20251100"}),
    ),
}


def branch_of(build_version: str) -> str | None:
    """The SONiC branch GCU reads from an image's ``build_version``: its last part of exactly eight
    digits (field_operation_validators.py rdma_config_update_validator_common), or None."""
    found = [part for part in build_version.split(".") if len(part) == 8 and part.isdigit()]
    return found[-1] if found else None


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


def _scenarios(table: str, element: Mapping[str, Any], *, exact: bool,
               remove_port: bool) -> list[tuple[str, _Scenario | None]]:
    """Each cleaned field of ``element`` with the scenario it falls under (None: none)."""
    out = []
    for field in _cleaned_fields(element, remove_port=remove_port):
        candidate = field if exact else field.split("/")[-1]
        out.append((field, next((s for s in _SCENARIOS[table] if candidate in s.fields), None)))
    return out


def _scenario_refusal(table: str, element: Mapping[str, Any], asic: str | None, branch: str | None,
                      *, exact: bool, remove_port: bool) -> str | None:
    """rdma_config_update_validator_common: None when allowed, else why not."""
    if asic is None:
        return "GCU knows no ASIC for this HWSKU (get_asic_name: unknown), so every scenario fails"
    for field, scenario in _scenarios(table, element, exact=exact, remove_port=remove_port):
        if scenario is None:
            allowed = ", ".join(f for s in _SCENARIOS[table] for f in s.fields if f) or "none"
            return f"{table} field {field or '(whole entry)'!r} is not one GCU lets change (fields it allows: {allowed})"
        first = scenario.platforms.get(asic)
        if not first:
            return f"{scenario.name!r} is not allowed on ASIC {asic}"
        if element["op"] not in scenario.operations:
            return f"{scenario.name!r} allows only {', '.join(scenario.operations)}, not {element['op']}"
        if branch is not None and branch < first:  # GCU compares the eight digits as text
            return (f"{scenario.name!r} on ASIC {asic} needs SONiC branch {first} or later; "
                    f"the running image is branch {branch}")
    return None


def _validated(element: Mapping[str, Any]) -> tuple[str, bool, bool] | None:
    """(table, exact field match, ports removed) of the validator that checks ``element``'s
    fields (a whole BUFFER_PROFILE table too: its profile names match no field), or None where
    none does (a whole BUFFER_PROFILE entry, a table without a validator)."""
    parts = jsonpointer.JsonPointer(element["path"]).parts
    if parts[0] in ("PFC_WD", "BUFFER_POOL"):
        return parts[0], True, True
    if parts[0] == "BUFFER_PROFILE" and len(parts) != 2:
        return parts[0], False, False
    return None


def _refusal(element: Mapping[str, Any], asic: str | None, branch: str | None) -> str | None:
    op, path = element["op"], element["path"]
    if op == "remove" and path in _ILLEGAL_REMOVALS:
        return "GCU never removes it (gu_common.py illegal_operations_to_fields_map)"
    parts = jsonpointer.JsonPointer(path).parts
    if parts[0] == "BUFFER_PROFILE" and len(parts) == 2:  # a whole profile: add/remove/replace pass
        if op in ("add", "remove", "replace"):
            return None
        return f"a whole profile may be added, removed or replaced, not {op}"
    validated = _validated(element)
    if validated is None:
        return None
    table, exact, remove_port = validated
    return _scenario_refusal(table, element, asic, branch, exact=exact, remove_port=remove_port)


def _gcu_diff(running: Mapping[str, Any],
              patch: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """GCU's own diff of the running config to the patched one (what its validators see)."""
    target = jsonpatch.apply_patch(running, list(patch))
    return list(jsonpatch.JsonPatch.from_diff(dict(running), target))


def gcu_refusals(running: Mapping[str, Any], patch: Sequence[Mapping[str, Any]], asic: str | None,
                 branch: str | None = None) -> list[Refusal]:
    """The operations of GCU's own diff (running -> running + ``patch``) its field-operation
    validators refuse; ``asic`` is GCU's name for the switch's ASIC (``td2``, ``spc2``, ...), None
    when GCU would not know it; ``branch`` the running image's SONiC branch (:func:`branch_of`),
    None when unknown (not checked)."""
    refusals = []
    for element in _gcu_diff(running, patch):
        reason = _refusal(element, asic, branch)
        if reason is not None:
            refusals.append(Refusal(element["op"], element["path"], reason))
    return refusals


def required_branch(running: Mapping[str, Any], patch: Sequence[Mapping[str, Any]],
                    asic: str) -> str | None:
    """The first SONiC branch on which GCU's validators let ``asic`` apply every operation of the
    change (the latest of the scenarios it uses), or None where no scenario is used."""
    firsts = []
    for element in _gcu_diff(running, patch):
        validated = _validated(element)
        if validated is None:
            continue
        table, exact, remove_port = validated
        used = _scenarios(table, element, exact=exact, remove_port=remove_port)
        firsts += [s.platforms.get(asic) or "" for _, s in used if s is not None]
    return max(firsts, default=None) or None


__all__ = ["Refusal", "branch_of", "gcu_refusals", "required_branch"]
