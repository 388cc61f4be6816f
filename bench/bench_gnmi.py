"""Benchmark: the software switch as a gNMI device (``simulate --serve-gnmi``, softswitch/device/).

Switch: bench/bench_softswitch.py's (``examples/tlt-softswitch.yaml`` compiled for SAI and loaded:
40G ports, 12 MB shared buffer, DCTCP+TLT class with WRED and color drop) with 64 ports: the SAI
backend binds a program to its switch layout's 32 unbroken ports (backends/sai/port_binding.py),
so ports 32-63 are copies of 0-31 under their own names. Traffic as bench_softswitch.py: every
port sends Poisson traffic at 90 % of line rate to four other ports, plus a 63-port incast onto
port 0 every simulated millisecond, so queues build, mark and drop. The served ``/qos`` is the
32-port compile's (the bench reads counters only).

Figures:

1. **event rate while serving**: packet events per wall second of the whole run, the same
   scenario run without serving (SegmentedRun in one call) and served over gNMI in segments with
   a subscriber reading it throughout (a separate process subscribing as ``qosforge watch`` does,
   SONiC family, STREAM SAMPLE every ``--interval``, default 1 s, subscribed before the run
   starts), alternating ``--repeat`` times (the machine's load is printed with each run: on a
   shared machine only ratios of neighbouring runs mean much), and per CPU second of the
   simulating process (the run's thread and the target's together; the subscriber's process,
   the client's machine in real use, is not counted), which load from other jobs moves less;
2. **counters per second one Subscribe stream sustains**: such a subscriber, one family per
   stream, at the shortest SAMPLE interval the target honours (10 ms), counting the counters it
   decodes (watch's decoder) for ``--seconds`` (default 10) of wall time, while the simulation
   runs (it competes for the GIL) and once it has ended (serving alone).

Usage: ``nice python bench/bench_gnmi.py [--duration SIMULATED_SECONDS] [--interval SECONDS] [--seconds SECONDS] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _usage import OneLineParser, positive_seconds

SUBSCRIBER = r"""
import json, sys, time
from qosforge.deliver import watch
from qosforge.deliver.devices import Device, GnmiConnection
from qosforge.deliver.gnmi import GnmiSession
address, family, interval_s, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
host, port = address.rsplit(":", 1)
session = GnmiSession(Device("bench", host, int(port), GnmiConnection(insecure=True, timeout_s=120.0)), None)
state = watch.families(session, (family,))[0]
call = session.subscribe(watch.subscribe_request(state, "STREAM", interval_s), seconds + 120)
notifications = counters = 0
began = None
for response in call:
    if response.sync_response:
        print("synced", flush=True)
        began = time.monotonic()
        notifications = counters = 0
        continue
    if began is None:
        continue
    notifications += 1
    counters += sum(1 for _ in watch.decode_notification(response.update, state))
    if time.monotonic() - began >= seconds:
        call.cancel()
        break
