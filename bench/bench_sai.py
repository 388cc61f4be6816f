"""Benchmark: render generated three-tier Clos fabrics for the SAI target, against SONiC in the same run.

Same fabric as ``bench_compile.py`` (a Clos of exactly N switches that passes the port check,
Spectrum-2, lossy DCTCP/D2TCP/TCP) with 32-port leaves: a SAI program binds its ports to the
switch's port list, and the Spectrum-2 layout (sairedis vslib MLNX2700) has 32 unbroken ports,
so 64-port leaves are refused with a breakout hint (backends/sai/port_binding.py). The
intent is loaded and compiled once for both targets; then, timed separately, every switch is
rendered as SONiC ``config_db.json`` and as a validated SAI program written as ``sai.json`` and
``sairedis.rec``. Reported per size: ms per switch for each target and their ratio (target:
SAI <= 1.5 x SONiC), SAI operations per switch and per second, CPU seconds of the
process, and peak RSS. Each size runs in a fresh subprocess. Usage:
``python bench/bench_sai.py [N ...]`` (default 100 1000).
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
from bench_compile import bench_intent

#: Ports of a leaf: the Spectrum-2 switch layout's unbroken front panel (see the docstring).
SAI_LEAF_PORTS = 32


def run_one(switches: int) -> dict[str, float]:
    from qosforge.backends.sai import program_to_json, program_to_recording, render_sai_fabric
    from qosforge.backends.sonic import config_db_to_json, render_fabric
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.files import write_text_atomically

    with tempfile.TemporaryDirectory() as folder:
        intent_path = Path(folder) / "intent.yaml"
        intent_path.write_text(bench_intent(switches, leaf_ports=SAI_LEAF_PORTS))
        start = time.perf_counter()
        intent, source_map = load_intent(intent_path)
        fabric = compile_intent(intent, source_map, targets=("sonic", "sai"))
        compiled = time.perf_counter()
        texts: dict[int, str] = {}
        for switch, config in render_fabric(fabric.for_target("sonic")):
            text = texts.setdefault(id(config), config_db_to_json(config))
            write_text_atomically(Path(folder) / "sonic" / switch.name / "config_db.json", text, create_parents=True)
        sonic_done = time.perf_counter()
        operations = 0
        for switch, program in render_sai_fabric(fabric.for_target("sai")):
            operations += len(program.operations)
            write_text_atomically(Path(folder) / "sai" / switch.name / "sai.json", program_to_json(program), create_parents=True)
            write_text_atomically(Path(folder) / "sai" / switch.name / "sairedis.rec", program_to_recording(program), create_parents=True)
        sai_done = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    sai_s, sonic_s = sai_done - sonic_done, sonic_done - compiled
    return {
        "switches": switches,
        "load_compile_s": compiled - start,
        "sonic_ms_per_switch": 1000 * sonic_s / switches,
        "sai_ms_per_switch": 1000 * sai_s / switches,
        "sai_over_sonic": sai_s / sonic_s,
        "operations_per_switch": operations / switches,
        "sai_operations_per_s": operations / sai_s,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024,
    }


def main() -> None:
    exit_with_usage_if_asked(__doc__, sys.argv[1:], ("--one",))
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        print(json.dumps(run_one(int(sys.argv[2]))))
        return
    sizes = [int(a) for a in sys.argv[1:]] or [100, 1000]
    for size in sizes:
        r = json.loads(subprocess.run([sys.executable, __file__, "--one", str(size)], check=True, capture_output=True, text=True).stdout)
        print(f"{r['switches']:>6} switches: load+compile {r['load_compile_s']:.2f} s; SONiC {r['sonic_ms_per_switch']:.1f} ms/switch, "
              f"SAI {r['sai_ms_per_switch']:.1f} ms/switch ({r['sai_over_sonic']:.2f} x SONiC, {r['operations_per_switch']:.0f} operations/switch, "
              f"{r['sai_operations_per_s']:,.0f} operations/s); CPU {r['cpu_s']:.1f} s, peak RSS {r['peak_rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
