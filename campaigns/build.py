"""A campaign: the grid's axes and one :class:`PointSpec` per point, built before anything runs
so every input problem is reported (exit 2) before a file is written or a worker started."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qosforge.campaigns.flags import Flag, given_values
from qosforge.campaigns.grid import Axis, check_grid_size, combinations, seeds_axis
from qosforge.campaigns.intents import (
    Assignment,
    IntentSource,
    apply_assignments,
    validate_assigned,
)
from qosforge.campaigns.point import PointSpec, ShippedFile
from qosforge.errors import QosforgeError


@dataclass(frozen=True)
class Campaign:
    command: tuple[str, ...]
    axes: tuple[Axis, ...]
    points: tuple[PointSpec, ...]

    @property
    def title(self) -> str:
        return f"qosforge sweep {' '.join(self.command)}"


@dataclass(frozen=True)
class CampaignRequest:
    """What the user asked for: the target, its flags' values, intents, --set and --seeds."""

    command: tuple[str, ...]
    flags: Sequence[Flag]
    options: Mapping[str, Any]
    intents: Sequence[IntentSource] = ()
    assignments: Sequence[Assignment] = ()
    seeds: int | None = None


def _axes(request: CampaignRequest) -> tuple[dict[str, Any], list[Axis]]:
    fixed, swept = given_values(list(request.flags), request.options)
    axes = [Axis(key, values) for key, values in swept.items()]
    for assignment in request.assignments:
        if assignment.path in fixed or assignment.path in swept:
            raise QosforgeError(f"{assignment.path!r} is also a flag name", place=f"--set {assignment.path}", hint="set the flag instead")
        if len(assignment.axis.values) > 1:
            axes.append(assignment.axis)
        else:
            fixed[assignment.path] = assignment.axis.values[0]
    if len(request.intents) > 1:
        axes.append(Axis("intent", tuple(intent.name for intent in request.intents)))
    if request.seeds is not None:
        if "seed" in swept or request.options.get("target_seed") is not None:
            raise QosforgeError("--seeds runs seeds 1..N; --seed names them", place="--seeds", hint="give one of --seeds N or --seed a,b,c")
        axes.append(seeds_axis(request.seeds))
        fixed.pop("seed", None)
    check_grid_size(axes)
    return fixed, axes


def build_campaign(request: CampaignRequest) -> Campaign:
    """Every point of the request's grid, validated (intent changes by the compiler's loader)."""
    if request.assignments and not request.intents:
        raise QosforgeError("changes an intent, and none was given", place="--set", hint="name an INTENT file before the flags")
    names = [intent.name for intent in request.intents]
    if len(set(names)) != len(names):
        repeated = sorted({name for name in names if names.count(name) > 1})
        raise QosforgeError(f"{', '.join(repeated)} is given twice", place="INTENT", hint="name each intent once")
    fixed, axes = _axes(request)
    intents = {intent.name: intent for intent in request.intents}
    texts: dict[tuple[Any, ...], str] = {}
    points: list[PointSpec] = []
    for combination in combinations(axes):
        params: dict[str, Any] = {}
        files: tuple[ShippedFile, ...] = ()
        argv: list[str] = []
        fields: dict[str, Any] = {}
        typed: set[str] = set()
        if intents:
            intent = intents[str(combination.get("intent", request.intents[0].name))]
            params.update({"intent": intent.name, "intent_sha256": intent.sha256})
            values = {a.path: combination.get(a.path, fixed.get(a.path)) for a in request.assignments}
            params.update(values)
            # Flags and seeds multiply the points, not the intents: each changed intent is made
            # and validated once.
            signature = (intent.name, *(repr(value) for value in values.values()))
            text = texts.get(signature)
            if text is None:
                text = texts[signature] = apply_assignments(intent, values, request.assignments)
                validate_assigned(intent, text, values, request.assignments)
            files = (ShippedFile(argument=0, name=intent.name, contents=text),)
            argv.append(intent.name)
        for flag in request.flags:
            value = combination.get(flag.key, fixed.get(flag.key))
            if flag.key in combination or flag.key in fixed:
                params[flag.key] = list(value) if isinstance(value, tuple) else value
            argv += flag.argv(value)
            if flag.alias_of is None and value is not None and flag.original.name is not None:
                fields[flag.original.name] = value
                if flag.chosen(value):
                    typed.add(flag.original.name)
        points.append(PointSpec(command=request.command, params=params, argv=tuple(argv), files=files, fields=fields, typed=frozenset(typed)))
    _check_traffic_files(points)
    return Campaign(command=request.command, axes=tuple(axes), points=tuple(points))


def _check_traffic_files(points: list[PointSpec]) -> None:
    """Read every ``--traffic`` file of the grid once, on the client, before any point runs: a
    file that does not parse is the user's input (exit 2, FILE:LINE), not one failed row per point."""
    paths = sorted({str(point.fields["traffic_path"]) for point in points if point.fields.get("traffic_path")})
    if not paths:
        return
    from qosforge.api.scenarios.traffic import existing_traffic_path
    from qosforge.softswitch.traffic.traffic_file import load_traffic

    for path in paths:
        load_traffic(existing_traffic_path(path))


__all__ = ["Campaign", "CampaignRequest", "build_campaign"]
