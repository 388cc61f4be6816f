"""Building an ns-3 program of bench/ns3/ against Debian's ns-3 3.37 (``apt-get install ns3
libns3-dev libgsl-dev``) and timing a child process, shared by the scripts that compare qosforge
with ns-3 (bench/ns3_compare.py, bench/bench_dctcp_fig17.py)."""

from __future__ import annotations

import resource
import shutil
import subprocess
import time
from pathlib import Path

from _usage import fail

NS3_MODULES = ("ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point", "ns3-applications", "ns3-traffic-control")


def build(source: Path) -> Path:
    """bench/ns3/build/<name>, compiled from ``source`` unless it is newer than the source and
    the headers beside it (bench/ns3/linux_host.h, which the programs share)."""
    binary = source.parent / "build" / source.stem
    newest = max(path.stat().st_mtime for path in (source, *source.parent.glob("*.h")))
    if binary.exists() and binary.stat().st_mtime > newest:
        return binary
    if shutil.which("pkg-config") is None or subprocess.run(["pkg-config", "--exists", *NS3_MODULES]).returncode != 0:
        fail("ns-3 is not installed: apt-get install ns3 libns3-dev libgsl-dev")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", *NS3_MODULES], capture_output=True, text=True, check=True).stdout.split()
    binary.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["g++", "-O2", "-std=c++17", str(source), "-o", str(binary), *flags], check=True)
    return binary


def timed(argv: list[str]) -> tuple[str, float, float]:
    """stdout, wall seconds and CPU seconds (user + system) of one child process; a failing child
    is a one-line error naming it and its last line of stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        fail(f"{Path(argv[0]).name} exited {done.returncode}: {last}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done.stdout, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


__all__ = ["NS3_MODULES", "build", "timed"]
