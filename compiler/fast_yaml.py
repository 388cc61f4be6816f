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

:class:`EventReader` reads the same documents from libyaml's event stream, one node at a time with
the line each starts on, so a caller can place its errors and stop reading early (a traffic file's
flow cap) without building libyaml's node tree, which costs ~10x the events themselves. It raises
:class:`Unsupported` (or ``yaml.YAMLError``) where :func:`fast_load` returns ``None``.
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


class Unsupported(Exception):
    """The document uses something this path does not reproduce: use ruamel.yaml."""


_Unsupported = Unsupported


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


def _core_scalar(tag: str, value: str) -> Any:
    if not _SCALARS:
        _SCALARS.append(_scalar_constructor())
    return _SCALARS[0].construct_object(RuamelScalar(tag, value), deep=True)


class EventReader:
    """One YAML document from libyaml's C event parser, as plain dicts, lists and scalars (YAML
    1.2 core schema, as :func:`fast_load` builds them), read node by node.

    Anchors, aliases, explicit tags, merge keys (``<<``), duplicate keys and a ``%YAML``
    directive raise :class:`Unsupported`; the caller then reads the text with ruamel.yaml.
    """

    def __init__(self, text: str) -> None:
        if not _LOADER:
            _LOADER.append(_loader_class())
        loader_class = _LOADER[0]
        if loader_class is None or "%YAML" in text:
            raise Unsupported
        self._parser = loader_class(text)
        # Plain scalars repeat (class names, sizes, hosts): resolve each text once.
        self._plain: dict[str, Any] = {}

    def close(self) -> None:
        self._parser.dispose()

    def next(self) -> Any:
        """The next event (``yaml.events``); its ``start_mark.line`` is 0-based."""
        return self._parser.get_event()

    def peek(self) -> Any:
        return self._parser.peek_event()

    def start(self) -> Any:
        """Skip the stream's and document's start: the root node's first event."""
        import yaml

        for kind in (yaml.StreamStartEvent, yaml.DocumentStartEvent):
            if not isinstance(self.next(), kind):
                raise Unsupported
        return self.next()

    def end(self) -> None:
        """The document ends here and no other follows."""
        import yaml

        if not isinstance(self.next(), yaml.DocumentEndEvent):
            raise Unsupported
        if not isinstance(self.next(), yaml.StreamEndEvent):
            raise Unsupported

    def key(self, event: Any) -> str:
        """A mapping key (a scalar, as text, as loader._to_plain makes keys)."""
        import yaml

        if not isinstance(event, yaml.ScalarEvent):
            raise Unsupported
        value = self.value(event)
        if not event.style and event.value == "<<":
            raise Unsupported  # a merge key: ruamel.yaml merges
        return str(value)

    def value(self, event: Any) -> Any:
        """The node that starts with ``event``, read to its end."""
        import yaml

        if event.anchor is not None or isinstance(event, yaml.AliasEvent):
            raise Unsupported
        if isinstance(event, yaml.ScalarEvent):
            if event.tag is not None and event.tag != "!":
                raise Unsupported  # an explicit tag (``!!str 12``): ruamel.yaml keeps it tagged
            if event.style:  # quoted or a block scalar: text ('' is libyaml's plain style)
                return event.value
            text = event.value
            if text not in self._plain:
                tag = self._parser.resolve(yaml.ScalarNode, text, event.implicit)
                if tag != _STR and tag not in _CORE_SCALARS:
                    raise Unsupported
                self._plain[text] = text if tag == _STR else _core_scalar(tag, text)
            return self._plain[text]
        if event.tag is not None:
            raise Unsupported
        if isinstance(event, yaml.SequenceStartEvent):
            items = []
            while not isinstance(following := self.next(), yaml.SequenceEndEvent):
                items.append(self.value(following))
            return items
        if isinstance(event, yaml.MappingStartEvent):
            result: dict[str, Any] = {}
            while not isinstance(following := self.next(), yaml.MappingEndEvent):
                key = self.key(following)
                if key in result:
                    raise Unsupported  # ruamel.yaml reports duplicates with their position
                result[key] = self.value(self.next())
            return result
        raise Unsupported


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


__all__ = ["EventReader", "Unsupported", "fast_load"]
