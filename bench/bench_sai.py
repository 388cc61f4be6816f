"""Benchmark: render generated Clos fabrics for the SAI target (issue 5 figures).

Same fabric as ``bench_compile.py`` (a three-tier Clos of exactly N switches that passes the port
check, 64-port Spectrum-2 leaves, lossy DCTCP/D2TCP/TCP), rendered
per switch as a validated SAI program, written as ``sai.json`` and ``sairedis.rec``. Each size
runs in a fresh subprocess so peak RSS is per size. Reported: wall time of load + compile +
render + metadata validation + write, operations per switch, and peak RSS.
Usage: ``python bench/bench_sai.py [N ...]`` (default 100 1000).
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
from bench_compile import bench_intent


def run_one(switches: int) -> dict[str, float]:
    from qosforge.backends.sai import program_to_json, program_to_recording, render_sai_program
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.files import write_text_atomically

    with tempfile.TemporaryDirectory() as folder:
        intent_path = Path(folder) / "intent.yaml"
        intent_path.write_text(bench_intent(switches))
        start = time.perf_counter()
        intent, source_map = load_intent(intent_path)
        fabric = compile_intent(intent, source_map, targets=("sai",))
        operations = 0
        for switch in fabric.for_target("sai"):
            program = render_sai_program(switch)
            operations += len(program.operations)
            write_text_atomically(Path(folder) / "out" / switch.name / "sai.json", program_to_json(program), create_parents=True)
            write_text_atomically(Path(folder) / "out" / switch.name / "sairedis.rec", program_to_recording(program), create_parents=True)
        done = time.perf_counter()
    return {
        "switches": switches,
        "seconds": done - start,
        "ms_per_switch": 1000 * (done - start) / switches,
        "operations_per_switch": operations / switches,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        print(json.dumps(run_one(int(sys.argv[2]))))
        return
    sizes = [int(a) for a in sys.argv[1:]] or [100, 1000]
    for size in sizes:
        result = json.loads(subprocess.run([sys.executable, __file__, "--one", str(size)], check=True, capture_output=True, text=True).stdout)
        print(f"{result['switches']:>6} switches: {result['seconds']:7.2f} s ({result['ms_per_switch']:.1f} ms/switch, "
              f"{result['operations_per_switch']:.0f} SAI operations/switch), peak RSS {result['peak_rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
