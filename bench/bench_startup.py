"""Start-up cost of light commands vs the bare interpreter (issue 14).

Runs each command as a whole process, interleaved with ``python -c pass`` from the same venv
(paired runs: both see the same machine load), and prints the median wall time of each and their
ratio. Targets: ``qosforge --help`` <= 6x bare python, ``lint`` of one small file <= 10x.

    nice python bench/bench_startup.py [--runs 21]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: A small, valid SONiC config_db fragment for the lint case.
SMALL_CONFIG = {
    "PORT": {"Ethernet0": {"speed": "100000", "mtu": "9100", "admin_status": "up"}},
    "DSCP_TO_TC_MAP": {"AZURE": {str(dscp): "0" for dscp in range(64)}},
}

TARGETS = {"--help": 6.0, "lint": 10.0}


def _time_once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    python = sys.executable
    qosforge = str(Path(python).with_name("qosforge"))
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config_db.json"
        config.write_text(json.dumps(SMALL_CONFIG))
        cases = {
            "--help": [qosforge, "--help"],
            "--version": [qosforge, "--version"],
            "profiles list": [qosforge, "profiles", "list"],
            "lint": [qosforge, "lint", str(config)],
        }
        bare = [python, "-c", "pass"]
        for argv in [*cases.values(), bare]:  # warm the OS file cache and bytecode caches
            _time_once(argv)
        env_note = f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.runs} paired runs"
        print(f"qosforge start-up vs `python -c pass` ({env_note})")
        print(f"{'command':<16}{'median s':>10}{'bare s':>10}{'ratio':>8}{'target':>8}")
        for name, argv in cases.items():
            own, base = [], []
            for _ in range(args.runs):
                own.append(_time_once(argv))
                base.append(_time_once(bare))
            median, baseline = statistics.median(own), statistics.median(base)
            ratio = median / baseline
            target = TARGETS.get(name)
            verdict = "" if target is None else f"<= {target:g}x {'ok' if ratio <= target else 'MISSED'}"
            print(f"{name:<16}{median:>10.3f}{baseline:>10.3f}{ratio:>7.1f}x  {verdict}")


if __name__ == "__main__":
    main()
