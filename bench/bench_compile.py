"""Benchmark: compile generated Clos fabrics to SONiC config_db (README figures).

For each size N (default 100, 1000, 5000 switches) a three-tier Clos intent of exactly N switches
is generated (bench/fabrics.py: e.g. 1,000 = 32 pods of 20 leaves + 10 spines, and 40
super-spines) with 64-port Spectrum-2 leaves (hosts + one uplink per spine of the pod), so every
switch passes the vendor-profile port check. The fabric runs lossy transports (DCTCP, D2TCP,
TCP); each run happens in a fresh subprocess so peak RSS is per size. Reported: wall time of load + compile + render + write of
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

sys.path.insert(0, str(Path(__file__).parent))
from _usage import exit_with_usage_if_asked
from fabrics import MAX_PORTS, clos_shape

INTENT = """apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: bench-{switches}}}
topology:
{topology}classes:
  - {{name: rpc, transport: d2tcp, dscp: [34], weight: 30}}
  - {{name: bulk, transport: dctcp, dscp: [10], weight: 50}}
  - {{name: legacy, transport: tcp, dscp: [0], weight: 20}}
design: {{congested_ports: 8}}
"""


def bench_intent(switches: int, leaf_ports: int = MAX_PORTS) -> str:
    """The benchmark intent of exactly ``switches`` switches (``leaf_ports``-port leaves)."""
    shape = clos_shape(switches)
    return INTENT.format(switches=switches, topology=shape.yaml(leaf_ports - shape.spines_per_pod))


def run_one(switches: int) -> dict[str, float]:
    from qosforge.backends.sonic import config_db_to_json, render_fabric
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.files import write_text_atomically

    shape = clos_shape(switches)
    with tempfile.TemporaryDirectory() as folder:
        intent_path = Path(folder) / "intent.yaml"
        intent_path.write_text(bench_intent(switches))
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
        "leaf_ports": MAX_PORTS,
        "spine_ports": shape.spine_ports,
        "super_spine_ports": shape.pods,
        "compile_s": round(compiled - start, 3),
        "render_and_write_s": round(done - compiled, 3),
        "total_s": round(done - start, 3),
        "per_switch_ms": round(1000 * (done - start) / switches, 3),
        "peak_rss_mib": round(peak_kib / 1024, 1),
    }


def main(argv: list[str]) -> None:
    exit_with_usage_if_asked(__doc__, argv, ("--one",))
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
