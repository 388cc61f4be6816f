"""OpenConfig backend: the IR as the ``openconfig-qos`` ``/qos`` subtree in RFC 7951 JSON.

:func:`render_openconfig` builds one switch through the typed pyangbind bindings of the published
model (every leaf type- and range-checked as it is set), :func:`openconfig_to_json` writes it and
:func:`load_openconfig` reads any document back through the same bindings (a violation is a
:class:`ModelViolation`). :func:`model_revision` names the model revision of the bindings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qosforge.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from qosforge.backends.openconfig.model import (
        ModelViolation,
        bindings_package,
        load_openconfig,
        model_revision,
        validate_openconfig,
    )
    from qosforge.backends.openconfig.render import (
        openconfig_to_json,
        render_fabric,
        render_openconfig,
    )

# Loaded on first use: the target registry imports this package's capabilities module for
# `qosforge compile --help`, which must not pay for the renderer (qosforge/lazy_exports.py).
__getattr__ = lazy_exports(
    __name__,
    {
        "ModelViolation": "model",
        "bindings_package": "model",
        "load_openconfig": "model",
        "model_revision": "model",
        "openconfig_to_json": "render",
        "render_fabric": "render",
        "render_openconfig": "render",
        "validate_openconfig": "model",
    },
)

__all__ = [
    "ModelViolation",
    "bindings_package",
    "load_openconfig",
    "model_revision",
    "openconfig_to_json",
    "render_fabric",
    "render_openconfig",
    "validate_openconfig",
]
