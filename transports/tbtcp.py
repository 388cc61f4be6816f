"""TBTCP (Xiong et al.): the least-squares fitted step RED (TBTCP §6.2) with t_min = l (the LSO
burst) and t_max chosen within the port's buffer share unless given; QCD's window reduction r
and RAI's beta on the hosts (TBTCP §4.1, §3.2). No mainline Linux module: listed for manual
installation."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from qosforge.defaults import DEFAULT_TBTCP_BETA, DEFAULT_TBTCP_R
from qosforge.errors import ModelInputError
from qosforge.fields import SizeBytes
from qosforge.ir import Derived, derived_from
from qosforge.models.tbtcp import BETA_MAX as TBTCP_BETA_MAX
from qosforge.models.tbtcp import tbtcp_steady_state
from qosforge.models.tlt import tlt_steady_queue
from qosforge.provenance import Derivation
from qosforge.transports.spec import (
    HostSettings,
    Marking,
    MarkingInputs,
    MarkingModel,
    TransportSpec,
)
from qosforge.units import format_bytes, format_rate, format_time

if TYPE_CHECKING:  # the fitter (SciPy) loads when a TBTCP class is compiled, not with the intent schema
    from qosforge.fitting.red_model import RedStepModel
    from qosforge.fitting.tbtcp_red import TbtcpRedFit

TBTCP_RED_FIT = MarkingModel("tbtcp-red-fit", "TBTCP §6.2 (least-squares fit of the step RED to p(Q)/r)")


#: The intent's ``tbtcp:`` block. (A comment, not a docstring: the intent's JSON Schema would show it.)
class TbtcpSpec(BaseModel):
    # strict: as the intent's models (compiler/intent.py _Strict), no YAML true for a number.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)
    beta: float = Field(
        default=DEFAULT_TBTCP_BETA,
        gt=0,
        lt=TBTCP_BETA_MAX,
        description="RAI window increase per RTT in MSS, beta = 1/m < 1 (TBTCP §3.2); 0.1 in the paper's runs (§5.1), useless at 0.5 or more (§5.3).",
    )
    r: int = Field(default=DEFAULT_TBTCP_R, ge=1, le=64, description="QCD window reduction per mark, packets (TBTCP §4.1).")
    lso_burst: SizeBytes | None = Field(default=None, description="NIC LSO burst; sets l (default: design.lso_burst).")
    t_max: SizeBytes | None = Field(default=None, description="RED t_max (default: optimised within the port's buffer).")
    flows: int | None = Field(default=None, ge=1, description="Long-lived flows n per bottleneck for the steady-state queue beta*n (TBTCP §4.4); default: design.concurrent_flows.")


def _percent(fraction: Derived) -> Derived:
    """A fitted probability in percent, named with its unit (``pmax_percent``) as every output
    shows P_max; its derivation is the fraction's, times 100."""
    name = "pmax_percent"
    origin = fraction.provenance.derivation_of(fraction.quantity)
    derivation = Derivation(name, f"100 * {fraction.quantity}" + (f"; {fraction.quantity} = {origin.formula}" if origin else ""),
                            origin.source if origin else "percent of the fitted probability")
    provenance = replace(fraction.provenance, derivations=(*fraction.provenance.derivations, derivation))
    return Derived(value=round(fraction.value * 100.0, 6), unit="%", provenance=provenance, quantity=name)


