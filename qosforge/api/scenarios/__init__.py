"""The simulator's scenarios: one module per scenario, each exposing ``SCENARIO`` (a
:class:`~qosforge.api.scenarios._framework.Scenario`), registered from the ``qosforge.scenarios``
entry-point group (qosforge/plugins.py: the built-ins, then any installed plugin's).

Adding a scenario is a module (in this package, or a plugin's), its entry point and its test:
``qosforge simulate``'s ``--scenario`` choices and flags, the refusal of flags a scenario does not
read and the table in docs/softswitch.md all come from :data:`SCENARIOS`
(docs/extending/scenario.md). Modules whose name starts with ``_`` (and ``flags``) are shared
parts, not scenarios. A scenario defined at run time (a test's) joins with :func:`register`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qosforge import plugins
from qosforge.api.scenarios._framework import FlagSpec, Scenario, docs_table, refusal
from qosforge.api.scenarios.flags import LEADING, REFUSAL_ORDER

if TYPE_CHECKING:
    from qosforge.api.scenarios._fabric import FabricPlan


def _discover() -> dict[str, Scenario]:
    found = [scenario for _, scenario in plugins.load(plugins.SCENARIOS, Scenario)]
    return {scenario.name: scenario for scenario in sorted(found, key=lambda s: (s.order, s.name))}


#: Every scenario by name, in order (``--scenario``'s choices, refusal messages, the docs table).
SCENARIOS: dict[str, Scenario] = _discover()
#: The ``--traffic FILE`` run: the file is the scenario.
TRAFFIC = SCENARIOS["traffic"]


def register(scenario: Scenario) -> None:
    """Add a scenario defined outside this package (it must not reuse a name)."""
    if scenario.name in SCENARIOS:
        raise ValueError(f"scenario {scenario.name!r} is already registered")
    ordered = sorted([*SCENARIOS.values(), scenario], key=lambda s: (s.order, s.name))
    SCENARIOS.clear()
    SCENARIOS.update({s.name: s for s in ordered})


def unregister(name: str) -> None:
    SCENARIOS.pop(name)


def all_flags() -> tuple[FlagSpec, ...]:
    """``qosforge simulate``'s scenario flags in ``--help`` order: the shared ones, then each
    scenario's own."""
    own = tuple(spec for scenario in SCENARIOS.values() for spec in scenario.flags)
    return LEADING + own


def refuse_unread(scenario: Scenario, typed: frozenset[str]) -> None:
    """Refuse a typed flag ``scenario`` does not read (first in the table's historic order)."""
    by_name = {spec.name: spec for spec in all_flags()}
    ordered = [by_name[name] for name in REFUSAL_ORDER] + [spec for spec in all_flags() if spec.name not in REFUSAL_ORDER]
    refusal(SCENARIOS.values(), ordered, scenario, typed)


def scenario_docs() -> str:
    """The generated tables of docs/softswitch.md "Scenarios and flags"."""
    return docs_table(tuple(SCENARIOS.values()), all_flags())


def fabric_plans() -> dict[str, FabricPlan]:
    """The fabric scenarios' plans by name (``run_fabric`` runs one from its options)."""
    import sys

    from qosforge.api.scenarios._fabric import FabricPlan

    plans = {}
    for scenario in SCENARIOS.values():
        plan = getattr(sys.modules.get(scenario.run.__module__), "PLAN", None)
        if isinstance(plan, FabricPlan):
            plans[scenario.name] = plan
    return plans


__all__ = ["SCENARIOS", "TRAFFIC", "all_flags", "fabric_plans", "refuse_unread", "register", "scenario_docs", "unregister"]
