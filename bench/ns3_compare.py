"""qosforge's software switch against ns-3 on the same dumbbell scenarios (outside the test suite).

Builds bench/ns3/dumbbell.cc against Debian's ns-3 (``apt-get install ns3 libns3-dev libgsl-dev``;
3.37), then runs both simulators on each scenario as whole processes and prints one table:
queue mean / p99 (packets, sampled every 10 us after the warm-up), goodput (application payload,
Gb/s), CE marks and drops after the warm-up, and wall and CPU seconds of the whole process. The
docs/softswitch-validation.md table is this script's output.

Both simulators' receivers delay ACKs (one per two segments). ns-3 is run as the Linux hosts
qosforge models with two named changes (``MATCH_LINUX``): ``--delAckTimeoutMs=40`` (Linux's
TCP_DELACK_MIN; ns-3's DelAckTimeout is 200 ms) and ``--reno=linux`` (ns-3's TcpLinuxReno for
newreno and tcp-ecn: congestion avoidance adds one segment per window of segments ACKed, as
Linux's tcp_cong_avoid_ai and RFC 3465 do; ns-3's TcpNewReno adds MSS^2/cwnd per ACK, half as fast
under delayed ACKs). ``--stock`` adds ns-3's run with its own defaults beside each.

Usage: ``python bench/ns3_compare.py [--duration 0.3] [--only dctcp] [--stock]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _ns3 import build, timed

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "ns3" / "dumbbell.cc"
#: The ns-3 flags that make its hosts the Linux hosts qosforge models (module doc).
MATCH_LINUX = ("--delAckTimeoutMs=40", "--reno=linux")


@dataclass(frozen=True)
class Scenario:
    name: str
    transport: str
    k_packets: int  # 0 = tail drop
    ns3_sack: bool = True
    flows: int = 10
    buffer_packets: int = 1000


SCENARIOS = (
    Scenario("dctcp K=65", "dctcp", 65),
    Scenario("tcp-ecn K=65", "tcp-ecn", 65),
    Scenario("newreno tail-drop", "newreno", 0),
    Scenario("cubic tail-drop", "cubic", 0),
    Scenario("newreno tail-drop, ns-3 without SACK", "newreno", 0, ns3_sack=False),
)


def run_qosforge(s: Scenario, duration: float, warmup: float) -> dict[str, float]:
    qosforge = str(Path(sys.executable).with_name("qosforge"))
    argv = [qosforge, "simulate", "--scenario", "dumbbell", "--flows", str(s.flows), "--transport", s.transport, "--bandwidth", "10G",
            "--rtt", "100us", "--buffer", f"{s.buffer_packets}pkt", "--duration", f"{duration}s", "--warmup", f"{warmup}s", "--format", "json"]
    if s.k_packets:
        argv += ["--ecn-threshold", f"{s.k_packets}pkt"]
    out, wall, cpu = timed(argv)
    report = json.loads(out)
    enqueued = report["packets_forwarded"]
    return {"queue_mean": report["queue_mean_packets"], "queue_p99": report["queue_p99_packets"], "goodput": report["goodput_gbps"],
            "marks": round(report["mark_fraction"] * enqueued), "drops": report["drops"], "wall": wall, "cpu": cpu,
            "loop": report["wall_seconds"]}


def run_ns3(binary: Path, s: Scenario, duration: float, warmup: float, *, stock: bool = False) -> dict[str, float]:
    argv = [str(binary), f"--transport={s.transport}", f"--flows={s.flows}", "--bandwidth=10Gbps", "--rttUs=100", f"--k={s.k_packets}",
            f"--buffer={s.buffer_packets}", f"--duration={duration}", f"--warmup={warmup}", f"--sack={'true' if s.ns3_sack else 'false'}"]
    out, wall, cpu = timed(argv if stock else [*argv, *MATCH_LINUX])
    report = json.loads(out.strip().splitlines()[-1])
    return {"queue_mean": report["queue_mean_packets"], "queue_p99": report["queue_p99_packets"], "goodput": report["goodput_gbps"],
            "marks": report["marks"], "drops": report["drops"], "wall": wall, "cpu": cpu, "loop": float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=0.3)
    parser.add_argument("--warmup", type=float, default=0.1)
    parser.add_argument("--only", help="run the scenarios whose name contains this")
    parser.add_argument("--stock", action="store_true", help="also run ns-3 with its own defaults")
    args = parser.parse_args()
    binary = build(SOURCE)
    print(f"dumbbell, 10 flows, 10G, RTT 100 us, 1000-packet queue, {args.duration} s ({args.warmup} s warm-up); "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    header = f"| {'scenario':<38} | {'simulator':<10} | {'queue mean':>10} | {'p99':>4} | {'goodput Gb/s':>12} | {'marks':>6} | {'drops':>6} | {'wall s':>6} | {'CPU s':>6} | {'loop s':>6} |"
    print(header)
    print("|" + "|".join("-" * (len(cell)) for cell in header.split("|")[1:-1]) + "|")
    for s in SCENARIOS:
        if args.only and args.only not in s.name:
            continue
        rows = [("qosforge", run_qosforge(s, args.duration, args.warmup)), ("ns-3", run_ns3(binary, s, args.duration, args.warmup))]
        if args.stock:
            rows.append(("ns-3 stock", run_ns3(binary, s, args.duration, args.warmup, stock=True)))
        if not s.ns3_sack:
            rows = rows[1:]
        for simulator, r in rows:
            loop = "" if r["loop"] != r["loop"] else f"{r['loop']:.2f}"
            print(f"| {s.name:<38} | {simulator:<10} | {r['queue_mean']:>10.1f} | {r['queue_p99']:>4.0f} | {r['goodput']:>12.3f} | {r['marks']:>6} | "
                  f"{r['drops']:>6} | {r['wall']:>6.2f} | {r['cpu']:>6.2f} | {loop:>6} |", flush=True)


if __name__ == "__main__":
    main()
