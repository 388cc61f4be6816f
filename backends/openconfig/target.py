"""The ``openconfig`` target: openconfig.json (RFC 7951 ``/qos``) per switch (registered in
qosforge.backends.registry)."""

from __future__ import annotations

from collections.abc import Iterator

from qosforge.backends.openconfig.capabilities import APPROXIMATIONS, TARGET_NAME, openconfig_view
from qosforge.backends.registry import RenderedFile, Target
from qosforge.ir import SwitchIR

FILE_NAME = "openconfig.json"


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


TARGET = Target(
    name=TARGET_NAME,
    description="openconfig-qos /qos subtree as RFC 7951 JSON, for a gNMI Set (qosforge push)",
    file_names=(FILE_NAME,),
    view=openconfig_view,
    render=_render,
    approximations=APPROXIMATIONS,
    model=_model,
)
