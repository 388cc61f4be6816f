"""pyangbind's node classes built once per kind of node instead of once per node.

pyangbind 0.8 (``pyangbind/lib/yangtypes.py``) defines a new Python class for every node it
creates: ``YANGDynClass`` defines a ``YANGBaseClass`` inside each call, and the generated bindings
call ``RestrictedClassType(...)`` for every restricted leaf, which defines a ``RestrictedClass``
and instantiates it once (its ``__new__`` compiles the range regexes and deep-copies the
enumeration's dictionary). The bindings build every node of a container eagerly, so decoding the
``/qos`` document of ``examples/openconfig-fabric.yaml`` made ~9,300 ``YANGBaseClass`` and ~4,400
``RestrictedClass`` classes: class creation was ~2/3 of its CPU (cProfile, ``__build_class__``).

:func:`reuse_node_classes` makes both build each class once and reuse it, keyed on everything
the class's definition depends on, so the reused class behaves as the one pyangbind would build:

- ``RestrictedClassType``: one class per (base type, restriction arguments). The arguments are
  literals in the generated code (ranges, patterns, enumeration dictionaries), compared by their
  ``repr`` (ordered: an enumeration's implicit values follow its order); the base type by
  identity (a nested restriction's base is itself a reused class).
- ``YANGDynClass``: one ``YANGBaseClass`` per (base class, whether it has ``__slots__``). The
  class's methods read only the base class from their closure; the node's own values (name,
  parent, path helper, YANG type, ...) are read by ``__init__`` alone, so each node is
  initialised by a copy of that ``__init__`` (the same code object) whose closure cells hold this
  node's values, exactly as pyangbind's own call would have filled them. A union (a list of base
  types, chosen by the value) and extension methods (extra slots per path) keep pyangbind's path.
- Each reused ``RestrictedClass`` still rebuilds its checks on every instantiation, as class
  attributes (pyangbind's ``__new__``): shared by several nodes, two threads could see each
  other's half-built list, so its ``__new__``, every node construction and every decode hold
  one re-entrant lock (:data:`BINDINGS_LOCK`; pyangbind is pure Python, so the GIL serialised
  it anyway). A class pyangbind built for one node had no other user.
- ``regex``: pyangbind calls the module's ``compile``/``sub``/``match`` with a few constant
  patterns per node; ``regex``'s own cache lookup checks its arguments each call (``_compile``,
  ~0.1 ms), so the module it sees keeps the compiled patterns (same patterns, same matches).

Only applied where pyangbind's classes have the shape this relies on (the free variables of
``YANGBaseClass.__init__``, :func:`shape_is_known`); otherwise pyangbind is left as it is.
``tests/backends/openconfig/test_node_classes.py`` holds the reused classes to pyangbind's own:
the same values accepted and encoded, the same values refused with the same message.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import CellType, FunctionType, ModuleType
from typing import Any

BINDINGS_LOCK = threading.RLock()
"""Held by every node construction through the reused classes and by the decoder's callers."""

#: ``YANGDynClass``'s keyword arguments: (keyword, the closure variable ``__init__`` reads it
#: as, pyangbind's default), in pyangbind 0.8's order.
_NODE_ARGUMENTS = (
    ("base", "base_type", False), ("default", "default", False),
    ("yang_name", "yang_name", False), ("parent", "parent_instance", False),
    ("choice", "choice_member", False), ("is_container", "is_container", False),
    ("is_leaf", "is_leaf", False), ("path_helper", "path_helper", None),
    ("register_path", "supplied_register_path", None), ("extensions", "extensions", None),
    ("extmethods", "extmethods", None), ("is_keyval", "is_keyval", False),
    ("register_paths", "register_paths", True), ("yang_type", "yang_type", None),
    ("namespace", "namespace", None), ("defining_module", "defining_module", None),
    ("load", "load", None), ("is_config", "is_config", True), ("presence", "has_presence", None),
)
_CLASS_CELLS = ("YANGBaseClass", "__class__")
_RESTRICTION_ARGUMENTS = (
    "base_type", "restriction_type", "restriction_arg", "restriction_dict", "int_size",
)


def shape_is_known(yangtypes: ModuleType) -> bool:
    """Whether ``YANGDynClass``'s class reads exactly the closure variables named here."""
    probe = yangtypes.YANGDynClass(base=str, yang_name="probe", is_leaf=True)
    expected = {name for _keyword, name, _default in _NODE_ARGUMENTS} | set(_CLASS_CELLS)
    return set(type(probe).__init__.__code__.co_freevars) == expected


