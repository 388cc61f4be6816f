"""Benchmark: ``qosforge compile`` of an explicit three-tier Clos, whole process, SONiC and SAI.

The intent comes from ``bench/clos_explicit.py`` (32 pods -> 1,000 switches, ~19,000 YAML lines;
64 pods -> 2,000; 160 pods -> 5,000; 320 pods -> 10,000, 190,012 lines), every switch and link
written out, so loading, port-range expansion and topology resolution are measured with the
backends. Each target runs as its own
``qosforge compile --target T`` process; reported: wall seconds, CPU seconds (user + system of the
child: on a shared machine the fairer figure), peak RSS, and per switch. Targets: each target
<= 15 s at 1,000 switches and linear to 5,000; at 10,000 SONiC <= 30 and SAI <= 40 CPU s, peak
RSS <= 1.5 GB (docs/sai.md). Usage: ``python bench/bench_clos.py [PODS ...]``
(default 32 160).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _usage import exit_with_usage_if_asked
from clos_explicit import clos_yaml, switch_count


def run(intent: Path, target: str, output: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one compile process."""
    qosforge = str(Path(sys.executable).with_name("qosforge"))
    start = time.perf_counter()
    child = subprocess.Popen([qosforge, "compile", str(intent), "--target", target, "-o", str(output), "--format", "json"], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own usage and peak RSS
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"qosforge compile --target {target} failed ({child.returncode})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    exit_with_usage_if_asked(__doc__, sys.argv[1:])
    pods_list = [int(a) for a in sys.argv[1:]] or [32, 160]
    print(f"| {'switches':>8} | {'YAML lines':>10} | target | {'wall s':>7} | {'CPU s':>6} | {'CPU ms/switch':>13} | {'peak RSS MiB':>12} |")
    print("|---------:|-----------:|--------|--------:|-------:|--------------:|-------------:|")
    for pods in pods_list:
        with tempfile.TemporaryDirectory() as folder:
            intent = Path(folder) / "clos.yaml"
            text = "".join(clos_yaml(pods))
            intent.write_text(text)
            switches = switch_count(pods)
            for target in ("sonic", "sai"):
                wall, cpu, rss = run(intent, target, Path(folder) / target)
                print(f"| {switches:>8} | {text.count(chr(10)):>10} | {target:<6} | {wall:>7.2f} | {cpu:>6.2f} | {1000 * cpu / switches:>13.2f} | {rss:>12.0f} |", flush=True)


if __name__ == "__main__":
    main()
