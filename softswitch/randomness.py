"""Whether a run's outcome depends on its random seed.

The engine draws random numbers in two places only: WRED/ECN decisions (engine/mmu.py
``wred_decision``: a packet is marked or dropped when a uniform draw falls below the programmed
step curve) and Poisson sources' gaps (engine/open_loop.py ``open_loop_generate``). A step curve is
0 at or below its minimum and 1 above its maximum, so only a curve with min < max has depths
where the probability lies strictly between 0 and 1 (DCTCP's step K = min = max at 100 % never
does). Without such a curve and without Poisson flows, every seed gives the same run.

A fabric run draws more: each switch's ECMP salt and each flow's hash (engine/build.py
``ecmp_salts``; the flow picks a member of an equal-cost group by them), the members that
flowlet switching and spraying draw and adaptive routing's tie-breaks (engine/kernel.py
``_balanced_member``; all within equal-cost groups of more than one port, like the hash), and
all-to-all's arrival times and sizes (traffic/fabric_workloads.py ``all_to_all_arrivals``).
"""

from __future__ import annotations

from collections.abc import Iterable

from qosforge.softswitch.config import Curve, SwitchConfig, WredConfig
from qosforge.softswitch.engine.build import Topology
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


def fabric_seed_matters(configs: Iterable[SwitchConfig], topology: Topology, flows: Iterable[FlowSpec], *, seeded_workload: bool) -> bool:
    """``seed_matters`` for a fabric: a switch's draws, a seeded workload (``seeded_workload``), or
    an equal-cost group of more than one port towards some flow's destination (conservative: the
    flow may not cross that switch, but in a leaf-spine fabric every uplink group is on the way)."""
    flows = tuple(flows)
    if seeded_workload or any(seed_matters(config, flows) for config in configs):
        return True
    destinations = {flow.dst_port for flow in flows}
    return any(len(table[destination]) > 1 for table in topology.routes for destination in destinations)


__all__ = ["fabric_seed_matters", "seed_matters"]
