"""Fabric speed: packet events per CPU second and peak RSS of a 4-leaf 2-spine fabric under 60 %
all-to-all load, against the same workload on a single switch (target: within 2x per packet event).

``python bench/bench_fabric.py [DURATION_S ...]`` (default 5 ms and 20 ms of simulated time).
Fabric: bench/fabric-4x2.yaml (4 leaves x 2 hosts at 40G, 2 spines, non-blocking, the softswitch
profile), every switch from its own SAI program, DCTCP, Poisson flow arrivals at 60 % of every
host link with web-search sizes (``qosforge simulate ... --scenario all-to-all``). Single switch:
the same 8 hosts' arrival processes (same seed, same sizes) on 8 ports of one switch of the same
profile (examples/tlt-softswitch.yaml's ToR), so both run the same transport and host work and the
rate per packet event compares the engines, not the workloads. Each run is a child process (its
own peak RSS); run it with ``nice`` on a shared machine and read the per-CPU-second figures.
A packet event is an enqueue, dequeue or drop at a switch port (docs/softswitch-engine.md).

``python bench/bench_fabric.py --scale [--repeat N]`` (docs/softswitch-speed.md "Scale"): the same all-to-all (60 %,
web-search sizes, DCTCP, seed 1) on generated fabrics of the ``softswitch`` profile, every link
40G (bench/fabrics.py): leaf-spines of 4, 8, 16 and 32 leaves x 16 hosts with 8 spines (64-512
hosts) for 2 ms, the 512-host one also for 0.5, 1 and 4 ms (flows grow with the simulated time,
hosts do not), and three-tier Clos fabrics of 2, 4, 8 and 16 pods of 16 leaves x 16 hosts, 8
spines per pod and 128 super-spines (512-4,096 hosts) for 1 ms. Each run is a child process; it reports
packet events per CPU second of the event loop, the CPU seconds of building the fabric and its
flows, and the process's peak RSS. The 512-host 2 ms and the 4,096-host 1 ms runs are repeated
``--repeat`` times (default 3) and reported as medians. Then peak RSS is fitted by least
squares: ``a + b*hosts + c*flows`` on the leaf-spines (their 1, 2 and 4 ms runs vary the flows
alone), ``a + b*ports + c*flows`` over every run, and the Clos's bytes per added host between
sizes; the residuals and a rising per-host cost say how far from linear the memory is.
"""

from __future__ import annotations

import itertools
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from _usage import exit_with_usage_if_asked, fail

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
    from qosforge.softswitch.helper.compiled import compile_for_softswitch
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


#: (name, topology kind, shape, simulated seconds, repeated): the --scale runs.
SCALE_RUNS = (
    ("leaf-spine 4x16, 8 spines", "leaf-spine", (4, 16, 8), 0.002, False),
    ("leaf-spine 8x16, 8 spines", "leaf-spine", (8, 16, 8), 0.002, False),
    ("leaf-spine 16x16, 8 spines", "leaf-spine", (16, 16, 8), 0.002, False),
    ("leaf-spine 32x16, 8 spines", "leaf-spine", (32, 16, 8), 0.0005, False),
    ("leaf-spine 32x16, 8 spines", "leaf-spine", (32, 16, 8), 0.001, False),
    ("leaf-spine 32x16, 8 spines", "leaf-spine", (32, 16, 8), 0.002, True),
    ("leaf-spine 32x16, 8 spines", "leaf-spine", (32, 16, 8), 0.004, False),
    ("clos 2 pods", "clos", (2, 16, 8, 128, 16), 0.001, False),
    ("clos 4 pods", "clos", (4, 16, 8, 128, 16), 0.001, False),
    ("clos 8 pods", "clos", (8, 16, 8, 128, 16), 0.001, False),
    ("clos 16 pods", "clos", (16, 16, 8, 128, 16), 0.001, True),
)


def run_scale(kind: str, shape: tuple[int, ...], duration_s: float) -> dict[str, object]:
    """One all-to-all run on a generated fabric (bench/fabrics.py); CPU times per phase."""
    import tempfile
    import time

    from fabrics import clos_intent, leaf_spine_intent

    from qosforge.softswitch.helper.fabric import compile_fabric
    from qosforge.softswitch.helper.fabric_scenarios import all_to_all_run, fabric_traffic
    from qosforge.softswitch.simulation import simulate_fabric
    from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH

    text = leaf_spine_intent(*shape) if kind == "leaf-spine" else clos_intent(*shape)
    started = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fabric.yaml"
        path.write_text(text, encoding="utf-8")
        fabric = compile_fabric(path, ())
    traffic = fabric_traffic(fabric, None, "dctcp", PACKET_BYTES)
    built = all_to_all_run(fabric, traffic, load=LOAD, distribution=WEB_SEARCH, duration_s=duration_s, warmup_s=0.0, seed=SEED)
    build_cpu_s = time.process_time() - started
    result = simulate_fabric(fabric.configs, fabric.topology, built.flows, built.run)
    row = _row(result, kind, duration_s, len(fabric.switches), len(fabric.hosts))
    row.update({"shape": list(shape), "ports": fabric.topology.n_ports, "flows": len(built.flows), "build_cpu_s": round(build_cpu_s, 2),
                "load_1min": round(os.getloadavg()[0], 2)})
    return row