def restricted_class_type(original: Callable[..., type]) -> Callable[..., type]:
    """``RestrictedClassType`` returning one class per distinct restriction."""
    classes: dict[tuple[object, ...], type] = {}

    def reused(*args: object, **kwargs: object) -> type:
        key = (repr(args), kwargs.get("base_type", str),
               *(repr(kwargs.get(name)) for name in _RESTRICTION_ARGUMENTS[1:]),
               tuple(sorted(set(kwargs) - set(_RESTRICTION_ARGUMENTS))))
        with BINDINGS_LOCK:
            restricted = classes.get(key)
            if restricted is None:
                restricted = classes[key] = _locked_new(original(*args, **kwargs))
            return restricted

    return reused


def _locked_new(restricted: type) -> type:
    """``restricted`` with its ``__new__`` (which rebuilds the class's checks) under the lock,
    whoever instantiates it: a node, a leaf-list's item check, the decoder."""
    rebuild = restricted.__new__

    def new(cls: type, *args: object, **kwargs: object) -> object:
        with BINDINGS_LOCK:
            return rebuild(cls, *args, **kwargs)

    restricted.__new__ = staticmethod(new)  # type: ignore[assignment]
    return restricted


def yang_dyn_class(original: Callable[..., Any]) -> Callable[..., Any]:
    """``YANGDynClass`` defining one ``YANGBaseClass`` per (base class, slots)."""
    classes: dict[tuple[type, bool], type] = {}

    def reused(*args: Any, **kwargs: Any) -> Any:
        base = kwargs.get("base", False)
        if not base or isinstance(base, list) or kwargs.get("extmethods"):
            return original(*args, **kwargs)  # a union picks its base by value; slots per path
        slotted = (kwargs.get("yang_type") in ("container", "list")
                   or kwargs.get("is_container") == "container")
        with BINDINGS_LOCK:
            node_class = classes.get((base, slotted))
            if node_class is None:
                node = original(*args, **kwargs)
                classes[(base, slotted)] = type(node)
                return node
            values = {name: kwargs.pop(keyword, default)
                      for keyword, name, default in _NODE_ARGUMENTS}
            values.update(dict.fromkeys(_CLASS_CELLS, node_class))
            init: Any = vars(node_class)["__init__"]  # the class's own, with its closure
            code = init.__code__
            own_init = FunctionType(code, init.__globals__, code.co_name, None,
                                    tuple(CellType(values[name]) for name in code.co_freevars))
            node = node_class.__new__(node_class, *args, **kwargs)
            own_init(node, *args, **kwargs)
            return node

    return reused


class _CachedRegex(ModuleType):
    """The ``regex`` module as pyangbind calls it, with compiled patterns kept."""

    def __init__(self, regex: ModuleType) -> None:
        super().__init__("regex")
        self._regex = regex
        self._compiled: Callable[[str, int], Any] = functools.cache(regex.compile)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._regex, name)

    def compile(self, pattern: str, flags: int = 0) -> Any:
        return self._compiled(pattern, flags)

    def sub(self, pattern: str, repl: str, string: str) -> str:
        result: str = self._compiled(pattern, 0).sub(repl, string)
        return result

    def match(self, pattern: str, string: str) -> Any:
        return self._compiled(pattern, 0).match(string)


_ORIGINALS: dict[str, Any] = {}
_REUSED: dict[str, Any] = {}


def reuse_node_classes(*generated: ModuleType) -> bool:
    """Reuse node classes in pyangbind and in the ``generated`` binding modules (which import
    ``YANGDynClass`` and ``RestrictedClassType`` by name). Returns whether it is applied."""
    from pyangbind.lib import yangtypes

    with BINDINGS_LOCK:
        if not _REUSED:
            if not shape_is_known(yangtypes):
                return False
            _ORIGINALS.update(YANGDynClass=yangtypes.YANGDynClass,
                              RestrictedClassType=yangtypes.RestrictedClassType,
                              regex=yangtypes.regex)
            _REUSED.update(YANGDynClass=yang_dyn_class(yangtypes.YANGDynClass),
                           RestrictedClassType=restricted_class_type(yangtypes.RestrictedClassType),
                           regex=_CachedRegex(yangtypes.regex))
        _set(_REUSED, yangtypes, *generated)
        return True


@contextmanager
def pyangbinds_own_classes(*generated: ModuleType) -> Iterator[None]:
    """Within the block, pyangbind builds a class per node again (the tests compare the two)."""
    from pyangbind.lib import yangtypes

    with BINDINGS_LOCK:
        _set(_ORIGINALS, yangtypes, *generated)
        try:
            yield
        finally:
            if _REUSED:
                _set(_REUSED, yangtypes, *generated)


def _set(functions: dict[str, Any], yangtypes: ModuleType, *generated: ModuleType) -> None:
    for name, function in functions.items():
        setattr(yangtypes, name, function)
        for module in generated:
            if name in vars(module):
                setattr(module, name, function)
