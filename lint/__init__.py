"""``qosforge lint``: CI lint of SONiC config_db files (docs/architecture.md §1, §7).

config_db -> typed values close to the IR (:mod:`qosforge.backends.sonic.parse`) -> rules
(:mod:`qosforge.lint.rules`): encoding and schema (backends/sonic/checks.py), consistency,
capacity and headroom against the vendor profile, and ECN/TLT thresholds against the transport
models for an intent. :class:`~qosforge.lint.engine.Linter` is the library entry point.
"""

from __future__ import annotations

from qosforge.lint.engine import FileReport, Linter
from qosforge.lint.findings import Finding, Severity

__all__ = ["FileReport", "Finding", "Linter", "Severity"]
