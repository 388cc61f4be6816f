"""Benchmark: ``qosforge compile`` of an explicit three-tier Clos, whole process, SONiC and SAI.

The intent comes from ``bench/clos_explicit.py`` (32 pods -> 1,000 switches, ~19,000 YAML lines;
64 pods -> 2,000; 160 pods -> 5,000; 320 pods -> 10,000, 190,012 lines), every switch and link
written out, so loading, port-range expansion and topology resolution are measured with the
backends. Each target runs as its own
``qosforge compile --target T`` process; reported: wall seconds, CPU seconds (user + system of the
child and of the rendering workers it forked: on a shared machine the fairer figure), peak RSS
of the largest process, the peak of the process tree's summed PSS (proportional set size, so the
pages the forked workers share with the parent count once: /proc/PID/smaps_rollup, sampled every
50 ms), and per switch. Targets: each target <= 15 s at 1,000 switches and linear to 5,000; at
10,000 SONiC <= 30 and SAI <= 40 CPU s on one core, peak RSS <= 1.5 GB, and with every core
<= 30 s wall (docs/sai.md, docs/speed.md). ``--workers N`` is passed to ``compile`` (default 1:
one process; 0: compile's default, every core). Usage:
``python bench/bench_clos.py [--workers N] [PODS ...]``
(default 32 160).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _usage import exit_with_usage_if_asked, fail
from clos_explicit import clos_yaml, switch_count


def _children(pid: int) -> list[int]:
    """``pid``'s child processes (Linux: /proc/PID/task/TID/children, one file per thread)."""
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found.extend(int(text) for text in (task / "children").read_text().split())
    except OSError:
        pass
    return found


def _tree_pss_kib(root: int) -> int:
    """Summed PSS of ``root`` and its descendants (0 for what has already exited)."""
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(_children(pid))
        try:
            total += next(int(line.split()[1]) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines() if line.startswith("Pss:"))
        except (OSError, StopIteration):
            pass
    return total


def run(intent: Path, target: str, output: Path, workers: int) -> tuple[float, float, float, float]:
    """(wall s, CPU s of the process tree, peak RSS MiB of its largest process, peak summed PSS
    MiB) of one compile process."""
    qosforge = str(Path(sys.executable).with_name("qosforge"))
    command = [qosforge, "compile", str(intent), "--target", target, "-o", str(output), "--format", "json"]
    start = time.perf_counter()
    child = subprocess.Popen([*command, *(["--workers", str(workers)] if workers else [])], stdout=subprocess.DEVNULL)
    peak_pss = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            peak_pss[0] = max(peak_pss[0], _tree_pss_kib(child.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    if Path("/proc/self/smaps_rollup").exists():
        sampler.start()
    # The child's usage with its reaped children's (the rendering workers): CPU summed, RSS the largest.
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"qosforge compile --target {target} failed ({child.returncode})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, peak_pss[0] / 1024


def main() -> None:
    arguments = sys.argv[1:]
    workers = 1
    if "--workers" in arguments:
        at = arguments.index("--workers")
        value = arguments[at + 1] if at + 1 < len(arguments) else ""
        if not value.isdigit():
            fail(f"--workers {value!r}: give a whole number (0: compile's default, every core)")
        workers = int(value)
        del arguments[at:at + 2]
    exit_with_usage_if_asked(__doc__, arguments)
    if not all(a.isdigit() for a in arguments):
        fail(f"pods must be whole numbers (got {' '.join(arguments)}); see --help")
    pods_list = [int(a) for a in arguments] or [32, 160]
    print(f"compile --workers {workers or 'default (every core)'}")
    print(f"| {'switches':>8} | {'YAML lines':>10} | target | {'wall s':>7} | {'CPU s':>6} | {'CPU ms/switch':>13} | {'peak RSS MiB':>12} | {'peak PSS MiB':>12} |")
    print("|---------:|-----------:|--------|--------:|-------:|--------------:|-------------:|-------------:|")
    for pods in pods_list:
        with tempfile.TemporaryDirectory() as folder:
            intent = Path(folder) / "clos.yaml"
            text = "".join(clos_yaml(pods))
            intent.write_text(text)
            switches = switch_count(pods)
            for target in ("sonic", "sai"):
                wall, cpu, rss, pss = run(intent, target, Path(folder) / target, workers)
                print(f"| {switches:>8} | {text.count(chr(10)):>10} | {target:<6} | {wall:>7.2f} | {cpu:>6.2f} | {1000 * cpu / switches:>13.2f} | {rss:>12.0f} | {pss:>12.0f} |",
                      flush=True)


if __name__ == "__main__":
    main()
