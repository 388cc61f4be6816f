"""RED/WRED step-curve least-squares fitting (docs/architecture.md §4).

* :mod:`~qosforge.fitting.red_model`: what a chip can program (steps, offset, granularities).
* :mod:`~qosforge.fitting.targets`: curves to fit (TBTCP's ideal curve, linear RED, any function).
* :mod:`~qosforge.fitting.least_squares`: the closed-form batch fit, :func:`fit_red_batch`.
* :mod:`~qosforge.fitting.t_max_search`: choosing t_max within the port's buffer.
* :mod:`~qosforge.fitting.tbtcp_red`: TBTCP's switch profile plus host QCD/RAI parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qosforge.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from qosforge.fitting.least_squares import RedFit, fit_red_batch
    from qosforge.fitting.red_model import RedStepModel, red_model_from_profile
    from qosforge.fitting.targets import (
        TargetCurve,
        function_target,
        linear_red_target,
        tbtcp_target,
    )
    from qosforge.fitting.tbtcp_red import TbtcpRedFit, fit_tbtcp_red

# Loaded on first use: the software switch needs only red_model, not the fitting machinery
# (`qosforge simulate` starts faster without it: bench/bench_startup.py).
__getattr__ = lazy_exports(__name__, {
    "RedFit": "least_squares", "fit_red_batch": "least_squares", "RedStepModel": "red_model",
    "red_model_from_profile": "red_model", "TargetCurve": "targets", "function_target": "targets",
    "linear_red_target": "targets", "tbtcp_target": "targets", "TbtcpRedFit": "tbtcp_red", "fit_tbtcp_red": "tbtcp_red",
})

__all__ = [
    "RedFit",
    "RedStepModel",
    "TargetCurve",
    "TbtcpRedFit",
    "fit_red_batch",
    "fit_tbtcp_red",
    "function_target",
    "linear_red_target",
    "red_model_from_profile",
    "tbtcp_target",
]
