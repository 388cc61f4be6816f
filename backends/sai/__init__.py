"""SAI backend: the compiler IR as a SAI object graph (JSON) and a sairedis recording.

:func:`render_sai_program` turns one switch's IR (:func:`render_sai_fabric` a fabric's, once per
kind of switch) into a :class:`SaiProgram` (operations in
dependency order with symbolic ids, validated against the SAI metadata);
:func:`program_to_json` / :func:`program_from_json` write and read it (the software switch's
input) and :func:`program_to_recording` writes it as a ``sairedis.rec`` for saiplayer.
:func:`validate_program` / :func:`check_program` check any program, and :func:`program_objects`
gives the final attribute state of every object.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qosforge.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from qosforge.backends.sai.fabric import render_sai_fabric
    from qosforge.backends.sai.json_format import SaiJsonError, program_from_json, program_to_json
    from qosforge.backends.sai.program import (
        MapListEntry,
        PortContext,
        QosMapEntry,
        SaiOperation,
        SaiProgram,
        SchedulerGroupShape,
        SwitchInventory,
    )
    from qosforge.backends.sai.recording import program_to_recording
    from qosforge.backends.sai.render import render_sai_program
    from qosforge.backends.sai.validate import (
        SaiObject,
        SaiValidationError,
        SaiViolation,
        check_program,
        program_objects,
        validate_program,
    )

# Loaded on first use: the target registry imports this package's capabilities module for
# `qosforge compile --help`, which must not pay for the renderer (qosforge/lazy_exports.py).
__getattr__ = lazy_exports(
    __name__,
    {
        "MapListEntry": "program",
        "PortContext": "program",
        "QosMapEntry": "program",
        "SaiJsonError": "json_format",
        "SaiObject": "validate",
        "SaiOperation": "program",
        "SaiProgram": "program",
        "SaiValidationError": "validate",
        "SaiViolation": "validate",
        "SchedulerGroupShape": "program",
        "SwitchInventory": "program",
        "check_program": "validate",
        "program_from_json": "json_format",
        "program_objects": "validate",
        "program_to_json": "json_format",
        "program_to_recording": "recording",
        "render_sai_fabric": "fabric",
        "render_sai_program": "render",
        "validate_program": "validate",
    },
)

__all__ = [
    "MapListEntry",
    "PortContext",
    "QosMapEntry",
    "SaiJsonError",
    "SaiObject",
    "SaiOperation",
    "SaiProgram",
    "SaiValidationError",
    "SaiViolation",
    "SchedulerGroupShape",
    "SwitchInventory",
    "check_program",
    "program_from_json",
    "program_objects",
    "program_to_json",
    "program_to_recording",
    "render_sai_fabric",
    "render_sai_program",
    "validate_program",
]
