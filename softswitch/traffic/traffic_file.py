"""The user's traffic file (``qosforge simulate INTENT --traffic FILE``): YAML, or CSV for large matrices.

A file is a list of entries; each entry is one flow or a repetition of flows between two host
sets (docs/softswitch.md "Your own traffic"). This module only reads and validates the file
(pydantic models at the boundary, ruamel.yaml for line numbers); which hosts and classes exist
is the fabric's business (softswitch/helper/user_traffic.py), which reports its errors at the
places kept here. Every error names ``FILE:LINE`` (YAML) or ``FILE:ROW`` (CSV, the header is
row 1), the field, and the fix.
"""

from __future__ import annotations

import csv
import difflib
import io
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from qosforge.errors import QosforgeError, UnitError
from qosforge.softswitch.traffic.collectives import CollectiveKind
from qosforge.softswitch.traffic.spec import MAX_FLOWS, MAX_SEED
from qosforge.units import parse_rate_bps, parse_size_bytes, parse_time_s

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from qosforge.compiler.fast_yaml import EventReader

#: Where a top-level field of the file is (``FILE:LINE``), given its name.
PlaceOf = Callable[[str], str]

#: A traffic file larger than this is not a traffic matrix a run could carry (MAX_FLOWS rows of
#: ~100 characters are 5 MB).
MAX_TRAFFIC_BYTES = 16_000_000
#: The flow kinds a flow may ask for instead of its class's transport (spec.py FLOW_KIND_NAMES,
#: the names ``--transport`` takes; tests/softswitch/traffic/test_spec.py keeps the two equal).
TransportChoice = Literal["tcp", "cubic", "newreno", "tcp-ecn", "dctcp", "tbtcp", "dcqcn"]
LONG_LIVED = "long-lived"
FIELDS = ("group", "src", "dst", "pairing", "count", "class", "dscp", "transport", "size", "start", "start_window", "stagger", "rate", "pattern",
          "step")
#: The fields of a ``collectives:`` entry.
COLLECTIVE_FIELDS = ("group", "collective", "hosts", "size", "iterations", "class", "dscp", "transport", "start")


def _text(value: object) -> object:
    """YAML reads ``1`` or ``0.5`` as numbers; a quantity without its unit is refused by the unit
    parser (which names the units), so hand it over as text."""
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


Quantity = Annotated[str, BeforeValidator(_text)]
# Strict: a YAML true or a quoted '10' is no count or host index (pydantic would read 1 and 10).
HostToken = str | StrictInt


def _unit(parser: Callable[..., float], text: str, **kwargs: bool) -> float:
    """A quantity, or the unit parser's message as the ValueError pydantic reports at the field."""
    try:
        return float(parser(text, **kwargs))
    except UnitError as error:
        raise ValueError(error.message + (f"; {error.hint}" if error.hint else "")) from None


def _host_tokens(value: object) -> object:
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [value]
    return value


def _whole_bytes(value: str) -> str:
    size = _unit(parse_size_bytes, value)
    if size < 1 or size != int(size):
        raise ValueError(f"{value!r} is not a whole number of bytes >= 1")
    return value


def _a_time(value: str) -> str:
    _unit(parse_time_s, value, allow_zero=True)
    return value


def _one_class(class_name: str | None, dscp: int | None) -> None:
    if (class_name is None) == (dscp is None):
        raise ValueError("give exactly one of 'class' (a class of the intent) and 'dscp' (0..63)")


