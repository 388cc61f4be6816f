"""Benchmark: lint 1,000 config_db files of 64 ports each through the CLI, in one process (docs/lint.md).

The files are generated from a compiled fabric: a three-tier Clos intent (pods of 20 leaves and 4
spines, one super-spine per plane, N leaves in all with 60 hosts each, so every leaf has 64 100G
ports and every switch passes the port check; Spectrum-2; a lossless DCQCN class, DCTCP and TCP)
is compiled for one leaf and rendered by the SONiC backend, then written once per leaf as
``out/pod<p>-leaf<l>/config_db.json`` with a PORT and DEVICE_METADATA table added (a whole-file shape)
and per-file variation: each file gets its own DCTCP K, two ports get other cable lengths, and
every tenth file carries a deliberate mistake (a too-small xoff, an integer value, a SCHEDULER
priority), so the run reports findings like a real CI job would.

Then ``qosforge lint out/*/config_db.json --profile mellanox-spectrum-2 --intent fabric.yaml
--format json`` runs in a fresh subprocess (so peak RSS is the lint's own), once with every rule
and once without --profile/--intent, each with ``--jobs`` at its default (the cores) and with
``--jobs 1``. Reported: wall time, CPU seconds (the workers' included), ms per file, findings,
peak RSS (of the parent; each worker is a fork of it). Target: every rule, default
``--jobs``, under 20 s for 1,000 files on a 2-core machine. Start-up: ``qosforge lint`` on
one small file as a whole process next to ``python -c pass`` (target under 10x), and which heavy
modules the lint library loads (none of numba, matplotlib, scipy, numpy, pydantic, Jinja2 for a
config-only run). Usage: ``python bench/bench_lint.py [N]`` or ``python bench/bench_lint.py --startup``.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _usage import exit_with_usage_if_asked

INTENT = """apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: bench-lint}}
topology:
  clos:
    pods: {pods}
    leaves_per_pod: {leaves_per_pod}
    spines_per_pod: 4
    super_spines: 4
    hosts_per_leaf: 60
    host_link: {{speed: 100G, cable: 3m}}
    fabric_link: {{speed: 100G, cable: 40m}}
    link_latency: 1us
    leaf_profile: mellanox-spectrum-2
classes:
  - {{name: rdma, transport: dcqcn, dscp: [26], lossless: true, weight: 50}}
  - {{name: bulk, transport: dctcp, dscp: [10], weight: 30}}
  - {{name: legacy, transport: tcp, dscp: [0], weight: 20}}
design: {{congested_ports: 8, headroom_model: sonic}}
"""


def generate(folder: Path, files: int) -> tuple[Path, int]:
    """Write the intent and ``files`` leaf configs; returns (intent path, total bytes)."""
    from qosforge.backends.sonic import config_db_to_json, render_config_db
    from qosforge.compiler.clos import leaf_name
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent

    intent_path = folder / "fabric.yaml"
    # 20 leaves per pod (more when a super-spine would need over 64 ports, one per pod).
    leaves_per_pod = max(20, math.ceil(files / 64))
    pods = math.ceil(files / leaves_per_pod)
    intent_path.write_text(INTENT.format(pods=pods, leaves_per_pod=leaves_per_pod))
    intent, source_map = load_intent(intent_path)
    [leaf] = compile_intent(intent=intent, source_map=source_map, switches=(leaf_name(0, 0),)).switches
    base = json.loads(config_db_to_json(render_config_db(leaf)))
    ports = [port.name for port in leaf.ports]
    assert len(ports) == 64, len(ports)
    rng = random.Random(7)
    total = 0
    for index in range(1, files + 1):
        switch_name = leaf_name(*divmod(index - 1, leaves_per_pod))
        config = json.loads(json.dumps(base))
        config["DEVICE_METADATA"] = {"localhost": {"hostname": switch_name, "hwsku": "bench-sn3700"}}
        config["PORT"] = {name: {"admin_status": "up", "mtu": "9100", "speed": "100000"} for name in ports}
        for name in rng.sample(ports[:60], 2):  # host ports on longer cables (own headroom profile)
            config["CABLE_LENGTH"]["AZURE"][name] = f"{rng.choice([5, 10, 20])}m"
        wred = next(name for name in config["WRED_PROFILE"] if name.startswith("bulk"))
        k = str(rng.randrange(60_000, 200_000, 1500))
        config["WRED_PROFILE"][wred].update(green_min_threshold=k, green_max_threshold=k)
        if index % 10 == 0:
            profile = next(name for name in config["BUFFER_PROFILE"] if name.startswith("pg_lossless"))
            config["BUFFER_PROFILE"][profile]["xoff"] = "20480"
            config["SCHEDULER"][next(iter(config["SCHEDULER"]))]["priority"] = "1"
            config["BUFFER_POOL"]["egress_lossy_pool"]["size"] = int(config["BUFFER_POOL"]["egress_lossy_pool"]["size"])
        text = json.dumps(config, indent=2) + "\n"
        target = folder / "out" / switch_name / "config_db.json"
        target.parent.mkdir(parents=True)
        target.write_text(text)
        total += len(text)
    return intent_path, total


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the --jobs workers)."""
    return sum(usage.ru_utime + usage.ru_stime
               for usage in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))


