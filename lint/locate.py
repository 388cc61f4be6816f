"""Line and column of a ``table / key / field`` path in the JSON text, for editors and SARIF.

Python's json parser keeps no positions, so this walks the text itself, lazily and only along the
requested path: the keys of the top-level object are listed once (each value skipped with the C
JSON scanner, so skipping costs what parsing costs), then the keys of the one table a finding is
in, then of the one entry. A clean file is never walked; a file with findings in three tables
walks those three. The first occurrence of a duplicated key is the one located.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import re
from collections.abc import Callable
from typing import Any

_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: Skips any JSON value at an offset (C scanner); numbers are parsed as floats so that a value
#: of thousands of digits costs no quadratic int conversion.
_SKIPPER = json.JSONDecoder(parse_int=float, parse_constant=float)
_SCAN: Callable[[str, int], tuple[Any, int]] = _SKIPPER.scan_once  # type: ignore[attr-defined]
_SCANSTRING: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

Position = tuple[int, int]
#: key -> (offset of the key's opening quote, offset where its value starts)
_Keys = dict[str, tuple[int, int]]


class KeyLocator:
    """Positions of object keys in one JSON text (1-based line and column)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._objects: dict[int, _Keys | None] = {}
        self._line_starts: list[int] | None = None

    def _keys(self, start: int) -> _Keys | None:
        """The keys of the object whose ``{`` is at ``start`` (None if it is not an object)."""
        if start in self._objects:
            return self._objects[start]
        keys: _Keys | None = None
        text = self._text
        if start < len(text) and text[start] == "{":
            keys = {}
            try:
                index = _WHITESPACE.match(text, start + 1).end()  # type: ignore[union-attr]
                while index < len(text) and text[index] == '"':
                    key, after = _SCANSTRING(text, index + 1, True)
                    colon = _WHITESPACE.match(text, after).end()  # type: ignore[union-attr]
                    value = _WHITESPACE.match(text, colon + 1).end()  # type: ignore[union-attr]
                    keys.setdefault(key, (index, value))
                    _, end = _SCAN(text, value)
                    index = _WHITESPACE.match(text, end).end()  # type: ignore[union-attr]
                    if index < len(text) and text[index] == ",":
                        index = _WHITESPACE.match(text, index + 1).end()  # type: ignore[union-attr]
            except (ValueError, StopIteration, RecursionError, IndexError):
                pass  # malformed text cannot reach here (it was parsed); locate what was found
        self._objects[start] = keys
        return keys

    def _position(self, offset: int) -> Position:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self._text)]
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def locate(self, *path: str) -> Position | None:
        """The position of the deepest key of ``path`` that exists (None: not even the first)."""
        start = _WHITESPACE.match(self._text).end()  # type: ignore[union-attr]
        found: int | None = None
        for part in path:
            keys = self._keys(start)
            if keys is None or part not in keys:
                break
            found, start = keys[part]
        return None if found is None else self._position(found)


__all__ = ["KeyLocator"]