def _require_marking(fit: TbtcpRedFit, model: RedStepModel, *, rate_bps: float, rtt_s: float) -> None:
    """A fitted profile whose every step rounds to 0 % marks nothing between t_min and t_max and
    every packet above t_max (the step RED of fitting/red_model.py): a DCTCP-like step at t_max,
    not TBTCP's probabilistic marking, so QCD (TBTCP §4.1) gets no gradual signal and the queue
    sits at t_max instead of near l. It happens when BDP = rate·RTT/8 dwarfs [l, t_max]: the ideal
    p(Q) = (Q − l)/(BDP − l + Q) (TBTCP §4.1) stays below half the chip's probability step there
    (place ``rtt``: the RTT, with the rate, is what drives it)."""
    if float(np.max(fit.step_probabilities)) > 0:
        return
    grid = f"{model.probability_granularity * 100:g} % grid" if model.probability_granularity else "probability grid"
    bdp = rate_bps * rtt_s / 8.0
    raise ModelInputError(
        f"the fitted TBTCP RED profile marks nothing between t_min and t_max (only every packet above t_max): P_max {float(fit.p_max_unquantized) * 100:.3g} % rounds to 0 on "
        f"{model.name}'s {grid}, because BDP = {format_bytes(bdp)} ({format_rate(rate_bps)} × RTT {format_time(rtt_s)}) is "
        f"{bdp / float(fit.t_max_bytes):,.0f}× t_max = {format_bytes(float(fit.t_max_bytes))}, so the ideal marking "
        "(Q − l)/(BDP − l + Q) (TBTCP §4.1) stays near 0 up to t_max; that is a step at t_max, not TBTCP's marking curve",
        place="rtt",
        hint="give the fabric's real round-trip time (datacenter RTTs are tens to hundreds of us; TBTCP §7 measured "
             "150 us at 10G), or raise tbtcp.t_max so marking reaches a programmable probability",
    )


def _marking(inputs: MarkingInputs) -> Marking:
    from qosforge.fitting.red_model import red_model_from_profile
    from qosforge.fitting.tbtcp_red import fit_tbtcp_red

    tbtcp = inputs.parameters if isinstance(inputs.parameters, TbtcpSpec) else None
    lso = tbtcp.lso_burst if tbtcp and tbtcp.lso_burst is not None else inputs.lso_burst_bytes
    beta = tbtcp.beta if tbtcp else DEFAULT_TBTCP_BETA
    window_reduction = tbtcp.r if tbtcp else DEFAULT_TBTCP_R
    red_model = red_model_from_profile(inputs.profile)
    fit = fit_tbtcp_red(
        inputs.rate_bps * inputs.rtt_s / 8.0,
        lso,
        tbtcp.t_max if tbtcp else None,
        window_reduction,
        beta,
        model=red_model,
        lso_burst_bytes=lso,
        port_buffer_bytes=inputs.per_port_share_bytes,
    )
    _require_marking(fit, red_model, rate_bps=inputs.rate_bps, rtt_s=inputs.rtt_s)
    low, high = derived_from(fit, "t_min_bytes"), derived_from(fit, "t_max_bytes")
    probability = _percent(derived_from(fit, "p_max"))
    values = [low, high, probability, derived_from(fit, "error_kilobytes")]
    flows = tbtcp.flows if tbtcp and tbtcp.flows is not None else inputs.concurrent_flows
    if flows is not None:
        # TBTCP §4.4: with n long-lived flows the queue settles where RAI's beta per RTT
        # equals QCD's expected cut, Q = beta*n MSS on the ideal curve (Eq. 8).
        steady = tbtcp_steady_state(inputs.rate_bps, inputs.rtt_s, flows, beta, inputs.mtu_bytes, lso, window_reduction)
        values += [derived_from(steady, "queue_eq8_bytes"), derived_from(steady, "queue_bytes")]
    return Marking(values=tuple(values), min_bytes=low, max_bytes=high, probability_percent=probability,
                   host=(derived_from(fit, "window_reduction_r"), derived_from(fit, "beta")))


TBTCP = TransportSpec(
    name="tbtcp",
    paper="TBTCP (Xiong et al.)",
    host=HostSettings(congestion_control="tbtcp", ecn=True),
    marking=_marking,
    marking_model=TBTCP_RED_FIT,
    block="tbtcp",
    parameters=TbtcpSpec,
    tlt=tlt_steady_queue("tbtcp"),
    flow_kind="tbtcp",
)
