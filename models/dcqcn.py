"""DCQCN switch side: RED/ECN marking thresholds K_min, K_max and probability P_max for a link.

The congestion point marks like RED on the instantaneous egress queue (Zhu et al., "Congestion
Control for Large-Scale RDMA Deployments", SIGCOMM 2015): no marks up to K_min, probability rising
linearly to P_max at K_max, every packet above K_max. DCQCN runs over RoCEv2, which "relies on
Priority-based Flow Control (PFC) to enable a drop-free network" (same paper, abstract), so the
class must be lossless.

Defaults and their sources (docs/architecture.md §3: "defaults scaled with link speed, overridable"):

* Reference point: K_min = 5 KB, K_max = 200 KB, P_max = 1 % at 40 Gbps, the DCQCN paper's
  default setting, as restated by later work that reuses it ("For DCQCN, we set K_min = 5KB,
  K_max = 200KB, P_max = 1% and g = 1/256 following the default parameter setting in [DCQCN]").
  The paper's testbed links are 40 Gbps. KB is read as 10^3 bytes, as the HPCC simulator
  (alibaba-edu/High-Precision-Congestion-Control, switch-mmu.cc ``ConfigEcn``: ``kmin * 1000``)
  converts these thresholds; the DCQCN authors' own ns-3 code (bobzhuyb/ns3-rdma,
  broadcom-node.cc ``SetMarkingThreshold``) uses ``kmin * 1030``, a 3 % difference.
* Scaling rule: K_min and K_max proportional to the link rate, P_max unchanged. This is what the
  HPCC ns-3 setup does for DCQCN (simulation/run.py: ``kmin_map`` = 100·bw/25 KB, ``kmax_map`` =
  400·bw/25 KB, ``pmax_map`` = 0.2 at every rate, bw in Gbps). Why: a byte threshold K on a link
  of rate C is a queueing delay 8K/C; scaling K with C keeps the marking points at the same
  delays (1 µs and 40 µs for the 40 Gbps reference), so senders see congestion at the same time
  into a burst whatever the speed, while the marking slope per unit of queueing delay is
  unchanged.

SONiC's generic default (``qos_config.j2`` ``WRED_PROFILE|AZURE_LOSSLESS``: min 1 048 576 B, max
2 097 152 B, 5 %; sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang) is not DCQCN-tuned and not speed-dependent; it is
not used here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qosforge.errors import InfeasibleDesignError, ModelInputError
from qosforge.models._checks import (
    as_float_array,
    describe_values,
    require_non_negative,
    require_positive,
)
from qosforge.models.dcqcn_host import DCQCN_REFERENCE_RATE_BPS, SOURCE_DCQCN
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_DEFAULTS = (
    f"{SOURCE_DCQCN} default K_min=5KB, K_max=200KB, P_max=1% at 40 Gbps; "
    "scaled with link rate as in alibaba-edu/High-Precision-Congestion-Control "
    "simulation/run.py (kmin/kmax ∝ bw, pmax constant)"
)
SOURCE_OVERRIDE = "user override"
SOURCE_RED = f"{SOURCE_DCQCN} (RED-style marking at the congestion point)"

#: DCQCN paper default K_min = 5 KB at 40 Gbps (KB = 10^3 B, as HPCC's ns-3 ``ConfigEcn``).
DCQCN_REFERENCE_KMIN_BYTES = 5e3
#: DCQCN paper default K_max = 200 KB at 40 Gbps.
DCQCN_REFERENCE_KMAX_BYTES = 200e3
#: DCQCN paper default P_max = 1 %; not scaled with the link rate (HPCC run.py keeps pmax fixed).
#: In percent, as every qosforge output shows P_max (SONiC's drop_probability, SAI's DROP_PROBABILITY).
DCQCN_REFERENCE_PMAX_PERCENT = 1.0

_HINT_ORDER = "K_min must be below K_max, e.g. 5kB and 200kB at 40G (DCQCN defaults)"


@dataclass(frozen=True, kw_only=True)
class DcqcnMarking:
    rate_bps: Any = quantity("bps", "link rate C")
    kmin_bytes: Any = quantity("B", "K_min: queue where marking starts")
    kmax_bytes: Any = quantity("B", "K_max: queue where marking reaches P_max (all marked above)")
    pmax_percent: Any = quantity("%", "P_max: marking probability at K_max, in percent")
    kmin_delay_s: Any = quantity("s", "K_min as queueing delay 8·K_min/C")
    kmax_delay_s: Any = quantity("s", "K_max as queueing delay 8·K_max/C")
    requires_lossless: bool
    provenance: Provenance


def dcqcn_marking(
    rate_bps: Any,
    kmin_bytes: Any = None,
    kmax_bytes: Any = None,
    pmax_percent: Any = None,
    *,
    lossless: bool = True,
    selective_retransmission: bool = False,
) -> DcqcnMarking:
    """RED marking parameters for DCQCN on a link of ``rate_bps`` (vectorised).

    Each of ``kmin_bytes``, ``kmax_bytes``, ``pmax_percent`` left as ``None`` takes the DCQCN default
    scaled to the link rate; a given value overrides it. ``lossless=False`` is an infeasible
    design: DCQCN/RoCEv2 needs PFC, unless the NIC recovers losses itself:
    ``selective_retransmission=True`` is IRN (Mittal et al., "Revisiting Network Support for
    RDMA", SIGCOMM 2018), which runs DCQCN's congestion control without PFC (§4, §5).
    """
    if not lossless and not selective_retransmission:
        raise InfeasibleDesignError(
            "DCQCN needs a lossless (PFC-enabled) class: "
            "RoCEv2 relies on PFC for a drop-free network",
            place="lossless",
            hint="set lossless: true for this class, "
            "or pick a loss-tolerant transport (dctcp, tbtcp, irn)",
        )
    rate_bps = as_float_array(rate_bps)
    require_positive("rate_bps", rate_bps, hint="the link rate, e.g. 40G or 100G")
    scale = rate_bps / DCQCN_REFERENCE_RATE_BPS
    kmin_given, kmax_given, pmax_given = (
        kmin_bytes is not None,
        kmax_bytes is not None,
        pmax_percent is not None,
    )
    kmin = as_float_array(kmin_bytes) if kmin_given else DCQCN_REFERENCE_KMIN_BYTES * scale
    kmax = as_float_array(kmax_bytes) if kmax_given else DCQCN_REFERENCE_KMAX_BYTES * scale
    probability = as_float_array(pmax_percent) if pmax_given else DCQCN_REFERENCE_PMAX_PERCENT
    if kmin_given:
        require_non_negative("kmin_bytes", kmin, hint=_HINT_ORDER)
    if kmax_given:
        require_positive("kmax_bytes", kmax, hint=_HINT_ORDER)
    if pmax_given and not np.all((np.asarray(probability) > 0) & (np.asarray(probability) <= 100)):
        raise ModelInputError(
            f"must be in (0, 100] % (got {describe_values(probability)} %)",
            place="pmax_percent",
            hint="P_max is a probability, e.g. 1% (DCQCN default) or 20%",
        )
    if not np.all(np.asarray(kmin) < np.asarray(kmax)):
        raise ModelInputError(
            f"K_min ({describe_values(kmin)} B) must be below K_max ({describe_values(kmax)} B)",
            place="kmin_bytes" if kmin_given else "kmax_bytes",
            hint=_HINT_ORDER + "; an unset threshold is the default scaled to the link rate",
        )
    scalar = not any(isinstance(v, np.ndarray) for v in (rate_bps, kmin, kmax, probability))

    def out(value: Any) -> Any:
        broadcast = np.broadcast_arrays(value, rate_bps, kmin, kmax, probability)[0]
        return float(broadcast.reshape(())) if scalar else np.asarray(broadcast, dtype=np.float64)

    def derivation(name: str, given: bool, formula: str) -> Derivation:
        return Derivation(
            name, "input" if given else formula, SOURCE_OVERRIDE if given else SOURCE_DEFAULTS
        )

    return DcqcnMarking(
        rate_bps=out(rate_bps),
        kmin_bytes=out(kmin),
        kmax_bytes=out(kmax),
        pmax_percent=out(probability),
        kmin_delay_s=out(8.0 * kmin / rate_bps),
        kmax_delay_s=out(8.0 * kmax / rate_bps),
        requires_lossless=not selective_retransmission,
        provenance=Provenance(
            model="dcqcn_marking",
            inputs=(
                input_value("rate_bps", rate_bps, "bps"),
                input_value("kmin_bytes", kmin if kmin_given else "default", "B"),
                input_value("kmax_bytes", kmax if kmax_given else "default", "B"),
                input_value("pmax_percent", probability if pmax_given else "default", "%"),
            ),
            derivations=(
                derivation("kmin_bytes", kmin_given, "5kB * rate_bps/40G"),
                derivation("kmax_bytes", kmax_given, "200kB * rate_bps/40G"),
                derivation("pmax_percent", pmax_given, "1 % (not scaled with rate)"),
                Derivation(
                    "kmin_delay_s", "8*kmin_bytes/rate_bps", "queue drains at the link rate"
                ),
                Derivation(
                    "kmax_delay_s", "8*kmax_bytes/rate_bps", "queue drains at the link rate"
                ),
            ),
        ),
    )


def dcqcn_marking_probability(queue_bytes: Any, kmin_bytes: Any, kmax_bytes: Any, pmax: Any) -> Any:
    """RED marking probability at queue depth Q: 0 for Q <= K_min, P_max·(Q − K_min)/(K_max − K_min)
    up to K_max, 1 above K_max (DCQCN congestion point), vectorised."""
    queue_bytes = as_float_array(queue_bytes)
    require_non_negative("queue_bytes", queue_bytes, hint="a queue depth is 0 or more bytes")
    kmin = as_float_array(kmin_bytes)
    kmax = as_float_array(kmax_bytes)
    if not np.all(np.asarray(kmin) < np.asarray(kmax)):
        raise ModelInputError("K_min must be below K_max", place="kmin_bytes", hint=_HINT_ORDER)
    ramp = pmax * (np.asarray(queue_bytes) - kmin) / (kmax - kmin)
    probability = np.where(queue_bytes <= kmin, 0.0, np.where(queue_bytes <= kmax, ramp, 1.0))
    if not any(isinstance(v, np.ndarray) for v in (queue_bytes, kmin, kmax, pmax)):
        return float(probability)
    return np.asarray(probability, dtype=np.float64)




__all__ = [
    "DCQCN_REFERENCE_KMAX_BYTES",
    "DCQCN_REFERENCE_KMIN_BYTES",
    "DCQCN_REFERENCE_PMAX_PERCENT",
    "DCQCN_REFERENCE_RATE_BPS",
    "DcqcnMarking",
    "dcqcn_marking",
    "dcqcn_marking_probability",
]
