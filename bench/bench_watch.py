"""Benchmark: counters per second one ``qosforge watch`` client sustains against a 64-port switch.

A gNMI target on 127.0.0.1 (tests/deliver/counters_target.py, plaintext, in its own process) publishes a 64-port
switch's counters as fast as the client takes them (STREAM, sample_interval 1 ms): per port 8
queues x 6 queue statistics plus the periodic watermark, 8 PFC priorities x (RX, TX, RX pause),
4 port counters, 8 PGs x 2 watermarks and the watchdog's 2 fields on the lossless queue (SONiC
family, one JSON object per virtual path and sample, as sonic-gnmi sends them), or the same
switch's OpenConfig queue state, one leaf per notification (8 leaves x 8 queues x 64 ports).
The client is the real one: :func:`qosforge.deliver.watch.stream` decoding every notification
through the catalogue and folding the samples into an :class:`Observation`, as ``watch`` does.
Reported: counter values decoded and folded per second, per family, over ``--seconds``.

Usage: ``python bench/bench_watch.py [--seconds 10] [--ports 64]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "deliver"))


def sonic_state(ports: int) -> dict[tuple[str, ...], dict[str, Any]]:
    names = [f"Ethernet{4 * i}" for i in range(ports)]
    queues: dict[str, Any] = {}
    pgs: dict[str, Any] = {}
    port_stats: dict[str, Any] = {}
    pfcwd: dict[str, Any] = {}
    for p, name in enumerate(names):
        for q in range(8):
            queues[f"{name}:{q}"] = {"SAI_QUEUE_STAT_PACKETS": str(1000 + p), "SAI_QUEUE_STAT_BYTES": str(1500000 + p),
                                     "SAI_QUEUE_STAT_DROPPED_PACKETS": "0", "SAI_QUEUE_STAT_DROPPED_BYTES": "0",
                                     "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": str(1000 * q), "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "5"}
            queues[f"{name}:{q}:periodic"] = {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": str(2000 * q)}
            pgs[f"{name}:{q}"] = {"SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES": "0",
                                  "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES": str(100 * q)}
        stats = {f"SAI_PORT_STAT_PFC_{i}_{d}": str(i) for i in range(8) for d in ("RX_PKTS", "TX_PKTS", "RX_PAUSE_DURATION_US")}
        stats.update({"SAI_PORT_STAT_IF_IN_DISCARDS": "0", "SAI_PORT_STAT_IF_OUT_DISCARDS": "0",
                      "SAI_PORT_STAT_PAUSE_RX_PKTS": "0", "SAI_PORT_STAT_PAUSE_TX_PKTS": "0"})
        port_stats[name] = stats
        pfcwd[f"{name}:3"] = {"PFC_WD_STATUS": "operational", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "0"}
    return {("COUNTERS", "Ethernet*", "Queues"): queues, ("COUNTERS", "Ethernet*"): port_stats,
            ("COUNTERS", "Ethernet*", "Pfcwd"): pfcwd, ("PERIODIC_WATERMARKS", "Ethernet*", "PriorityGroups"): pgs}


def openconfig_leaves(ports: int) -> list[Any]:
    leaves = []
    for i in range(ports):
        for q in range(8):
            for leaf in ("max-queue-len", "avg-queue-len", "transmit-pkts", "transmit-octets", "dropped-pkts", "dropped-octets",
                         "ecn-marked-pkts", "ecn-marked-octets"):
                leaves.append(((("qos", {}), ("interfaces", {}), ("interface", {"interface-id": f"Ethernet{4 * i}"}), ("output", {}),
                                ("queues", {}), ("queue", {"name": f"q{q}"}), ("state", {}), (leaf, {})), 1000 + q))
    return leaves


def serve(family: str, ports: int) -> None:
    """The target, in its own process (so it does not share the client's interpreter lock)."""
    from counters_target import CounterState, serve_counters

    state = CounterState(queue_ids={f"q{q}": q for q in range(8)})
    if family == "sonic":
        state.sonic, state.serve_openconfig = sonic_state(ports), False
    else:
        state.openconfig, state.serve_sonic = openconfig_leaves(ports), False
    _server, port = serve_counters(state)
    print(port, flush=True)
    time.sleep(3600)


def run(family: str, ports: int, seconds: float) -> dict[str, float]:
    import subprocess

    from qosforge.deliver.devices import Device, GnmiConnection
    from qosforge.deliver.gnmi import GnmiSession
    from qosforge.deliver.watch import families, stream
    from qosforge.lint.watch.observation import Observation

    server = subprocess.Popen([sys.executable, __file__, "--serve", family, "--ports", str(ports)], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    port = int(server.stdout.readline())
    observation = Observation("bench")
    counted = [0]
    stop = threading.Event()

    def deliver(samples: list[Any]) -> None:
        observation.add(samples)
        counted[0] += len(samples)

    device = Device("bench", "127.0.0.1", port, GnmiConnection(insecure=True))
    try:
        with GnmiSession(device, None) as session:
            states = families(session, (family,))
            timer = threading.Timer(seconds, stop.set)
            started = time.perf_counter()
            timer.start()
            stream(session, states, 0.001, deliver, stop)
            elapsed = time.perf_counter() - started
    finally:
        server.kill()
        server.wait()
    return {"family": family, "ports": ports, "seconds": round(elapsed, 2), "counters": counted[0],
            "counters_per_s": round(counted[0] / elapsed), "distinct_counters": len(observation.series)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--ports", type=int, default=64)
    parser.add_argument("--serve", choices=("sonic", "openconfig"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.ports)
        return
    for family in ("sonic", "openconfig"):
        print(json.dumps(run(family, args.ports, args.seconds)))


if __name__ == "__main__":
    main()
