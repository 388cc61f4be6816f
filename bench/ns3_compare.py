"""qosforge's software switch against ns-3 on the same dumbbell scenarios (outside the test suite).

Builds bench/ns3/dumbbell.cc against Debian's ns-3 (``apt-get install ns3 libns3-dev libgsl-dev``;
3.37), then runs both simulators on each scenario as whole processes and prints one table:
queue mean / p99 (packets, sampled every 10 us after the warm-up), goodput (application payload,
Gb/s), CE marks and drops after the warm-up, and wall and CPU seconds of the whole process. The
docs/softswitch-validation.md table is this script's output.

Both simulators' receivers delay ACKs (one per two segments). ns-3 is run as the Linux hosts
qosforge models with five named changes (``MATCH_LINUX``): ``--delAckTimeoutMs=40`` (Linux's
TCP_DELACK_MIN; ns-3's DelAckTimeout is 200 ms), ``--reno=linux`` (ns-3's TcpLinuxReno for
newreno and tcp-ecn: congestion avoidance adds one segment per window of segments ACKed, as
Linux's tcp_cong_avoid_ai and RFC 3465 do; ns-3's TcpNewReno adds MSS^2/cwnd per ACK, half as fast
under delayed ACKs), ``--linuxWindow=true`` (DCTCP's window on Linux's arithmetic, as
qosforge's engine/window.py keeps it: the congestion-avoidance count zeroed when a reduction
starts, tcp_init_cwnd_reduction, where ns-3's TcpLinuxReno keeps it across the cut; the cut
rounded down to whole packets, tcp_dctcp.c dctcp_ssthresh, where ns-3's TcpDctcp cuts bytes;
alpha updated before the cut on one ACK, as tcp_ack orders them, where ns-3 cuts first;
bench/ns3/linux_host.h) and ``--tlp=true`` (Linux's tail loss probe, RFC 8985 §7, where ns-3
3.37 has none: a lone outstanding segment the receiver holds for its delayed ACK is probed with
a new segment when the retransmission timer would fire, as Linux and qosforge's engine/window.py do, instead of timing
out to a window of one that ns-3 then never grows; bench/ns3/linux_host.h TcpSocketLinuxProbe)
and ``--linuxReceiver=true`` (Linux's receiver: a segment that changes the CE state is ACKed at
once, tcp_dctcp.h dctcp_ece_ack_update, where ns-3's TcpDctcp ACKs only the segments held before
it; quick ACKs for a connection's first 16 segments and the 16 after a duplicate,
tcp_incr_quickack / tcp_enter_quickack_mode; as qosforge's engine/window.py _delayed_ack).
Its wire is qosforge's (``MODELLED_WIRE``): ``--ethernet=true`` (every frame takes Ethernet's
line time, 36 B more than ns-3's PPP frame, so a 1,500 B datagram occupies 1,538 B of line time
on both sides) and ``--accessSkewNs=1`` (sender i's cable i ns longer, so packets of different
senders never tie at the same nanosecond, which ns-3 would order by scheduling order into trains
of one sender's packets; docs/dctcp-ce-marks.md). ``--stock`` adds ns-3's run with its own
defaults (ns-3's DCTCP and NewReno, PPP framing, equal cables) beside each.

``--write-referee FILE`` records ns-3's rows (with the argv that produced them) for the scenarios
run; ``--referee FILE`` takes ns-3's rows from such a file instead of running ns-3 (the CI fixture
tests/bench/fixtures/dumbbell_ns3.json, held by tests/bench/test_dumbbell_referee.py);
``--format json`` prints every row as JSON. Rows a file already holds for scenarios not run are
kept, so ``--only NAME --write-referee FILE`` records one new scenario alone. ``--beyond`` runs
the DCTCP experiments beyond the recorded rows (``BEYOND``: 2 to 64 flows, 40G and 100G, K from
8 to 200 packets, a 1 ms RTT, round trips 1:10, jumbo frames, flows joining) instead; its table
is in docs/dctcp-ce-marks.md.

Usage: ``python bench/ns3_compare.py [--duration 0.3] [--only dctcp] [--beyond] [--stock]
[--referee FILE] [--write-referee FILE] [--format table|json]``.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _ns3 import build, timed
from _usage import OneLineParser, fail

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "ns3" / "dumbbell.cc"
#: The ns-3 flags that make its hosts the Linux hosts qosforge models (module doc).
MATCH_LINUX = ("--delAckTimeoutMs=40", "--reno=linux", "--linuxWindow=true", "--tlp=true",
               "--linuxReceiver=true")
#: The ns-3 flags that make its wire qosforge's: Ethernet's line time per frame, no exact ties
#: between senders (module doc; bench/ns3/dumbbell.cc's header says how each is modelled).
MODELLED_WIRE = ("--ethernet=true", "--accessSkewNs=1")
#: TCP/IP headers of a data packet in both simulators: IPv4 20 B + TCP 20 B + timestamps 12 B
#: (qosforge's traffic/spec.py HEADER_BYTES; dumbbell.cc --segment is the rest of the datagram).
SEGMENT_HEADER_BYTES = 52
#: TCP payload per segment of a 1,500 B datagram, the dumbbell's packets unless a scenario says.
SEGMENT_BYTES = 1500 - SEGMENT_HEADER_BYTES


@dataclass(frozen=True)
class Scenario:
    name: str
    transport: str
    k_packets: int  # 0 = tail drop
    ns3_sack: bool = True
    flows: int = 10
    buffer_packets: int = 1000
    bandwidth_gbps: int = 10
    rtt_us: int = 100
    flows2: int = 0  # the last flows2 flows have base RTT rtt2_us (two round trips share the port)
    rtt2_us: int = 0
    # Shorter runs for the fast ports (ns-3's CPU time grows with the packets simulated); None:
    # --duration / --warmup.
    duration_s: float | None = None
    warmup_s: float | None = None
    packet_bytes: int = 1500  # the IP datagram of a full segment (9000: jumbo frames)
    joiners: int = 0  # the last joiners flows join one after another, the k-th at k * join_spacing_us
    join_spacing_us: float = 0.0

    def window(self, duration: float, warmup: float) -> tuple[float, float]:
        """The run's duration and warm-up in seconds: the scenario's own, else the flags'."""
        return (self.duration_s if self.duration_s is not None else duration,
                self.warmup_s if self.warmup_s is not None else warmup)

    @property
    def segment_bytes(self) -> int:
        return self.packet_bytes - (SEGMENT_HEADER_BYTES)

    @property
    def in_process(self) -> bool:
        """Whether qosforge's side needs a dumbbell the CLI's flags cannot state."""
        return bool(self.flows2 or self.joiners)


