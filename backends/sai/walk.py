"""The state of a walk through a SAI program (backends/sai/validate.py): each object's type and
attributes as the operations so far leave them, and the violations found. The generic checks
(validate.py) and the QoS semantics (semantics.py) both read and flag through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qosforge.backends.sai.metadata import SaiMetadata
from qosforge.backends.sai.program import PortContext, SaiOperation, SaiValue


@dataclass(frozen=True)
class SaiViolation:
    rule: str
    operation_index: int
    operation: SaiOperation
    attribute: str | None
    message: str
    hint: str

    @property
    def where(self) -> str:
        return f"operation {self.operation_index} ({self.operation.describe()})"

    def describe(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class SaiObject:
    """One object's type and attribute values as the program leaves it."""

    object_type: str
    attributes: dict[str, SaiValue] = field(default_factory=dict)
    discovered: bool = False


@dataclass
class Walk:
    metadata: SaiMetadata
    objects: dict[str, SaiObject]
    found: list[SaiViolation]
    ports: dict[str, PortContext] = field(default_factory=dict)
    index: int = 0
    operation: SaiOperation | None = None

    def flag(self, rule: str, attribute: str | None, message: str, hint: str) -> None:
        assert self.operation is not None
        self.found.append(SaiViolation(rule, self.index, self.operation, attribute, message, hint))


__all__ = ["SaiObject", "SaiViolation", "Walk"]
