"""Load balancing beyond ECMP: all-to-all at 60 % on a 2:1 oversubscribed leaf-spine, for each
mode of ``classes[*].load_balancing`` and three kinds of receiver (docs/load-balancing.md).

``python bench/bench_load_balancing.py [--duration 100ms] [--seed 1] [--json]``

Fabric (written here as an intent): 4 leaves x 4 hosts at 10G, 2 spines, 10G leaf-spine links, so
each leaf offers 40G to 20G of uplinks (2:1), link latency 1 us per hop, the bundled
``softswitch`` profile. Workload: ``qosforge simulate --scenario all-to-all --load 60%`` (Poisson
arrivals at 60 % of every host link, web-search sizes, seed 1); three quarters of each host's
traffic leaves its leaf, so the uplinks are offered 90 % of their rate on average. Modes: ecmp
(5-tuple hash), flowlet (LetFlow, gap 50 us), spray (random per packet), adaptive (shortest
egress queue per packet). Receivers: DCTCP with SACK and RACK-TLP (Linux's defaults: reordering
tolerance of min_RTT/4, RFC 8985 §6.2), DCTCP with NewReno's three-duplicate-ACK recovery (SACK
off, RFC 6582: every reordering of three or more packets is a loss), and RoCE (DCQCN, lossless,
go-back-N: the receiver drops every out-of-order packet and NACKs; and the same class as IRN,
lossy as IRN runs, selective repeat: the receiver keeps out-of-order packets and the sender
resends only the lost ones, IRN SIGCOMM 2018 §3). Each run reports goodput,
flows finished, FCT p50/p99 of the finished flows and p99 of those of at most 100 kB,
out-of-order first transmissions (RFC 4737 §3.3), retransmissions, spurious retransmissions
(segments the receiver already held, RFC 2883) and drops, plus the CPU seconds of its event
loop.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

LOAD = 0.6
SHORT_FLOW_BYTES = 100_000
FLOWLET_GAP = "50us"
MODES = ("ecmp", "flowlet", "spray", "adaptive")
#: (label, class, SACK on, the RoCE class's transport): the receivers each mode runs against.
RECEIVERS = (
    ("TCP SACK+RACK", "tcp", True, "dcqcn"),
    ("TCP dupthresh 3", "tcp", False, "dcqcn"),
    ("RoCE go-back-N", "roce", True, "dcqcn"),
    ("RoCE selective repeat", "roce", True, "irn"),
)

INTENT = """\
apiVersion: qosforge/v1
kind: Fabric
metadata:
  name: lb-2to1
  description: 4 leaves x 4 hosts at 10G, 2 spines, 2:1 oversubscribed
topology:
  leaf_spine:
    spines: 2
    leaves: 4
    hosts_per_leaf: 4
    host_link: {{speed: 10G, cable: 3m}}
    fabric_link: {{speed: 10G, cable: 20m}}
    link_latency: 1us
    leaf_profile: softswitch
classes:
  - name: tcp
    transport: dctcp
    dscp: [10]
    load_balancing: {balancing}
  - name: roce
    transport: {roce_transport}
    dscp: [26]
    lossless: {roce_lossless}
    load_balancing: {balancing}
design:
  mtu: 1500B