class TrafficEntry(BaseModel):
    """One entry of the file: flows from every host of ``src`` to the hosts of ``dst``."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    group: str = Field(default="default", min_length=1, description="Name of the flows' group in the per-group results.")
    src: Annotated[tuple[HostToken, ...], BeforeValidator(_host_tokens)] = Field(min_length=1, description="Sending hosts.")
    dst: Annotated[tuple[HostToken, ...], BeforeValidator(_host_tokens)] = Field(min_length=1, description="Receiving hosts.")
    pairing: Literal["each", "all"] = "each"
    count: StrictInt = Field(default=1, ge=1, le=MAX_FLOWS, description="Flows per (src, dst) pair.")
    class_name: str | None = Field(default=None, alias="class", min_length=1)
    dscp: StrictInt | None = Field(default=None, ge=0, le=63)
    transport: TransportChoice | None = None
    size: Quantity = LONG_LIVED
    start: Quantity = "0s"
    start_window: Quantity | None = None
    stagger: Literal["even", "random"] = "even"
    rate: Quantity | None = None
    pattern: Literal["cbr", "poisson"] | None = None
    step: StrictInt | None = Field(default=None, ge=0, le=MAX_FLOWS, description="Step of a per-step trace (a collective's CSV export): "
                             "a host's flows of a step start when every flow of the group's previous step it sent or received has finished.")

    @field_validator("size")
    @classmethod
    def _size(cls, value: str) -> str:
        return value if value == LONG_LIVED else _whole_bytes(value)

    @field_validator("start")
    @classmethod
    def _start(cls, value: str) -> str:
        return _a_time(value)

    @field_validator("start_window")
    @classmethod
    def _window(cls, value: str | None) -> str | None:
        if value is not None:
            _unit(parse_time_s, value)
        return value

    @field_validator("rate")
    @classmethod
    def _rate(cls, value: str | None) -> str | None:
        if value is not None:
            _unit(parse_rate_bps, value)
        return value

    @model_validator(mode="after")
    def _one_class(self) -> TrafficEntry:
        _one_class(self.class_name, self.dscp)
        if self.pattern is not None and self.rate is None:
            raise ValueError("'pattern' shapes an open-loop source: give its 'rate' too (e.g. rate: 1G), or drop 'pattern'")
        if self.rate is not None and self.transport is not None:
            raise ValueError("'rate' makes an open-loop source, which runs no transport: drop 'transport' or 'rate'")
        return self

    @model_validator(mode="after")
    def _step_finishes(self) -> TrafficEntry:
        if self.step is not None and (self.size == LONG_LIVED or self.rate is not None):
            raise ValueError("a flow with a 'step' must finish for the next step to start: give it a size and no rate")
        if self.step is not None and self.start_window is not None:
            raise ValueError("a flow with a 'step' after the first starts when the step before it finishes: drop 'start_window'")
        return self

    @property
    def size_bytes(self) -> int | None:
        return None if self.size == LONG_LIVED else int(parse_size_bytes(self.size))

    @property
    def start_s(self) -> float:
        return parse_time_s(self.start, allow_zero=True)

    @property
    def start_window_s(self) -> float:
        return 0.0 if self.start_window is None else parse_time_s(self.start_window)

    @property
    def rate_bps(self) -> float | None:
        return None if self.rate is None else parse_rate_bps(self.rate)


class CollectiveEntry(BaseModel):
    """A collective over ``hosts`` (the ranks, in ring order): its steps as flows that wait for
    the previous step (softswitch/traffic/collectives.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    group: str = Field(min_length=1, description="Name of the collective in the results (its job completion time).")
    collective: CollectiveKind
    hosts: Annotated[tuple[HostToken, ...], BeforeValidator(_host_tokens)] = Field(min_length=1, description="The ranks, in ring order.")
    size: Quantity = Field(description="Message size M: each of 2(N-1) ring all-reduce steps moves M/N bytes per rank.")
    iterations: StrictInt = Field(default=1, ge=1, le=10_000)
    class_name: str | None = Field(default=None, alias="class", min_length=1)
    dscp: StrictInt | None = Field(default=None, ge=0, le=63)
    transport: TransportChoice | None = None
    start: Quantity = "0s"

    @field_validator("size")
    @classmethod
    def _message_size(cls, value: str) -> str:
        return _whole_bytes(value)

    @field_validator("start")
    @classmethod
    def _start_time(cls, value: str) -> str:
        return _a_time(value)

    @model_validator(mode="after")
    def _class_or_dscp(self) -> CollectiveEntry:
        _one_class(self.class_name, self.dscp)
        return self

    @property
    def size_bytes(self) -> int:
        return int(parse_size_bytes(self.size))

    @property
    def start_s(self) -> float:
        return parse_time_s(self.start, allow_zero=True)


def parse_window(text: str, place: str) -> tuple[float, float]:
    """``START:END`` (e.g. ``4s:5s``, ``0s:10ms``) -> seconds, END after START; an error names
    ``place`` (``--measure``, or the traffic file's line)."""
    hint = "e.g. 4s:5s (statistics over 4 s..5 s; the run ends at 5 s)"
    start_text, colon, end_text = text.partition(":")
    if not colon or not start_text.strip() or not end_text.strip():
        raise QosforgeError(f"{text!r} is not START:END", place=place, hint=hint)
    try:
        start = parse_time_s(start_text.strip(), allow_zero=True)
        end = parse_time_s(end_text.strip())
    except UnitError as error:
        raise error.with_place(place) from None
    if not end > start:
        raise QosforgeError(f"the window ends ({end:g} s) before it starts ({start:g} s)",
                            place=place, hint=hint)
    return start, end


class TrafficDocument(BaseModel):
    """The file's top level: the flows, and what the run of them is (its seed, its length and
    the window its statistics cover), so a file carries the run it was written for. Flags
    (--seed, --duration, --measure) override these."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    api_version: Literal["qosforge/v1"] = Field(alias="apiVersion")
    kind: Literal["Traffic"]
    seed: StrictInt | None = Field(default=None, ge=0, le=MAX_SEED)
    duration: Quantity | None = None
    """How long the run is (``--duration``): statistics over [0, duration]."""
    measure: str | None = None
    """The measured window ``START:END`` (``--measure``): the run ends at END."""
    flows: list[object] = Field(default_factory=list)
    collectives: list[object] = Field(default_factory=list)

    @model_validator(mode="after")
    def _something(self) -> TrafficDocument:
        if not self.flows and not self.collectives:
            raise ValueError("list the traffic under 'flows:' or 'collectives:' (or both)")
        return self

    @field_validator("duration")
    @classmethod
    def _duration(cls, value: str | None) -> str | None:
        if value is not None:
            _unit(parse_time_s, value)
        return value


EntryT = TypeVar("EntryT", "TrafficEntry", "CollectiveEntry")


@dataclass(frozen=True)
class Placed(Generic[EntryT]):
    """An entry and where each of its fields is written (``FILE:LINE``), for the fabric's errors."""

    entry: EntryT
    place: str
    field_places: dict[str, str]

    def place_of(self, field: str) -> str:
        return self.field_places.get(field, self.place)


PlacedEntry = Placed[TrafficEntry]
PlacedCollective = Placed[CollectiveEntry]


@dataclass(frozen=True)
class TrafficFile:
    path: str
    seed: int | None
    entries: tuple[PlacedEntry, ...]
    measure_s: tuple[float, float] | None = None
    """The run's measured window (START, END) the file gives, from its ``measure`` or ``duration``
    (``duration: D`` is ``measure: 0s:D``); None where it gives neither (a CSV never does)."""
    window_text: str | None = None
    """How the file wrote it (``measure: 4s:5s``), for the report and notes."""
    collectives: tuple[PlacedCollective, ...] = ()


def _hint(error: ErrorDetails, field: str) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(field, FIELDS, n=1)
        return f"did you mean '{close[0]}'?" if close else f"the fields of a flow entry are: {', '.join(FIELDS)}"
    if kind == "missing":
        return "every entry needs 'src' and 'dst' (e.g. src: leaf1:Ethernet0) and a 'class' or 'dscp'"
    if kind == "literal_error":
        return f"use one of {error.get('ctx', {}).get('expected', '')}"
    if field in ("size",):
        return "bytes with a unit (64kB, 1MiB, 1500B) or long-lived"
    if field in ("start", "start_window"):
        return "a time with its unit, e.g. 0s, 250us, 1s"
    if field == "rate":
        return "a rate with its unit, e.g. 500M, 10G"
    if field == "dscp":
        return "a DSCP is a 6-bit code point, 0..63"
    if field in ("src", "dst"):
        return "SWITCH:PORT, SWITCH:Ethernet[0-9], SWITCH, a host index, or a list of these"
    if field == "count":
        return f"a whole number of flows per pair, 1..{MAX_FLOWS:,}"
    return "see docs/softswitch.md 'Your own traffic'"


def _message(error: ErrorDetails) -> str:
    if error["type"] == "extra_forbidden" and error["loc"]:
        return f"unknown field {str(error['loc'][0])!r}"
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, UnitError):
        return cause.message + (f" ({cause.hint})" if cause.hint else "")
    text = str(error["msg"])
    return text.removeprefix("Value error, ")


