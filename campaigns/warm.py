"""Warm a process up once before it forks local workers: the commands a campaign runs and the
modules their points import lazily (the engine's compiled numba core among them).

``qosforge`` keeps its CLI fast by importing a command's machinery only when the command runs;
in a campaign that cost would be paid again in every worker, on its first point (1-1.4 s on the
2-core bench machine, bench/bench_campaigns.py). Imported here, in the parent, it is paid once: workers forked
afterwards share the loaded modules copy-on-write. The lists are the modules a point of each
command imports (its application-layer function and what that imports lazily); `tests/campaigns/test_warm.py` runs a
point of every kind after :func:`warm_up` and fails if any qosforge module is still imported.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from qosforge.campaigns.point import PointSpec

#: Modules a point of each top-level command imports lazily (its run, not its flag parsing).
#: ``qosforge.softswitch.engine.core`` loads the ahead-of-time compiled event core.
_SIMULATE = (
    "qosforge.api.simulate", "qosforge.api.scenarios", "qosforge.api.reporting", "qosforge.presentation", "qosforge.softswitch.engine.core", "qosforge.softswitch.simulation",
    "qosforge.softswitch.metrics", "qosforge.softswitch.randomness",
    "qosforge.softswitch.helper.single_switch", "qosforge.models.tbtcp", "qosforge.fitting.red_model",
    "qosforge.softswitch.helper.class_report", "qosforge.softswitch.helper.host_model",
)
#: What ``simulate INTENT`` adds: the intent's switches (one, or a fabric) and their scenarios.
_SIMULATE_INTENT = (
    "qosforge.softswitch.helper.compiled", "qosforge.softswitch.helper.fabric", "qosforge.softswitch.helper.fabric_report",
    "qosforge.softswitch.helper.fabric_scenarios", "qosforge.softswitch.traffic.fabric_workloads", "qosforge.softswitch.traffic.flow_sizes",
)
_COMPILE = (
    "qosforge.api.compile", "qosforge.api.render_pool", "qosforge.api.reporting", "qosforge.compiler.compile", "qosforge.compiler.loader", "qosforge.compiler.rendering", "qosforge.backends.registry", "qosforge.backends.report",
    "qosforge.backends.sai.fabric", "qosforge.backends.sai.recording", "qosforge.backends.sai.semantics", "qosforge.backends.sai.validate", "qosforge.backends.sonic.render",
    "qosforge.backends.sonic.checks", "qosforge.backends.openconfig.target", "qosforge.outputs", "qosforge.files", "qosforge.presentation",
)
#: ``(top-level command, whether the point ships an intent)`` -> modules: ``simulate INTENT``
#: compiles the intent first (the compiler, the backends and SciPy: 1-2 s of imports a
#: flag-only dumbbell point does not need).
PRELOADS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("simulate", False): _SIMULATE,
    ("simulate", True): _SIMULATE + _SIMULATE_INTENT + _COMPILE,
    ("compile", True): _COMPILE,
    ("whatif", False): ("qosforge.api.whatif", "qosforge.api.reporting", "qosforge.presentation"),
}


def warm_up(specs: Iterable[PointSpec]) -> None:
    """Import what the points of ``specs`` will import."""
    for command, with_intent in dict.fromkeys((spec.command, bool(spec.files)) for spec in specs):
        for module in PRELOADS.get((command[0], with_intent), ()):
            importlib.import_module(module)
        if command[0] == "whatif" and len(command) == 2:
            from qosforge.api.calculators import calculator

            calculator(command[1])  # the calculator's module and the model behind it
        if command[0] == "simulate":
            # Loads the compiled core (or, without one, JIT-compiles it once here rather than in every worker).
            from qosforge.softswitch.engine.core import kernel

            kernel()


__all__ = ["PRELOADS", "warm_up"]
