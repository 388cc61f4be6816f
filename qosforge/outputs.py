"""What ``qosforge compile`` writes into an output folder, and what it removes.

The folder holds a manifest, ``.qosforge-manifest.json`` (format ``qosforge.manifest/1``), listing
every file qosforge wrote there: its path, the intent, switch and target it came from, and its
SHA-256. A run

* writes the files it rendered (replacing earlier versions at the same paths);
* removes its own earlier files for the switches and targets it was asked for that it did not
  render again (with ``--switch``/``--target`` subsets every other entry stays);
* on a whole-fabric run, removes the files of switches of the same intent that no longer exist;
* never removes a file the manifest does not list, nor one changed since qosforge wrote it (it is
  dropped from the manifest and reported instead);
* refuses a folder that holds the output of another intent (two fabrics' switch folders and one
  report.json would mix): ``--force`` replaces that intent's files instead.

"The same intent" is the same intent file path (its content may have changed: that is the point
of recompiling), relative to the output folder's parent, so a repository moved or copied with its
output folder still recognises its own output. :func:`plan_outputs` is pure; :func:`write_outputs` applies a plan through
:func:`qosforge.files.replace_directory_contents`, so the folder is complete or untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from qosforge.errors import QosforgeError

MANIFEST_NAME = ".qosforge-manifest.json"
MANIFEST_FORMAT = "qosforge.manifest/1"


@dataclass(frozen=True)
class OutputFile:
    """One file qosforge wrote: ``switch``/``target`` are ``None`` for fabric-wide files."""

    path: str
    intent: str
    switch: str | None
    target: str | None
    sha256: str


@dataclass(frozen=True)
class RenderedFile:
    path: str
    switch: str | None
    target: str | None
    text: str


@dataclass(frozen=True)
class SpooledFile:
    """A rendered file already written to an :class:`OutputSpool` (``spooled``), with the
    ``sha256`` of its text: a 10,000-switch SAI compile renders ~3 GB of text, which is then
    never held in memory at once; the output folder takes the file by a rename."""

    path: str
    switch: str | None
    target: str | None
    spooled: Path
    sha256: str


class OutputSpool:
    """A folder beside the output folder (so the finished files move in by rename, never copied)
    that holds rendered files until :func:`write_outputs`; removed on exit, whatever happened.
    Where the output folder's parent does not exist yet, files stay in memory (nothing is
    created before the compile succeeded)."""

    def __init__(self, root: Path) -> None:
        self._parent = Path(os.path.abspath(root)).parent
        self._name = Path(os.path.abspath(root)).name
        self._folder: Path | None = None
        self._count = 0

    def __enter__(self) -> OutputSpool:
        if self._parent.is_dir():
            prefix = f".{self._name}.qosforge-spool-"
            self._folder = Path(tempfile.mkdtemp(prefix=prefix, dir=self._parent))
        return self

    def __exit__(self, *_: object) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    @property
    def on_disk(self) -> bool:
        """Whether kept files go to a folder (else they stay in memory)."""
        return self._folder is not None

    def keep(self, item: RenderedFile, name: str | None = None) -> RenderedFile | SpooledFile:
        """``item`` written to the spool (its text let go), or itself where there is no spool.
        ``name``: the spool file's name, for writers in other processes (never a plain number,
        the names this process picks)."""
        if self._folder is None:
            return item
        spooled = self._folder / (name if name is not None else str(self._count))
        self._count += name is None
        spooled.write_text(item.text, encoding="utf-8")  # as the output folder's writer writes it
        return SpooledFile(item.path, item.switch, item.target, spooled, sha256_text(item.text))


@dataclass(frozen=True)
class RunRequest:
    """What one compile was asked for. ``switches`` is ``None`` for the whole fabric."""

    intent: str
    intent_sha256: str
    switches: tuple[str, ...] | None
    targets: tuple[str, ...]
    replace_other_intents: bool = False
    """``compile --force``: the files of another intent in the folder are this run's to replace."""


@dataclass(frozen=True)
class OutputPlan:
    writes: dict[str, str | Path]
    """Relative path -> the text, or the spooled file (:class:`SpooledFile`) that holds it."""
    removals: tuple[str, ...]
    kept_modified: tuple[str, ...]
    """Files qosforge wrote earlier and would remove, but that were changed since: left alone."""
    manifest: tuple[OutputFile, ...]
    replaced_modified: tuple[str, ...] = ()
    """Files this run replaces that were changed by hand since qosforge wrote them (warned about:
    the compiled file is what the intent says, the edit is gone)."""


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def intent_key(intent_path: Path, output_root: Path) -> str:
    """The identity of an intent across runs: its path relative to the output folder's parent
    (POSIX separators), which moving or copying both together keeps."""
    return Path(os.path.relpath(os.path.abspath(intent_path), os.path.dirname(os.path.abspath(output_root)))).as_posix()


