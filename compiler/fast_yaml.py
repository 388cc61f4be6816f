"""A fast path for loading large intent files: libyaml's C parser, YAML 1.2 like ruamel.yaml.

ruamel.yaml's round-trip loader (compiler/loader.py) keeps every position, which error messages
need, but it is pure Python: an explicit 1,000-switch topology (~19,000 lines) took most of a
compile's time in it. Valid files are the common case, so they are parsed here with PyYAML's
libyaml binding, with ruamel.yaml's own YAML 1.2 implicit resolvers and scalar constructors, so
the data is the same; positions are only parsed (by ruamel.yaml) when an error has to be placed.

:func:`fast_load` returns ``None`` for anything it does not reproduce exactly — a YAML error,
duplicate keys, more than one document, merge keys, tags beyond the core schema, anchors and
aliases, a ``%YAML`` directive — and the caller then takes the ruamel.yaml path, which gives the
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
_CORE_SCALARS = frozenset(
    {
        "tag:yaml.org,2002:bool",
        "tag:yaml.org,2002:int",
        "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:null",
    }
)


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


class _Builder:
    """Plain data straight from libyaml's events.

    PyYAML's C composer builds a node per value and calls the (Python) resolver for each scalar;
    that was ~85 % of loading a 10,000-switch intent. Here each distinct (plain scalar, implicit
    flags) pair is resolved once, and the values are built from the events without nodes; tags
    are the composer's (an explicit tag, else the resolved one: PyYAML composer.py
    compose_scalar_node / compose_mapping_node)."""

    def __init__(self, parser: Any, tagged: bool) -> None:
        """``tagged``: the text has a '!', so a value may carry an explicit tag."""
        import yaml

        self._next = parser.get_event
        self._resolve = parser.resolve
        self._scalar_kind = yaml.ScalarNode
        self._tagged = tagged
        self._tags: dict[tuple[str, tuple[bool, bool]], str] = {}
        self._scalars: dict[tuple[str, str], Any] = {}
        self._kinds = (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)
        self._ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)

    def document(self) -> Any:
        """The stream's single document (``None`` for an empty stream)."""
        import yaml

        self._expect(yaml.StreamStartEvent)
        event = self._next()
        if isinstance(event, yaml.StreamEndEvent):
            return None
        if not isinstance(event, yaml.DocumentStartEvent):
            raise _Unsupported
        value = self._value(self._next())
        self._expect(yaml.DocumentEndEvent)
        self._expect(yaml.StreamEndEvent)  # a second document: ruamel.yaml reports it
        return value

    def _expect(self, kind: type) -> None:
        if not isinstance(self._next(), kind):
            raise _Unsupported

    def _tag(self, value: str, implicit: tuple[bool, bool]) -> str:
        key = (value, implicit)
        tag = self._tags.get(key)
        if tag is None:
            tag = self._tags[key] = self._resolve(self._scalar_kind, value, implicit)
        return tag

    def _value(self, event: Any) -> Any:
        scalar, mapping, sequence = self._kinds
        kind = type(event)
        if kind is scalar:
            return self._scalar(event)
        if event.anchor is not None or kind not in (mapping, sequence):
            raise _Unsupported  # anchors and aliases: ruamel.yaml's path
        if event.tag not in (None, "!", _MAP if kind is mapping else _SEQ):
            raise _Unsupported
        return self._mapping() if kind is mapping else self._sequence()

    def _scalar(self, event: Any) -> Any:
        if event.anchor is not None:
            raise _Unsupported
        value, tag = event.value, event.tag
        if tag is None or tag == "!":
            tag = self._tag(value, event.implicit)
        elif self._tagged:
            # An explicit tag (``!!str 12``) is left to ruamel.yaml, which keeps it tagged.
            implicit = _STR if event.style else self._tag(value, (True, False))
            if tag != implicit:
                raise _Unsupported
        if tag == _STR:
            return value
        if tag not in _CORE_SCALARS:
            raise _Unsupported
        key = (tag, value)
        if key not in self._scalars:  # ints, floats, bools and nulls are immutable: one per text
            if not _SCALARS:
                _SCALARS.append(_scalar_constructor())
            self._scalars[key] = _SCALARS[0].construct_object(RuamelScalar(tag, value), deep=True)
        return self._scalars[key]

    def _mapping(self) -> dict[str, Any]:
        result: dict[Any, Any] = {}
        ends = self._ends
        while True:
            event = self._next()
            if type(event) in ends:
                break
            if type(event) is not self._kinds[0]:
                raise _Unsupported  # a collection as a key
            key = self._scalar(event)
            if key in result:
                raise _Unsupported  # duplicate key: ruamel.yaml reports it with its position
            result[key] = self._value(self._next())
        # Keys as text, as loader._to_plain makes them from ruamel.yaml's mappings.
        return {str(key): value for key, value in result.items()}

    def _sequence(self) -> list[Any]:
        items: list[Any] = []
        ends = self._ends
        while True:
            event = self._next()
            if type(event) in ends:
                return items
            items.append(self._value(event))


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
            return _Builder(parser, "!" in text).document()
        finally:
            parser.dispose()
    except (yaml.YAMLError, _Unsupported, RecursionError):
        return None


__all__ = ["EventReader", "Unsupported", "fast_load"]