def _child(args: list[str]) -> dict[str, object]:
    output = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True).stdout
    parsed: dict[str, object] = json.loads(output.strip().splitlines()[-1])
    return parsed


def _fit(rows: list[dict[str, object]], terms: tuple[str, ...]) -> dict[str, object]:
    """Peak RSS = a + sum(b_k * row[k] for k in terms) by least squares: bytes per unit of each
    term, and the residuals (MiB, and the largest relative to its run's RSS)."""
    import numpy as np

    design = np.array([[1.0, *(float(str(row[term])) for term in terms)] for row in rows])
    rss = np.array([float(str(row["peak_rss_mib"])) * 2**20 for row in rows])
    coefficients, *_ = np.linalg.lstsq(design, rss, rcond=None)
    residual = rss - design @ coefficients
    return {"base_mib": round(coefficients[0] / 2**20, 1), **{f"bytes_per_{term.rstrip('s')}": round(value) for term, value in zip(terms, coefficients[1:], strict=True)},
            "residual_mib": [round(value / 2**20, 1) for value in residual], "max_relative_residual": round(float(np.max(np.abs(residual) / rss)), 3)}


def fits(rows: list[dict[str, object]]) -> dict[str, object]:
    """Per host and flow on the leaf-spines (where the 1, 2 and 4 ms runs vary the flows alone);
    per switch port and flow over every run (the Clos has 3 switch ports per host, the
    leaf-spine 2); and the Clos's bytes per added host between successive sizes, its flows'
    bytes taken off at the leaf-spine's rate: a rise there is growth faster than linear."""
    leaf_spine = [row for row in rows if row["case"] == "leaf-spine"]
    clos = sorted((row for row in rows if row["case"] == "clos"), key=lambda row: float(str(row["hosts"])))
    result: dict[str, object] = {"all_runs_ports_and_flows": _fit(rows, ("ports", "flows"))}
    if len(leaf_spine) >= 3:
        per_flow = _fit(leaf_spine, ("hosts", "flows"))
        result["leaf_spine_hosts_and_flows"] = per_flow
        flow_bytes = float(str(per_flow["bytes_per_flow"]))

        def rest(row: dict[str, object]) -> float:
            return float(str(row["peak_rss_mib"])) * 2**20 - flow_bytes * float(str(row["flows"]))

        if len(clos) >= 3:
            # Flows grow with hosts on the Clos (same load, same 1 ms), so a straight line in hosts
            # with small residuals is linear in both.
            result["clos_hosts"] = _fit(clos, ("hosts",))
        result["clos_bytes_per_added_host"] = {f"{a['hosts']}->{b['hosts']}": round((rest(b) - rest(a)) / (float(str(b["hosts"])) - float(str(a["hosts"]))))
                                               for a, b in itertools.pairwise(clos)}
    return result


def main_scale(repeat: int) -> None:
    import statistics

    rows = []
    header = (f"{'fabric':>28} {'sim ms':>6} {'hosts':>5} {'switches':>8} {'ports':>6} {'flows':>6} {'packet events':>13} {'loop CPU s':>10} "
              f"{'per CPU s':>10} {'build CPU s':>11} {'RSS MiB':>8} {'load':>5}")
    print(header, flush=True)
    for name, kind, shape, duration, repeated in SCALE_RUNS:
        runs = [_child(["--scale-one", kind, ",".join(map(str, shape)), str(duration)]) for _ in range(repeat if repeated else 1)]
        row = dict(runs[0])
        for key in ("loop_cpu_s", "packet_events_per_cpu_s", "build_cpu_s", "peak_rss_mib", "load_1min"):
            row[key] = statistics.median(float(str(run[key])) for run in runs)
        row["name"] = name + (f" (median of {len(runs)})" if len(runs) > 1 else "")
        rows.append(row)
        print(f"{row['name']:>28} {duration * 1e3:>6g} {row['hosts']:>5} {row['switches']:>8} {row['ports']:>6} {row['flows']:>6} "
              f"{row['packet_events']:>13} {row['loop_cpu_s']:>10} {row['packet_events_per_cpu_s']:>10.0f} {row['build_cpu_s']:>11} "
              f"{row['peak_rss_mib']:>8} {row['load_1min']:>5}", flush=True)
        if len(runs) > 1:
            print(f"{'':>28} runs: " + "; ".join(f"{run['packet_events_per_cpu_s']} /CPU s, {run['peak_rss_mib']} MiB" for run in runs), flush=True)
    print(json.dumps({"peak_rss_fit": fits(rows)}))


def main(argv: list[str]) -> None:
    exit_with_usage_if_asked(__doc__, argv, ("--one", "--scale", "--scale-one", "--repeat"))
    if argv[:1] == ["--scale-one"]:
        print(json.dumps(run_scale(argv[1], tuple(int(part) for part in argv[2].split(",")), float(argv[3]))))
        return
    if argv[:1] == ["--scale"]:
        text = argv[argv.index("--repeat") + 1] if "--repeat" in argv and argv.index("--repeat") + 1 < len(argv) else "3"
        repeat = int(text) if text.isdigit() else 0
        if repeat < 1:
            fail(f"--repeat must be a whole number of at least 1 (got {text})")
        main_scale(repeat)
        return
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
        print(f"{'':>14} single-switch / fabric rate per packet event: {ratio:.2f} (target: within 2x)")


if __name__ == "__main__":
    main(sys.argv[1:])
