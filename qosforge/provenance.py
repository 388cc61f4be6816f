"""Provenance: every number qosforge emits says which model, formula, inputs and paper section
produced it (docs/architecture.md §3, §5), so ``explain`` can show it and reviewers can check it.

Model results are frozen dataclasses. Each numeric field declares its unit and meaning through
:func:`quantity`; the result carries a :class:`Provenance` listing the inputs and, per output,
the formula and source. Results may hold scalars or NumPy arrays of one common shape (sweeps).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray: TypeAlias = npt.NDArray[np.float64]
Scalar: TypeAlias = float
ArrayLike: TypeAlias = "float | FloatArray"


def __getattr__(name: str) -> Any:
    # FloatArray loads NumPy on first use: the IR (and so ``qosforge lint``) imports this module,
    # and a config-only lint needs no NumPy.
    if name == "FloatArray":
        import numpy as np
        import numpy.typing as npt

        return npt.NDArray[np.float64]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _numpy() -> Any:
    """NumPy if some caller already imported it (only then can a value be a NumPy array)."""
    return sys.modules.get("numpy")


@dataclass(frozen=True)
class InputValue:
    """One model input as it was used: name, value (scalar summary for arrays), unit."""

    name: str
    value: float | str
    unit: str


@dataclass(frozen=True)
class Derivation:
    """How one output was computed: the formula (in the output's field names) and its source."""

    quantity: str
    formula: str
    source: str


@dataclass(frozen=True)
class Provenance:
    model: str
    inputs: tuple[InputValue, ...]
    derivations: tuple[Derivation, ...]

    def derivation_of(self, quantity_name: str) -> Derivation | None:
        for derivation in self.derivations:
            if derivation.quantity == quantity_name:
                return derivation
        return None


def quantity(unit: str, description: str) -> Any:
    """Declare a result field with its unit ("B", "bps", "s", "m", "flows", "1", ...).

    Declare result classes ``@dataclass(frozen=True, kw_only=True)``: type checkers cannot see that
    these fields have no default, and keyword-only construction makes field order irrelevant.
    """
    return field(metadata={"unit": unit, "description": description})


@dataclass(frozen=True)
class QuantityView:
    name: str
    value: Any
    unit: str
    description: str


def quantities(result: Any) -> Iterator[QuantityView]:
    """The unit-annotated fields of a model result, in declaration order."""
    for result_field in dataclasses.fields(result):
        if "unit" in result_field.metadata:
            yield QuantityView(
                name=result_field.name,
                value=getattr(result, result_field.name),
                unit=result_field.metadata["unit"],
                description=result_field.metadata["description"],
            )


def input_value(name: str, value: Any, unit: str) -> InputValue:
    """Record an input; arrays (sweeps) are summarised as 'min..max (n points)'."""
    np = _numpy()
    if np is not None and isinstance(value, np.ndarray) and value.size != 1:
        flat = value.ravel()
        return InputValue(name, f"{flat.min():g}..{flat.max():g} ({flat.size} points)", unit)
    if isinstance(value, (bool, str)):
        return InputValue(name, value if isinstance(value, str) else str(value), unit)
    if np is None:
        return InputValue(name, float(value), unit)
    return InputValue(name, float(np.asarray(value).reshape(())), unit)


def to_jsonable(value: Any) -> Any:
    """Scalars become Python numbers; arrays become lists; integral floats stay floats."""
    np = _numpy()
    if np is not None and isinstance(value, np.ndarray):
        # tolist() already yields Python scalars; no per-element recursion (10^6-point sweeps).
        return value.tolist()
    if np is not None and isinstance(value, np.generic):
        return value.item()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    return value


def result_to_json(result: Any) -> dict[str, Any]:
    """A model result as one flat JSON object: every quantity by name, plus its provenance."""
    payload: dict[str, Any] = {view.name: to_jsonable(view.value) for view in quantities(result)}
    payload["units"] = {view.name: view.unit for view in quantities(result)}
    provenance = getattr(result, "provenance", None)
    if provenance is not None:
        payload["provenance"] = to_jsonable(provenance)
    return payload