print(json.dumps({"notifications": notifications, "counters": counters, "seconds": time.monotonic() - began}))
"""


def scenario(duration_s: float) -> tuple[Any, Any]:
    """(Scenario, the switch's IR): bench_softswitch.py's switch and traffic on 64 ports."""
    from bench_softswitch import EXAMPLE, traffic

    from qosforge.softswitch.device.live import Scenario
    from qosforge.softswitch.engine.build import single_switch
    from qosforge.softswitch.helper.compiled import compile_for_softswitch

    switch = compile_for_softswitch(EXAMPLE, None)
    config = switch.config
    first = len(config.ports)
    # The SAI backend binds a program to its switch layout's unbroken ports (32 here), so the
    # second 32 are copies of the first with their own names: same speed, queues, maps and
    # profiles, one shared buffer.
    copies = tuple(replace(port, object_id=f"{port.object_id}:copy", name=f"Ethernet{(first + i) * 4}") for i, port in enumerate(config.ports))
    config = replace(config, ports=config.ports + copies)
    flows, run = traffic(switch.ir, config, duration_s)
    return Scenario((config,), single_switch(len(config.ports)), flows, run), switch.ir


def _subscriber(address: str, family: str, interval_s: float, seconds: float) -> subprocess.Popen[str]:
    """A process that subscribes as ``qosforge watch`` does (deliver/watch.py: its name-map Get,
    then its STREAM request of one family's catalogue paths) and counts the counters it decodes."""
    return subprocess.Popen([sys.executable, "-c", SUBSCRIBER, address, family, str(interval_s), str(seconds)], stdout=subprocess.PIPE, text=True)


def plain(duration_s: float) -> dict[str, float]:
    from qosforge.softswitch.engine import layout as L
    from qosforge.softswitch.simulation import SegmentedRun

    built, _ = scenario(duration_s)
    run = SegmentedRun(built.configs, built.topology, built.flows, built.run)
    began, cpu = time.perf_counter(), _cpu_s()
    run.advance(duration_s)
    wall, cpu = time.perf_counter() - began, _cpu_s() - cpu
    events = int(run.world[L.W_CNT][L.C_PKT_EVENTS])
    return {"packet_events": events, "wall_s": wall, "loop_wall_s": run.wall_seconds, "per_wall_s": events / wall, "per_loop_s": events / run.wall_seconds,
            "cpu_s": cpu, "per_cpu_s": events / cpu}


def _cpu_s() -> float:
    """CPU seconds of this process, all its threads (the run's and the target's)."""
    times = os.times()
    return times.user + times.system


def served(duration_s: float, interval_s: float) -> dict[str, float]:
    """The same run served, with a subscriber that has subscribed before the run starts (so
    its process start and first sync are not in the run's wall time, as a watch already
    connected to a switch when its traffic runs)."""
    from qosforge.softswitch.device.gnmi_target import serve
    from qosforge.softswitch.device.live import LiveSimulation
    from qosforge.softswitch.device.serve import device_for
    from qosforge.softswitch.engine import layout as L

    built, ir = scenario(duration_s)
    live = LiveSimulation(built)
    device = device_for(live, ir)
    server, port = serve(device, "127.0.0.1:0", server_credentials=None)
    client = _subscriber(f"127.0.0.1:{port}", "sonic", interval_s, 3600.0)
    try:
        assert client.stdout is not None and client.stdout.readline().strip() == "synced", "the subscriber did not subscribe"
        cpu = _cpu_s()
        live.start()
        while not live.progress().done:
            time.sleep(0.01)
        # From the run's start (live.py: the wall time its timestamps count from), as the plain
        # run's wall time counts from its start.
        wall = time.time() - live.progress().start_wall_s
        cpu = _cpu_s() - cpu
    finally:
        client.terminate()
        client.wait()
    run = live._run
    events = int(run.world[L.W_CNT][L.C_PKT_EVENTS])
    counters = live.snapshot(device.switch)[0].counter_count()
    server.stop(grace=0.5).wait()
    live.stop()
    return {"packet_events": events, "wall_s": wall, "loop_wall_s": run.wall_seconds, "per_wall_s": events / wall,
            "per_loop_s": events / run.wall_seconds, "cpu_s": cpu, "per_cpu_s": events / cpu, "counters": counters}


def throughput(seconds: float, while_running: bool, family: str) -> dict[str, float]:
    from qosforge.softswitch.device.serve import serve_simulation

    # While running: 20 ms simulated takes far longer than the measurement at this machine's rate.
    built, ir = scenario(0.02 if while_running else 1e-4)
    service = serve_simulation(built, (ir,), "127.0.0.1", 0, server_credentials=None, credentials=None)
    if not while_running:
        while not service.live.progress().done:
            time.sleep(0.05)
    address = f"127.0.0.1:{service.endpoints[0].port}"
    client = _subscriber(address, family, 0.01, seconds)
    output, _ = client.communicate(timeout=seconds + 120)
    service.stop()
    row: dict[str, float] = json.loads(output.strip().splitlines()[-1])
    row["counters_per_s"] = row["counters"] / row["seconds"]
    row["notifications_per_s"] = row["notifications"] / row["seconds"]
    return row


def main(argv: list[str]) -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--duration", type=positive_seconds, default=2e-3, help="simulated seconds of the event-rate runs (default 0.002)")
    parser.add_argument("--interval", type=positive_seconds, default=1.0, help="the subscriber's SAMPLE interval during the served run (default 1 s)")
    parser.add_argument("--seconds", type=positive_seconds, default=10.0, help="wall seconds of each throughput measurement (default 10)")
    parser.add_argument("--repeat", type=int, default=2, help="plain and served runs, alternating, of each (default 2)")
    parser.add_argument("--one", choices=["plain", "served", "running-sonic", "running-openconfig", "idle-sonic", "idle-openconfig"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        rows = {"plain": lambda: plain(args.duration), "served": lambda: served(args.duration, args.interval),
                **{f"{when}-{family}": (lambda w=when, f=family: throughput(args.seconds, w == "running", f))
                   for when in ("running", "idle") for family in ("sonic", "openconfig")}}
        print(json.dumps(rows[args.one]()))
        return

    def child(kind: str) -> dict[str, float]:
        command = [sys.executable, __file__, "--one", kind, "--duration", str(args.duration), "--interval", str(args.interval), "--seconds", str(args.seconds)]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        row: dict[str, float] = json.loads(output.strip().splitlines()[-1])
        return row

    print(f"{os.cpu_count()} cores; 64-port switch, {args.duration * 1e3:g} ms simulated; runs alternate, {args.repeat} of each")
    print(f"{'run':<28} {'load':>5} {'packet events':>14} {'wall s':>8} {'events/wall s':>14} {'loop s':>8} {'events/loop s':>14} {'CPU s':>7} "
          f"{'events/CPU s':>13}")
    rates: dict[str, list[float]] = {"plain": [], "served": []}
    per_cpu: dict[str, list[float]] = {"plain": [], "served": []}
    counters = 0.0
    for _ in range(args.repeat):
        for kind in ("plain", "served"):
            load = os.getloadavg()[0]
            row = child(kind)
            rates[kind].append(row["per_wall_s"])
            per_cpu[kind].append(row["per_cpu_s"])
            counters = row.get("counters", counters)
            name = "without serving" if kind == "plain" else f"served, SAMPLE {args.interval:g} s"
            print(f"{name:<28} {load:>5.1f} {row['packet_events']:>14.0f} {row['wall_s']:>8.2f} {row['per_wall_s']:>14.0f} {row['loop_wall_s']:>8.2f} "
                  f"{row['per_loop_s']:>14.0f} {row['cpu_s']:>7.2f} {row['per_cpu_s']:>13.0f}", flush=True)
    ratios = [s / p for p, s in zip(rates["plain"], rates["served"], strict=True)]
    print(f"served / without (events per wall second), each pair: {', '.join(f'{r:.2f}' for r in ratios)}; "
          f"medians {statistics.median(rates['served']) / statistics.median(rates['plain']):.2f}; {counters:.0f} counters per snapshot")
    print(f"served / without (events per CPU second of the simulating process, run and target together): medians "
          f"{statistics.median(per_cpu['served']) / statistics.median(per_cpu['plain']):.2f}")
    for when, name in (("running", "while the simulation runs"), ("idle", "after the run ended")):
        for family in ("sonic", "openconfig"):
            row = child(f"{when}-{family}")
            print(f"one Subscribe stream ({family}, watch's paths), SAMPLE 10 ms, {name}: {row['counters_per_s']:,.0f} counters/s "
                  f"({row['notifications_per_s']:.1f} notifications/s over {row['seconds']:.1f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
