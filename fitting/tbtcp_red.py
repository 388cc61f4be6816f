"""TBTCP's switch profile: fit the chip's RED steps to p(Q)/r and say what the hosts must use
(TBTCP §4.1, §6.2, §8; docs/architecture.md §4).

Switch side: t_min = l (§6.2 "for simplicity, we set l = t_min"), t_max given or chosen within
the port's buffer, P_max from the closed-form least-squares fit, or every step's probability
where the chip allows it (§8, then r = 1). Host side: QCD cuts the window by r per mark,
CWND ← max(CWND − r, CWND/2) (§6.2), and RAI adds beta MSS per RTT (§4.3).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from qosforge.errors import ModelInputError
from qosforge.fitting.least_squares import RedFit, fit_red_batch
from qosforge.fitting.red_model import RedStepModel
from qosforge.fitting.t_max_search import choose_t_max, error_to_limit_kilobytes
from qosforge.fitting.targets import tbtcp_target
from qosforge.models._checks import as_float_array, require_positive
from qosforge.models.tbtcp import SOURCE_LSO, SOURCE_QCD, SOURCE_RAI
from qosforge.provenance import Derivation, Provenance, input_value, quantity

#: TBTCP §5.1: "In the following simulations, we set beta to 0.1".
DEFAULT_BETA = 0.1
#: TBTCP §5.3 (Fig. 10): "when beta is equal to or greater than 0.5, TBTCP loses its micro
#: adjustment efficacy", so beta must stay below it.
BETA_LIMIT = 0.5

SOURCE_T_MIN = "TBTCP §6.2 ('For simplicity, we set l = t_min')"
SOURCE_T_MAX_SEARCH = (
    "qosforge extension: t_max minimising the error over [t_min, port buffer] "
    "(fitting/t_max_search.py)"
)


@dataclass(frozen=True, kw_only=True)
class TbtcpRedFit:
    """Switch RED profile and host parameters for TBTCP, per parameter set."""

    bdp_bytes: Any = quantity("B", "bandwidth-delay product")
    t_min_bytes: Any = quantity("B", "programmed t_min = l, where marking starts")
    t_max_bytes: Any = quantity("B", "programmed t_max, above which every packet is marked")
    p_max: Any = quantity("1", "programmed P_max (top step value in per-step mode)")
    p_max_unquantized: Any = quantity(
        "1", "least-squares P_max before rounding to the probability grid"
    )
    step_probabilities: Any = quantity("1", "programmed marking probability of each step")
    error_kilobytes: Any = quantity(
        "kB", "∫_{t_min}^{t_max} (p/r − f)² dQ of the programmed profile, Q in kB"
    )
    error_unquantized_kilobytes: Any = quantity("kB", "the same error at the unrounded optimum")
    error_to_limit_kilobytes: Any = quantity(
        "kB", "error over [t_min, port buffer], marking all above t_max (NaN without a port buffer)"
    )
    window_reduction_r: Any = quantity(
        "MSS", "QCD window cut per mark r: CWND <- max(CWND − r, CWND/2)"
    )
    beta: Any = quantity("MSS/RTT", "RAI window increase per RTT")
    rtts_per_mss_increase: Any = quantity("RTT", "RTTs for RAI to add one MSS, 1/beta")
    steps: int
    step_offset: float
    per_step: bool
    red: RedFit
    provenance: Provenance


def _check(
    bdp: Any,
    t_min: Any,
    r: Any,
    beta: Any,
    lso_burst: Any,
    port_buffer: Any,
    t_max: Any,
    per_step: bool,
    model: RedStepModel,
) -> None:
    require_positive("bdp_bytes", bdp, hint="BDP = link rate × RTT / 8, e.g. 10G × 150us = 187.5kB")
    if not np.all((np.asarray(beta) > 0) & (np.asarray(beta) < BETA_LIMIT)):
        raise ModelInputError(
            "must be between 0 and 0.5",
            place="beta",
            hint="RAI's beta: 0.1 in TBTCP §5.1; at 0.5 or more TBTCP loses its fine "
            "adjustment (§5.3)",
        )
    if lso_burst is not None and not np.all(np.asarray(t_min) >= np.asarray(lso_burst)):
        raise ModelInputError(
            "is below the NIC's LSO burst",
            place="t_min_bytes",
            hint="l = t_min must be at least the LSO burst so bursts do not trigger QCD, "
            "e.g. 138kB for a 128 KB segment (TBTCP §6.2)",
        )
    if port_buffer is not None:
        if not np.all(np.asarray(t_min) < np.asarray(port_buffer)):
            raise ModelInputError(
                "is beyond the buffer the port can use",
                place="t_min_bytes",
                hint="lower t_min (l) below the port's buffer limit, or raise --port-buffer",
            )
        if t_max is not None and not np.all(np.asarray(t_max) <= np.asarray(port_buffer)):
            raise ModelInputError(
                "is beyond the buffer the port can use",
                place="t_max_bytes",
                hint="lower t_max to at most the port buffer, or use --optimize-t-max",
            )
    if per_step:
        if not model.per_step_programmable:
            raise ModelInputError(
                f"{model.name} cannot program each RED step's probability",
                place="per_step",
                hint="fit a single P_max with a scaling r instead (TBTCP §6.2)",
            )
        if not np.all(np.asarray(r) == 1):
            raise ModelInputError(
                "must be 1 when every step is programmable",
                place="window_reduction_r",
                hint="per-step fitting keeps QCD's cut of one MSS per mark (TBTCP §8); drop r",
            )


def fit_tbtcp_red(
    bdp_bytes: Any,
    t_min_bytes: Any,
    t_max_bytes: Any = None,
    window_reduction_r: Any = 1.0,
    beta: Any = DEFAULT_BETA,
    model: RedStepModel | None = None,
    *,
    per_step: bool = False,
    lso_burst_bytes: Any = None,
    port_buffer_bytes: Any = None,
) -> TbtcpRedFit:
    """Fit TBTCP's RED profile (vectorised: every argument may be an array; a batch is one call).

    With ``t_max_bytes=None`` t_max is chosen to minimise the error over [t_min, port buffer]
    (needs a scalar ``port_buffer_bytes``; one parameter set).
    """
    model = model if model is not None else RedStepModel()
    bdp = as_float_array(bdp_bytes)
    t_min = as_float_array(t_min_bytes)
    r = as_float_array(window_reduction_r)
    beta = as_float_array(beta)
    _check(bdp, t_min, r, beta, lso_burst_bytes, port_buffer_bytes, t_max_bytes, per_step, model)
    target = tbtcp_target(bdp, t_min)
    if t_max_bytes is None:
        if port_buffer_bytes is None or any(isinstance(v, np.ndarray) for v in (bdp, t_min, r)):
            raise ModelInputError(
                "choosing t_max needs one parameter set and the port's buffer limit",
                place="t_max_bytes",
                hint="give t_max, or give the port buffer (e.g. 1MB) to optimise t_max within it",
            )
        choice = choose_t_max(
            target, float(t_min), float(port_buffer_bytes), float(r), model, per_step=per_step
        )
        to_limit: Any
        red, to_limit = choice.fit, choice.error_to_limit_kilobytes
        t_max_source = SOURCE_T_MAX_SEARCH
    else:
        red = fit_red_batch(target, t_min, as_float_array(t_max_bytes), r, model, per_step=per_step)
        if port_buffer_bytes is not None:
            errors = error_to_limit_kilobytes(target, red, float(port_buffer_bytes))
            to_limit = (
                float(errors[0])
                if np.ndim(red.t_max_bytes) == 0
                else errors.reshape(np.shape(red.t_max_bytes))
            )
        else:
            to_limit = (
                float("nan")
                if np.ndim(red.t_max_bytes) == 0
                else np.full(np.shape(red.t_max_bytes), np.nan)
            )
        t_max_source = "given"
    shape = np.shape(red.p_max)
    return TbtcpRedFit(
        bdp_bytes=bdp if not shape else np.broadcast_to(bdp, shape),
        t_min_bytes=red.t_min_bytes,
        t_max_bytes=red.t_max_bytes,
        p_max=red.p_max,
        p_max_unquantized=red.p_max_unquantized,
        step_probabilities=red.step_probabilities,
        error_kilobytes=red.error_kilobytes,
        error_unquantized_kilobytes=red.error_unquantized_kilobytes,
        error_to_limit_kilobytes=to_limit,
        window_reduction_r=red.window_reduction_r,
        beta=beta if not shape else np.broadcast_to(beta, shape),
        rtts_per_mss_increase=1.0 / beta if not shape else np.broadcast_to(1.0 / beta, shape),
        steps=red.steps,
        step_offset=red.step_offset,
        per_step=per_step,
        red=red,
        provenance=_provenance(
            red, bdp, t_min, t_max_bytes, r, beta, lso_burst_bytes, port_buffer_bytes, t_max_source
        ),
    )


def _provenance(
    red: RedFit,
    bdp: Any,
    t_min: Any,
    t_max: Any,
    r: Any,
    beta: Any,
    lso_burst: Any,
    port_buffer: Any,
    t_max_source: str,
) -> Provenance:
    inputs = [
        input_value("bdp_bytes", bdp, "B"),
        input_value("t_min_bytes", t_min, "B"),
        input_value("t_max_bytes", "optimised" if t_max is None else t_max, "B"),
        input_value("window_reduction_r", r, "MSS"),
        input_value("beta", beta, "MSS/RTT"),
    ]
    if lso_burst is not None:
        inputs.append(input_value("lso_burst_bytes", lso_burst, "B"))
    if port_buffer is not None:
        inputs.append(input_value("port_buffer_bytes", port_buffer, "B"))
    fit_derivations = {d.quantity: d for d in red.provenance.derivations}
    return Provenance(
        model="fit_tbtcp_red",
        inputs=(*red.provenance.inputs[3:], *inputs),
        derivations=(
            replace(
                fit_derivations["t_min_bytes"],
                formula="l rounded up to a cell",
                source=f"{SOURCE_T_MIN}; {SOURCE_LSO}",
            ),
            replace(
                fit_derivations["t_max_bytes"],
                source=f"{t_max_source}; {fit_derivations['t_max_bytes'].source}",
            ),
            fit_derivations["p_max_optimal"],
            fit_derivations["p_max_unquantized"],
            fit_derivations["p_max"],
            fit_derivations["step_probabilities"],
            fit_derivations["error_kilobytes"],
            fit_derivations["error_unquantized_kilobytes"],
            Derivation(
                "error_to_limit_kilobytes",
                "error_kilobytes + ∫_{t_max}^{port buffer} (p/r − 1)² dQ / 1000",
                SOURCE_T_MAX_SEARCH,
            ),
            fit_derivations["target"],
            Derivation(
                "window_reduction_r", "CWND <- max(CWND − r, CWND/2) per ECN mark", SOURCE_QCD
            ),
            Derivation("beta", "cwnd += beta MSS per RTT", SOURCE_RAI),
            Derivation("rtts_per_mss_increase", "1/beta", SOURCE_RAI),
        ),
    )


__all__ = ["BETA_LIMIT", "DEFAULT_BETA", "TbtcpRedFit", "fit_tbtcp_red"]
