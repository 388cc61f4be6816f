"""The campaign's rows: a JSON-lines file appended as each point finishes, read back to resume.

One row per finished attempt: ``point`` (the point's id), ``command``, ``params``, ``status``
(``ok`` or ``failed``), ``result`` (the command's JSON), ``error`` and ``timing``. A later row for
the same point supersedes an earlier one, so a retried point's success replaces its failure while
the file stays append-only (a crash loses at most the line being written, which the next run drops).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from qosforge.campaigns.execute import PointOutcome
from qosforge.campaigns.point import PointSpec
from qosforge.errors import QosforgeError

ROW_KEYS = ("point", "command", "params", "status", "result", "error", "timing")


@dataclass(frozen=True)
class Row:
    point: str
    command: tuple[str, ...]
    params: Mapping[str, Any]
    result: dict[str, Any] | None
    error: str | None
    timing: Mapping[str, Any]

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        return {"point": self.point, "command": list(self.command), "params": dict(self.params), "status": "ok" if self.ok else "failed",
                "result": self.result, "error": self.error, "timing": dict(self.timing)}


def row_for(spec: PointSpec, outcome: PointOutcome) -> Row:
    return Row(point=spec.point_id, command=spec.command, params=spec.params, result=outcome.result, error=outcome.error, timing=outcome.timing)


def _row_from_json(data: Any, place: str) -> Row:
    if not isinstance(data, dict) or any(key not in data for key in ROW_KEYS):
        raise QosforgeError("is not a campaign row", place=place, hint="give --out a new file, or the .jsonl a sweep wrote")
    return Row(point=str(data["point"]), command=tuple(data["command"]), params=data["params"], result=data["result"],
               error=data["error"], timing=data["timing"])


class ResultStore:
    """Rows of one ``--out`` file: the latest per point, and an append handle."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.latest: dict[str, Row] = {}
        self._handle: TextIO | None = None
        self.dropped_partial_line = False

    def load(self) -> None:
        """Read the rows already there; refuse a file that is not a campaign's (bad input)."""
        if self.path.is_dir():
            raise QosforgeError("is a folder", place=f"--out {self.path}", hint="give a file name, e.g. --out runs.jsonl")
        if not self.path.exists():
            return
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise QosforgeError(f"cannot read it ({error})", place=f"--out {self.path}", hint="give a new file or the .jsonl a sweep wrote") from None
        lines = text.split("\n")
        # The last element is "" when the file ends with a newline; otherwise it is a line cut by
        # a crash mid-write, which is dropped (that point simply runs again).
        self.dropped_partial_line = lines[-1] != ""
        for number, line in enumerate(lines[:-1], start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                raise QosforgeError("is not JSON", place=f"{self.path}:{number}", hint="give --out a new file, or the .jsonl a sweep wrote") from None
            row = _row_from_json(data, f"{self.path}:{number}")
            self.latest[row.point] = row

    def finished(self, point: str) -> bool:
        row = self.latest.get(point)
        return row is not None and row.ok

    def open(self) -> None:
        """Open for appending; cut a crash's partial last line first so the file stays JSONL."""
        if self.dropped_partial_line:
            text = self.path.read_text(encoding="utf-8")
            complete = text[: text.rfind("\n") + 1]
            with self.path.open("r+", encoding="utf-8") as handle:
                handle.truncate(len(complete.encode("utf-8")))
            self.dropped_partial_line = False
        self._handle = self.path.open("a", encoding="utf-8")

    def append(self, row: Row) -> None:
        if self._handle is None:
            raise RuntimeError("ResultStore.append before open")
        self._handle.write(json.dumps(row.to_json(), allow_nan=False, default=str) + "\n")
        # Flushed per row: a killed campaign keeps every finished point (fsync would only add
        # power-loss safety at a disk round-trip per row).
        self._handle.flush()
        self.latest[row.point] = row

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def rows_for(self, points: Iterable[PointSpec]) -> list[Row]:
        """The latest row of each of ``points`` that has one, in the points' (grid) order."""
        return [self.latest[spec.point_id] for spec in points if spec.point_id in self.latest]


__all__ = ["ResultStore", "Row", "row_for"]