def _entry(raw: object, place: str, field_places: dict[str, str]) -> PlacedEntry:
    if not isinstance(raw, dict):
        raise QosforgeError(f"a flow entry must be a mapping (got {type(raw).__name__})", place=place,
                            hint="e.g. {group: g, src: leaf1:Ethernet0, dst: leaf2:Ethernet0, class: bulk}")
    try:
        entry = TrafficEntry.model_validate(raw)
    except ValidationError as error:
        # An unknown field first: a misspelt 'sorce' also leaves 'src' missing, and the spelling
        # is the mistake to name.
        first = min(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
        field = str(first["loc"][0]) if first["loc"] else ""
        where = field_places.get(field, place)
        raise QosforgeError(_message(first), place=f"{where}: {field}" if field else where, hint=_hint(first, field)) from None
    return PlacedEntry(entry, place, field_places)


def _read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError as error:
        raise QosforgeError(f"cannot read the traffic file ({error.strerror})", place=str(path), hint="give a YAML or CSV traffic file") from None
    if size > MAX_TRAFFIC_BYTES:
        raise QosforgeError(f"{size:,} bytes is larger than a traffic file may be ({MAX_TRAFFIC_BYTES:,})", place=str(path),
                            hint="a run carries at most 50,000 flows; use repetition (pairing, count) instead of one row per flow")
    try:
        # utf-8-sig: spreadsheets write "CSV UTF-8" with a byte-order mark, which is no part of the first column's name.
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise QosforgeError("not a text file (not UTF-8)", place=str(path), hint="give a YAML or CSV traffic file") from None
    except OSError as error:
        raise QosforgeError(f"cannot read the traffic file ({error.strerror})", place=str(path), hint="give a YAML or CSV traffic file") from None


def load_traffic(path: Path) -> TrafficFile:
    """Read and validate a traffic file (``.csv``: CSV; anything else: YAML)."""
    text = _read_text(path)
    if path.suffix.lower() == ".csv":
        return _load_csv(str(path), text)
    return _load_yaml(str(path), text)


class _FlowTally:
    """The flow cap, checked entry by entry as the file is read: every entry makes at least
    ``count`` flows (one per pair, and it has at least one pair), so a file whose entries already
    ask for more than :data:`MAX_FLOWS` is refused at the entry that crosses it, before the rest
    is read (the exact total is the fabric's, softswitch/helper/user_traffic.py)."""

    def __init__(self) -> None:
        self.flows = 0

    def add(self, placed: PlacedEntry) -> None:
        self.flows += placed.entry.count
        if self.flows > MAX_FLOWS:
            raise QosforgeError(
                f"the entries up to here make at least {self.flows:,} flows, more than the "
                f"{MAX_FLOWS:,} a run carries",
                place=placed.place,
                hint="the engine keeps ~3 kB per flow: fewer entries, pairs or a smaller count",
            )


def _load_yaml(name: str, text: str) -> TrafficFile:
    """libyaml's event stream (compiler/fast_yaml.py EventReader), entry by entry with each
    field's line, for the common case; ruamel.yaml's round-trip loader (pure Python, ~20x
    slower) for what that path does not read the same way and for YAML errors, which it places."""
    import yaml  # type: ignore[import-untyped]

    from qosforge.compiler.fast_yaml import EventReader, Unsupported

    try:
        reader = EventReader(text)
    except Unsupported:
        return _load_yaml_ruamel(name, text)
    try:
        return _read_events(name, reader)
    except (Unsupported, yaml.YAMLError, RecursionError):
        return _load_yaml_ruamel(name, text)
    finally:
        reader.close()


def _read_events(name: str, reader: EventReader) -> TrafficFile:
    import yaml

    from qosforge.compiler.fast_yaml import Unsupported

    root = reader.start()
    if not isinstance(root, yaml.MappingStartEvent):
        raise _not_a_mapping(name)
    top: dict[str, object] = {}
    lines: dict[str, int] = {}
    entries: list[PlacedEntry] = []
    collectives: list[PlacedCollective] = []
    tally = _FlowTally()
    while not isinstance(event := reader.next(), yaml.MappingEndEvent):
        key = reader.key(event)
        if key in top:
            raise Unsupported  # ruamel.yaml places the duplicate
        lines[key] = event.start_mark.line + 1
        value_event = reader.next()
        if key == "flows" and isinstance(value_event, yaml.SequenceStartEvent):
            top[key] = entries
            while not isinstance(item := reader.next(), yaml.SequenceEndEvent):
                placed = _read_entry(name, reader, item)
                tally.add(placed)
                entries.append(placed)
        elif key == "collectives" and isinstance(value_event, yaml.SequenceStartEvent):
            top[key] = collectives
            while not isinstance(item := reader.next(), yaml.SequenceEndEvent):
                collectives.append(_collective(*_read_mapping(name, reader, item)))
        else:
            top[key] = reader.value(value_event)
    reader.end()
    document = _document(name, top, lambda field: f"{name}:{lines[field]}")
    return _traffic_file(
        name, document, tuple(entries), lambda key: f"{name}:{lines[key]}", tuple(collectives)
    )


def _read_entry(name: str, reader: EventReader, item: Any) -> PlacedEntry:
    return _entry(*_read_mapping(name, reader, item))


def _read_mapping(name: str, reader: EventReader, item: Any) -> tuple[object, str, dict[str, str]]:
    """One list item of ``flows:`` or ``collectives:``: its value, its line and each field's."""
    import yaml

    from qosforge.compiler.fast_yaml import Unsupported

    place = f"{name}:{item.start_mark.line + 1}"
    if not isinstance(item, yaml.MappingStartEvent):
        return reader.value(item), place, {}
    raw: dict[str, object] = {}
    field_places: dict[str, str] = {}
    while not isinstance(event := reader.next(), yaml.MappingEndEvent):
        key = reader.key(event)
        if key in raw:
            raise Unsupported
        field_places[key] = f"{name}:{event.start_mark.line + 1}"
        raw[key] = reader.value(reader.next())
    return raw, place, field_places


def _not_a_mapping(name: str) -> QosforgeError:
    return QosforgeError(
        "a traffic file is a YAML mapping with apiVersion, kind and flows",
        place=f"{name}:1",
        hint="start with 'apiVersion: qosforge/v1', 'kind: Traffic', 'flows:' (docs/softswitch.md)",
    )


def _document(name: str, top: Mapping[str, object], line_of: PlaceOf) -> TrafficDocument:
    """The top-level fields (``flows`` checked for presence and length only: its entries are
    read one by one)."""
    try:
        return TrafficDocument.model_validate(dict(top))
    except ValidationError as error:
        first = error.errors()[0]
        # No flows and no collectives is the document's error: point at the (empty) list given.
        empty = next((key for key in ("flows", "collectives") if key in top), "")
        field = str(first["loc"][0]) if first["loc"] else empty
        place = line_of(field) if field in top else f"{name}:1"
        hint = {
            "apiVersion": "write apiVersion: qosforge/v1",
            "kind": "write kind: Traffic",
            "flows": "list the flows under 'flows:' (or collectives under 'collectives:')",
            "collectives": "list the collectives under 'collectives:'",
            "seed": "a whole number 0..4294967295",
            "duration": "a time with its unit, e.g. 10ms",
        }.get(
            field,
            "the top-level fields are apiVersion, kind, seed, duration, measure, flows, "
            "collectives",
        )
        where = f"{place}: {field}" if field else place
        raise QosforgeError(_message(first), place=where, hint=hint) from None


def _load_yaml_ruamel(name: str, text: str) -> TrafficFile:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="rt")
    try:
        root = yaml.load(io.StringIO(text))
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise QosforgeError(f"not valid YAML: {error.problem or error.context}", place=f"{name}{line}",
                            hint="check the indentation and quoting at that line (quote host ranges: \"leaf1:Ethernet[0-9]\")") from None
    except YAMLError as error:
        raise QosforgeError(f"not valid YAML: {error}", place=name, hint="check the file's YAML syntax") from None
    if not isinstance(root, CommentedMap):
        raise _not_a_mapping(name)

    def line_of(node: CommentedMap, key: object) -> str:
        return f"{name}:{node.lc.key(key)[0] + 1}"

    top = {str(k): v for k, v in root.items()}
    document = _document(name, top, lambda field: line_of(root, field))
    placed: dict[str, list[tuple[object, str, dict[str, str]]]] = {}
    for key in ("flows", "collectives"):
        listed = root.get(key)
        placed[key] = []
        if listed is None:
            continue
        if not isinstance(listed, CommentedSeq):
            raise QosforgeError(
                f"'{key}' must be a list of entries",
                place=line_of(root, key),
                hint="write each entry on a line starting with '- '",
            )
        for index, raw in enumerate(listed):
            place = f"{name}:{listed.lc.item(index)[0] + 1}"
            field_places = (
                {str(k): line_of(raw, k) for k in raw} if isinstance(raw, CommentedMap) else {}
            )
            plain = (
                {str(k): (list(v) if isinstance(v, CommentedSeq) else v) for k, v in raw.items()}
                if isinstance(raw, CommentedMap)
                else raw
            )
            placed[key].append((plain, place, field_places))
    entries = []
    tally = _FlowTally()
    for plain, place, places in placed["flows"]:
        entry = _entry(plain, place, places)
        tally.add(entry)
        entries.append(entry)
    collectives = tuple(
        _collective(plain, place, places) for plain, place, places in placed["collectives"]
    )
    return _traffic_file(
        name, document, tuple(entries), lambda key: line_of(root, key), collectives
    )