def _relative_key(recorded: str, root: Path) -> str:
    """An intent recorded by an earlier version as an absolute path, made relative like
    :func:`intent_key` (an entry already relative is kept)."""
    return intent_key(Path(recorded), root) if os.path.isabs(recorded) else recorded


def load_manifest(root: Path) -> tuple[OutputFile, ...]:
    """The files an earlier run recorded in ``root`` (none when there is no manifest)."""
    path = root / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != MANIFEST_FORMAT:
            raise ValueError(f"format {data.get('format')!r}")
        files = (OutputFile(**entry) for entry in data["files"])
        return tuple(replace(entry, intent=_relative_key(entry.intent, root)) for entry in files)
    except FileNotFoundError:
        return ()
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise QosforgeError(
            f"{path} is not a qosforge manifest ({error})",
            place="-o/--output",
            hint=f"remove {MANIFEST_NAME} if you edited it; qosforge then only adds and replaces files",
        ) from None


def plan_outputs(
    root: Path,
    previous: tuple[OutputFile, ...],
    rendered: tuple[RenderedFile | SpooledFile, ...],
    request: RunRequest,
    switch_names: frozenset[str],
) -> OutputPlan:
    """Decide what to write and remove; ``switch_names`` are the switches the fabric has now."""
    _refuse_other_intents(root, previous, request)
    writes: dict[str, str | Path] = {}
    manifest: dict[str, OutputFile] = {}
    for item in rendered:
        if isinstance(item, SpooledFile):
            writes[item.path], digest = item.spooled, item.sha256
        else:
            writes[item.path], digest = item.text, sha256_text(item.text)
        manifest[item.path] = OutputFile(item.path, request.intent, item.switch, item.target,
                                         digest)
    removals: list[str] = []
    kept_modified: list[str] = []
    replaced_modified: list[str] = []
    for entry in previous:
        if entry.path in writes:
            current = file_sha256(root / entry.path)
            if current is not None and current != entry.sha256 and current != manifest[entry.path].sha256:
                replaced_modified.append(entry.path)
            continue
        if entry.path == MANIFEST_NAME:
            continue
        if not _superseded(entry, request, switch_names):
            manifest[entry.path] = entry
            continue
        current = file_sha256(root / entry.path)
        if current is None:
            continue
        if current == entry.sha256:
            removals.append(entry.path)
        else:
            kept_modified.append(entry.path)
    return OutputPlan(writes=writes, removals=tuple(removals), kept_modified=tuple(kept_modified), manifest=tuple(manifest.values()),
                      replaced_modified=tuple(replaced_modified))


def _refuse_other_intents(root: Path, previous: tuple[OutputFile, ...], request: RunRequest) -> None:
    others = sorted({entry.intent for entry in previous if entry.intent != request.intent})
    if not others or request.replace_other_intents:
        return
    count = sum(1 for entry in previous if entry.intent == others[0])
    more = f" (and {len(others) - 1} other intent(s))" if len(others) > 1 else ""
    raise QosforgeError(
        f"{root} holds the output of another intent, {others[0]} ({count} files){more}; "
        f"compiling {request.intent} there would mix two fabrics",
        place="-o/--output",
        hint="compile into another folder (e.g. -o out-<fabric>), or add --force to replace that intent's files",
    )


def _superseded(entry: OutputFile, request: RunRequest, switch_names: frozenset[str]) -> bool:
    if entry.intent != request.intent:
        return request.replace_other_intents  # --force: the other fabric's files go
    if entry.switch is None:
        return False
    if request.switches is None and entry.switch not in switch_names:
        return True  # the switch left the fabric
    asked = request.switches is None or entry.switch in request.switches
    return asked and entry.target in request.targets


def manifest_text(plan: OutputPlan, request: RunRequest) -> str:
    payload = {
        "format": MANIFEST_FORMAT,
        "generator": "qosforge",
        "last_run": {
            "intent": request.intent,
            "intent_sha256": request.intent_sha256,
            "switches": list(request.switches) if request.switches is not None else "all",
            "targets": list(request.targets),
        },
        "files": [entry.__dict__ for entry in sorted(plan.manifest, key=lambda item: item.path)],
    }
    return json.dumps(payload, indent=2) + "\n"


def write_outputs(root: Path, rendered: tuple[RenderedFile | SpooledFile, ...], request: RunRequest,
                  switch_names: frozenset[str]) -> OutputPlan:
    """Apply a compile's output to ``root`` as one step; returns what was done."""
    from qosforge.files import replace_directory_contents

    plan = plan_outputs(root, load_manifest(root), rendered, request, switch_names)
    writes: Mapping[str, str | Path] = {**plan.writes, MANIFEST_NAME: manifest_text(plan, request)}
    replace_directory_contents(root, writes, plan.removals)
    return plan


__all__ = [
    "MANIFEST_FORMAT",
    "MANIFEST_NAME",
    "OutputFile",
    "OutputPlan",
    "OutputSpool",
    "RenderedFile",
    "RunRequest",
    "SpooledFile",
    "intent_key",
    "load_manifest",
    "plan_outputs",
    "write_outputs",
]
