"""Domain checks shared by the models: reject inputs outside a model's domain with the
parameter's name, so the CLI can point at the flag and the compiler at the intent field."""

from __future__ import annotations

from typing import Any

import numpy as np

from qosforge.errors import ModelInputError


def as_float_array(value: Any) -> Any:
    """Return ``value`` as float (scalar in, scalar out) or float64 ndarray (array in)."""
    if isinstance(value, np.ndarray):
        return value.astype(np.float64, copy=False)
    return float(value)


def require_positive(name: str, value: Any, *, hint: str) -> None:
    if not np.all(np.asarray(value) > 0):
        raise ModelInputError(f"must be > 0 (got {describe_values(value)})", place=name, hint=hint)


def require_non_negative(name: str, value: Any, *, hint: str) -> None:
    if not np.all(np.asarray(value) >= 0):
        raise ModelInputError(f"must be >= 0 (got {describe_values(value)})", place=name, hint=hint)


def require_at_least(name: str, value: Any, minimum: float, *, hint: str) -> None:
    if not np.all(np.asarray(value) >= minimum):
        raise ModelInputError(
            f"must be >= {minimum:g} (got {describe_values(value)})", place=name, hint=hint
        )


def require_in_range(name: str, value: Any, low: float, high: float, *, hint: str) -> None:
    array = np.asarray(value)
    if not np.all((array >= low) & (array <= high)):
        raise ModelInputError(
            f"must be within {low:g}..{high:g} (got {describe_values(value)})",
            place=name,
            hint=hint,
        )


def describe_values(value: Any) -> str:
    """'5' for a scalar, 'values from 1 to 9' for an array: for error messages."""
    array = np.asarray(value, dtype=np.float64)
    if array.size == 1:
        return f"{float(array.reshape(())):g}"
    return f"values from {float(array.min()):g} to {float(array.max()):g}"


def scalar_or_array(value: Any) -> Any:
    """A 0-d result as a Python float, anything larger as the ndarray (scalar in, scalar out)."""
    array = np.asarray(value)
    return float(array) if array.ndim == 0 else array


def bool_or_array(value: Any) -> Any:
    """A 0-d boolean result as a Python bool, anything larger as the ndarray."""
    array = np.asarray(value)
    return bool(array) if array.ndim == 0 else array
