"""Measured: the simulated PFC deadlock (docs/deadlock.md "Simulated"), with its controls and the watchdog's cost.

Runs ``qosforge simulate INTENT --scenario deadlock`` in-process on roce-pod's fabric routed by
shortest paths (under its own eBGP the bounce is not installed: those failures cut the leaves
off, docs/deadlock.md "Routing models") with leaf1-spine1 and leaf2-spine2 down (the double
failure ``qosforge check deadlock --fail-links 2 --routing shortest-path`` reports first), the same line-rate traffic every time (the routes that close the graph's two
cycles, 16 flows per leaf pair), and prints one row per case:

* ``healthy`` and ``one failure`` (leaf1-spine1 only): the same flows on a fabric without the
  cycle, the controls: no deadlock expected;
* ``no watchdog``: the deadlock, and throughput once it has formed;
* ``watchdog 1 ms`` (tests/validation/fabrics/deadlock-pod.yaml, roce-pod with a 1 ms PFC
  watchdog): when it fired, how long until traffic flowed again, what it dropped;
* with ``--sonic-watchdog`` also roce-pod's own watchdog, SONiC's 200 ms (a 210 ms run: several
  minutes, and ~160 M packet times of its line-rate senders, more than ``simulate`` allows a run).

Columns: time to deadlock (the cycle's last link paused: from then on nothing crossed it), the
throughput before it, while deadlocked, and after the watchdog's recovery (mean Gb/s delivered to
all receivers), when the watchdog fired, the time to recovery (deadlock to the first observation
with traffic again), watchdog drops, and the event loop's wall and CPU seconds.

Usage: ``python bench/bench_deadlock_sim.py [--duration SECONDS] [--sonic-watchdog]``
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _usage import OneLineParser, positive_seconds

from qosforge.softswitch.helper.fabric import compile_fabric, failed_cable, with_failed_links
from qosforge.softswitch.helper.fabric_deadlock import (
    OBSERVATIONS,
    DeadlockSetup,
    deadlock_run,
    deadlock_summary,
    failed_fabric,
    replayed_delivery,
    watchdog_interval_s,
)
from qosforge.softswitch.helper.fabric_scenarios import fabric_traffic
from qosforge.softswitch.pfc_deadlock import DeadlockObserver
from qosforge.softswitch.simulation import simulate_fabric_observed

ROOT = Path(__file__).resolve().parents[1]
#: examples/roce-pod.yaml with ``topology.routing: {model: shortest-path}`` (written per run).
ROCE_POD = Path(tempfile.mkdtemp(prefix="bench-deadlock-")) / "roce-pod-shortest-path.yaml"
_NIC = "    host_nic: nvidia-connectx-6dx\n"
ROCE_POD.write_text((ROOT / "examples" / "roce-pod.yaml").read_text().replace(
    _NIC, _NIC + "  routing: {model: shortest-path}\n", 1))
WATCHDOG_POD = ROOT / "tests" / "validation" / "fabrics" / "deadlock-pod.yaml"
BOUNCE = ("leaf1-spine1", "leaf2-spine2")


def case(intent: Path, failed: tuple[str, ...], duration_s: float, watchdog: bool) -> dict[str, object]:
    """One run: the bounce's traffic on ``intent`` with ``failed`` links down."""
    fabric = compile_fabric(intent, ())
    bounce = failed_fabric(fabric, intent, BOUNCE)
    setup = DeadlockSetup(with_failed_links(fabric, tuple(failed_cable(fabric, name) for name in failed)), failed, bounce.predicted, bounce.pairs)
    traffic = fabric_traffic(setup.fabric, None, "cbr", None, lossless=True)
    built = deadlock_run(bounce, traffic, flows=None, duration_s=duration_s, seed=1, watchdog=watchdog)
    result, observations = simulate_fabric_observed(setup.fabric.configs, setup.fabric.topology, built.flows, built.run,
                                                    duration_s / OBSERVATIONS, DeadlockObserver(setup.fabric.topology))
    report = deadlock_summary(result, observations, setup, watchdog=watchdog, watchdog_s=watchdog_interval_s(setup.fabric, traffic),
                              packet_bytes=traffic.packet_bytes,
                              delivered_by=replayed_delivery(built, setup.fabric))
    return {**report, "wall_s": result.wall_seconds, "cpu_s": result.cpu_seconds}


def _ms(value: object) -> str:
    return "-" if value is None else f"{float(value) * 1e3:.3f}"  # type: ignore[arg-type]


def _gbps(value: object) -> str:
    return "-" if value is None else f"{float(value):.1f}"  # type: ignore[arg-type]


def main() -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--duration", type=positive_seconds, default=0.01, help="simulated seconds of the cases without the 200 ms watchdog")
    parser.add_argument("--sonic-watchdog", action="store_true")
    args = parser.parse_args()
    cases = [("healthy", ROCE_POD, (), args.duration, False), ("one failure", ROCE_POD, BOUNCE[:1], args.duration, False),
             ("no watchdog", ROCE_POD, BOUNCE, args.duration, False), ("watchdog 1 ms", WATCHDOG_POD, BOUNCE, args.duration, True)]
    if args.sonic_watchdog:
        cases.append(("watchdog 200 ms", ROCE_POD, BOUNCE, 0.21, True))
    print("| case | simulated ms | deadlock | cycles | time to deadlock ms | before Gb/s | deadlocked Gb/s | watchdog fired ms "
          "| time to recovery ms | after recovery Gb/s | watchdog drops | wall s | loop CPU s |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, intent, failed, duration_s, watchdog in cases:
        report = case(intent, failed, duration_s, watchdog)
        throughput = report["throughput_gbps"]
        dog = report["pfc_watchdog"]
        assert isinstance(throughput, dict) and isinstance(dog, dict)
        cycles = report.get("deadlock_cycles", [])
        assert isinstance(cycles, list)
        print(f"| {name} | {duration_s * 1e3:g} | {report['pfc_deadlock']} | {len(cycles)} | {_ms(report.get('time_to_deadlock_s'))} "
              f"| {_gbps(throughput['before_deadlock'])} | {_gbps(throughput['deadlocked'])} | {_ms(dog['fired_at_s'])} "
              f"| {_ms(dog['time_to_recovery_s'])} | {_gbps(throughput['after_recovery'])} | {dog['drops']:,} "
              f"| {report['wall_s']:.1f} | {report['cpu_s']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
