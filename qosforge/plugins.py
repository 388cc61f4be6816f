"""One way to add a unit: a named ``module:attribute`` reference in an entry-point group.

Every kind of unit qosforge can be extended with is one entry-point group (the packaging
specification's "Entry points", read with :func:`importlib.metadata.entry_points`, as pyang finds
its plugins and pytest its plugins):

- ``qosforge.transports``: a :class:`~qosforge.transports.spec.TransportSpec`
  (docs/extending/transport.md);
- ``qosforge.targets``: a :class:`~qosforge.backends.registry.Target` (docs/extending/target.md);
- ``qosforge.lint_rules``: a module whose ``@rule`` functions register when it is imported
  (docs/extending/rule.md);
- ``qosforge.scenarios``: a :class:`~qosforge.api.scenarios._framework.Scenario`
  (docs/extending/scenario.md);
- ``qosforge.calculators``: a :class:`~qosforge.api.calculators._framework.WhatIf`
  (docs/extending/calculator.md);
- ``qosforge.commands``: a :class:`click.Command`, one ``qosforge`` subcommand
  (docs/extending/command.md).

The built-in units are declared here, in :data:`BUILTINS`, as the same :class:`Reference` a
plugin's entry point becomes, and loaded by the same function (:func:`load_one`, which resolves
``module:attribute`` as :meth:`importlib.metadata.EntryPoint.load` does); a plugin's units
follow the built-ins, in (distribution, name) order. Installed metadata is read (and
:mod:`importlib.metadata` imported, ~25 ms) only when a group's full list is asked for, not to
run a built-in command. The built-ins are listed here rather than in pyproject.toml's
``[project.entry-points]`` because their order is meaningful (the intent schema's transport
enum, the rules' output order, ``--help``) and installed metadata guarantees none, and because
metadata changes only on a reinstall: a source checkout whose installed metadata predates a new
built-in would silently miss it. Each registry (transports, targets, rules, scenarios,
calculators, commands) reads its group through :func:`references` (names only, nothing imported:
calculators and commands stay lazy) or :func:`load`.

A reference that cannot be imported, or that names a built-in's name again, is a one-line
:class:`~qosforge.errors.QosforgeError` naming the distribution and the entry point.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from qosforge.errors import QosforgeError

Unit = TypeVar("Unit")

TRANSPORTS = "qosforge.transports"
TARGETS = "qosforge.targets"
LINT_RULES = "qosforge.lint_rules"
SCENARIOS = "qosforge.scenarios"
CALCULATORS = "qosforge.calculators"
COMMANDS = "qosforge.commands"
GROUPS = (TRANSPORTS, TARGETS, LINT_RULES, SCENARIOS, CALCULATORS, COMMANDS)

#: The distribution a built-in belongs to (where an error about it points).
BUILTIN_DISTRIBUTION = "qosforge"


@dataclass(frozen=True)
class Reference:
    """One unit of a group: its name, where it lives (``module:attribute``, or a module) and
    which distribution declared it."""

    name: str
    value: str
    group: str
    distribution: str = "qosforge"

    @property
    def place(self) -> str:
        return f"entry point {self.name!r} of {self.group} ({self.distribution}: {self.value})"

    def load(self) -> object:
        """The module, or the attribute of it, that ``value`` names (as
        :meth:`importlib.metadata.EntryPoint.load` resolves it)."""
        module_name, _, attribute = self.value.partition(":")
        unit: object = importlib.import_module(module_name.strip())
        for part in filter(None, attribute.strip().split(".")):
            unit = getattr(unit, part)
        return unit


def _group(group: str, references: dict[str, str]) -> tuple[Reference, ...]:
    return tuple(Reference(name, value, group) for name, value in references.items())


#: The built-in units of every group, in their order (see the module docstring).
BUILTINS: dict[str, tuple[Reference, ...]] = {
    # The order of the intent schema's ``transport:`` enum.
    TRANSPORTS: _group(
        TRANSPORTS,
        {
            "tcp": "qosforge.transports.tcp:TCP",
            "dctcp": "qosforge.transports.dctcp:DCTCP",
            "tbtcp": "qosforge.transports.tbtcp:TBTCP",
            "d2tcp": "qosforge.transports.d2tcp:D2TCP",
            "ear": "qosforge.transports.ear:EAR",
            "dcqcn": "qosforge.transports.dcqcn:DCQCN",
            "hpcc": "qosforge.transports.hpcc:HPCC",
            "irn": "qosforge.transports.irn:IRN",
        },
    ),
    # The order of ``--target``'s choices and of the report's targets.
    TARGETS: _group(
        TARGETS,
        {
            "sonic": "qosforge.backends.sonic.target:TARGET",
            "sai": "qosforge.backends.sai.target:TARGET",
            "openconfig": "qosforge.backends.openconfig.target:TARGET",
            "host": "qosforge.backends.host.target:TARGET",
        },
    ),
    # Import order is registration order, the order of docs/rules.md, SARIF's rule list and
    # ``--list-rules``; the telemetry rules ``qosforge watch`` runs on counters come last.
    LINT_RULES: _group(
        LINT_RULES,
        {
            "schema": "qosforge.lint.rules.schema",
            "consistency": "qosforge.lint.rules.consistency",
            "capacity": "qosforge.lint.rules.capacity",
            "transport": "qosforge.lint.rules.transport",
            "hosts": "qosforge.lint.rules.hosts",
            "internal": "qosforge.lint.rules.internal",
            "telemetry": "qosforge.lint.watch.rules",
        },
    ),
    # Listed order does not matter: ``--scenario``'s choices sort by each scenario's ``order``.
    SCENARIOS: _group(
        SCENARIOS,
        {
            "incast": "qosforge.api.scenarios.incast:SCENARIO",
            "headroom": "qosforge.api.scenarios.headroom:SCENARIO",
            "pause-storm": "qosforge.api.scenarios.pause_storm:SCENARIO",
            "deadlock": "qosforge.api.scenarios.deadlock:SCENARIO",
            "dumbbell": "qosforge.api.scenarios.dumbbell:SCENARIO",
            "fabric-incast": "qosforge.api.scenarios.fabric_incast:SCENARIO",
            "all-to-all": "qosforge.api.scenarios.all_to_all:SCENARIO",
            "traffic": "qosforge.api.scenarios.traffic:SCENARIO",
        },
    ),
    # The order of ``qosforge whatif --help``.
    CALCULATORS: _group(
        CALCULATORS,
        {
            "tlt": "qosforge.api.calculators.tlt:SPEC",
            "buffer": "qosforge.api.calculators.buffer:SPEC",
            "pfc-headroom": "qosforge.api.calculators.pfc_headroom:SPEC",
            "dctcp": "qosforge.api.calculators.dctcp:SPEC",
            "d2tcp": "qosforge.api.calculators.d2tcp:SPEC",
            "ear": "qosforge.api.calculators.ear:SPEC",
            "dcqcn": "qosforge.api.calculators.dcqcn:SPEC",
            "tbtcp": "qosforge.api.calculators.tbtcp:SPEC",
            "fastlane": "qosforge.api.calculators.fastlane:SPEC",
        },
    ),
    # ``qosforge --help`` lists them sorted by name.
    COMMANDS: _group(
        COMMANDS,
        {
            "compile": "qosforge.cli.compile:compile_command",
            "explain": "qosforge.cli.compile:explain_command",
            "lint": "qosforge.cli.lint:lint_command",
            "whatif": "qosforge.cli.whatif:whatif_group",
            "fit": "qosforge.cli.groups:fit_group",
            "profiles": "qosforge.cli.profiles:profiles_group",
            "schema": "qosforge.cli.compile:schema_command",
            "simulate": "qosforge.cli.simulate:simulate_command",
            "init": "qosforge.cli.init:init_command",
            "sweep": "qosforge.cli.sweep:sweep_group",
            "push": "qosforge.cli.push:push_command",
            "diff": "qosforge.cli.diff:diff_command",
            "watch": "qosforge.cli.watch:watch_command",
            "tune": "qosforge.cli.tune:tune_command",
            "check": "qosforge.cli.check:check_group",
            "compare": "qosforge.cli.compare:compare_command",
        },
    ),
}


@functools.cache
def _installed(group: str) -> tuple[Reference, ...]:
    from importlib.metadata import entry_points

    found = []
    for entry_point in entry_points(group=group):
        distribution = (
            entry_point.dist.name if entry_point.dist is not None else "unknown distribution"
        )
        if distribution == BUILTIN_DISTRIBUTION:
            continue  # a qosforge install that declares its built-ins as metadata lists them above
        found.append(Reference(entry_point.name, entry_point.value, group, distribution))
    return tuple(sorted(found, key=lambda ref: (ref.distribution, ref.name)))


def references(group: str) -> tuple[Reference, ...]:
    """Every unit of ``group`` (a member of :data:`GROUPS`), the built-ins first; nothing is
    imported. Two units of one name are refused."""
    if group not in BUILTINS:
        raise ValueError(
            f"{group!r} is not a qosforge entry-point group (one of {', '.join(GROUPS)})"
        )
    seen: dict[str, Reference] = {}
    for reference in (*BUILTINS[group], *_installed(group)):
        if reference.name in seen:
            raise QosforgeError(
                f"{reference.place} reuses the name of {seen[reference.name].place}",
                place=group,
                hint="rename the plugin's entry point (and its unit), or uninstall one of the two",
            )
        seen[reference.name] = reference
    return tuple(seen.values())


def names(group: str) -> tuple[str, ...]:
    return tuple(reference.name for reference in references(group))


def load_one(reference: Reference, kind: type[Unit]) -> Unit:
    """Import what ``reference`` names (a module, or an attribute of one) and check it is a
    ``kind``; a plugin that fails either way is a one-line error naming it."""
    try:
        unit = reference.load()
    except (ImportError, AttributeError) as error:
        if reference.distribution == BUILTIN_DISTRIBUTION:
            raise  # a broken built-in is a qosforge bug, not user input
        raise QosforgeError(
            f"cannot load {reference.place}: {type(error).__name__}: {error}",
            place=reference.group,
            hint=f"fix or uninstall the plugin distribution {reference.distribution!r}",
        ) from error
    unit_name = getattr(unit, "name", reference.name)
    if isinstance(unit_name, str) and unit_name != reference.name:
        raise QosforgeError(
            f"{reference.place} names a unit called {unit_name!r}",
            place=reference.group,
            hint=f"name the entry point {unit_name!r}, as its unit",
        )
    if not isinstance(unit, kind):
        raise QosforgeError(
            f"{reference.place} names a {type(unit).__name__}, not a {kind.__name__}",
            place=reference.group,
            hint=f"point the entry point at the unit's {kind.__name__}",
        )
    return unit


def load(group: str, kind: type[Unit]) -> Iterator[tuple[Reference, Unit]]:
    """Import every unit of ``group`` in order (built-ins first), with its reference; each must
    be a ``kind`` (:class:`types.ModuleType` for a group of modules)."""
    for reference in references(group):
        yield reference, load_one(reference, kind)


def find(group: str, name: str) -> Reference | None:
    """The unit ``name`` of ``group``: a built-in without reading installed metadata (no plugin
    may reuse its name), else a plugin's."""
    builtin = next((reference for reference in BUILTINS[group] if reference.name == name), None)
    if builtin is not None:
        return builtin
    return next((reference for reference in references(group) if reference.name == name), None)


def clear_cache() -> None:
    """Forget the installed plugins read so far (a test that puts a distribution on sys.path)."""
    _installed.cache_clear()


__all__ = [
    "BUILTINS",
    "CALCULATORS",
    "COMMANDS",
    "GROUPS",
    "LINT_RULES",
    "SCENARIOS",
    "TARGETS",
    "TRANSPORTS",
    "Reference",
    "clear_cache",
    "find",
    "load",
    "load_one",
    "names",
    "references",
]
