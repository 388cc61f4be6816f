"""Intents in a campaign: read once on the client, changed by ``--set PATH=VALUES``, validated by
the compiler's own loader, and shipped to workers as text.

``PATH`` is dotted into the intent: mapping keys (``design.alpha``), list indices
(``classes.0.rtt``) or the ``name`` of a list item (``classes.bulk.rtt``). Missing mapping keys
are created, so a default can be set (``design.alpha`` where the file has no ``design:``); the
loader then says whether the field exists (with its did-you-mean hint) and whether the value fits.

The loader (pydantic models, half a second of imports) is imported only when a campaign has an
intent: a flag-only sweep does not pay for it before its first point.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from qosforge.campaigns.grid import Axis, values_of
from qosforge.campaigns.point import content_hash
from qosforge.errors import QosforgeError


@dataclass(frozen=True)
class IntentSource:
    """An intent as the user named it, and its text."""

    name: str
    text: str

    @property
    def sha256(self) -> str:
        return content_hash(self.text)


@dataclass(frozen=True)
class Assignment:
    """One ``--set PATH=VALUES``: the path's parts and the values it takes (an axis when several)."""

    path: str
    parts: tuple[str, ...]
    axis: Axis


def read_intent(name: str) -> IntentSource:
    """Read and validate an intent file; its errors name file:line:column as ``compile``'s do."""
    from qosforge.compiler.loader import load_intent

    path = Path(name)
    load_intent(path)
    return IntentSource(name=name, text=path.read_text(encoding="utf-8"))


def _scalar(text: str, place: str) -> Any:
    try:
        value = YAML(typ="safe").load(text)
    except YAMLError:
        raise QosforgeError(f"{text!r} is not a YAML value", place=place, hint="e.g. --set design.alpha=1,2,4") from None
    if isinstance(value, (dict, list)):
        raise QosforgeError(f"{text!r} is not a single value", place=place, hint="set one field at a time, e.g. --set classes.bulk.rtt=40us")
    return value


def parse_assignment(text: str) -> Assignment:
    path, separator, values = text.partition("=")
    path = path.strip()
    parts = tuple(path.split("."))
    if not separator or not path or any(not part for part in parts) or not values.strip():
        raise QosforgeError(f"{text!r} is not PATH=VALUES", place="--set", hint="e.g. --set design.alpha=1,2,4 or --set classes.bulk.rtt=20us:80us:4")
    place = f"--set {path}"
    return Assignment(path=path, parts=parts, axis=Axis(path, tuple(_scalar(value, place) for value in values_of(values.strip(), place, numeric=True, whole=False))))


def _child(node: Any, part: str, path: str, *, create: bool) -> Any:
    if isinstance(node, CommentedMap):
        if part not in node and create:
            node[part] = CommentedMap()
        return node[part] if part in node else None
    if isinstance(node, CommentedSeq):
        if part.isdigit():
            if int(part) >= len(node):
                raise QosforgeError(f"index {part} is past the end of a list of {len(node)}", place=f"--set {path}", hint="count from 0")
            return node[int(part)]
        names = [item.get("name") for item in node if isinstance(item, CommentedMap)]
        if part not in names:
            listed = ", ".join(str(name) for name in names if name is not None) or "none"
            raise QosforgeError(f"no list item named {part!r}", place=f"--set {path}", hint=f"items here: {listed}; or use an index from 0")
        return node[names.index(part)]
    raise QosforgeError(f"{part!r} is below a value, not a section", place=f"--set {path}", hint="check the path with `qosforge schema`")


def _assign(root: Any, assignment: Assignment, value: Any) -> None:
    node = root
    for part in assignment.parts[:-1]:
        node = _child(node, part, assignment.path, create=True)
    last = assignment.parts[-1]
    if isinstance(node, CommentedSeq):
        target = _child(node, last, assignment.path, create=False)
        node[node.index(target)] = value
    elif isinstance(node, CommentedMap):
        node[last] = value
    else:
        raise QosforgeError(f"{last!r} is below a value, not a section", place=f"--set {assignment.path}", hint="check the path with `qosforge schema`")


def apply_assignments(intent: IntentSource, values: Mapping[str, Any], assignments: Sequence[Assignment]) -> str:
    """The intent's text with each assignment's value (``values[path]``) set; comments are kept."""
    if not assignments:
        return intent.text
    yaml = YAML(typ="rt")
    root = yaml.load(intent.text)
    for assignment in assignments:
        _assign(root, assignment, values[assignment.path])
    output = io.StringIO()
    yaml.dump(root, output)
    return output.getvalue()


def validate_assigned(intent: IntentSource, text: str, values: Mapping[str, Any], assignments: Sequence[Assignment]) -> None:
    """Run the compiler's loader on the changed intent; its error is reported at the --set."""
    if not assignments:
        return
    from qosforge.compiler.loader import IntentError, load_intent

    with tempfile.TemporaryDirectory(prefix="qosforge-set-") as folder:
        path = Path(folder) / Path(intent.name).name
        path.write_text(text, encoding="utf-8")
        try:
            load_intent(path)
        except IntentError as error:
            field = (error.place or "").rsplit(": ", 1)[-1] if error.place and ": " in error.place else ""
            settings = " ".join(f"{a.path}={values[a.path]}" for a in assignments)
            message = f"{field}: {error.message}" if field else error.message
            raise QosforgeError(f"{message} in {intent.name}", place=f"--set {settings}", hint=error.hint) from None


__all__ = ["Assignment", "IntentSource", "apply_assignments", "parse_assignment", "read_intent", "validate_assigned"]
