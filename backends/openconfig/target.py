"""The ``openconfig`` target: openconfig.json (RFC 7951 ``/qos``) per switch (registered in
qosforge.backends.registry), delivered by ``qosforge push`` / ``diff`` (gNMI Set/Get of ``/qos``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qosforge.backends.openconfig.capabilities import APPROXIMATIONS, TARGET_NAME, openconfig_view
from qosforge.backends.phases import Delivery
from qosforge.backends.registry import RenderedFile, Target
from qosforge.errors import QosforgeError
from qosforge.ir import SwitchIR

FILE_NAME = "openconfig.json"
#: Where ``push`` saves a device's previous /qos beside the pushed file.
BACKUP_FILE = "openconfig.backup.json"


def _render(switches: tuple[SwitchIR, ...]) -> Iterator[RenderedFile]:
    from qosforge.backends.openconfig.render import openconfig_to_json, render_fabric

    texts: dict[int, tuple[object, str]] = {}  # the document is kept so its id stays unique
    for switch, document in render_fabric(switches):
        if id(document) not in texts:  # one encoding per switch kind
            texts[id(document)] = (document, openconfig_to_json(document))
        yield RenderedFile(switch.name, FILE_NAME, texts[id(document)][1])


def _model() -> str:
    from qosforge.backends.openconfig.model import bindings_package, model_revision

    return f"{model_revision()} ({bindings_package()} pyangbind bindings)"


def read_config(path: Path) -> dict[str, Any]:
    """A rendered openconfig.json, checked through the openconfig-qos bindings (``push --config``)."""
    from qosforge.backends.openconfig import (  # (the package attribute: tests swap it)
        ModelViolation,
        validate_openconfig,
    )

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise QosforgeError(f"cannot read: {error.strerror}", place=str(path), hint=f"give a {FILE_NAME} written by qosforge compile --target openconfig") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        what = "nested too deeply" if isinstance(error, RecursionError) else error
        raise QosforgeError(
            f"not JSON: {what}",
            place=str(path),
            hint=f"give a {FILE_NAME} written by qosforge compile --target openconfig",
        ) from None
    try:
        validate_openconfig(document)
    except ModelViolation as violation:
        raise QosforgeError(f"not an openconfig-qos document: {violation}", place=str(path), hint="the file must load through the openconfig-qos model") from None
    return dict(document)


def _revision() -> str:
    from qosforge.backends.openconfig.model import model_revision

    return model_revision()


TARGET = Target(
    name=TARGET_NAME,
    description="openconfig-qos /qos subtree as RFC 7951 JSON, for a gNMI Set (qosforge push)",
    file_names=(FILE_NAME,),
    view=openconfig_view,
    render=_render,
    approximations=APPROXIMATIONS,
    model=_model,
    delivery=Delivery(FILE_NAME, BACKUP_FILE, read_config, _revision),
)
