"""The rule type and its registry: a rule is declared with its check function.

A rule is one decorated function::

    @rule("dctcp-k", Severity.WARNING, "transport", "DCTCP's K is large enough, and a step",
          rationale="... (DCTCP §3.4) ...", fix="...", needs="intent")
    def dctcp_k(ctx: LintContext) -> Iterator[Finding]:
        ...
        yield dctcp_k.report(ctx, "WRED_PROFILE", name, "green_min_threshold", message)

The decorator registers the rule (id, severity, category, what it needs, documentation) and
returns the :class:`Rule`, so the check reports through its own name: the id is written once.
A rule that a sibling check emits (``tlt-flows`` by the TLT check) is declared with
:func:`declare`. Registration order is output order (docs/rules.md, SARIF's rule list,
``--list-rules``); docs/rules.md is generated from these fields (``python -m qosforge.lint.docs``),
so the rationale of every rule, with its reference section, lives next to the code that enforces it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from qosforge.lint.context import LintContext, Needs, RuleInfo
from qosforge.lint.findings import Finding, Severity

Category = Literal["encoding", "schema", "consistency", "capacity", "transport", "hosts", "telemetry"]
CheckFunction = Callable[[LintContext], Iterable[Finding]]

CATEGORY_TITLES: dict[Category, str] = {
    "encoding": "Encoding: how config_db must be written",
    "schema": "Schema: what SONiC's YANG models and orchagent accept",
    "consistency": "Consistency: tables that must agree with each other",
    "capacity": "Capacity and headroom (needs --profile)",
    "transport": "Transport models (needs --intent)",
    "hosts": "Hosts and switches agree (needs --hosts)",
    "telemetry": "Telemetry: a running switch against the predictions (`qosforge watch`)",
}


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    category: Category
    title: str
    rationale: str
    """Why the rule exists, citing the SONiC sources (sonic-buildimage, sonic-swss) sections or the paper it applies."""
    fix: str
    """How to fix a finding (the default hint of every finding of this rule)."""
    needs: Needs = "config"
    fixable: bool = False
    """``--fix`` repairs (some of) its findings mechanically."""
    check: CheckFunction | None = None
    """None for rules another check emits (the rules of backends/sonic/checks.py, which run
    together in one pass; ``tlt-flows`` by the TLT check; the telemetry rules, run by ``watch``)."""
    origin: str = "qosforge.lint"
    vendor: str | None = None
    """The ASIC vendor the rule is specific to (``mellanox``): it runs only when the file's vendor
    (from --profile, else DEVICE_METADATA platform/hwsku) is that one."""

    def report(
        self,
        ctx: LintContext,
        table: str,
        key: str,
        field_name: str | None,
        message: str,
        *,
        hint: str | None = None,
        values: Mapping[str, float | str] | None = None,
        line: tuple[int | None, int | None] | None = None,
    ) -> Finding:
        """A finding of this rule at ``table|key.field`` (located in the file, with the rule's
        severity and fix hint)."""
        return ctx.report(self.id, table, key, field_name, message, hint=hint, values=values, line=line)


#: Every registered rule by id, in registration order (the order of docs/rules.md and SARIF).
REGISTRY: dict[str, Rule] = {}


def register(new: Rule) -> Rule:
    """Add ``new`` to :data:`REGISTRY` (ids are unique: a second registration is a bug)."""
    if new.id in REGISTRY:
        raise RuntimeError(f"rule id {new.id} registered twice")
    REGISTRY[new.id] = new
    return new


def unregister(rule_id: str) -> None:
    """Remove a rule (for tests that register a rule of their own)."""
    REGISTRY.pop(rule_id, None)


def rule(
    id: str,
    severity: Severity,
    category: Category,
    title: str,
    *,
    rationale: str,
    fix: str,
    needs: Needs = "config",
    fixable: bool = False,
    vendor: str | None = None,
) -> Callable[[CheckFunction], Rule]:
    """Declare a rule with its check: registers it and returns the :class:`Rule` (whose
    :meth:`Rule.report` the check calls)."""

    def decorate(check: CheckFunction) -> Rule:
        return register(Rule(id, severity, category, title, rationale, fix, needs, fixable, check, vendor=vendor))

    return decorate


def declare(
    id: str,
    severity: Severity,
    category: Category,
    title: str,
    *,
    rationale: str,
    fix: str,
    needs: Needs = "config",
    fixable: bool = False,
    origin: str = "qosforge.lint",
) -> Rule:
    """Register a rule without a check of its own: another check emits its findings (declare it
    beside that check)."""
    return register(Rule(id, severity, category, title, rationale, fix, needs, fixable, None, origin))


class _RuleInfoView(Mapping[str, RuleInfo]):
    """What each finding inherits from its rule, read live from :data:`REGISTRY`."""

    def __getitem__(self, rule_id: str) -> RuleInfo:
        found = REGISTRY[rule_id]
        return RuleInfo(found.severity, found.fix)

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


RULE_INFO: Mapping[str, RuleInfo] = _RuleInfoView()


__all__ = ["CATEGORY_TITLES", "REGISTRY", "RULE_INFO", "Category", "CheckFunction", "Rule", "declare", "register", "rule",
           "unregister"]
