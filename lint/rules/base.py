"""The rule type: a stable id, a severity, documentation, and a check function.

docs/rules.md is generated from these fields (``python -m qosforge.lint.docs``), so the
rationale of every rule, with its reference section, lives next to the code that enforces it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from qosforge.lint.context import LintContext, Needs
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
    """None for the rules of backends/sonic/checks.py, which run together in one pass."""
    origin: str = "qosforge.lint"
    vendor: str | None = None
    """The ASIC vendor the rule is specific to (``mellanox``): it runs only when the file's vendor
    (from --profile, else DEVICE_METADATA platform/hwsku) is that one."""


__all__ = ["CATEGORY_TITLES", "Category", "CheckFunction", "Rule"]
