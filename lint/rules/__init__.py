"""The rule registry: every rule ``qosforge lint`` knows, with its stable id.

Rules come from four modules: :mod:`~qosforge.lint.rules.schema` (backends/sonic/checks.py and
the JSON-level rules), :mod:`~qosforge.lint.rules.consistency`,
:mod:`~qosforge.lint.rules.capacity` (``--profile``) and :mod:`~qosforge.lint.rules.transport`
(``--intent``), plus :mod:`~qosforge.lint.rules.telemetry` (``qosforge watch``'s rules, whose
checks run on counters in :mod:`qosforge.lint.watch.rules`). A rule whose ``check`` is None is emitted by a sibling check (the checks.py rules
by one pass of ``check_config_db``; ``tlt-flows`` by the TLT check; ``model-input-missing`` by
every model check that lacks an input).
"""

from __future__ import annotations

import traceback

from qosforge.lint.context import LintContext, RuleInfo
from qosforge.lint.findings import Finding, Severity, Skipped, clip
from qosforge.lint.rules import capacity, consistency, hosts, schema, telemetry, transport
from qosforge.lint.rules.base import CATEGORY_TITLES, Category, Rule

#: Raised exceptions inside a rule become a finding of this rule instead of a crash: lint never
#: shows a traceback (issue 7, "Robustness"); the tests assert it never fires.
INTERNAL_ERROR = Rule(
    "internal-error", Severity.ERROR, "encoding", "a rule failed (qosforge bug)",
    "A rule raised an unexpected exception on this file. The other rules still ran; the finding names "
    "the rule and the exception so it can be reported. Lint never shows a traceback (issue 7, "
    "'Robustness'); the property tests assert this rule never fires.",
    "report it with the file (or a minimal part of it) at the qosforge issue tracker")


def _registry() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for rule in (*schema.RULES, *consistency.RULES, *capacity.RULES, *transport.RULES, *hosts.RULES, INTERNAL_ERROR, *telemetry.RULES):
        if rule.id in rules:
            raise RuntimeError(f"rule id {rule.id} registered twice")
        rules[rule.id] = rule
    return rules


REGISTRY: dict[str, Rule] = _registry()
RULE_INFO: dict[str, RuleInfo] = {rule.id: RuleInfo(rule.severity, rule.fix) for rule in REGISTRY.values()}


def rules_needing(needs: str) -> tuple[str, ...]:
    return tuple(rule.id for rule in REGISTRY.values() if rule.needs == needs)


def _internal(ctx: LintContext, rule_id: str, error: Exception) -> Finding:
    frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame is not None else ""
    return ctx.report("internal-error", "", "", None,
                      clip(f"rule {rule_id} raised {type(error).__name__}: {error}{where}"))


def vendor_skips(ctx: LintContext) -> list[Skipped]:
    """Vendor-specific rules that did not run on this file because its vendor is unknown."""
    if ctx.vendor.vendor is not None:
        return []
    rules = tuple(rule.id for rule in REGISTRY.values() if rule.vendor is not None)
    return [Skipped(rules, f"vendor-specific and the ASIC vendor is unknown ({ctx.vendor.source})")] if rules else []


def run_rules(ctx: LintContext, disabled: frozenset[str] = frozenset()) -> list[Finding]:
    """Every finding for one file from the rules whose inputs (--profile, --intent, the vendor)
    are present and that are not ``disabled``."""
    findings: list[Finding] = []
    try:
        findings.extend(schema.sonic_findings(ctx))
    except Exception as error:  # see INTERNAL_ERROR
        findings.append(_internal(ctx, "backends/sonic/checks.py", error))
    for rule in REGISTRY.values():
        if rule.check is None or not ctx.has(rule.needs) or rule.id in disabled:
            continue
        if rule.vendor is not None and ctx.vendor.vendor != rule.vendor:
            continue
        try:
            findings.extend(rule.check(ctx))
        except Exception as error:  # see INTERNAL_ERROR
            findings.append(_internal(ctx, rule.id, error))
    return findings


__all__ = ["CATEGORY_TITLES", "INTERNAL_ERROR", "REGISTRY", "RULE_INFO", "Category", "Rule", "rules_needing",
           "run_rules", "vendor_skips"]
