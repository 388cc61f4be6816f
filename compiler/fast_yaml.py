"""A fast path for loading large intent files: libyaml's C parser, YAML 1.2 like ruamel.yaml.

ruamel.yaml's round-trip loader (compiler/loader.py) keeps every position, which error messages
need, but it is pure Python: an explicit 1,000-switch topology (~19,000 lines) took most of a
compile's time in it. Valid files are the common case, so they are parsed here with PyYAML's
libyaml binding, with ruamel.yaml's own YAML 1.2 implicit resolvers and scalar constructors, so
the data is the same; positions are only parsed (by ruamel.yaml) when an error has to be placed.

:func:`fast_load` returns ``None`` for anything it does not reproduce exactly — a YAML error,
duplicate keys, more than one document, merge keys, anchors' tags beyond the core schema,
a ``%YAML`` directive — and the caller then takes the ruamel.yaml path, which gives the
positioned message.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ruamel.yaml import YAML
from ruamel.yaml.nodes import ScalarNode as RuamelScalar
from ruamel.yaml.resolver import implicit_resolvers

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
#: Scalar tags whose values ruamel.yaml's SafeConstructor builds (the YAML 1.2 core schema).
_CORE_SCALARS = frozenset({"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:null"})


class _Unsupported(Exception):
    """The document uses something this path does not reproduce: use ruamel.yaml."""


def _loader_class() -> Any:
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        return None
    base = getattr(yaml, "CSafeLoader", None)
    if base is None:
        return None

    class Loader(base):  # type: ignore[misc, valid-type]
        yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, Any]]]] = {}

    for versions, tag, regexp, first in implicit_resolvers:
        if (1, 2) in versions:
            Loader.add_implicit_resolver(tag, regexp, first)
    return Loader


_LOADER: list[Any] = []


def _scalar_constructor() -> Any:
    """ruamel.yaml's safe constructor, with the YAML 1.2 resolver it consults for ints."""
    return YAML(typ="safe", pure=True).constructor


_SCALARS: list[Any] = []


def _build(node: Any, loader: Any, tagged: bool) -> Any:
    """``tagged``: the text has a '!', so a node may carry an explicit tag."""
    tag = node.tag
    if tagged and node.id == "scalar":
        # An explicit tag (``!!str 12``) is left to ruamel.yaml, which keeps it as a tagged scalar.
        implicit = _STR if node.style else loader.resolve(type(node), node.value, (True, False))
        if tag != implicit:
            raise _Unsupported
    if tag == _STR:
        return node.value
    if tag == _MAP:
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag != _STR and key_node.tag not in _CORE_SCALARS:
                raise _Unsupported
            key = _build(key_node, loader, tagged)
            if key in result:
                raise _Unsupported  # duplicate key: ruamel.yaml reports it with its position
            result[key] = _build(value_node, loader, tagged)
        # Keys as text, as loader._to_plain makes them from ruamel.yaml's mappings.
        return {str(key): value for key, value in result.items()}
    if tag == _SEQ:
        return [_build(item, loader, tagged) for item in node.value]
    if tag in _CORE_SCALARS:
        if not _SCALARS:
            _SCALARS.append(_scalar_constructor())
        return _SCALARS[0].construct_object(RuamelScalar(tag, node.value), deep=True)
    raise _Unsupported


def fast_load(text: str) -> Any | None:
    """The single document of ``text`` as plain dicts, lists and scalars, or ``None``."""
    if not _LOADER:
        _LOADER.append(_loader_class())
    loader = _LOADER[0]
    if loader is None or "%YAML" in text:
        return None
    import yaml

    try:
        parser = loader(text)
        try:
            node = parser.get_single_node()
            return None if node is None else _build(node, parser, "!" in text)
        finally:
            parser.dispose()
    except (yaml.YAMLError, _Unsupported, RecursionError):
        return None


__all__ = ["fast_load"]
