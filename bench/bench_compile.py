"""Benchmark: compile generated leaf-spine fabrics to SONiC config_db (issue 4 figures).

For each size N (default 100, 1000, 5000 switches) a leaf-spine intent is generated with 64-port
leaves (hosts + one uplink per spine) and 32 spines (4 for N=100). In a two-tier fabric the
spines then have N-32 ports, and no buffer holds PFC headroom for thousands of ports, so the
benchmark fabric runs lossy transports (DCTCP, D2TCP, TCP); each run happens in a fresh
subprocess so peak RSS is per size. Reported: wall time of load + compile + render + write of
every config_db.json, and peak RSS. Usage: ``python bench/bench_compile.py [N ...]``.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INTENT = """apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: bench-{switches}}}
topology:
  leaf_spine:
    spines: {spines}
    leaves: {leaves}
    hosts_per_leaf: {hosts}
    host_link: {{speed: 100G, cable: 3m}}
    fabric_link: {{speed: 100G, cable: 40m}}
    link_latency: 1us
    leaf_profile: mellanox-spectrum-2
classes:
  - {{name: rpc, transport: d2tcp, dscp: [34], weight: 30}}
  - {{name: bulk, transport: dctcp, dscp: [10], weight: 50}}
  - {{name: legacy, transport: tcp, dscp: [0], weight: 20}}
design: {{congested_ports: 8}}
"""


def run_one(switches: int) -> dict[str, float]:
    from qosforge.backends.sonic import config_db_to_json, render_fabric
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.files import write_text_atomically

    spines = 4 if switches <= 100 else 32
    leaves = switches - spines
    with tempfile.TemporaryDirectory() as folder:
        intent_path = Path(folder) / "intent.yaml"
        intent_path.write_text(INTENT.format(switches=switches, spines=spines, leaves=leaves, hosts=64 - spines))
        start = time.perf_counter()
        intent, source_map = load_intent(intent_path)
        fabric = compile_intent(intent, source_map)
        compiled = time.perf_counter()
        texts: dict[int, str] = {}
        for switch, config in render_fabric(fabric.switches):
            text = texts.setdefault(id(config), config_db_to_json(config))
            write_text_atomically(Path(folder) / "out" / switch.name / "config_db.json", text, create_parents=True)
        done = time.perf_counter()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "switches": switches,
        "leaf_ports": 64,
        "spine_ports": leaves,
        "compile_s": round(compiled - start, 3),
        "render_and_write_s": round(done - compiled, 3),
        "total_s": round(done - start, 3),
        "per_switch_ms": round(1000 * (done - start) / switches, 3),
        "peak_rss_mib": round(peak_kib / 1024, 1),
    }


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        print(json.dumps(run_one(int(argv[1]))))
        return
    sizes = [int(a) for a in argv] or [100, 1000, 5000]
    print(f"{'switches':>9} {'compile s':>10} {'render+write s':>15} {'total s':>8} {'ms/switch':>10} {'peak RSS MiB':>13}")
    for size in sizes:
        output = subprocess.run([sys.executable, __file__, "--one", str(size)], capture_output=True, text=True, check=True).stdout
        row = json.loads(output)
        print(f"{row['switches']:>9} {row['compile_s']:>10} {row['render_and_write_s']:>15} {row['total_s']:>8} {row['per_switch_ms']:>10} {row['peak_rss_mib']:>13}")


if __name__ == "__main__":
    main(sys.argv[1:])