def _traffic_file(
    name: str,
    document: TrafficDocument,
    entries: tuple[PlacedEntry, ...],
    place_of: PlaceOf,
    collectives: tuple[PlacedCollective, ...] = (),
) -> TrafficFile:
    measure_s, window_text = _file_window(document, place_of)
    return TrafficFile(name, document.seed, entries, measure_s, window_text, collectives)


def _file_window(document: TrafficDocument,
                 place_of: PlaceOf) -> tuple[tuple[float, float] | None, str | None]:
    """The window the document gives (its ``measure``, else ``0s:`` its ``duration``): a
    ``duration`` beside a ``measure`` must be the window's end, as ``--duration`` beside
    ``--measure`` must."""
    if document.measure is not None:
        window = parse_window(document.measure, f"{place_of('measure')}: measure")
        if document.duration is not None:
            duration = parse_time_s(document.duration)
            if not math.isclose(duration, window[1], rel_tol=1e-12):
                raise QosforgeError(
                    f"the run ends at the window's end ({window[1]:g} s), not {duration:g} s",
                    place=f"{place_of('duration')}: duration",
                    hint="drop duration (measure's END is the run's end)")
        return window, f"measure: {document.measure}"
    if document.duration is not None:
        return (0.0, parse_time_s(document.duration)), f"duration: {document.duration}"
    return None, None


