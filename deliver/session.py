"""``push`` and ``diff`` for one device, on documents the OpenConfig backend rendered.

push: Capabilities (openconfig-qos and JSON_IETF required; another model version is a warning)
-> Get ``/qos`` saved as the backup -> one Set replacing ``/qos`` -> Get and compare with what was
sent. diff: Get ``/qos`` and compare with the intended document. Results carry the differences;
a device that cannot be used raises :class:`~qosforge.deliver.gnmi.DeviceError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qosforge.deliver.compare import Difference, compare
from qosforge.deliver.devices import Device
from qosforge.deliver.gnmi import GnmiSession, check_capabilities


@dataclass(frozen=True)
class Intended:
    """What one switch should run: the rendered ``/qos`` document and where it came from."""

    switch: str
    document: dict[str, Any]
    source: str
    backup_path: Path


@dataclass(frozen=True)
class Outcome:
    name: str
    address: str
    in_sync: bool | None
    differences: tuple[Difference, ...] = ()
    error: str | None = None
    warnings: tuple[str, ...] = field(default=())
    backup: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "address": self.address,
            "in_sync": self.in_sync,
            "differences": [{"path": d.path, "intended": d.intended, "actual": d.actual} for d in self.differences],
            "error": self.error,
        }


def _session(device: Device, password: str | None, revision: str) -> tuple[GnmiSession, tuple[str, ...]]:
    session = GnmiSession(device, password)
    try:
        warning = check_capabilities(session.capabilities(), revision, f"{device.name} ({device.address})")
    except BaseException:
        session.close()
        raise
    return session, (warning,) if warning else ()


def push(device: Device, intended: Intended, password: str | None, revision: str) -> Outcome:
    from qosforge.files import write_text_atomically

    session, warnings = _session(device, password, revision)
    with session:
        current = session.get_qos()
        # --backup DIR names a folder for a fabric's backups: made on first use, like -o folders
        # now: the device is about to change, so its backup stays even if a later device fails
        backup = json.dumps(current, indent=2) + "\n"
        write_text_atomically(intended.backup_path, backup, create_parents=True, now=True)
        session.set_qos(intended.document)
        differences = compare(intended.document, session.get_qos())
    return Outcome(device.name, device.address, not differences, differences, warnings=warnings, backup=intended.backup_path)


def diff(device: Device, intended: Intended, password: str | None, revision: str) -> Outcome:
    session, warnings = _session(device, password, revision)
    with session:
        differences = compare(intended.document, session.get_qos())
    return Outcome(device.name, device.address, not differences, differences, warnings=warnings)
