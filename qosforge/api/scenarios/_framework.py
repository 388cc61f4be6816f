"""One object per simulator scenario, and what is generated from the registry of them.

A scenario (``qosforge simulate --scenario NAME``, or the ``--traffic`` run) is a :class:`Scenario`:
its name, the flags it reads (each with the default it applies), what to do instead for a flag it
does not read, the flags of its own it adds, and its builder ``run``. From the registry
(:mod:`qosforge.api.scenarios`) come, as ``qosforge/cli/whatif/_framework.py`` makes a calculator's
command from its ``SPEC``:

* the ``--scenario`` choices and the flags of ``qosforge simulate`` (the CLI turns each
  :class:`FlagSpec` into a click option, ``qosforge/cli/simulate.py``);
* the refusal table: a flag typed for a scenario that does not read it is refused, naming the
  scenarios that do (:func:`refusal`);
* the flag × scenario table of docs/softswitch.md (:func:`docs_table`; a test holds the
  committed table equal to it).

Nothing here imports click: the application layer takes typed requests, the CLI parses flags.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.api.simulation import ScenarioInput, SimulationOutcome

FlagKind = Literal["text", "int", "float", "switch", "path", "choice", "seed", "output"]


@dataclass(frozen=True)
class FlagSpec:
    """One ``qosforge simulate`` flag, as data: the CLI makes its click option from it.

    ``name`` is the request field (and click parameter) it fills; ``checked`` flags are refused on
    a scenario that does not read them (the others, like ``--seed`` or ``--format``, apply to
    every run)."""

    flag: str
    name: str
    help: str
    kind: FlagKind = "text"
    metavar: str | None = None
    default: Any = None
    show_default: bool = False
    multiple: bool = False
    choices: tuple[str, ...] = ()
    checked: bool = True
    output_default_name: str = ""
    """``kind="output"``: the file name a folder given for it gets (cli/options.py OutputPath)."""


@dataclass(frozen=True)
class Scenario:
    """A simulator scenario: everything ``qosforge simulate`` and its docs need to know about it."""

    name: str
    summary: str
    """What traffic it runs (the docs table's "traffic" column)."""
    defaults: str
    """What ``--scenario NAME`` alone runs (the docs table's "defaults" column)."""
    reads: Mapping[str, str]
    """Request field -> the default this scenario applies when the flag is not given (in words)."""
    run: Callable[[ScenarioInput], SimulationOutcome]
    instead: Mapping[str, str] = field(default_factory=dict)
    """Request field -> what to do instead, for a flag this scenario does not read."""
    flags: tuple[FlagSpec, ...] = ()
    """Flags only this scenario adds (appended to ``qosforge simulate``'s options)."""
    selectable: bool = True
    """A ``--scenario`` choice (the traffic-file run is chosen by ``--traffic`` instead)."""
    compiles_intent: bool = True
    """Runs on a compiled INTENT (its dumbbell-only flags are then "set by the compiled intent")."""
    not_served: tuple[str, str] | None = None
    """Why ``--serve-gnmi`` cannot serve this scenario's run, and the hint (None: it can, its
    builder hands ``ScenarioInput.serve`` the run)."""
    order: int = 100
    """Place in ``--scenario``'s choices, the refusal messages and the docs table (built-ins
    10..60, the traffic run last); a new scenario keeps the default and sorts by name."""


def refusal(scenarios: Iterable[Scenario], catalog: Iterable[FlagSpec], scenario: Scenario, typed: frozenset[str]) -> None:
    """Refuse the first flag in ``catalog`` order that the user typed and ``scenario`` does not
    read, naming the scenarios that do read it, and what to do instead where that is not plain."""
    scenarios = tuple(scenarios)
    for spec in catalog:
        if not spec.checked or spec.name in scenario.reads or spec.name not in typed:
            continue
        readers = [other.name for other in scenarios if spec.name in other.reads]
        instead = scenario.instead.get(spec.name)
        raise QosforgeError(f"applies to {', '.join(readers)}, not {scenario.name}", place=spec.flag,
                            hint=f"drop {spec.flag}" + (f" ({instead})" if instead else ""))


def docs_table(scenarios: tuple[Scenario, ...], catalog: tuple[FlagSpec, ...]) -> str:
    """The Markdown tables of docs/softswitch.md "Scenarios and flags": one row per scenario
    (traffic, defaults), then which flag each scenario reads and with what default."""
    lines = ["| scenario | traffic | defaults |", "|---|---|---|"]
    for scenario in scenarios:
        name = f"`{scenario.name}`" if scenario.selectable else "`--traffic FILE`"
        lines.append(f"| {name} | {scenario.summary} | {scenario.defaults} |")
    lines += ["", "| flag | " + " | ".join(f"`{s.name}`" if s.selectable else "`--traffic`" for s in scenarios) + " |",
              "|---|" + "---|" * len(scenarios)]
    for spec in catalog:
        if not spec.checked:
            continue
        cells = [scenario.reads[spec.name] if spec.name in scenario.reads else "–" for scenario in scenarios]
        lines.append(f"| `{spec.flag}` | " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


__all__ = ["FlagKind", "FlagSpec", "Scenario", "docs_table", "refusal"]