def _collective(raw: object, place: str, field_places: dict[str, str]) -> PlacedCollective:
    if not isinstance(raw, dict):
        raise QosforgeError(f"a collective entry must be a mapping (got {type(raw).__name__})", place=place,
                            hint="e.g. {group: allreduce, collective: ring-allreduce, hosts: [0, 1, 2, 3], size: 64MB, class: rdma}")
    try:
        entry = CollectiveEntry.model_validate(raw)
    except ValidationError as error:
        # A misspelt field also leaves the right one missing: name the misspelling.
        first = next((e for e in error.errors() if e["type"] == "extra_forbidden"), error.errors()[0])
        field = str(first["loc"][0]) if first["loc"] else ""
        where = field_places.get(field, place)
        if first["type"] == "extra_forbidden":
            close = difflib.get_close_matches(field, COLLECTIVE_FIELDS, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"the fields of a collective are: {', '.join(COLLECTIVE_FIELDS)}"
        elif first["type"] == "missing":
            hint = "a collective needs 'group', 'collective', 'hosts', 'size' and a 'class' or 'dscp'"
        else:
            hint = _hint(first, field)
        raise QosforgeError(_message(first), place=f"{where}: {field}" if field else where, hint=hint) from None
    return PlacedCollective(entry, place, field_places)


def _cell(value: str) -> str:
    """A CSV cell: empty = default (left out); a host-set cell may list several, space-separated."""
    return value.strip()


def _load_csv(name: str, text: str) -> TrafficFile:
    reader = csv.reader(io.StringIO(text), strict=True)
    rows: list[list[str]] = []
    row_lines: list[int] = []
    first_line = 1
    try:
        for row in reader:
            # A quoted cell that runs over a line end is never a traffic-file value: it is a quote
            # left open, and the csv module would swallow every later row into that one cell.
            if any("\n" in cell or "\r" in cell for cell in row):
                raise QosforgeError(f"a quote opened on line {first_line} is not closed before line {reader.line_num}",
                                    place=f"{name}:{first_line}", hint="close the quote on that row, or drop it")
            rows.append(row)
            row_lines.append(first_line)
            first_line = reader.line_num + 1
    except csv.Error as error:
        if "unexpected end of data" in str(error):
            raise QosforgeError("a quote opened on this row is never closed", place=f"{name}:{first_line}",
                                hint="close the quote on that row, or drop it") from None
        raise QosforgeError(f"not valid CSV: {error}", place=f"{name}:{first_line}", hint="check the quoting on that row") from None
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise QosforgeError("the CSV has no header row", place=f"{name}:1", hint=f"start with a header naming columns among: {','.join(FIELDS)}")
    header = [cell.strip() for cell in rows[0]]
    for column in header:
        if column not in FIELDS:
            close = difflib.get_close_matches(column, FIELDS, n=1)
            raise QosforgeError(f"unknown column {column!r}", place=f"{name}:1",
                                hint=f"did you mean '{close[0]}'?" if close else f"columns: {','.join(FIELDS)}")
    if len(set(header)) != len(header):
        raise QosforgeError("a column is named twice", place=f"{name}:1", hint="name each column once")
    entries = []
    tally = _FlowTally()
    for number, row in zip(row_lines[1:], rows[1:], strict=True):
        if not any(cell.strip() for cell in row):
            continue
        place = f"{name}:{number}"
        if len(row) > len(header):
            raise QosforgeError(f"{len(row)} cells but {len(header)} columns", place=place, hint="quote cells that contain commas")
        raw: dict[str, object] = {}
        for column, value in zip(header, row, strict=False):
            cell = _cell(value)
            if cell == "":
                continue
            if column in ("src", "dst"):
                raw[column] = [int(token) if token.isdigit() else token for token in cell.split()]
            elif column in ("count", "dscp", "step"):
                raw[column] = int(cell) if cell.lstrip("-").isdigit() else cell
            else:
                raw[column] = cell
        placed = _entry(raw, place, {column: place for column in header})
        tally.add(placed)
        entries.append(placed)
    if not entries:
        raise QosforgeError("the CSV lists no flows", place=f"{name}:2", hint="add one row per flow entry under the header")
    return TrafficFile(name, None, tuple(entries))


def stagger_offsets_s(entry: TrafficEntry, flows: int, seed: int, entry_index: int) -> list[float]:
    """Start offsets of an entry's ``flows`` flows within its start window: ``even``: flow i at
    i*window/n (as ns-3's dctcp-example.cc staggers its senders); ``random``: uniform in [0,
    window), drawn from ``SeedSequence([seed, entry_index])`` so each entry's draws are its own
    and a run is the same every time."""
    window = entry.start_window_s
    if window == 0.0 or flows == 0:
        return [0.0] * flows
    if entry.stagger == "even":
        return [i * window / flows for i in range(flows)]
    import numpy as np

    rng = np.random.default_rng(np.random.SeedSequence([seed, entry_index]))
    offsets = [float(x) for x in rng.uniform(0.0, window, size=flows)]
    return [min(x, math.nextafter(window, 0.0)) for x in offsets]


__all__ = ["LONG_LIVED", "CollectiveEntry", "PlacedCollective", "PlacedEntry", "TrafficDocument", "TrafficEntry", "TrafficFile",
           "load_traffic", "parse_window", "stagger_offsets_s"]
