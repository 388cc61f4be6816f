"""The traffic to tune for, built from the counters a running fabric exports (``tune
--from-gnmi``; docs/tune.md "From the running fabric").

Pure functions: observed per-queue rates in, a traffic document and the assumptions it rests on
out. What the counters say and what the model adds:

- **Offered load per class and destination host** (observed): a host-facing port's egress queue
  carries exactly the class's traffic *to* that host, so its payload rate is the queue's
  transmitted bytes less each packet's headers (the class's transport headers, softswitch
  traffic/spec.py HEADER_BYTES), plus what the queue dropped (offered, not delivered), over the
  window the two samples' timestamps span (gNMI specification §2.2.1: the time the target took
  the value).
- **Sources** (a gravity model, as traffic-matrix estimation from link counts starts from:
  Zhang et al., "Fast accurate computation of large-scale IP traffic matrices from link loads",
  SIGMETRICS 2003, §3): the traffic to a host comes from the other host ports in proportion to
  what each sends, read from its ``in-pkts`` (openconfig-interfaces) where the switch publishes
  it, else in equal shares (no counter tells per-class ingress per port).
- **Flow sizes** (the operator's CDF, ``--flow-sizes FILE``, or DCTCP's web-search distribution,
  Alizadeh et al., SIGCOMM 2010 §2.2 Fig. 4: softswitch/traffic/flow_sizes.py WEB_SEARCH).
- **Arrivals**: per class and destination, the flows that carry the observed load over the
  first :data:`ARRIVAL_SHARE` of the simulated window (so the messages can finish inside it;
  :func:`carrying_sizes`), each starting uniformly in it (``stagger: random``, drawn by the
  run's seed): a Poisson process given its count has independent uniform arrival times (Ross,
  Stochastic Processes, 2nd ed., Theorem 2.3.1), so every seed of a tune draws new arrivals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from qosforge.errors import QosforgeError
from qosforge.softswitch.traffic.flow_sizes import FlowSizeDistribution

#: The messages arrive in the first two thirds of the simulated window and have the last third
#: to finish (a message unfinished at the end counts as never finishing in tune's FCT metric).
ARRIVAL_SHARE = 2.0 / 3.0
#: A class's load to a host below this share of the port's line rate is not traffic to model
#: (a handful of packets: probes, stray ARP-sized frames).
MIN_LOAD_SHARE = 1e-3


@dataclass(frozen=True)
class HostPort:
    """A host-facing port of a switch that was read."""

    switch: str
    port: str
    speed_bps: float

    @property
    def name(self) -> str:
        return f"{self.switch}:{self.port}"


@dataclass(frozen=True)
class ClassLoad:
    """One class's observed traffic to one host: what its egress queue carried."""

    destination: HostPort
    class_name: str
    payload_bps: float
    """Payload offered to the host: transmitted less headers, plus dropped."""
    wire_bps: float
    """Bytes the queue transmitted, as counted (headers included)."""
    packets_per_s: float
    dropped_per_s: float


@dataclass(frozen=True)
class BuiltTraffic:
    document: dict[str, object]
    """The traffic file (``apiVersion: qosforge/v1``, ``kind: Traffic``) as plain data."""
    flows: int
    offered_bps: dict[tuple[str, str], float]
    """(destination host, class) -> the payload rate the file's flows offer during the arrival
    window (their sizes summed over it)."""
    assumptions: list[str] = field(default_factory=list)


def source_weights(
    hosts: Sequence[HostPort], in_packets_per_s: Mapping[str, float] | None
) -> tuple[dict[str, float], str]:
    """Each host's share of the traffic it sends (gravity model's source term) and how it was
    chosen: its port's received packets where every host port publishes them, else equal."""
    if in_packets_per_s is not None and all(h.name in in_packets_per_s for h in hosts):
        total = sum(in_packets_per_s[h.name] for h in hosts)
        if total > 0:
            return (
                {h.name: in_packets_per_s[h.name] / total for h in hosts},
                "sources in proportion to each host port's received packets (in-pkts)",
            )
    return (
        {h.name: 1.0 / len(hosts) for h in hosts},
        "sources in equal shares over the host ports read (not every host port published "
        "in-pkts: the software switch does not, and watch reads it from OpenConfig only)",
    )