SCENARIOS = (
    Scenario("dctcp K=65", "dctcp", 65),
    Scenario("tcp-ecn K=65", "tcp-ecn", 65),
    Scenario("newreno tail-drop", "newreno", 0),
    Scenario("cubic tail-drop", "cubic", 0),
    Scenario("newreno tail-drop, ns-3 without SACK", "newreno", 0, ns3_sack=False),
    # Tuned on by neither simulator: 20 flows into a 25G port, K = 30 packets, 60 us RTT.
    Scenario("dctcp 25G K=30 20 flows", "dctcp", 30, flows=20, bandwidth_gbps=25, rtt_us=60),
    # Two round trips on one port, as at the DCTCP Fig. 17 ports (docs/dctcp-ce-marks.md).
    Scenario("dctcp 1G K=20 4x60us+4x300us", "dctcp", 20, flows=8, bandwidth_gbps=1, rtt_us=60,
             flows2=4, rtt2_us=300),
    Scenario("dctcp 10G K=65 4x60us+4x300us", "dctcp", 65, flows=8, bandwidth_gbps=10, rtt_us=60,
             flows2=4, rtt2_us=300),
    # Few flows under a deep step (K 30 times the 40 us BDP): windows of ~27 packets, the queue
    # held above K for whole packet trains (docs/dctcp-ce-marks.md).
    Scenario("dctcp 1G K=100 4 flows", "dctcp", 100, flows=4, bandwidth_gbps=1, rtt_us=40),
    # Four of the experiments beyond these (BEYOND, below; docs/dctcp-ce-marks.md), held in CI:
    # a step below DCTCP §3.4's guideline, a 1 ms round trip, jumbo frames, flows joining.
    Scenario("dctcp 10G K=8", "dctcp", 8),
    Scenario("dctcp 10G K=120 RTT 1ms", "dctcp", 120, rtt_us=1000),
    # Jumbo frames (9,000 B datagrams; K and the queue in jumbo packets): 4 flows, BDP 14 packets.
    Scenario("dctcp 10G K=10 jumbo 4 flows", "dctcp", 10, flows=4, packet_bytes=9000),
    # 4 flows, then 4 more joining 30 ms apart, measured from 20 ms: each newcomer's slow start
    # into a marking queue and the shares' convergence are in the window. (Two or more flows
    # start together: a lone flow on links of one rate meets no queue, and its window runs away
    # into the sender's buffers; bench/ns3/dumbbell.cc --joiners.)
    Scenario("dctcp 4 flows + 4 joining 30ms apart", "dctcp", 65, flows=8, joiners=4,
             join_spacing_us=30000, warmup_s=0.02),
)

