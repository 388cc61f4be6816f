"""Warm-up before forking: after it, a point imports no qosforge module (so no forked worker does)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: One point of each kind the warm-up lists: a flag-only simulate, simulate INTENT on a fabric, compile, whatif.
#: (command, argv, the application-layer request's fields, intent).
_CASES = {
    "dumbbell": ("('simulate',)", "()", "{'scenario': 'dumbbell', 'transport': 'dctcp', 'flows': 4, 'duration': '2ms', 'warmup': '0s', "
                 "'ecn_threshold': '20pkt'}", None),
    "fabric": ("('simulate',)", "()", "{'scenario': 'all-to-all', 'duration': '0.1ms', 'warmup': '0s'}", "bench/fabric-4x2.yaml"),
    "compile": ("('compile',)", "('X',)", "{}", "examples/tlt-softswitch.yaml"),
    "whatif": ("('whatif', 'tlt')", "()", "{'buffer_bytes': '12MB', 'congested_ports': '16', 'transport': 'dctcp', 'rate_bps': '40G', "
               "'rtt_s': '80us'}", None),
}

_PROGRAM = """
import json, sys
from pathlib import Path
from qosforge.campaigns.execute import run_point
from qosforge.campaigns.point import PointSpec, ShippedFile
from qosforge.campaigns.warm import warm_up
command, argv, fields, intent = {command}, {argv}, {fields}, {intent!r}
files = (ShippedFile(0, intent, Path(intent).read_text()),) if intent else ()
spec = PointSpec(command, {{}}, argv, files, fields=fields, typed=frozenset(fields))
warm_up([spec])
before = set(sys.modules)
outcome = run_point(spec)
print(json.dumps({{"error": outcome.error, "new": sorted(m for m in set(sys.modules) - before if m.startswith("qosforge"))}}))
"""


@pytest.mark.parametrize("case", sorted(_CASES))
def test_a_warmed_up_process_imports_nothing_more_for_a_point(case: str) -> None:
    command, argv, fields, intent = _CASES[case]
    program = _PROGRAM.format(command=command, argv=argv, fields=fields, intent=intent)
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["error"] is None
    assert report["new"] == [], f"add these to campaigns/warm.py PRELOADS: {report['new']}"
