"""The rule registry: every rule ``qosforge lint`` (and ``qosforge watch``) knows, with its stable id.

A rule is declared with its check function (``@rule`` in :mod:`~qosforge.lint.rules.base`), in an
area module: :mod:`~qosforge.lint.rules.schema` (backends/sonic/checks.py's rules and the
JSON-level rules), :mod:`~qosforge.lint.rules.consistency`, :mod:`~qosforge.lint.rules.capacity`
(``--profile``), :mod:`~qosforge.lint.rules.transport` (``--intent``),
:mod:`~qosforge.lint.rules.hosts` (``--hosts``), then :mod:`~qosforge.lint.rules.internal` and
``qosforge watch``'s rules (:mod:`qosforge.lint.watch.rules`, checks that run on counters). Any
other module in this package is an area too: it is imported (so its rules register) after these,
in name order, so a new rule is one module (docs/extending/rule.md). Registration order is output
order (docs/rules.md, SARIF's rule list, ``--list-rules``, the rules a skipped group names).
"""

from __future__ import annotations

import importlib
import pkgutil
import traceback

# isort: off
# Import order is registration order (see above): keep it.
from qosforge.lint.rules.base import CATEGORY_TITLES, REGISTRY, RULE_INFO, Category, Rule, declare, rule
from qosforge.lint.rules import schema, consistency, capacity, transport, hosts, internal
from qosforge.lint.watch import rules as _watch_rules
# isort: on
from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Skipped, clip
from qosforge.lint.rules.internal import INTERNAL_ERROR

#: Modules of this package that hold no rules.
_NOT_AREAS = frozenset({"base", "helpers"})
for _module in sorted(pkgutil.iter_modules(__path__), key=lambda found: found.name):
    if _module.name not in _NOT_AREAS:
        importlib.import_module(f"{__name__}.{_module.name}")  # registers its rules; the known areas are already in

assert consistency and capacity and transport and hosts and internal and _watch_rules  # imported for their rules


def rules_needing(needs: str) -> tuple[str, ...]:
    return tuple(found.id for found in REGISTRY.values() if found.needs == needs)


def _internal(ctx: LintContext, rule_id: str, error: Exception) -> Finding:
    frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame is not None else ""
    return INTERNAL_ERROR.report(ctx, "", "", None, clip(f"rule {rule_id} raised {type(error).__name__}: {error}{where}"))


def vendor_skips(ctx: LintContext) -> list[Skipped]:
    """Vendor-specific rules that did not run on this file because its vendor is unknown."""
    if ctx.vendor.vendor is not None:
        return []
    rules = tuple(found.id for found in REGISTRY.values() if found.vendor is not None)
    return [Skipped(rules, f"vendor-specific and the ASIC vendor is unknown ({ctx.vendor.source})")] if rules else []


def run_rules(ctx: LintContext, disabled: frozenset[str] = frozenset()) -> list[Finding]:
    """Every finding for one file from the rules whose inputs (--profile, --intent, the vendor)
    are present and that are not ``disabled``."""
    findings: list[Finding] = []
    try:
        findings.extend(schema.sonic_findings(ctx))
    except Exception as error:  # see INTERNAL_ERROR
        findings.append(_internal(ctx, "backends/sonic/checks.py", error))
    for found in list(REGISTRY.values()):
        if found.check is None or not ctx.has(found.needs) or found.id in disabled:
            continue
        if found.vendor is not None and ctx.vendor.vendor != found.vendor:
            continue
        try:
            findings.extend(found.check(ctx))
        except Exception as error:  # see INTERNAL_ERROR
            findings.append(_internal(ctx, found.id, error))
    return findings


__all__ = ["CATEGORY_TITLES", "INTERNAL_ERROR", "REGISTRY", "RULE_INFO", "Category", "Rule", "declare", "rule",
           "rules_needing", "run_rules", "vendor_skips"]
