"""Target marking curves the RED fit approximates: TBTCP's ideal curve, a linear RED ramp
(DCQCN-style K_min/K_max/P_max), or any user function of the queue depth.

A target is evaluated for a *batch* of parameter sets at once: ``parameters`` holds one flat
array per curve parameter (one entry per set) and ``function(queue_bytes, **parameters)`` gets
queue depths of shape (sets, points) with each parameter shaped (sets, 1). ``breakpoints_bytes``
lists the depths where the curve has a kink or jump; the quadrature splits there so Gauss–Legendre
stays exact to rounding on each smooth piece.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from qosforge.models._checks import require_in_range, require_non_negative, require_positive
from qosforge.models.tbtcp import SOURCE_CAP, SOURCE_CURVE, tbtcp_ideal_marking_probability
from qosforge.provenance import FloatArray

CurveFunction = Callable[..., Any]


@dataclass(frozen=True)
class TargetCurve:
    """A marking-probability curve f(Q) for ``size`` parameter sets."""

    name: str
    formula: str
    source: str
    function: CurveFunction
    shape: tuple[int, ...] = ()
    parameters: Mapping[str, FloatArray] = field(default_factory=dict)
    breakpoints_bytes: FloatArray = field(default_factory=lambda: np.zeros((1, 0)))

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def broadcast_to(self, shape: tuple[int, ...]) -> TargetCurve:
        """The same curve with its parameter sets broadcast to a batch of ``shape``."""
        if shape == self.shape:
            return self
        size = int(np.prod(shape))

        def spread(values: FloatArray) -> FloatArray:
            return np.broadcast_to(values.reshape(self.shape), shape).reshape(size)

        points = self.breakpoints_bytes
        if points.shape[0] != 1:
            points = np.stack([spread(points[:, j]) for j in range(points.shape[1])], axis=1)
        return replace(
            self,
            shape=shape,
            parameters={name: spread(values) for name, values in self.parameters.items()},
            breakpoints_bytes=points,
        )

    def evaluate(self, queue_bytes: FloatArray, rows: slice) -> FloatArray:
        """f at ``queue_bytes`` (shape (rows, points)) for the parameter sets in ``rows``."""
        chosen = {name: values[rows, None] for name, values in self.parameters.items()}
        return np.broadcast_to(
            np.asarray(self.function(queue_bytes, **chosen), dtype=np.float64), queue_bytes.shape
        )

    def breakpoints(self, rows: slice, count: int) -> FloatArray:
        """Breakpoints of the sets in ``rows`` as a (count, b) array."""
        points = self.breakpoints_bytes
        if points.shape[0] == 1:
            return np.broadcast_to(points, (count, points.shape[1]))
        return points[rows]


def _flat(values: Any, size: int) -> FloatArray:
    return np.broadcast_to(np.asarray(values, dtype=np.float64), (size,)).astype(np.float64)


def tbtcp_target(bdp_bytes: Any, marking_start_bytes: Any) -> TargetCurve:
    """TBTCP's ideal curve p(Q) (§6.2 Eq. 9, capped at 0.5) with l = ``marking_start_bytes``.

    Kinks at l (marking starts) and at BDP + l (the 0.5 cap, §6.2).
    """
    require_positive(
        "bdp_bytes", bdp_bytes, hint="BDP = link rate × RTT / 8, e.g. 10G × 150us = 187.5kB"
    )
    require_non_negative(
        "t_min_bytes", marking_start_bytes, hint="l = t_min is a queue depth, 0 or more bytes"
    )
    shape = np.broadcast_shapes(np.shape(bdp_bytes), np.shape(marking_start_bytes))
    size = int(np.prod(shape))
    bdp = _flat(np.broadcast_to(bdp_bytes, shape).reshape(-1), size)
    start = _flat(np.broadcast_to(marking_start_bytes, shape).reshape(-1), size)
    return TargetCurve(
        name="tbtcp",
        formula="p(Q) = 0 (Q <= l); (Q − l)/(BDP − l + Q) (l < Q <= BDP + l); 0.5 above",
        source=f"{SOURCE_CURVE}; {SOURCE_CAP}",
        function=lambda queue_bytes, bdp_bytes, marking_start_bytes: (
            tbtcp_ideal_marking_probability(queue_bytes, bdp_bytes, marking_start_bytes)
        ),
        shape=shape,
        parameters={"bdp_bytes": bdp, "marking_start_bytes": start},
        breakpoints_bytes=np.stack([start, start + bdp], axis=1),
    )


def linear_red_target(k_min_bytes: Any, k_max_bytes: Any, p_max: Any) -> TargetCurve:
    """Classic linear RED (Floyd & Jacobson; DCQCN's K_min/K_max/P_max): 0 up to K_min, a
    straight line to P_max at K_max, 1 above K_max."""
    require_non_negative("k_min_bytes", k_min_bytes, hint="K_min is a queue depth, 0 or more bytes")
    require_positive(
        "k_max_bytes",
        np.asarray(k_max_bytes) - np.asarray(k_min_bytes),
        hint="K_max must exceed K_min",
    )
    require_in_range("p_max", p_max, 0.0, 1.0, hint="P_max is a probability, e.g. 0.01 for 1%")
    shape = np.broadcast_shapes(np.shape(k_min_bytes), np.shape(k_max_bytes), np.shape(p_max))
    size = int(np.prod(shape))
    k_min = _flat(np.broadcast_to(k_min_bytes, shape).reshape(-1), size)
    k_max = _flat(np.broadcast_to(k_max_bytes, shape).reshape(-1), size)
    top = _flat(np.broadcast_to(p_max, shape).reshape(-1), size)

    def ramp(
        queue_bytes: FloatArray, k_min: FloatArray, k_max: FloatArray, p_max: FloatArray
    ) -> FloatArray:
        rising = p_max * np.clip((queue_bytes - k_min) / (k_max - k_min), 0.0, 1.0)
        return np.where(queue_bytes > k_max, 1.0, rising)

    return TargetCurve(
        name="linear-red",
        formula="p(Q) = 0 (Q <= K_min); P_max·(Q − K_min)/(K_max − K_min) (<= K_max); 1 above",
        source="Floyd & Jacobson, 'Random Early Detection Gateways', IEEE/ACM ToN 1993 "
        "(TBTCP [8]); DCQCN RED",
        function=ramp,
        shape=shape,
        parameters={"k_min": k_min, "k_max": k_max, "p_max": top},
        breakpoints_bytes=np.stack([k_min, k_max], axis=1),
    )


def function_target(
    function: Callable[[FloatArray], Any],
    *,
    breakpoints_bytes: tuple[float, ...] = (),
    name: str = "user curve",
    source: str = "user-supplied target curve",
) -> TargetCurve:
    """Any vectorised f(queue_bytes) -> probability, shared by every parameter set of a batch.

    List the depths where f has kinks or jumps in ``breakpoints_bytes`` for an exact fit.
    """
    return TargetCurve(
        name=name,
        formula="user function f(Q)",
        source=source,
        function=lambda queue_bytes: function(queue_bytes),
        breakpoints_bytes=np.asarray(breakpoints_bytes, dtype=np.float64).reshape(1, -1),
    )


__all__ = ["TargetCurve", "function_target", "linear_red_target", "tbtcp_target"]
