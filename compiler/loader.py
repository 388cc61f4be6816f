"""Load an intent file: YAML with line/column positions -> validated :class:`Intent`.

Errors name ``file:line:column``, the field path, what was expected and a hint, as one line
(docs/architecture.md §2). ruamel.yaml's round-trip loader keeps the position of every mapping key and
sequence item, which is how pydantic's error locations are turned back into places in the file.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from qosforge.compiler.fast_yaml import fast_load
from qosforge.compiler.intent import Intent
from qosforge.errors import QosforgeError

#: Refuse anything that is clearly not an intent (bounded memory for CI use). An explicit
#: topology of 5,000 switches written port by port (bench/clos_explicit.py 160) is ~7.2 MB.
MAX_INTENT_BYTES = 16_000_000

Path_ = tuple[str | int, ...]


class IntentError(QosforgeError):
    """A problem in the intent file, located at file:line:column and a field path."""


@dataclass(frozen=True)
class SourceMap:
    """Positions of the nodes of one YAML document, to locate any field path.

    A file loaded by the fast path (compiler/fast_yaml.py) has its positions parsed by
    ruamel.yaml only when an error needs a place."""

    file: str
    text: str = field(repr=False)
    parsed: Any = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def root(self) -> Any:
        return self.parsed if self.parsed is not None else _round_trip(self.file, self.text)

    def locate(self, path: Sequence[str | int]) -> tuple[int, int, str]:
        """1-based (line, column) of the deepest node on ``path`` that exists, and that path text."""
        node = self.root
        line, column = 1, 1
        walked: list[str] = []
        for part in path:
            if isinstance(node, CommentedMap) and part in node:
                key_line, key_column = node.lc.key(part)
                line, column = key_line + 1, key_column + 1
                node = node[part]
            elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
                item_line, item_column = node.lc.item(part)
                line, column = item_line + 1, item_column + 1
                node = node[part]
            else:
                if isinstance(node, (CommentedMap, CommentedSeq)) and hasattr(node, "lc") and not walked:
                    line, column = node.lc.line + 1, node.lc.col + 1
                walked.append(_path_text([part]))
                break
            walked.append(_path_text([part]))
        return line, column, _path_text(path)

    def error(self, path: Sequence[str | int], message: str, hint: str | None = None) -> IntentError:
        line, column, field = self.locate(path)
        place = f"{self.file}:{line}:{column}" + (f": {field}" if field else "")
        return IntentError(message, place=place, hint=hint)


def _path_text(path: Sequence[str | int]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _to_plain(node: Any) -> Any:
    if isinstance(node, CommentedMap):
        return {str(key): _to_plain(value) for key, value in node.items()}
    if isinstance(node, CommentedSeq):
        return [_to_plain(item) for item in node]
    return node


def _fields_at(model: type[BaseModel], path: Sequence[str | int]) -> list[str]:
    """The field names (aliases where set) the model accepts at ``path``, for 'did you mean' hints."""
    current: Any = model
    for part in path:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if fields is None:
            return []
        field = next((f for name, f in fields.items() if (f.alias or name) == part), None)
        if field is None:
            return []
        current = _model_in(field.annotation)
        if current is None:
            return []
    fields = getattr(current, "model_fields", {})
    return [f.alias or name for name, f in fields.items()]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in getattr(annotation, "__args__", ()) or ():
        found = _model_in(argument)
        if found is not None:
            return found
    return None


def _hint_for(error: dict[str, Any], path: Path_) -> str | None:
    kind = error["type"]
    if kind == "extra_forbidden":
        known = _fields_at(Intent, path[:-1])
        close = difflib.get_close_matches(str(path[-1]), known, n=1)
        if close:
            return f"did you mean '{close[0]}'?"
        return f"allowed fields here: {', '.join(known)}" if known else "remove this field"
    if kind in ("less_than_equal", "greater_than_equal") and any("dscp" in str(part) for part in path):
        return "a DSCP is a 6-bit code point, 0..63"
    if kind == "missing":
        return "add this field (see `qosforge schema`)"
    if kind == "literal_error" and path and path[-1] == "transport":
        from qosforge.compiler.intent import transport_hint

        return transport_hint()
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected")
        return f"use one of {expected}" if expected else None
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return "write a whole number"
    if kind == "string_pattern_mismatch":
        return "use letters, digits, '_' or '-' (see `qosforge schema`)"
    return None


def _message_for(error: dict[str, Any]) -> str:
    message = str(error["msg"])
    if error["type"] == "extra_forbidden":
        return f"unknown field '{error['loc'][-1]}'"
    if error["type"] == "literal_error" and error["loc"] and error["loc"][-1] == "transport":
        return f"unknown transport {error.get('input')!r}"  # pydantic's list would offer the refused hpcc
    if message.startswith("Value error, "):
        message = message.removeprefix("Value error, ")
    return message


def load_intent(path: Path) -> tuple[Intent, SourceMap]:
    """Read and validate an intent file; every problem is an :class:`IntentError` with a place."""
    file = str(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise IntentError(f"cannot read the intent file ({error.strerror})", place=file, hint="check the path") from None
    if size > MAX_INTENT_BYTES:
        raise IntentError(f"the file is {size:,} bytes; an intent is at most {MAX_INTENT_BYTES:,}", place=file, hint="use the leaf_spine generator or port ranges")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise IntentError("the file is not UTF-8 text", place=file, hint="save the intent as UTF-8 YAML") from None
    except OSError as error:
        raise IntentError(f"cannot read the intent file ({error.strerror})", place=file, hint="check the path") from None
    data = fast_load(text)
    if isinstance(data, dict):
        source_map = SourceMap(file=file, text=text)
    else:
        root = _round_trip(file, text)
        source_map = SourceMap(file=file, text=text, parsed=root)
        if not isinstance(root, CommentedMap):
            raise IntentError("the intent must be a mapping with apiVersion, kind, metadata, topology, classes", place=f"{file}:1:1", hint="start the file with 'apiVersion: qosforge/v1'")
        data = _to_plain(root)
    try:
        intent = Intent.model_validate(data)
    except ValidationError as validation:
        errors = validation.errors(include_url=False)
        # A misspelt key also makes the right key "missing"; the unknown one is the real mistake.
        first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        location: Path_ = tuple(first["loc"])
        raise source_map.error(location, _message_for(dict(first)), _hint_for(dict(first), location)) from None
    return intent, source_map


def _round_trip(file: str, text: str) -> Any:
    """The document with every node's position (ruamel.yaml's round-trip loader)."""
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        documents = list(yaml.load_all(text))
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{file}:{mark.line + 1}:{mark.column + 1}" if mark is not None else file
        problem = " ".join(str(error.problem or error.context or "malformed YAML").split())
        if isinstance(error, DuplicateKeyError):
            # Indentation is not the cause: the same key is written twice in one mapping, and
            # keeping either would silently drop the other's value.
            key = problem.split('"')[1] if problem.count('"') >= 2 else "the key"
            context = error.context_mark
            first = f" (the mapping starts at line {context.line + 1})" if context is not None else ""
            raise IntentError(f"duplicate key {key!r}: it appears twice in one mapping{first}", place=where,
                              hint=f"keep one {key!r}: merge the two into one entry, or delete the one you did not mean") from None
        raise IntentError(f"malformed YAML: {problem}", place=where, hint="check indentation, quotes and ':' after keys") from None
    except YAMLError as error:
        raise IntentError(f"malformed YAML: {' '.join(str(error).split())}", place=file, hint="check the YAML syntax") from None
    if len(documents) != 1:
        raise IntentError(f"expected one YAML document, found {len(documents)}", place=file, hint="keep one Fabric per file")
    return documents[0]
