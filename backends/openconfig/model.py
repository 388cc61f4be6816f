"""The openconfig-qos model through pyangbind bindings generated from the published YANG.

The bindings come from the PyPI package ``oc-config-validate`` (Google gnxi), which ships
pyangbind classes for the OpenConfig models together with the list of the module revisions they
were generated from (``oc_config_validate.models.__model_versions__``): ``openconfig-qos@2026-01-16``.
That recorded revision is why it is used rather than ``ocbindings`` (which records none, and whose
qos bindings predate 2026). Setting a leaf runs the model's type and range checks; loading a
document uses pyangbind's RFC 7951 decoder, which rejects unknown nodes and bad values.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
from types import ModuleType
from typing import Any

BINDINGS_DISTRIBUTION = "oc-config-validate"
MODULE = "openconfig-qos"
ROOT_KEY = f"{MODULE}:qos"

Document = dict[str, Any]


class ModelViolation(ValueError):
    """A document or value the openconfig-qos model does not accept."""


@functools.cache
def bindings() -> ModuleType:
    """The generated openconfig-qos bindings, with pyangbind's node classes built once per kind
    of node (:mod:`~qosforge.backends.openconfig.node_classes`: ~4x less CPU a decode)."""
    import oc_config_validate.models.qos as qos

    from qosforge.backends.openconfig.node_classes import reuse_node_classes

    reuse_node_classes(qos)
    module: ModuleType = qos
    return module


@functools.cache
def model_revision() -> str:
    """``openconfig-qos@YYYY-MM-DD``: the revision the bindings were generated from."""
    import oc_config_validate.models as models

    versions: str = models.__model_versions__
    for line in versions.splitlines():
        if line.strip().startswith(f"{MODULE}@"):
            return line.strip().split()[0]
    raise RuntimeError(f"{BINDINGS_DISTRIBUTION} does not record a revision of {MODULE}")


def bindings_package() -> str:
    """The distribution and version the bindings come from, e.g. ``oc-config-validate 2.10.0.post1``."""
    return f"{BINDINGS_DISTRIBUTION} {importlib.metadata.version(BINDINGS_DISTRIBUTION)}"


def new_root() -> Any:
    """An empty ``openconfig-qos`` module object; ``root.qos`` is the ``/qos`` container."""
    return bindings().openconfig_qos()


def error_text(error: Exception) -> str:
    """pyangbind raises ValueError({'error-string': ...}); keep the message, drop the generated code."""
    argument = error.args[0] if error.args else error
    if isinstance(argument, dict) and "error-string" in argument:
        return str(argument["error-string"])
    return str(argument)


def to_rfc7951(root: Any) -> dict[str, Any]:
    """The module object as RFC 7951 JSON (64-bit integers as strings, module-qualified top)."""
    from pyangbind.lib import pybindJSON

    document: dict[str, Any] = json.loads(pybindJSON.dumps(root, mode="ietf", indent=None))
    _keys_as_their_config(document)
    return document


def encode_node(node: Any) -> Document:
    """A bound container or list entry as RFC 7951 JSON, exactly as the bindings encode it inside
    its ``/qos`` parent (members of openconfig-qos are not module-qualified)."""
    from pyangbind.lib.serialise import pybindIETFJSONEncoder

    tree = pybindIETFJSONEncoder.generate_element(node, parent_namespace=_namespace(), flt=True)
    document: Document = json.loads(json.dumps(tree, cls=pybindIETFJSONEncoder))
    _keys_as_their_config(document)
    return document


@functools.cache
def _namespace() -> str:
    """The openconfig-qos namespace (of ``/qos`` and every list under it)."""
    namespace: str = new_root().qos._namespace
    return namespace


def _keys_as_their_config(node: Any) -> None:
    """OpenConfig list keys are leafrefs to ``config/<key>``; RFC 7951 §6.10 encodes a leafref as
    the leaf it refers to, but pyangbind writes every leafref as a string (``"sequence": "0"`` for a
    uint32). Give each key its ``config`` leaf's encoding (same value, the bindings' own output)."""
    if isinstance(node, list):
        for item in node:
            _keys_as_their_config(item)
    elif isinstance(node, dict):
        config = node.get("config")
        if isinstance(config, dict):
            for key, value in node.items():
                if key in config and not isinstance(value, (dict, list)) and str(config[key]) == str(value):
                    node[key] = config[key]
        for value in node.values():
            _keys_as_their_config(value)


def load_openconfig(document: Any) -> Any:
    """Load an RFC 7951 ``{"openconfig-qos:qos": {...}}`` document into the bindings.

    Raises :class:`ModelViolation` naming the first node or value the model rejects."""
    from pyangbind.lib.serialise import pybindJSONDecoder

    if not isinstance(document, dict) or set(document) != {ROOT_KEY}:
        keys = sorted(document) if isinstance(document, dict) else type(document).__name__
        raise ModelViolation(f"expected one top-level member {ROOT_KEY!r}, got {keys}")
    from qosforge.backends.openconfig.node_classes import BINDINGS_LOCK

    try:
        with BINDINGS_LOCK:
            return pybindJSONDecoder.load_ietf_json(document, bindings(), "openconfig_qos")
    except (ValueError, AttributeError, KeyError, TypeError) as error:
        raise ModelViolation(error_text(error)) from None


def _without_key(entry: dict[str, Any]) -> str:
    config = {k: v for k, v in entry.get("config", {}).items() if k != "interface-id"}
    rest = {k: v for k, v in entry.items() if k not in ("interface-id", "config")}
    return json.dumps([config, rest], sort_keys=True)


def validate_openconfig(document: Any) -> int:
    """Validate a document through the bindings, decoding each distinct ``/qos/interfaces``
    entry once: entries that differ only in ``interface-id`` (a plain string key) decode alike,
    and pyangbind's decoder costs ~0.02 CPU s per entry (~0.05 with pyangbind's own node classes,
    node_classes.py), so a 968-port spine would otherwise take 20 s. Keys are checked to be
    distinct strings equal to their ``config/interface-id``.
    A document already accepted in this process is not decoded again.
    Returns how many distinct interface entries the document has."""
    if not isinstance(document, dict) or not isinstance(document.get(ROOT_KEY), dict):
        load_openconfig(document)
        return 0
    qos = document[ROOT_KEY]
    interfaces = qos.get("interfaces", {}).get("interface", []) if isinstance(qos.get("interfaces"), dict) else []
    distinct: dict[str, dict[str, Any]] = {}
    keys: set[str] = set()
    for entry in interfaces:
        key = entry.get("interface-id") if isinstance(entry, dict) else None
        if not isinstance(key, str) or key in keys or entry.get("config", {}).get("interface-id", key) != key:
            raise ModelViolation(f"/qos/interfaces/interface: bad or duplicate key {key!r}")
        keys.add(key)
        distinct.setdefault(_without_key(entry), entry)
    reduced = {ROOT_KEY: {**qos, "interfaces": {**qos["interfaces"], "interface": list(distinct.values())}}} if interfaces else document
    text = json.dumps(reduced)
    if text not in _VALID:
        load_openconfig(reduced)
        _VALID[text] = None
        while len(_VALID) > _KEEP_VALID:
            del _VALID[next(iter(_VALID))]
    return len(distinct)


_KEEP_VALID = 64
_VALID: dict[str, None] = {}
"""The last documents the decoder accepted (as JSON text): the bindings' verdict on a document
depends on its content only, so ``push``/``diff`` of one compiled document in a process (every
switch of a kind, or the tests' repeated runs) decodes it once."""
