"""One broken rule, as the validator reports it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    """``rule`` is a rule id of :data:`~qosforge.backends.sonic.checks.specs.RULE_SPECS`;
    ``field`` is None for key/entry rules."""

    rule: str
    table: str
    key: str
    field: str | None
    message: str

    def one_line(self) -> str:
        where = f"{self.table}|{self.key}" if self.key else self.table
        if self.field is not None:
            where += f".{self.field}"
        return f"[{self.rule}] {where}: {self.message}"


__all__ = ["Violation"]
