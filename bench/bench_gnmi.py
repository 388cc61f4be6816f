"""Benchmark: the software switch as a gNMI device (``simulate --serve-gnmi``, softswitch/device/).

Switch: a 64-port leaf (60 hosts + 4 spine uplinks, Mellanox Spectrum-2 at 100G, DCTCP storage
class with step ECN marking and a TCP bulk class), compiled for SAI and loaded. Traffic, open-loop
as bench/bench_softswitch.py: every port sends Poisson traffic at 60 % of line rate spread over
four other ports (storage and bulk), plus a 63-port incast onto port 0 each simulated
millisecond, so queues build, mark and drop.

Figures:

1. **event rate while serving**: packet events per wall second of the whole run, the same
   scenario run once without serving (SegmentedRun in one call) and once served over gNMI in
   segments with a subscriber (a separate process: STREAM, SAMPLE every ``--interval``, default
   1 s, of every published counter) reading it throughout;
2. **counters per second one Subscribe stream sustains**: a subscriber process with one STREAM
   of every published counter of the 64-port switch at the shortest SAMPLE interval the target
   honours (10 ms), counted at the client for ``--seconds`` (default 10) of wall time, while the
   simulation runs (it competes for the GIL) and once it has ended (serving alone).

Usage: ``nice python bench/bench_gnmi.py [--duration SIMULATED_SECONDS] [--interval SECONDS] [--seconds SECONDS]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _usage import OneLineParser, positive_seconds

INTENT = """\
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: bench-gnmi}
topology:
  leaf_spine:
    spines: 4
    leaves: 2
    hosts_per_leaf: 60
    host_link: {speed: 100G, cable: 3m}
    fabric_link: {speed: 100G, cable: 10m}
    link_latency: 2us
    leaf_profile: mellanox-spectrum-2
classes:
  - {name: storage, transport: dctcp, dscp: [10, 12], weight: 40}
  - {name: bulk, transport: tcp, dscp: [8], weight: 20}
approximations: [pools-out-of-band]
targets: [openconfig, sai]
"""
PACKET_BYTES = 1500
LOAD = 0.6

SUBSCRIBER = r"""
import json, sys, time, grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc
address, interval_s, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
stub = gnmi_pb2_grpc.gNMIStub(grpc.insecure_channel(address))
paths = [gnmi_pb2.Path(origin="openconfig"), gnmi_pb2.Path(target="COUNTERS_DB")]
request = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(mode=gnmi_pb2.SubscriptionList.STREAM, encoding=gnmi_pb2.PROTO,
    subscription=[gnmi_pb2.Subscription(path=p, mode=gnmi_pb2.SAMPLE, sample_interval=int(interval_s * 1e9)) for p in paths]))
notifications = updates = 0
began = None
call = stub.Subscribe(iter([request]), timeout=seconds + 60)
for response in call:
    if response.sync_response:
        began = time.monotonic()
        notifications = updates = 0
        continue
    if began is None:
        continue
    notifications += 1
    updates += len(response.update.update)
    if time.monotonic() - began >= seconds:
        call.cancel()
        break
