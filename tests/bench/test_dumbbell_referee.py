"""DCTCP on the dumbbell (``qosforge simulate --scenario dumbbell``) against ns-3 3.37's rows for
the same runs, recorded in tests/bench/fixtures/dumbbell_ns3.json by bench/ns3/dumbbell.cc with
Linux's delayed-ACK timer (the file says how to regenerate it; ns-3 takes about 40 CPU s).

Five bottlenecks: the published 10-flow 10G dumbbell with K = 65 packets; one neither
simulator was tuned on, 20 flows into a 25G port with K = 30 packets and a 60 us base RTT; two
where flows of two round trips share the port (4 at 60 us and 4 at 300 us, 1G with K = 20 and
10G with K = 65, as at the DCTCP Fig. 17 ports); and 4 flows under a step 30 times their
bandwidth-delay product (1G, K = 100, 40 us), where qosforge marks a quarter less than ns-3
(docs/dctcp-ce-marks.md), held as an expected failure of the marks test until that is closed.
On each the CE marks must be within 25 % of ns-3's (raw and per packet delivered: qosforge's
frames carry Ethernet framing, 1,538 B on the wire against ns-3's 1,502 B, so it delivers
1502/1538 as many packets a second), the mean queue within 20 %, and each simulator fills its
own wire's payload ceiling to within 3 %."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "bench" / "fixtures" / "dumbbell_ns3.json"
DEEP_STEP = "dctcp 1G K=100 4 flows"
SCENARIOS = ("dctcp K=65", "dctcp 25G K=30 20 flows", "dctcp 1G K=20 4x60us+4x300us",
             "dctcp 10G K=65 4x60us+4x300us", DEEP_STEP)
MEASURED_S = 0.2  # ns3_compare.py's 0.3 s with 0.1 s of warm-up
SEGMENT_BYTES = 1448
#: Payload per byte on the wire: qosforge's 1,500 B IP packet in its Ethernet frame with preamble
#: and gap (1,538 B, IEEE 802.3), ns-3's in a 2 B PPP header (1,502 B).
PAYLOAD_SHARE = {"qosforge": SEGMENT_BYTES / 1538, "ns-3": SEGMENT_BYTES / 1502}
GBPS = {"dctcp K=65": 10.0, "dctcp 25G K=30 20 flows": 25.0, "dctcp 1G K=20 4x60us+4x300us": 1.0,
        "dctcp 10G K=65 4x60us+4x300us": 10.0, DEEP_STEP: 1.0}
#: The marks' known miss (docs/dctcp-ce-marks.md "The failing class, small", and "Where the
#: counts stand": -31.3 % raw, the mean of seeds 1-3): strict, so the test reports it when the
#: gap closes.
DEEP_STEP_MISS = pytest.mark.xfail(strict=True, reason="qosforge marks ~31 % fewer than ns-3 under "
                                                      "a deep step with few flows")
MARKS_CASES = [pytest.param(name, marks=DEEP_STEP_MISS) if name == DEEP_STEP else name
               for name in SCENARIOS]


@pytest.fixture(scope="module")
def rows() -> dict[str, Any]:
    argv = [sys.executable, str(ROOT / "bench" / "ns3_compare.py"), "--only", "dctcp",
            "--referee", str(FIXTURE), "--format", "json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def _packets(row: dict[str, Any]) -> float:
    return float(row["goodput"]) * 1e9 * MEASURED_S / 8.0 / SEGMENT_BYTES


def test_the_fixture_records_every_dctcp_scenario_with_linux_delayed_acks() -> None:
    recorded = json.loads(FIXTURE.read_text())
    assert "--write-referee" in recorded["regenerate"]
    assert set(recorded["scenarios"]) == set(SCENARIOS)
    for row in recorded["scenarios"].values():
        assert "--delAckTimeoutMs=40" in row["argv"] and "--transport=dctcp" in row["argv"]


@pytest.mark.parametrize("name", MARKS_CASES)
def test_ce_marks_are_within_25_percent_of_ns3(rows: dict[str, Any], name: str) -> None:
    ours, theirs = rows[name]["qosforge"], rows[name]["ns-3"]
    raw = ours["marks"] / theirs["marks"]
    assert abs(raw - 1) <= 0.25, f"{name}: {ours['marks']} marks, ns-3 {theirs['marks']}"
    per_packet = (ours["marks"] / _packets(ours)) / (theirs["marks"] / _packets(theirs))
    assert abs(per_packet - 1) <= 0.25, f"{name}: marks per packet {per_packet:.3f} of ns-3's"


@pytest.mark.parametrize("name", SCENARIOS)
def test_queue_and_throughput_agree_with_ns3(rows: dict[str, Any], name: str) -> None:
    ours, theirs = rows[name]["qosforge"], rows[name]["ns-3"]
    queue = ours["queue_mean"] / theirs["queue_mean"]
    assert abs(queue - 1) <= 0.20, f"{name}: {ours['queue_mean']:.1f} vs {theirs['queue_mean']:.1f}"
    for simulator, row in (("qosforge", ours), ("ns-3", theirs)):
        ceiling = GBPS[name] * PAYLOAD_SHARE[simulator]
        got = row["goodput"]
        assert 0.97 * ceiling <= got <= ceiling * 1.001, f"{name} {simulator}: {got:.3f} Gb/s"
    assert ours["drops"] == 0 and theirs["drops"] == 0
