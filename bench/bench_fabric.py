"""Fabric speed: packet events per CPU second and peak RSS of a 4-leaf 2-spine fabric under 60 %
all-to-all load, against the same workload on a single switch (issue 15).

``python bench/bench_fabric.py [DURATION_S ...]`` (default 5 ms and 20 ms of simulated time).
Fabric: bench/fabric-4x2.yaml (4 leaves x 2 hosts at 40G, 2 spines, non-blocking, the softswitch
profile), every switch from its own SAI program, DCTCP, Poisson flow arrivals at 60 % of every
host link with web-search sizes (``qosforge simulate ... --scenario all-to-all``). Single switch:
the same 8 hosts' arrival processes (same seed, same sizes) on 8 ports of one switch of the same
profile (examples/tlt-softswitch.yaml's ToR), so both run the same transport and host work and the
rate per packet event compares the engines, not the workloads. Each run is a child process (its
own peak RSS); run it with ``nice`` on a shared machine and read the per-CPU-second figures.
A packet event is an enqueue, dequeue or drop at a switch port (docs/softswitch.md).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

from _usage import exit_with_usage_if_asked

ROOT = Path(__file__).resolve().parents[1]
FABRIC = ROOT / "bench" / "fabric-4x2.yaml"
SINGLE = ROOT / "examples" / "tlt-softswitch.yaml"
LOAD = 0.6
PACKET_BYTES = 1500
SEED = 1


def _row(result: object, case: str, duration_s: float, switches: int, hosts: int) -> dict[str, object]:
    from qosforge.softswitch.metrics import SimulationResult

    assert isinstance(result, SimulationResult)
    return {
        "case": case, "simulated_s": duration_s, "switches": switches, "hosts": hosts,
        "packet_events": result.packet_events, "events": result.events,
        "loop_cpu_s": round(result.cpu_seconds, 3),
        "packet_events_per_cpu_s": round(result.packet_events / result.cpu_seconds) if result.cpu_seconds > 0 else 0,
        "flows_finished": int((result.flow_finish_s >= 0).sum()),
        "goodput_gbps": round(result.goodput_bps / 1e9, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def run_fabric(duration_s: float) -> dict[str, object]:
    from qosforge.softswitch.helper.fabric import compile_fabric
    from qosforge.softswitch.helper.fabric_scenarios import all_to_all_run, fabric_traffic
    from qosforge.softswitch.simulation import simulate_fabric
    from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH

    fabric = compile_fabric(FABRIC, ())
    traffic = fabric_traffic(fabric, None, "dctcp", PACKET_BYTES)
    built = all_to_all_run(fabric, traffic, load=LOAD, distribution=WEB_SEARCH, duration_s=duration_s, warmup_s=0.0, seed=SEED)
    result = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    return _row(result, "fabric 4x2", duration_s, len(fabric.switches), len(fabric.hosts))


def run_single(duration_s: float, hosts: int) -> dict[str, object]:
    """The fabric's hosts on one switch: each host its own 'site', so destinations are uniform
    over the other hosts as in the fabric (where they are uniform over the other leaves')."""
    from qosforge.compiler.topology import ACK_WIRE_BYTES
    from qosforge.softswitch.compiled import compile_for_softswitch
    from qosforge.softswitch.simulation import simulate
    from qosforge.softswitch.traffic.fabric_workloads import HostSite, all_to_all_arrivals
    from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH
    from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

    switch = compile_for_softswitch(SINGLE, None)
    config = switch.config
    bulk = next(c for c in switch.ir.classes if c.name == "bulk")
    sites = [HostSite(h, f"host{h}", config.ports[h].name) for h in range(hosts)]
    rate = config.ports[0].speed_bps
    workload = all_to_all_arrivals(sites, rate, LOAD, WEB_SEARCH, duration_s, SEED)
    ack_delay = 2 * (config.ports[0].cable_delay_s + ACK_WIRE_BYTES * 8.0 / rate)
    flows = tuple(FlowSpec("dctcp", f.src_host, f.dst_host, bulk.dscp[0], packet_bytes=PACKET_BYTES, start_s=f.start_s, ack_delay_s=ack_delay,
                           size_packets=-1 if f.size_bytes is None else max(1, -(-f.size_bytes // PACKET_BYTES))) for f in workload)
    result = simulate(config, flows, RunSpec(duration_s=duration_s, seed=SEED, monitors=((0, bulk.queue),)))
    return _row(result, "single switch", duration_s, 1, hosts)


def main(argv: list[str]) -> None:
    exit_with_usage_if_asked(__doc__, argv, ("--one",))
    if argv[:1] == ["--one"]:
        case, duration = argv[1], float(argv[2])
        print(json.dumps(run_fabric(duration) if case == "fabric" else run_single(duration, int(argv[3]))))
        return
    durations = [float(a) for a in argv] or [0.005, 0.02]
    header = f"{'case':>14} {'sim s':>6} {'switches':>8} {'hosts':>5} {'packet events':>13} {'loop CPU s':>10} {'per CPU s':>10} {'finished':>8} {'goodput':>8} {'RSS MiB':>8}"
    print(header)
    for duration in durations:
        rows = []
        for case in ("fabric", "single"):
            command = [sys.executable, __file__, "--one", case, str(duration), "8"]
            output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            rows.append(json.loads(output.strip().splitlines()[-1]))
        for row in rows:
            print(f"{row['case']:>14} {row['simulated_s']:>6} {row['switches']:>8} {row['hosts']:>5} {row['packet_events']:>13} {row['loop_cpu_s']:>10} "
                  f"{row['packet_events_per_cpu_s']:>10} {row['flows_finished']:>8} {row['goodput_gbps']:>8} {row['peak_rss_mib']:>8}")
        ratio = rows[1]["packet_events_per_cpu_s"] / max(rows[0]["packet_events_per_cpu_s"], 1)
        print(f"{'':>14} single-switch / fabric rate per packet event: {ratio:.2f} (issue 15: within 2x)")


if __name__ == "__main__":
    main(sys.argv[1:])
