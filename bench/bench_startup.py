"""Start-up cost of light commands, and `simulate` as a whole process, vs the bare interpreter
(docs/softswitch-speed.md).

Runs each command as a whole process, interleaved with ``python -c pass`` from the same venv (paired
runs: both see the same machine load), and prints the median wall time and CPU time of each, its
least CPU time, its peak RSS and the wall-time ratio. Targets: ``qosforge --help`` <= 6x bare
python, ``lint`` of one small file <= 10x; the issue's dumbbell ``simulate`` (DCTCP, 10 flows, 10G,
100 us, K = 65 pkt, 0.3 s) <= 0.74 s wall, a tenth of ns-3 3.37's 7.4 s on the identical scenario
(``bench/ns3_compare.py``). CPU time (user + system of the child) is the figure to compare on a
shared machine: wall time there includes waiting for a core.

``simulate traffic``: ``simulate examples/dctcp-fig17.yaml`` (2 switches) with a traffic file of
its 40 flows, all started within the first 5 ms, for 10 ms; its compile read from a cache folder
the warm-up run filled (``QOSFORGE_CACHE_DIR``, qosforge/api/compile_cache.py). Target: the
whole process <= 0.6 CPU s (docs/speed.md).

Python's bytecode cache is on for the children even if this shell sets PYTHONDONTWRITEBYTECODE
(an installed package has its .pyc files; without them every run recompiles qosforge's sources).

    nice python bench/bench_startup.py [--runs 21] [--only simulate]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _usage import OneLineParser, positive_int, require_match

#: A small, valid SONiC config_db fragment for the lint case.
SMALL_CONFIG = {
    "PORT": {"Ethernet0": {"speed": "100000", "mtu": "9100", "admin_status": "up"}},
    "DSCP_TO_TC_MAP": {"AZURE": {str(dscp): "0" for dscp in range(64)}},
}

#: Ratio to the bare interpreter's wall time.
RATIO_TARGETS = {"--help": 6.0, "lint": 10.0}
#: Absolute wall time, seconds: 10x faster than ns-3 3.37 on the same dumbbell (7.4 s on a quiet machine).
WALL_TARGETS = {"simulate dumbbell": 0.74}
#: CPU seconds of the whole process: a short run pays for what it uses.
CPU_TARGETS = {"simulate traffic": 0.6}
ROOT = Path(__file__).resolve().parents[1]
DUMBBELL = ["simulate", "--scenario", "dumbbell", "--flows", "10", "--transport", "dctcp", "--speed", "10G", "--rtt", "100us",
            "--ecn-threshold", "65pkt", "--queue-limit", "1000pkt", "--duration", "0.3s", "--warmup", "0.1s", "--format", "json"]


def _time_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4 above
    if child.returncode != 0 and argv[1:] != ["--help"]:
        raise SystemExit(f"{' '.join(argv)} failed (exit {child.returncode}): not timed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _short_traffic(folder: Path) -> Path:
    """dctcp-fig17.traffic.yaml with every group started within 5 ms (a 10 ms run sends all 40)."""
    text = (ROOT / "examples" / "dctcp-fig17.traffic.yaml").read_text()
    text = text.replace("start_window: 1.05s", "start_window: 5ms").replace("start_window: 1.1s", "start_window: 5ms")
    text = text.replace("start: 50ms", "start: 1ms").replace("measure: 4s:5s\n", "")
    path = folder / "fig17-5ms.traffic.yaml"
    path.write_text(text)
    return path


def _verdict(name: str, median_wall: float, ratio: float, median_cpu: float = 0.0) -> str:
    if name in CPU_TARGETS:
        target = CPU_TARGETS[name]
        return f"<= {target:g} CPU s {'ok' if median_cpu <= target else 'MISSED'}"
    if name in RATIO_TARGETS:
        target = RATIO_TARGETS[name]
        return f"<= {target:g}x {'ok' if ratio <= target else 'MISSED'}"
    if name in WALL_TARGETS:
        target = WALL_TARGETS[name]
        return f"<= {target:g} s {'ok' if median_wall <= target else 'MISSED'}"
    return ""


def main() -> None:
    parser = OneLineParser(__doc__)
    parser.add_argument("--runs", type=positive_int, default=21, help="paired runs of each command (default 21)")
    parser.add_argument("--only", help="run only the cases whose name contains this")
    args = parser.parse_args()
    python = sys.executable
    qosforge = str(Path(python).with_name("qosforge"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as folder:
        env["QOSFORGE_CACHE_DIR"] = str(Path(folder) / "cache")  # warmed by the first run below
        config = Path(folder) / "config_db.json"
        config.write_text(json.dumps(SMALL_CONFIG))
        cases = {
            "--help": [qosforge, "--help"],
            "--version": [qosforge, "--version"],
            "profiles list": [qosforge, "profiles", "list"],
            "lint": [qosforge, "lint", str(config)],
            "simulate dumbbell": [qosforge, *DUMBBELL],
            "simulate traffic": [qosforge, "simulate", str(ROOT / "examples" / "dctcp-fig17.yaml"), "--traffic",
                                 str(_short_traffic(Path(folder))), "--duration", "10ms", "--format", "json"],
        }
        cases = {name: cases[name] for name in require_match(args.only, cases)}
        bare = [python, "-c", "pass"]
        for argv in [*cases.values(), bare]:  # warm the OS file cache and bytecode caches
            _time_once(argv, env)
        env_note = f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, {args.runs} paired runs"
        print(f"qosforge start-up vs `python -c pass` ({env_note})")
        print(f"{'command':<20}{'wall s':>9}{'CPU s':>8}{'min CPU':>9}{'RSS MiB':>9}{'bare s':>9}"
              f"{'ratio':>8}  target")
        for name, argv in cases.items():
            own, base = [], []
            for _ in range(args.runs):
                own.append(_time_once(argv, env))
                base.append(_time_once(bare, env))
            median_wall = statistics.median(w for w, _, _ in own)
            median_cpu = statistics.median(c for _, c, _ in own)
            least_cpu = min(c for _, c, _ in own)
            peak_rss = max(r for _, _, r in own)
            baseline = statistics.median(w for w, _, _ in base)
            ratio = median_wall / baseline
            verdict = _verdict(name, median_wall, ratio, median_cpu)
            print(f"{name:<20}{median_wall:>9.3f}{median_cpu:>8.3f}{least_cpu:>9.3f}"
                  f"{peak_rss:>9.1f}{baseline:>9.3f}{ratio:>7.1f}x  {verdict}")


if __name__ == "__main__":
    main()
