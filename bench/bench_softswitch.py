"""Benchmark: packet events per second of the software switch, and memory flat in duration.

Switch: ``examples/tlt-softswitch.yaml`` compiled for SAI and loaded (32 x 40G, 12 MB shared
buffer, 208 B cells, DCTCP+TLT class with WRED and red drop, dynamic thresholds). Traffic,
open-loop: every port sends Poisson traffic at 90 % of its line rate, spread over four other
ports in two classes (the TLT class's unimportant and important DSCPs and the default class),
plus an incast of 31 ports onto port 0 in bursts, so queues build, WRED marks and drops, and the
MMU limits bite. A *packet event* is one enqueue into a switch egress queue, one dequeue of a
packet for transmission at a switch port, or one drop of a packet at a switch port; the rate is
packet events per second of wall time of the event loop, and per CPU second of it (the fair
figure on a shared machine); the event core is the ahead-of-time module, nothing is compiled.

Each duration runs in a fresh subprocess so its peak RSS is its own; ``--runs N`` repeats each and
prints the medians. Usage: ``nice python bench/bench_softswitch.py [--runs N] [SIMULATED_SECONDS ...]``
(default 0.02 and 0.2). Target: >= 4 M packet events per second.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _usage import OneLineParser, positive_int, positive_seconds

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tlt-softswitch.yaml"
PACKET_BYTES = 1500
LOAD = 0.9


def scenario(duration_s: float) -> tuple[Any, tuple[Any, ...], Any]:
    """The bench's switch config, flows and run spec for ``duration_s`` of simulated time."""
    from qosforge.softswitch.helper.compiled import compile_for_softswitch

    switch = compile_for_softswitch(EXAMPLE, None)
    flows, run = traffic(switch.ir, switch.config, duration_s)
    return switch.config, flows, run


def traffic(ir: Any, config: Any, duration_s: float) -> tuple[tuple[Any, ...], Any]:
    """The bench's flows on ``config`` (any number of ports) and its run spec: Poisson at 90 % of
    line rate from every port to four others in the TLT class (unimportant and important DSCPs)
    and the default class, and an incast onto port 0 every millisecond."""
    from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

    bulk = next(c for c in ir.classes if c.name == "bulk")
    claimed = {d for c in ir.classes for d in (*c.dscp, *c.important_dscp)}
    default_dscp = next(d for d in range(64) if d not in claimed)
    ports = len(config.ports)
    line_pps = config.ports[0].speed_bps / 8.0 / PACKET_BYTES
    flows = []
    for src in range(ports):
        for k, dscp in enumerate((bulk.dscp[0], bulk.important_dscp[0], default_dscp, bulk.dscp[0])):
            dst = (src + 1 + 7 * k) % ports
            if dst == src:
                dst = (dst + 1) % ports
            flows.append(FlowSpec("poisson", src, dst, dscp, packet_bytes=PACKET_BYTES, rate_pps=LOAD * line_pps / 4, ect=True))
    for src in range(1, ports):  # incast bursts onto port 0: 64 packets from every port each ms
        flows += [FlowSpec("cbr", src, 0, bulk.dscp[0], packet_bytes=PACKET_BYTES, rate_pps=line_pps, size_packets=64, start_s=t * 1e-3, ect=True)
                  for t in range(int(duration_s * 1e3))]
    return tuple(flows), RunSpec(duration_s=duration_s, monitors=((0, bulk.queue),))


def run_one(duration_s: float) -> dict[str, float]:
    from qosforge.softswitch.simulation import simulate

    config, flows, run = scenario(duration_s)
    ports = len(config.ports)
    start = time.perf_counter()
    result = simulate(config, flows, run)
    total = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "simulated_s": duration_s,
        "ports": ports,
        "packet_events": result.packet_events,
        "events": result.events,
        "loop_wall_s": round(result.wall_seconds, 3),
        "packet_events_per_s": round(result.packet_events_per_second),
        "loop_cpu_s": round(result.cpu_seconds, 3),
        "packet_events_per_cpu_s": round(result.packet_events / result.cpu_seconds) if result.cpu_seconds > 0 else 0,
        "total_wall_s": round(total, 3),
        "drops": result.counters["drops"],
        "marks": result.counters["marks"],
        "peak_rss_mib": round(peak_kib / 1024, 1),
    }


def _one_run(duration: float) -> dict[str, float]:
    output = subprocess.run([sys.executable, __file__, "--one", str(duration)], capture_output=True, text=True, check=True).stdout
    row: dict[str, float] = json.loads(output.strip().splitlines()[-1])
    return row


def main(argv: list[str]) -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--runs", type=positive_int, default=1, help="runs of each duration; the medians are printed (default 1)")
    parser.add_argument("durations", nargs="*", type=positive_seconds, metavar="SIMULATED_SECONDS",
                        help="simulated seconds of each benchmark (default 0.02 0.2)")
    parser.add_argument("--one", type=positive_seconds, help=argparse.SUPPRESS)  # one run in this process (the child of _one_run)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(run_one(args.one)))
        return
    runs = args.runs
    durations = args.durations or [0.02, 0.2]
    print(f"median of {runs} run(s) each; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'sim s':>6} {'ports':>5} {'packet events':>14} {'loop s':>8} {'pkt events/s':>13} {'loop CPU s':>10} {'per CPU s':>10} {'drops':>9} {'marks':>9} {'peak RSS MiB':>13}")
    for duration in durations:
        rows = [_one_run(duration) for _ in range(runs)]
        row = dict(rows[0])
        for key in ("loop_wall_s", "packet_events_per_s", "loop_cpu_s", "packet_events_per_cpu_s", "peak_rss_mib"):
            row[key] = statistics.median(r[key] for r in rows)
        print(f"{row['simulated_s']:>6} {row['ports']:>5} {row['packet_events']:>14} {row['loop_wall_s']:>8.3f} {row['packet_events_per_s']:>13.0f} "
              f"{row['loop_cpu_s']:>10.3f} {row['packet_events_per_cpu_s']:>10.0f} "
              f"{row['drops']:>9} {row['marks']:>9} {row['peak_rss_mib']:>13}")


if __name__ == "__main__":
    main(sys.argv[1:])