elapsed = time.monotonic() - began
print(json.dumps({"notifications": notifications, "updates": updates, "seconds": elapsed}))
"""


def scenario(duration_s: float) -> tuple[Any, Any]:
    """(Scenario, the switch's IR)."""
    from qosforge.softswitch.device.live import Scenario
    from qosforge.softswitch.engine.build import single_switch
    from qosforge.softswitch.helper.compiled import compile_for_softswitch
    from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench-gnmi.yaml"
        path.write_text(INTENT)
        switch = compile_for_softswitch(path, "leaf1", assume={"red.steps": "1024", "red.step_offset": "0"})
    config = switch.config
    storage = next(c for c in switch.ir.classes if c.name == "storage")
    bulk = next(c for c in switch.ir.classes if c.name == "bulk")
    ports = len(config.ports)
    line_pps = config.ports[0].speed_bps / 8.0 / PACKET_BYTES
    flows = []
    for src in range(ports):
        for k, dscp in enumerate((storage.dscp[0], bulk.dscp[0], storage.dscp[0], bulk.dscp[0])):
            dst = (src + 1 + 7 * k) % ports
            if dst == src:
                dst = (dst + 1) % ports
            flows.append(FlowSpec("poisson", src, dst, dscp, packet_bytes=PACKET_BYTES, rate_pps=LOAD * line_pps / 4, ect=True))
    for src in range(1, ports):
        flows += [FlowSpec("cbr", src, 0, storage.dscp[0], packet_bytes=PACKET_BYTES, rate_pps=line_pps, size_packets=64, start_s=t * 1e-3, ect=True)
                  for t in range(max(1, int(duration_s * 1e3)))]
    run = RunSpec(duration_s=duration_s, monitors=((0, config.ports[0].tc_to_queue[storage.traffic_class]),))
    return Scenario((config,), single_switch(ports), tuple(flows), run), switch.ir


def _subscriber(address: str, interval_s: float, seconds: float) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", SUBSCRIBER, address, str(interval_s), str(seconds)], stdout=subprocess.PIPE, text=True)


def plain(duration_s: float) -> dict[str, float]:
    from qosforge.softswitch.engine import layout as L
    from qosforge.softswitch.simulation import SegmentedRun

    built, _ = scenario(duration_s)
    began = time.perf_counter()
    run = SegmentedRun(built.configs, built.topology, built.flows, built.run)
    run.advance(duration_s)
    wall = time.perf_counter() - began
    events = int(run.world[L.W_CNT][L.C_PKT_EVENTS])
    return {"packet_events": events, "wall_s": wall, "loop_wall_s": run.wall_seconds, "per_wall_s": events / wall, "per_loop_s": events / run.wall_seconds}


def served(duration_s: float, interval_s: float) -> dict[str, float]:
    from qosforge.softswitch.device.serve import serve_simulation
    from qosforge.softswitch.engine import layout as L

    built, ir = scenario(duration_s)
    began = time.perf_counter()
    service = serve_simulation(built, (ir,), "127.0.0.1", 0, server_credentials=None, credentials=None)
    address = f"127.0.0.1:{service.endpoints[0].port}"
    client = _subscriber(address, interval_s, 3600.0)
    try:
        while not service.live.progress().done:
            time.sleep(0.05)
        wall = time.perf_counter() - began
    finally:
        client.terminate()
        client.wait()
    run = service.live._run
    events = int(run.world[L.W_CNT][L.C_PKT_EVENTS])
    counters = service.live.snapshot(service.endpoints[0].switch)[0].counter_count()
    service.stop()
    return {"packet_events": events, "wall_s": wall, "loop_wall_s": run.wall_seconds, "per_wall_s": events / wall,
            "per_loop_s": events / run.wall_seconds, "counters": counters}


def throughput(seconds: float, while_running: bool) -> dict[str, float]:
    from qosforge.softswitch.device.serve import serve_simulation

    built, ir = scenario(10.0 if while_running else 1e-4)
    service = serve_simulation(built, (ir,), "127.0.0.1", 0, server_credentials=None, credentials=None)
    if not while_running:
        while not service.live.progress().done:
            time.sleep(0.05)
    address = f"127.0.0.1:{service.endpoints[0].port}"
    client = _subscriber(address, 0.01, seconds)
    output, _ = client.communicate(timeout=seconds + 120)
    service.stop()
    row: dict[str, float] = json.loads(output.strip().splitlines()[-1])
    row["updates_per_s"] = row["updates"] / row["seconds"]
    row["notifications_per_s"] = row["notifications"] / row["seconds"]
    return row


def main(argv: list[str]) -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--duration", type=positive_seconds, default=2e-3, help="simulated seconds of the event-rate runs (default 0.002)")
    parser.add_argument("--interval", type=positive_seconds, default=1.0, help="the subscriber's SAMPLE interval during the served run (default 1 s)")
    parser.add_argument("--seconds", type=positive_seconds, default=10.0, help="wall seconds of each throughput measurement (default 10)")
    parser.add_argument("--one", choices=["plain", "served", "running", "idle"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        rows = {"plain": lambda: plain(args.duration), "served": lambda: served(args.duration, args.interval),
                "running": lambda: throughput(args.seconds, True), "idle": lambda: throughput(args.seconds, False)}
        print(json.dumps(rows[args.one]()))
        return

    def child(kind: str) -> dict[str, float]:
        command = [sys.executable, __file__, "--one", kind, "--duration", str(args.duration), "--interval", str(args.interval), "--seconds", str(args.seconds)]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        row: dict[str, float] = json.loads(output.strip().splitlines()[-1])
        return row

    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; 64-port switch, {args.duration * 1e3:g} ms simulated")
    plain_row, served_row = child("plain"), child("served")
    print(f"{'run':<28} {'packet events':>14} {'wall s':>8} {'events/wall s':>14} {'loop s':>8} {'events/loop s':>14}")
    for name, row in (("without serving", plain_row), (f"served, SAMPLE {args.interval:g} s", served_row)):
        print(f"{name:<28} {row['packet_events']:>14.0f} {row['wall_s']:>8.2f} {row['per_wall_s']:>14.0f} {row['loop_wall_s']:>8.2f} {row['per_loop_s']:>14.0f}")
    print(f"served / without: {served_row['per_wall_s'] / plain_row['per_wall_s']:.2f} (events per wall second); "
          f"{served_row['counters']:.0f} counters per snapshot")
    for kind, name in (("running", "while the simulation runs"), ("idle", "after the run ended")):
        row = child(kind)
        print(f"one Subscribe stream, SAMPLE 10 ms, {name}: {row['updates_per_s']:,.0f} counters/s "
              f"({row['notifications_per_s']:.1f} notifications/s over {row['seconds']:.1f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