def build_traffic(
    loads: Sequence[ClassLoad],
    hosts: Sequence[HostPort],
    weights: Mapping[str, float],
    sizes: FlowSizeDistribution,
    duration_s: float,
    seed: int,
    max_flows: int,
) -> BuiltTraffic:
    """Poisson arrivals per (destination, class) carrying the observed load, each flow's source
    drawn by the gravity weights (a host never sends to itself) and its size from ``sizes``."""
    rng = np.random.default_rng(seed)
    arrival_s = duration_s * ARRIVAL_SHARE
    entries: list[dict[str, object]] = []
    offered: dict[tuple[str, str], float] = {}
    for load in sorted(loads, key=lambda item: (item.class_name, item.destination.name)):
        key = (load.destination.name, load.class_name)
        if load.payload_bps < MIN_LOAD_SHARE * load.destination.speed_bps:
            continue
        sources = [h for h in hosts if h.name != load.destination.name]
        shares = np.array([weights.get(h.name, 0.0) for h in sources])
        if not sources or shares.sum() <= 0:
            continue
        flow_sizes = carrying_sizes(sizes, load.payload_bps / 8.0 * arrival_s, rng)
        picks = rng.choice(len(sources), size=len(flow_sizes), p=shares / shares.sum())
        offered[key] = float(sum(flow_sizes)) * 8.0 / arrival_s
        for source, size in zip(picks.tolist(), flow_sizes, strict=True):
            entries.append(
                {
                    "group": f"gnmi-{load.class_name}",
                    "src": sources[source].name,
                    "dst": load.destination.name,
                    "class": load.class_name,
                    "size": f"{size}B",
                    "start_window": f"{arrival_s * 1e6:.6g}us",
                    "stagger": "random",
                }
            )
    if not entries:
        raise QosforgeError(
            "the counters show no traffic to model: no class carried more than "
            f"{MIN_LOAD_SHARE:.1%} of a host port's line rate during the window",
            place="--from-gnmi",
            hint="read switches whose host ports carry traffic, or a longer --gnmi-window",
        )
    if len(entries) > max_flows:
        raise QosforgeError(
            f"the observed load makes {len(entries):,} flows in {duration_s * 1e3:g} ms, more "
            f"than a run carries ({max_flows:,})",
            place="--flow-sizes",
            hint="give larger flows (--flow-sizes) or a shorter --gnmi-duration",
        )
    document: dict[str, object] = {
        "apiVersion": "qosforge/v1",
        "kind": "Traffic",
        "seed": seed,
        "measure": f"0s:{duration_s * 1e6:.6g}us",
        "flows": entries,
    }
    return BuiltTraffic(document, len(entries), offered)


def carrying_sizes(
    sizes: FlowSizeDistribution, total_bytes: float, rng: np.random.Generator
) -> list[int]:
    """Flow sizes drawn from ``sizes`` until they carry ``total_bytes``, the last one cut to
    what is left: a short window holds few flows of a heavy-tailed distribution (web search's
    mean is 1.7 MB), so a Poisson count would miss the observed load by a factor of two or
    more from one draw to the next; this holds the load and keeps the sizes' distribution but
    for the last flow."""
    out: list[int] = []
    left = round(total_bytes)
    batch = max(8, int(total_bytes / sizes.mean_bytes * 1.5))
    while left > 0:
        for size in sizes.sample(rng, batch).tolist():
            take = min(int(size), left)
            out.append(take)
            left -= take
            if left <= 0:
                break
    return out


__all__ = [
    "ARRIVAL_SHARE",
    "MIN_LOAD_SHARE",
    "BuiltTraffic",
    "ClassLoad",
    "HostPort",
    "build_traffic",
    "carrying_sizes",
    "source_weights",
]
