"""RED/WRED step-curve least-squares fitting (docs/architecture.md §4).

* :mod:`~qosforge.fitting.red_model`: what a chip can program (steps, offset, granularities).
* :mod:`~qosforge.fitting.targets`: curves to fit (TBTCP's ideal curve, linear RED, any function).
* :mod:`~qosforge.fitting.least_squares`: the closed-form batch fit, :func:`fit_red_batch`.
* :mod:`~qosforge.fitting.t_max_search`: choosing t_max within the port's buffer.
* :mod:`~qosforge.fitting.tbtcp_red`: TBTCP's switch profile plus host QCD/RAI parameters.
"""

from qosforge.fitting.least_squares import RedFit, fit_red_batch
from qosforge.fitting.red_model import RedStepModel, red_model_from_profile
from qosforge.fitting.targets import TargetCurve, function_target, linear_red_target, tbtcp_target
from qosforge.fitting.tbtcp_red import TbtcpRedFit, fit_tbtcp_red

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
