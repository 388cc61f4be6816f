"""bench/bench_dctcp_fig17.py's verdicts: the ratio of ns-3's CPU time to qosforge's is printed
for information, never a pass or a miss (the referee's own settings move it: its ci run cost 91
CPU s with an ACK per segment, 22 s with delayed ACKs, 16 s with them on Linux's DCTCP window
and Ethernet and 14 s with Linux's probe and receiver too)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import bench_dctcp_fig17 as fig17  # noqa: E402

FIXTURE = ROOT / "tests" / "bench" / "fixtures" / "dctcp_fig17_ci.json"


def _ci_runs(qosforge_cpu_s: float) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The ci variant, ns-3's recorded run, and a qosforge run with ns-3's numbers (every other
    target holds) that took ``qosforge_cpu_s``."""
    ns3: dict[str, Any] = json.loads(FIXTURE.read_text())["variants"]["ci"]["ns3"]
    ours = copy.deepcopy(ns3)
    for group in ours["groups"].values():
        group["total_mbps"] = group["mean_mbps"]
        # The fairness target is qosforge's (Jain >= 0.99), which ns-3's two S3 flows miss
        # (0.988), so the copy's groups are perfectly fair.
        group["jain"] = 1.0
    ours["cpu_s"] = qosforge_cpu_s
    return fig17.VARIANTS["ci"], ours, ns3


@pytest.mark.parametrize("qosforge_cpu_s", [1.0, 22.0, 440.0])
def test_the_cpu_ratio_is_reported_without_a_verdict(
        qosforge_cpu_s: float, capsys: pytest.CaptureFixture[str]) -> None:
    variant, ours, ns3 = _ci_runs(qosforge_cpu_s)
    checks = fig17.compare(variant, ours, ns3)
    assert checks["CPU ratio"]["ok"] is None
    assert checks["CPU ratio"]["ratio"] == pytest.approx(ns3["cpu_s"] / qosforge_cpu_s)
    fig17._table(variant, ours, ns3, None, checks)
    printed = capsys.readouterr().out
    ratio_line = next(line for line in printed.splitlines() if "CPU ratio" in line)
    assert ratio_line.split()[0] == "info"
    assert "MISS" not in printed  # every other target holds on ns-3's own numbers
