"""Whether a run's outcome depends on its random seed.

The engine draws random numbers in two places only: WRED/ECN decisions (engine/mmu.py
``wred_decision``: a packet is marked or dropped when a uniform draw falls below the programmed
step curve) and Poisson sources' gaps (engine/hosts.py ``open_loop_generate``). A step curve is
0 at or below its minimum and 1 above its maximum, so only a curve with min < max has depths
where the probability lies strictly between 0 and 1 (DCTCP's step K = min = max at 100 % never
does). Without such a curve and without Poisson flows, every seed gives the same run.
"""

from __future__ import annotations

from collections.abc import Iterable

from qosforge.softswitch.config import Curve, SwitchConfig, WredConfig
from qosforge.softswitch.traffic.spec import FlowSpec


def _ramps(curve: Curve) -> bool:
    return curve.min_bytes < curve.max_bytes and curve.probability > 0.0


def _draws_matter(wred: WredConfig) -> bool:
    dropped = (curve for curve in wred.drop if curve.enabled)
    marked = (curve for curve, mark in zip(wred.ect_mark, wred.mark, strict=True) if mark)
    return any(_ramps(curve) for curve in (*dropped, *marked))


def seed_matters(config: SwitchConfig, flows: Iterable[FlowSpec]) -> bool:
    """True when some random draw can change what the run does (see the module docstring)."""
    if any(flow.kind == "poisson" for flow in flows):
        return True
    bound = {queue.wred for port in config.ports for queue in port.queues if queue.wred is not None}
    return any(_draws_matter(wred) for wred in config.wreds if wred.object_id in bound)


__all__ = ["seed_matters"]