#: DCTCP dumbbells beyond the recorded rows, chosen to span what operators run and where models
#: break (``--beyond``; docs/dctcp-ce-marks.md "Experiments beyond the recorded rows"; four more
#: of them are recorded above: K = 8, below the guideline's 12 packets at 10G and 100 us, and
#: K = 120 at a 1 ms RTT, 833 packets of BDP). K for the fast ports follows DCTCP §3.4's
#: guideline K > C * RTT / 7 (in packets: 40G at 100 us, 333 packets of BDP, K = 48; 100G at
#: 50 us, 417, K = 60).
BEYOND = (
    Scenario("dctcp 2 flows", "dctcp", 65, flows=2),
    Scenario("dctcp 32 flows", "dctcp", 65, flows=32),
    # (83 packets of BDP + K) / 64 flows: about 2.3 packets each, near the 2-packet floor.
    Scenario("dctcp 64 flows", "dctcp", 65, flows=64),
    Scenario("dctcp 40G K=48", "dctcp", 48, bandwidth_gbps=40, duration_s=0.15, warmup_s=0.05),
    Scenario("dctcp 100G K=60 RTT 50us", "dctcp", 60, bandwidth_gbps=100, rtt_us=50,
             duration_s=0.07, warmup_s=0.02),
    Scenario("dctcp 10G K=200", "dctcp", 200),
    Scenario("dctcp 10G K=65 4x50us+4x500us", "dctcp", 65, flows=8, rtt_us=50, flows2=4, rtt2_us=500),
)


def marks_per_packet(row: dict[str, Any], measured_s: float, segment_bytes: int = SEGMENT_BYTES) -> float:
    """CE marks per payload packet delivered in the measured window. With ``MODELLED_WIRE`` both
    simulators' frames take 1,538 B of line time and this tracks the raw count; ns-3's stock
    point-to-point frames take 1,502 B, 1538/1502 as many packets a second, and per packet the
    stock row compares without that difference."""
    packets = row["goodput"] * 1e9 * measured_s / 8.0 / segment_bytes
    return float(row["marks"]) / packets if packets else 0.0


def _in_process_report(s: Scenario, duration: float, warmup: float) -> dict[str, Any]:
    """The JSON report of ``qosforge simulate --scenario dumbbell`` for a scenario the CLI's flags
    cannot state (flows of two round trips: softswitch/helper/single_switch.py's
    ``flows2``/``rtt2_s``; flows joining one after another: the joiners' ``start_s``), built as
    the CLI builds its dumbbell and run in this process."""
    from dataclasses import replace

    from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
    from qosforge.softswitch.metrics import summary
    from qosforge.softswitch.simulation import simulate

    packet = s.packet_bytes
    spec = DumbbellSpec(flows=s.flows, transport=s.transport, bandwidth_bps=s.bandwidth_gbps * 1e9,  # type: ignore[arg-type]
                        rtt_s=s.rtt_us * 1e-6, buffer_bytes=s.buffer_packets * packet, packet_bytes=packet,
                        ecn_threshold_bytes=s.k_packets * packet if s.k_packets else None,
                        duration_s=duration, warmup_s=warmup, flows2=s.flows2, rtt2_s=s.rtt2_us * 1e-6)
    config, flows, run = dumbbell(spec)
    first_joiner = s.flows - s.joiners
    flows = tuple(flow if i < first_joiner else replace(flow, start_s=(i - first_joiner + 1) * s.join_spacing_us * 1e-6)
                  for i, flow in enumerate(flows))
    return summary(simulate(config, flows, run))


