"""A short variant of the DCTCP paper's Fig. 17 (SIGCOMM 2010 §4.2.3) on the software switch,
against ns-3 3.37's numbers for the same variant recorded in tests/bench/fixtures/dctcp_fig17_ci.json
by bench/ns3/dctcp_fig17.cc (the file says how to regenerate it). Two switches, 1G hosts, the 10G
fabric link, 2/12/2 long-lived flows, RED marking at both bottlenecks; measured 0.12-0.32 s.

The bench script runs qosforge as the operator would (``qosforge simulate --traffic``) and
compares; this test holds it to the bench's targets, except CPU time (bench/ only) and except
for S1, whose two flows' mean over 0.2 s is the residue of R1's link after S3 (S1 = (R1 - 2 S3)/2
amplifies S3's noise five times): qosforge gives 83.5, 77.4 and 68.1 Mb/s with seeds 1, 2 and 3
against ns-3's 80.2, so S1 is held to physics (R1's and the fabric's sums) here and compared in
the bench's longer runs. The half-flows variant (5/10/5 flows, 0.3-0.5 s) is held to every
target in every group, S1 included, on the mean of three seeds: it is the variant that showed
DCTCP growing its window during its window of reduction (softswitch/engine/window.py), S1 10 %
low and the T1->T2 queue 10 % high before that was fixed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "bench" / "fixtures" / "dctcp_fig17_ci.json"


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_dctcp_fig17.py"), "--only", "ci", "--referee", str(FIXTURE),
                           "--format", "json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)["ci"]
    return parsed


@pytest.fixture(scope="module")
def half_flows() -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_dctcp_fig17.py"), "--only", "half-flows", "--seeds", "1,2,3",
                           "--referee", str(FIXTURE), "--format", "json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)["half-flows"]
    return parsed


def test_half_flows_meets_every_target_in_every_group(half_flows: dict[str, Any]) -> None:
    checks = half_flows["checks"]
    for group in ("S1", "S2", "S3"):
        check = checks[f"{group} throughput"]
        assert check["ok"], f"{group}: qosforge {check['qosforge']:.1f} Mb/s (seed mean), ns-3 {check['ns3']:.1f} Mb/s"
        assert checks[f"{group} jain"]["ok"], f"{group}: Jain {checks[f'{group} jain']['qosforge']:.3f} in some seed"
    for port in ("T1->T2", "T2->R1"):
        check = checks[f"{port} queue"]
        assert check["ok"], f"{port}: qosforge {check['qosforge']:.1f} packets, ns-3 {check['ns3']:.1f}"
    assert checks["physics"]["ok"], checks["physics"]["problems"]
    assert len(half_flows["qosforge"]["seeds"]) == 3


def test_the_referee_obeys_physics() -> None:
    """ns-3's own numbers: R1's 1G link and the 10G fabric link bound what the groups deliver."""
    recorded = json.loads(FIXTURE.read_text())
    assert "regenerate" in recorded and "--write-referee" in recorded["regenerate"]
    assert set(recorded["variants"]) == {"ci", "half-flows"}
    for entry in recorded["variants"].values():
        variant, ns3 = entry["variant"], entry["ns3"]
        assert "--wred=switch" in ns3["argv"]
        mean = {g: ns3["groups"][g]["mean_mbps"] for g in ("S1", "S2", "S3")}
        payload = 1448 / 1500
        assert variant["n1"] * mean["S1"] + variant["n3"] * mean["S3"] <= 1000 * payload * 1.001
        assert variant["n1"] * mean["S1"] + variant["n2"] * mean["S2"] <= 10000 * payload * 1.001
        assert all(value > 0 for value in mean.values())


def test_group_throughput_is_within_10_percent_of_ns3(result: dict[str, Any]) -> None:
    for group in ("S2", "S3"):
        check = result["checks"][f"{group} throughput"]
        assert check["ok"], f"{group}: qosforge {check['qosforge']:.1f} Mb/s, ns-3 {check['ns3']:.1f} Mb/s"


def test_the_many_flow_groups_are_fair(result: dict[str, Any]) -> None:
    for group in ("S2", "S3"):
        assert result["checks"][f"{group} jain"]["qosforge"] >= 0.99


def test_mean_queues_at_both_bottlenecks_are_within_20_percent_of_ns3(result: dict[str, Any]) -> None:
    for port in ("T1->T2", "T2->R1"):
        check = result["checks"][f"{port} queue"]
        assert check["ok"], f"{port}: qosforge {check['qosforge']:.1f} packets, ns-3 {check['ns3']:.1f}"


def test_group_sums_respect_the_bottleneck_rates(result: dict[str, Any]) -> None:
    assert result["checks"]["physics"]["problems"] == []
    groups = result["qosforge"]["groups"]
    # Both bottlenecks are full: R1's link carries S1 + S3, the fabric link S1 + S2 (payload share).
    assert groups["S1"]["total_mbps"] + groups["S3"]["total_mbps"] >= 0.95 * 1000 * 1448 / 1500
    assert groups["S1"]["total_mbps"] + groups["S2"]["total_mbps"] >= 0.95 * 10000 * 1448 / 1500
