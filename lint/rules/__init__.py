"""The rule registry: every rule ``qosforge lint`` (and ``qosforge watch``) knows, with its stable id.

A rule is declared with its check function (``@rule`` in :mod:`~qosforge.lint.rules.base`), in an
area module. The area modules are the ``qosforge.lint_rules`` entry-point group
(qosforge/plugins.py): :mod:`~qosforge.lint.rules.schema` (backends/sonic/checks.py's rules and
the JSON-level rules), :mod:`~qosforge.lint.rules.consistency`,
:mod:`~qosforge.lint.rules.capacity` (``--profile``), :mod:`~qosforge.lint.rules.transport`
(``--intent``), :mod:`~qosforge.lint.rules.hosts` (``--hosts``),
:mod:`~qosforge.lint.rules.internal`, ``qosforge watch``'s telemetry rules, then any installed
plugin's modules; importing each registers its rules (docs/extending/rule.md). Registration order
is output order (docs/rules.md, SARIF's rule list, ``--list-rules``, the rules a skipped group
names).
"""

from __future__ import annotations

import traceback
from types import ModuleType

from qosforge import plugins
from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Skipped, clip

# The first area of the group (its rules register first); run_rules runs its one-pass checks.
from qosforge.lint.rules import schema
from qosforge.lint.rules.base import (
    CATEGORY_TITLES,
    REGISTRY,
    RULE_INFO,
    Category,
    Rule,
    declare,
    rule,
)

#: Every area module, in registration order (importing one registers its rules).
AREAS: tuple[ModuleType, ...] = tuple(module for _, module in plugins.load(plugins.LINT_RULES, ModuleType))
#: A crash inside a rule becomes a finding of this rule (lint/rules/internal.py).
INTERNAL_ERROR = REGISTRY["internal-error"]


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