def run_qosforge(s: Scenario, duration: float, warmup: float) -> dict[str, float]:
    duration, warmup = s.window(duration, warmup)
    if s.in_process:
        before = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        report = _in_process_report(s, duration, warmup)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return _row(report, wall, cpu)
    qosforge = str(Path(sys.executable).with_name("qosforge"))
    argv = [qosforge, "simulate", "--scenario", "dumbbell", "--flows", str(s.flows),
            "--transport", s.transport, "--speed", f"{s.bandwidth_gbps}G",
            "--rtt", f"{s.rtt_us}us", "--packet", f"{s.packet_bytes}B",
            "--queue-limit", f"{s.buffer_packets}pkt", "--duration", f"{duration}s",
            "--warmup", f"{warmup}s", "--format", "json"]
    if s.k_packets:
        argv += ["--ecn-threshold", f"{s.k_packets}pkt"]
    out, wall, cpu = timed(argv)
    return _row(json.loads(out), wall, cpu)


def _row(report: dict[str, Any], wall: float, cpu: float) -> dict[str, float]:
    enqueued = report["packets_forwarded"]
    return {"queue_mean": report["queue_mean_packets"], "queue_p99": report["queue_p99_packets"], "goodput": report["goodput_gbps"],
            "marks": round(report["mark_fraction"] * enqueued), "drops": report["drops"], "wall": wall, "cpu": cpu,
            "loop": report["wall_seconds"]}


def ns3_argv(s: Scenario, duration: float, warmup: float, *, stock: bool = False) -> list[str]:
    duration, warmup = s.window(duration, warmup)
    argv = [f"--transport={s.transport}", f"--flows={s.flows}",
            f"--bandwidth={s.bandwidth_gbps}Gbps",
            f"--rttUs={s.rtt_us}", f"--k={s.k_packets}",
            f"--buffer={s.buffer_packets}", f"--duration={duration}", f"--warmup={warmup}", f"--sack={'true' if s.ns3_sack else 'false'}"]
    if s.flows2:
        argv += [f"--flows2={s.flows2}", f"--rttUs2={s.rtt2_us}"]
    if s.packet_bytes != 1500:
        argv += [f"--mtu={s.packet_bytes}", f"--segment={s.segment_bytes}"]
    if s.joiners:
        argv += [f"--joiners={s.joiners}", f"--joinSpacingUs={s.join_spacing_us:g}"]
    return argv if stock else [*argv, *MATCH_LINUX, *MODELLED_WIRE]


def run_ns3(binary: Path, s: Scenario, duration: float, warmup: float, *,
            stock: bool = False) -> dict[str, Any]:
    """ns-3's row (no event-loop time: ``loop`` None) with the argv that produced it."""
    argv = ns3_argv(s, duration, warmup, stock=stock)
    out, wall, cpu = timed([str(binary), *argv])
    report = json.loads(out.strip().splitlines()[-1])
    return {"queue_mean": report["queue_mean_packets"], "queue_p99": report["queue_p99_packets"], "goodput": report["goodput_gbps"],
            "marks": report["marks"], "drops": report["drops"], "wall": wall, "cpu": cpu,
            "loop": None,
            "argv": argv}


def _recorded(path: Path) -> dict[str, Any]:
    try:
        rows: dict[str, Any] = json.loads(path.read_text())["scenarios"]
    except (OSError, ValueError, KeyError) as error:
        fail(f"--referee {path}: not a referee file written by --write-referee ({error})")
    return rows


def _write_referee(path: Path, results: dict[str, Any], only: str | None) -> None:
    """Record ns-3's rows of the scenarios run in ``path``; rows the file already holds for other
    scenarios of this script are kept, so one new scenario is recorded without re-running the
    others (the file's ``regenerate`` line then stays the one that records them all)."""
    kept: dict[str, Any] = {}
    regenerate = f"python bench/ns3_compare.py{f' --only {only!r}' if only else ''} --write-referee {path}"
    if path.exists():
        previous = json.loads(path.read_text())
        names = {s.name for s in (*SCENARIOS, *BEYOND)}
        kept = {name: row for name, row in previous.get("scenarios", {}).items()
                if name in names and name not in results}
        if kept:
            regenerate = previous.get("regenerate", regenerate)
    scenarios = {**kept, **{name: r["ns-3"] for name, r in results.items() if "ns-3" in r}}
    order = [s.name for s in (*SCENARIOS, *BEYOND)]
    path.write_text(json.dumps({
        "comment": "ns-3 3.37 (Debian libns3-dev) rows of bench/ns3/dumbbell.cc, the referee "
                   "of tests/bench/test_dumbbell_referee.py. Regenerate with the command "
                   "below (it runs ns-3).",
        "regenerate": regenerate,
        "scenarios": dict(sorted(scenarios.items(), key=lambda item: order.index(item[0]))),
    }, indent=2) + "\n")


