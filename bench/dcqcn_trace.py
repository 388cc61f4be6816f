"""Per-flow DCQCN state of a `simulate --traffic` run over time, read from the live engine.

`simulate --timeseries` writes the queues; this also reads each DCQCN sender's reaction-point
state (current rate R_C, target rate R_T, alpha, timer and byte-counter stages), the CNPs its
receiver sent (one change of the NP's last-CNP time per CNP: the NP sends at most one per flow
every 50 us, so a sample interval under that sees each), its delivered payload and one chosen
egress queue's depth and marks, every ``--sample`` of simulated time. The run is a segmented
run (softswitch/simulation.py), event for event the run `simulate` makes.

    python bench/dcqcn_trace.py examples/roce-pod.yaml examples/victims.traffic.yaml \
        --duration 8ms --port leaf4:Ethernet0 --queue 3 [--sample 10us] [--csv trace.csv]

Prints, per 0.5 ms, the aggregate delivered rate, the queue, the CNPs and each flow's mean R_C.
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _usage import OneLineParser, fail

from qosforge.api.scenarios.traffic import intent_fabric
from qosforge.errors import QosforgeError
from qosforge.files import check_output_file
from qosforge.models.dcqcn_host import DCQCN_CNP_INTERVAL_S as CNP_INTERVAL_S
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.helper.fabric import Fabric
from qosforge.softswitch.helper.traffic_report import Window, user_traffic_run, user_traffic_specs
from qosforge.softswitch.helper.user_traffic import user_traffic
from qosforge.softswitch.simulation import World, simulate_fabric_observed
from qosforge.softswitch.traffic.traffic_file import load_traffic
from qosforge.units import parse_time_s


@dataclass(frozen=True)
class Sample:
    time_s: float
    rate_bps: np.ndarray  # per flow: R_C on the wire, b/s
    target_bps: np.ndarray  # per flow: R_T
    alpha: np.ndarray
    timer_stage: np.ndarray
    byte_stage: np.ndarray
    last_cnp_s: np.ndarray  # the NP's last CNP time per flow
    payload_bytes: np.ndarray  # payload delivered so far per flow
    queue_bytes: float
    queue_marks: int


def engine_port(fabric: Fabric, name: str) -> int:
    """The engine port of ``switch:port``."""
    switch, _, port = name.partition(":")
    for index in range(len(fabric.ports)):
        ref = fabric.port_ref(index)
        if ref.switch == switch and ref.port == port:
            return index
    fail(f"--port: no port {name!r} in the fabric (e.g. leaf4:Ethernet0)")


def observer(port: int, queue: int):  # type: ignore[no-untyped-def]
    def observe(world: World, now: float) -> Sample:
        flf, fli = world[L.W_FLF], world[L.W_FLI]
        return Sample(
            time_s=now,
            rate_bps=flf[:, L.FF_RATE] * 8.0,
            target_bps=flf[:, L.FF_TARGET] * 8.0,
            alpha=flf[:, L.FF_DALPHA].copy(),
            timer_stage=flf[:, L.FF_TIMER_CNT].copy(),
            byte_stage=flf[:, L.FF_BYTE_CNT].copy(),
            last_cnp_s=flf[:, L.FF_LAST_CNP].copy(),
            payload_bytes=fli[:, L.FL_PAYLOAD_M].astype(float),
            queue_bytes=float(world[L.W_QI][port, queue, L.QI_BYTES]),
            queue_marks=int(world[L.W_MARK][port, queue].sum()),
        )

    return observe


def trace(
    intent: str,
    traffic_path: str,
    duration_s: float,
    sample_s: float,
    port_name: str,
    queue: int,
    seed: int = 1,
) -> tuple[list[Sample], int]:
    fabric = intent_fabric(Path(intent), (), {})
    traffic = user_traffic(fabric, load_traffic(Path(traffic_path)), seed=seed)
    window = Window(0.0, duration_s, sample_s)
    run = user_traffic_run(fabric, traffic, window, seed=seed)
    specs = user_traffic_specs(fabric, traffic)
    if not any(spec.kind == "dcqcn" for spec in specs):
        # R_C, R_T and alpha are a DCQCN reaction point's state: the engine leaves them 0 for
        # every other sender, and a trace of zeros would read as DCQCN flows sending nothing.
        kinds = ", ".join(sorted({spec.kind for spec in specs})) or "no flow in the run"
        fail(f"no flow of {traffic_path} runs DCQCN (its classes' transports: {kinds}): trace a "
             "traffic file with flows of a dcqcn class, e.g. examples/victims.traffic.yaml on "
             "examples/roce-pod.yaml")
    port = engine_port(fabric, port_name)
    if not 0 <= queue < len(fabric.ports[port].queues):
        fail(f"--queue: {port_name} has queues 0..{len(fabric.ports[port].queues) - 1}")
    _, samples = simulate_fabric_observed(
        fabric.configs, fabric.topology, specs, run, sample_s, observer(port, queue)
    )
    return samples, len(specs)


def _write_csv(path: Path, rows: list[tuple[Sample, np.ndarray]], flows: int) -> None:
    """One row per sample and flow, written to a temporary name and renamed (all or nothing)."""
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["time_s", "flow", "rate_bps", "target_bps", "alpha", "timer_stage",
                      "byte_stage", "cnps", "payload_bytes", "queue_bytes", "queue_marks"])
        for s, c in rows:
            for f in range(flows):
                out.writerow([s.time_s, f, s.rate_bps[f], s.target_bps[f], s.alpha[f],
                              s.timer_stage[f], s.byte_stage[f], c[f], s.payload_bytes[f],
                              s.queue_bytes, s.queue_marks])
    partial.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(__doc__ or "")
    parser.add_argument("intent")
    parser.add_argument("traffic")
    parser.add_argument("--duration", default="8ms")
    parser.add_argument("--sample", default="10us")
    parser.add_argument("--port", default="leaf4:Ethernet0")
    parser.add_argument("--queue", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--csv")
    args = parser.parse_args(argv)
    try:
        if args.csv:
            # Before the run: a path that cannot be written would fail only after it.
            check_output_file(Path(args.csv), flag="--csv", suffixes=(".csv",))
        duration, sample = parse_time_s(args.duration), parse_time_s(args.sample)
        if sample > CNP_INTERVAL_S:
            # A receiver sends at most one CNP per flow per interval: a longer sample step
            # could hide one behind the next.
            fail(f"--sample: at most {CNP_INTERVAL_S * 1e6:g} us, to see each CNP (e.g. 10us)")
        samples, flows = trace(
            args.intent, args.traffic, duration, sample, args.port, args.queue, args.seed
        )
    except QosforgeError as error:
        fail(str(error))
    cnps = np.zeros(flows, dtype=int)
    last = np.full(flows, -1.0)
    rows = []
    for s in samples:
        fresh = (s.last_cnp_s != last) & (s.last_cnp_s >= 0.0)
        cnps += fresh
        last = s.last_cnp_s
        rows.append((s, cnps.copy()))
    if args.csv:
        _write_csv(Path(args.csv), rows, flows)
    print("t_ms  goodput_Gbps  queue_kB  cnps  R_C per flow (Gb/s)")
    step = max(1, round(0.5e-3 / sample))
    previous = np.zeros(flows)
    previous_t = 0.0
    for i in range(step - 1, len(rows), step):
        s, c = rows[i]
        goodput = (s.payload_bytes - previous).sum() * 8.0 / (s.time_s - previous_t) / 1e9
        previous, previous_t = s.payload_bytes, s.time_s
        rates = " ".join(f"{r / 1e9:5.1f}" for r in s.rate_bps)
        print(
            f"{s.time_s * 1e3:4.1f}  {goodput:6.1f}  {s.queue_bytes / 1e3:8.1f}  "
            f"{int(c.sum()):4d}  {rates}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