def run_one(folder: Path, with_models: bool, jobs: int | None = None) -> dict[str, float]:
    from qosforge.cli import main

    files = sorted(str(p) for p in (folder / "out").glob("*/config_db.json"))
    argv = ["lint", *files, "--format", "json"]
    if with_models:
        argv += ["--profile", "mellanox-spectrum-2", "--intent", str(folder / "fabric.yaml")]
    if jobs is not None:
        argv += ["--jobs", str(jobs)]
    buffer = io.StringIO()
    before = _cpu_seconds()
    start = time.perf_counter()
    with contextlib.redirect_stdout(buffer):
        try:
            main(argv)
        except SystemExit as done:
            code = done.code
    elapsed = time.perf_counter() - start
    cpu = _cpu_seconds() - before
    summary = json.loads(buffer.getvalue())["summary"]
    return {
        "files": len(files),
        "exit_code": float(code or 0),
        "findings": summary["findings"],
        "errors": summary["errors"],
        "wall_s": round(elapsed, 2),
        "cpu_s": round(cpu, 2),
        "per_file_ms": round(1000 * elapsed / len(files), 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


#: Modules lint must not import for a config-only run (start-up: docs/lint.md).
HEAVY = ("numba", "matplotlib", "scipy", "numpy", "pydantic", "jinja2", "qosforge.softswitch", "qosforge.compiler")
_SMALL = {"DSCP_TO_TC_MAP": {"AZURE": {str(d): "0" for d in range(64)}},
          "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE"}}}


def _median_seconds(command: list[str], runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def startup(folder: Path) -> None:
    """``qosforge lint`` on one small file as a whole process, next to ``python -c pass``; and the
    lint library alone (without the CLI package, whose subcommands load with it)."""
    small = folder / "small.json"
    small.write_text(json.dumps(_SMALL))
    library = ("import sys; from pathlib import Path; from qosforge.lint.engine import Linter; "
               f"Linter().lint_path(Path({str(small)!r})); "
               f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", library], capture_output=True, text=True, check=True).stdout.strip()
    bare = _median_seconds([sys.executable, "-c", "pass"])
    cli = _median_seconds([str(Path(sys.executable).with_name("qosforge")), "lint", str(small)])
    lib = _median_seconds([sys.executable, "-c", library])
    print(f"start-up (median of 7): python -c pass {bare * 1e3:.0f} ms; qosforge lint small.json {cli * 1e3:.0f} ms "
          f"({cli / bare:.1f}x); lint library alone {lib * 1e3:.0f} ms ({lib / bare:.1f}x); heavy modules the "
          f"library loads: {loaded or 'none'}")


def main(argv: list[str]) -> None:
    exit_with_usage_if_asked(__doc__, argv, ("--one", "--startup"))
    if argv[:1] == ["--startup"]:
        with tempfile.TemporaryDirectory() as name:
            startup(Path(name))
        return
    if argv[:1] == ["--one"]:
        jobs = int(argv[3]) if len(argv) > 3 else None
        print(json.dumps(run_one(Path(argv[1]), argv[2] == "models", jobs)))
        return
    files = int(argv[0]) if argv else 1000
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        start = time.perf_counter()
        _, total = generate(folder, files)
        print(f"generated {files} config_db files of 64 ports ({total / 1e6:.1f} MB) in "
              f"{time.perf_counter() - start:.1f} s")
        # CPU seconds next to wall time: on a shared machine the wall time measures the neighbours.
        print(f"{'rules':>22} {'files':>6} {'findings':>9} {'wall s':>7} {'CPU s':>6} {'ms/file':>8} {'peak RSS MiB':>13}")
        # The headline figure is the first row: every rule, --jobs left at its default (the cores).
        for mode, jobs, label in (("models", [], "all (profile+intent)"), ("plain", [], "config only"),
                                  ("models", ["1"], "all, --jobs 1"), ("plain", ["1"], "config only, --jobs 1")):
            output = subprocess.run([sys.executable, __file__, "--one", str(folder), mode, *jobs],
                                    capture_output=True, text=True, check=True).stdout
            row = json.loads(output)
            print(f"{label:>22} {row['files']:>6.0f} {row['findings']:>9.0f} {row['wall_s']:>7} {row['cpu_s']:>6} "
                  f"{row['per_file_ms']:>8} {row['peak_rss_mib']:>13}")
        startup(folder)


if __name__ == "__main__":
    main(sys.argv[1:])