def main() -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--duration", type=float, default=0.3)
    parser.add_argument("--warmup", type=float, default=0.1)
    parser.add_argument("--only", help="run the scenarios whose name contains this")
    parser.add_argument("--beyond", action="store_true",
                        help="run the DCTCP experiments beyond the recorded rows (BEYOND) instead")
    parser.add_argument("--stock", action="store_true", help="also run ns-3 with its own defaults")
    parser.add_argument("--referee", type=Path,
                        help="ns-3's rows recorded with --write-referee (skips ns-3)")
    parser.add_argument("--write-referee", type=Path,
                        help="record ns-3's rows for the scenarios run (keeping the file's others)")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    args = parser.parse_args()
    chosen = [s for s in (BEYOND if args.beyond else SCENARIOS) if not args.only or args.only in s.name]
    recorded = _recorded(args.referee) if args.referee is not None else {}
    if args.referee is not None:
        chosen = [s for s in chosen if s.name in recorded]
    if not chosen:
        where = f" recorded in {args.referee}" if args.referee else ""
        fail(f"--only {args.only!r} matches no scenario{where}")
    binary = build(SOURCE) if args.referee is None or args.stock else None
    table = args.format == "table"
    if table:
        print(f"dumbbell (10 flows, 10G, RTT 100 us, 1000-packet queue unless named), "
              f"{args.duration} s ({args.warmup} s warm-up) unless named; "
              f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
        header = (f"| {'scenario':<38} | {'simulator':<10} | {'queue mean':>10} | {'p99':>4} | "
                  f"{'goodput Gb/s':>12} | {'marks':>6} | {'marks/pkt':>9} | {'drops':>6} | "
                  f"{'wall s':>6} | {'CPU s':>6} | {'loop s':>6} |")
        print(header)
        print("|" + "|".join("-" * (len(cell)) for cell in header.split("|")[1:-1]) + "|")
    results: dict[str, Any] = {}
    for s in chosen:
        if s.name in recorded:
            ns3 = recorded[s.name]
            if ns3.get("argv") != ns3_argv(s, args.duration, args.warmup):
                fail(f"--referee {args.referee}: {s.name} was recorded with other ns-3 flags than "
                     f"{' '.join(ns3_argv(s, args.duration, args.warmup))}; regenerate it")
        else:
            assert binary is not None
            ns3 = run_ns3(binary, s, args.duration, args.warmup)
        rows = [("qosforge", run_qosforge(s, args.duration, args.warmup)), ("ns-3", ns3)]
        if args.stock:
            assert binary is not None
            rows.append(("ns-3 stock", run_ns3(binary, s, args.duration, args.warmup, stock=True)))
        if not s.ns3_sack:
            rows = rows[1:]
        duration, warmup = s.window(args.duration, args.warmup)
        measured_s = duration - warmup
        # What the rows' goodput and marks per packet are measured over (for the CI test).
        context = {"measured_s": measured_s, "segment_bytes": s.segment_bytes,
                   "bandwidth_gbps": s.bandwidth_gbps}
        results[s.name] = {simulator: {**r, **context} for simulator, r in rows}
        for simulator, r in rows:
            if not table:
                continue
            loop = "" if r["loop"] is None else f"{r['loop']:.2f}"
            per_packet = marks_per_packet(r, measured_s, s.segment_bytes)
            print(f"| {s.name:<38} | {simulator:<10} | {r['queue_mean']:>10.1f} | "
                  f"{r['queue_p99']:>4.0f} | {r['goodput']:>12.3f} | {r['marks']:>6} | "
                  f"{per_packet:>9.4f} | {r['drops']:>6} | {r['wall']:>6.2f} | {r['cpu']:>6.2f} | "
                  f"{loop:>6} |", flush=True)
    if args.write_referee is not None:
        recorded_rows = {name: {sim: {k: v for k, v in row.items() if k not in ("measured_s", "segment_bytes", "bandwidth_gbps")}
                                for sim, row in r.items()} for name, r in results.items()}
        _write_referee(args.write_referee, recorded_rows, args.only)
    if not table:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
