"""Run the user's traffic on a fabric and report it per flow, per group and per port.

The run's measured window is ``--measure START:END``: the engine's warm-up is START and the run
ends at END, so every engine statistic (drops, marks, PFC seconds, queue samples) and every
flow's counters cover the same window (softswitch/sampling.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from qosforge.softswitch.fabric_metrics import pfc_victims
from qosforge.softswitch.flow_metrics import completion_time_s, group_stats
from qosforge.softswitch.helper.fabric import Fabric
from qosforge.softswitch.helper.host_kernel import HostModel, apply_intent_hosts
from qosforge.softswitch.helper.user_traffic import UserTraffic, flow_hops
from qosforge.softswitch.sampling import SampledRun, simulate_sampled
from qosforge.softswitch.traffic.spec import FlowSpec, PauseSpec, RunSpec, TransportParams
from qosforge.softswitch.traffic.traffic_file import TrafficFile

#: The engine's depth histograms of the monitored queues are not reported here (means and maxima
#: come from the samples' moments), so they are kept small: memory stays ~8 kB per queue.
_HISTOGRAM_PACKETS = 1024


@dataclass(frozen=True)
class Window:
    start_s: float
    end_s: float
    sample_s: float

    @property
    def length_s(self) -> float:
        return self.end_s - self.start_s


def run_user_traffic(fabric: Fabric, traffic: UserTraffic, window: Window, *, seed: int, rto_min_s: float | None = None,
                     pauses: tuple[PauseSpec, ...] = (), series: bool = True) -> SampledRun:
    """Simulate ``traffic`` until the window's end, sampling its queues over the window;
    ``pauses``: PFC frames hosts send (a stalled receiver), as the pause-storm scenario injects;
    ``series=False``: without the time series (the report needs only the engine's statistics)."""
    run = user_traffic_run(fabric, traffic, window, seed=seed, rto_min_s=rto_min_s, pauses=pauses)
    specs = user_traffic_specs(fabric, traffic, rto_min_s=rto_min_s)
    return simulate_sampled(fabric.configs, fabric.topology, specs, run, series=series)


def user_traffic_specs(fabric: Fabric, traffic: UserTraffic, *,
                       rto_min_s: float | None = None) -> tuple[FlowSpec, ...]:
    """The flows :func:`run_user_traffic` simulates: each window flow's hosts as the intent
    states them for its class (minimum RTO, initial window; ``rto_min_s``, the run's --rto-min,
    over the first); a DSCP no class lists keeps the run's."""
    return _intent_hosts(fabric, traffic, rto_min_s)[0]


def user_traffic_hosts(fabric: Fabric, traffic: UserTraffic, *,
                       rto_min_s: float | None = None) -> tuple[HostModel, ...]:
    """The Linux TCP host of each class :func:`user_traffic_specs` gives window flows, once per
    class, with the source of each value (the report's ``host_tcp``)."""
    return _intent_hosts(fabric, traffic, rto_min_s)[1]


def _intent_hosts(fabric: Fabric, traffic: UserTraffic,
                  rto_min_s: float | None) -> tuple[tuple[FlowSpec, ...], tuple[HostModel, ...]]:
    return apply_intent_hosts(fabric.switches[0].ir.classes,
                              tuple(flow.spec for flow in traffic.flows), rto_min_flag_s=rto_min_s)


def user_traffic_run(fabric: Fabric, traffic: UserTraffic, window: Window, *, seed: int, rto_min_s: float | None = None,
                     pauses: tuple[PauseSpec, ...] = ()) -> RunSpec:
    """The run :func:`run_user_traffic` simulates (``tune --from-gnmi`` runs the same one to
    read its switches' counters)."""
    params = TransportParams() if rto_min_s is None else TransportParams(rto_min_s=rto_min_s)
    return RunSpec(duration_s=window.end_s, warmup_s=window.start_s, sample_interval_s=window.sample_s, seed=seed, monitors=traffic.monitors,
                   transport=params, pauses=pauses, pfc_watchdog=True, histogram_packets=_HISTOGRAM_PACKETS, trace_points=2,
                   link_delays_s=fabric.link_delays_s, forwarding_delays_s=fabric.forwarding_delays_s)


def flows_json(traffic: UserTraffic, sampled: SampledRun, window: Window) -> list[dict[str, object]]:
    result, counters = sampled.result, sampled.flows
    out: list[dict[str, object]] = []
    for index, flow in enumerate(traffic.flows):
        delivered = int(counters.delivered_payload_bytes[index])
        fct = None if flow.size_bytes is None else completion_time_s(float(result.flow_start_s[index]), float(result.flow_finish_s[index]), window.end_s)
        out.append({
            "id": index, "group": flow.group, "src": str(flow.src), "dst": str(flow.dst), "class": flow.class_name, "dscp": flow.dscp,
            # A step of a collective starts when the flows it waits for finish (the engine's start).
            "transport": flow.spec.kind, "size_bytes": flow.size_bytes,
            "start_s": float(result.flow_start_s[index]) if flow.spec.after else flow.spec.start_s,
            "rate_bps": flow.spec.rate_pps * 8.0 * flow.spec.packet_bytes if flow.spec.rate_pps else None,
            "bytes_delivered": delivered, "throughput_bps": delivered * 8.0 / window.length_s, "fct_s": fct,
            "retransmissions": int(counters.retransmitted_packets[index]), "packets_sent": int(counters.sent_packets[index]),
            "packets_dropped": int(counters.dropped_packets[index]), "packets_arrived": int(counters.arrived_packets[index]),
            # Out-of-order arrivals, packets trimmed on the way, retransmission timeouts.
            "ooo_packets": int(counters.ooo_packets[index]), "trimmed_packets": int(counters.trimmed_packets[index]),
            "timeouts": int(counters.timeouts[index]),
        })
    return out


def collectives_json(traffic: UserTraffic, traffic_file: TrafficFile, sampled: SampledRun, window: Window) -> list[dict[str, object]]:
    """Per collective (and per group of per-step flows): the job completion time, from the first
    step's start to the last flow's finish, which the slowest rank sets; None while any flow is
    unfinished at the run's end (then the run was too short: the report says how many)."""
    result = sampled.result
    kinds = {placed.entry.group: placed.entry for placed in traffic_file.collectives}
    stepped = {placed.entry.group for placed in traffic_file.entries if placed.entry.step is not None}
    members: dict[str, list[int]] = {}
    for index, flow in enumerate(traffic.flows):
        if flow.collective is not None or flow.group in stepped:
            members.setdefault(flow.collective or flow.group, []).append(index)
    out: list[dict[str, object]] = []
    for group, indices in members.items():
        finishes = [float(result.flow_finish_s[i]) for i in indices]
        done = [f for f in finishes if 0.0 <= f <= window.end_s]
        start = min(traffic.flows[i].spec.start_s for i in indices if not traffic.flows[i].spec.after)
        unfinished = len(indices) - len(done)
        by_rank: dict[str, float] = {}
        for i, finish in zip(indices, finishes, strict=True):
            rank = str(traffic.flows[i].src)
            by_rank[rank] = max(by_rank.get(rank, 0.0), finish if 0.0 <= finish <= window.end_s else float("inf"))
        slowest = max(by_rank, key=lambda r: by_rank[r])
        entry = kinds.get(group)
        out.append({
            "group": group, "collective": entry.collective if entry is not None else "trace", "ranks": len(by_rank),
            "message_bytes": entry.size_bytes if entry is not None else None, "iterations": entry.iterations if entry is not None else None,
            "flows": len(indices), "unfinished_flows": unfinished, "start_s": start,
            "jct_s": None if unfinished else max(done) - start, "slowest_rank": slowest,
        })
    return out


def groups_json(flows: list[dict[str, object]]) -> list[dict[str, object]]:
    names = [str(flow["group"]) for flow in flows]
    throughput = [float(flow["throughput_bps"]) for flow in flows]  # type: ignore[arg-type]
    return [asdict(stats) for stats in group_stats(names, throughput)]


def _p99_delay_s(
    p99_packets: float | None, mean_bytes: float, mean_packets: float, speed_bps: float
) -> float | None:
    """The p99 depth's drain time at line rate: the depth histogram counts packets, so it is
    taken at the queue's mean packet size over the window (a class's frames are one size but
    for each message's last)."""
    if p99_packets is None:
        return None
    if mean_packets <= 0:
        return 0.0
    return p99_packets * mean_bytes / mean_packets * 8.0 / speed_bps


def ports_json(fabric: Fabric, traffic: UserTraffic, sampled: SampledRun) -> list[dict[str, object]]:
    """Per monitored queue: the engine's sampled mean (its moments over the window's samples),
    the largest sample, the backlog's drain time at line rate, the packets WRED marked CE in
    the window, PFC-paused seconds."""
    result = sampled.result
    ports = fabric.ports
    out: list[dict[str, object]] = []
    for m, (port, queue) in enumerate(traffic.monitors):
        depth = result.monitors[m]
        config = ports[port]
        priorities = [p for p, q in enumerate(config.pfc_priority_to_queue) if q == queue and config.pfc_enabled >> p & 1]
        paused = max((float(result.pfc_seconds[port, p, 1]) for p in priorities), default=0.0) if result.pfc_seconds is not None else 0.0
        ref = fabric.port_ref(port)
        # The histogram's last bin holds every deeper sample (softswitch/engine/kernel.py
        # _sample), so a p99 there is only a lower bound: reported as unknown, not as a number.
        p99 = depth.p99_packets if depth.p99_packets < _HISTOGRAM_PACKETS - 1 else None
        out.append({
            "switch": ref.switch, "port": ref.port, "queue": queue, "class": traffic.monitor_classes[m], "speed_bps": config.speed_bps,
            "samples": depth.samples, "mean_queue_bytes": depth.mean_bytes,
            "max_queue_bytes": float(sampled.max_queue_bytes[m]),
            "mean_queue_packets": depth.mean_packets, "max_queue_packets": depth.max_packets,
            "mean_queue_delay_s": depth.mean_bytes * 8.0 / config.speed_bps,
            "p99_queue_packets": p99,
            "p99_queue_delay_s": _p99_delay_s(
                p99, depth.mean_bytes, depth.mean_packets, config.speed_bps
            ),
            "marks": int(result.marks[port, queue].sum()),
            "paused_s": paused,
        })
    return out


def mark_pfc_victims(fabric: Fabric, traffic: UserTraffic, flows: list[dict[str, object]],
                     ports: list[dict[str, object]]) -> None:
    """Add ``pfc_paused`` and ``pfc_victim`` to each flow's row (softswitch/fabric_metrics.py
    :func:`pfc_victims`). ``ports`` are :func:`ports_json`'s rows, one per monitored queue. A
    queue was congested on its own when it was not paused yet crossed its ECN marking threshold
    (its WRED marked packets): the compiled config's own congestion signal, which every RoCE
    class has."""
    index = {queue: m for m, queue in enumerate(traffic.monitors)}
    paused = [bool(row["paused_s"]) for row in ports]
    congested = [not was_paused and bool(row["marks"]) for was_paused, row in zip(paused, ports, strict=True)]
    hops = [[[index[q] for q in hop] for hop in flow_hops(fabric, flow.spec.src_port, flow.spec.dst_port, flow.dscp)]
            for flow in traffic.flows]
    exposure = pfc_victims(hops, paused, congested)
    for row, was_paused, victim in zip(flows, exposure.paused, exposure.victim, strict=True):
        row["pfc_paused"] = was_paused
        row["pfc_victim"] = victim


__all__ = ["Window", "collectives_json", "flows_json", "groups_json", "mark_pfc_victims", "ports_json", "run_user_traffic",
           "user_traffic_hosts", "user_traffic_run", "user_traffic_specs"]