targets: [sai]
"""


def _balancing(mode: str) -> str:
    if mode == "flowlet":
        return f"{{mode: flowlet, flowlet_gap: {FLOWLET_GAP}}}"
    return f"{{mode: {mode}}}"


def run_case(
    folder: Path,
    mode: str,
    class_name: str,
    sack: bool,
    duration_s: float,
    seed: int,
    roce_transport: str = "dcqcn",
) -> dict[str, object]:
    """One mode and receiver: the all-to-all run and its numbers."""
    from qosforge.softswitch.fabric_metrics import flow_completion_stats
    from qosforge.softswitch.helper.fabric import compile_fabric
    from qosforge.softswitch.helper.fabric_scenarios import all_to_all_run, fabric_traffic
    from qosforge.softswitch.metrics import reordering_totals
    from qosforge.softswitch.simulation import simulate_fabric
    from qosforge.softswitch.traffic.flow_sizes import WEB_SEARCH

    intent = folder / f"lb-{mode}-{roce_transport}.yaml"
    if not intent.exists():
        # IRN runs without PFC (compile refuses it on a lossless class: IRN SIGCOMM 2018 §1, §3).
        lossless = "false" if roce_transport == "irn" else "true"
        intent.write_text(
            INTENT.format(
                balancing=_balancing(mode), roce_transport=roce_transport, roce_lossless=lossless
            )
        )
    fabric = compile_fabric(intent, ())
    traffic = fabric_traffic(fabric, class_name, None, None)
    built = all_to_all_run(
        fabric,
        traffic,
        load=LOAD,
        distribution=WEB_SEARCH,
        duration_s=duration_s,
        warmup_s=0.0,
        seed=seed,
    )
    run = dataclasses.replace(
        built.run, transport=dataclasses.replace(built.run.transport, sack=sack)
    )
    result = simulate_fabric(fabric.configs, fabric.topology, built.flows, run)
    fct = result.flow_completion
    reordering = reordering_totals(result)
    # The short flows' tail (pFabric, CONGA and LetFlow report it): flows of at most 100 kB.
    short = np.array(
        [flow.size_packets * flow.packet_bytes <= SHORT_FLOW_BYTES for flow in built.flows]
    )
    short_fct = flow_completion_stats(result.flow_start_s[short], result.flow_finish_s[short])
    return {
        "mode": mode,
        "class": class_name,
        "transport": traffic.transport,
        "sack": sack,
        "flows": len(built.flows),
        "flows_finished": fct.count,
        "goodput_gbps": round(result.goodput_bps / 1e9, 2),
        "fct_p50_us": round(fct.p50_s * 1e6, 1) if fct.count else None,
        "fct_p99_us": round(fct.p99_s * 1e6, 1) if fct.count else None,
        "short_fct_p99_us": round(short_fct.p99_s * 1e6, 1) if short_fct.count else None,
        **reordering,
        "drops": result.counters["drops"],
        "timeouts": result.counters["timeouts"],
        "loop_cpu_s": round(result.cpu_seconds, 2),
    }


COLUMNS = (
    ("mode", "mode"),
    ("goodput_gbps", "goodput Gb/s"),
    ("flows_finished", "flows done"),
    ("fct_p50_us", "FCT p50 us"),
    ("fct_p99_us", "FCT p99 us"),
    ("short_fct_p99_us", "FCT p99 us, <= 100 kB"),
    ("ooo_packets", "ooo pkts"),
    ("retransmissions", "retx"),
    ("spurious_retransmissions", "spurious retx"),
    ("drops", "drops"),
)


def _table(rows: list[dict[str, object]]) -> str:
    lines = [
        "| receiver | " + " | ".join(title for _, title in COLUMNS) + " |",
        "|---|---|" + "---:|" * (len(COLUMNS) - 1),
    ]
    for row in rows:
        cells = [str(row["receiver"]), *(str(row[key]) for key, _ in COLUMNS)]
        cells[3] = f"{row['flows_finished']}/{row['flows']}"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    from qosforge.units import parse_time_s

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--duration", default="100ms", help="simulated time per run (default 100ms)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON, not a table")
    args = parser.parse_args(argv)
    duration_s = parse_time_s(args.duration)
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="qosforge-lb-") as folder:
        for label, class_name, sack, roce_transport in RECEIVERS:
            for mode in MODES:
                row = run_case(
                    Path(folder), mode, class_name, sack, duration_s, args.seed, roce_transport
                )
                rows.append({"receiver": label, **row})
                print(f"{label:16} {mode:8} {json.dumps(row)}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        cpu_s = sum(float(str(r["loop_cpu_s"])) for r in rows)
        print(
            f"all-to-all at {LOAD:.0%}, web-search sizes, {args.duration} simulated, "
            f"seed {args.seed}; CPU seconds of the event loops: {cpu_s:.1f}"
        )
        print(_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
