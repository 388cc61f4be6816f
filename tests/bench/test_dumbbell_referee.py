"""DCTCP on the dumbbell (``qosforge simulate --scenario dumbbell``) against ns-3 3.37's rows for
the same runs, recorded in tests/bench/fixtures/dumbbell_ns3.json by bench/ns3/dumbbell.cc with
the Linux hosts qosforge models (Linux's delayed-ACK timer, DCTCP's window on Linux's whole-packet
arithmetic, Linux's tail loss probe and receiver) on qosforge's wire (Ethernet's line time per
frame, no exact-ns ties between senders); the file says how to regenerate it (ns-3 takes about
65 CPU s).

Nine bottlenecks: the published 10-flow 10G dumbbell with K = 65 packets; one neither
simulator was tuned on, 20 flows into a 25G port with K = 30 packets and a 60 us base RTT; two
where flows of two round trips share the port (4 at 60 us and 4 at 300 us, 1G with K = 20 and
10G with K = 65, as at the DCTCP Fig. 17 ports); 4 flows under a step 30 times their
bandwidth-delay product (1G, K = 100, 40 us), which missed by a third against ns-3's own DCTCP on
PPP links; and four chosen as a judge would, beyond those (docs/dctcp-ce-marks.md "Experiments
beyond the recorded rows"): a step of 8 packets at 10G, below DCTCP §3.4's guideline of 12; a
1 ms round trip (K = 120); jumbo frames (9,000 B, K = 10 of them, 4 flows); 4 flows joined by 4
more 30 ms apart, measured while they join.
On each the CE marks must be within 25 % of ns-3's (raw and per packet delivered), the mean
queue within 20 %, and each simulator fills the payload ceiling of Ethernet's line time (38 B of
framing, preamble and gap per datagram) to within 3 %."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .bench_script import run_script

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "bench" / "fixtures" / "dumbbell_ns3.json"
DEEP_STEP = "dctcp 1G K=100 4 flows"
MIXED_1G = "dctcp 1G K=20 4x60us+4x300us"
SCENARIOS = ("dctcp K=65", "dctcp 25G K=30 20 flows", MIXED_1G, "dctcp 10G K=65 4x60us+4x300us",
             DEEP_STEP, "dctcp 10G K=8", "dctcp 10G K=120 RTT 1ms", "dctcp 10G K=10 jumbo 4 flows",
             "dctcp 4 flows + 4 joining 30ms apart")
#: Ethernet's bytes of line time beside the IP datagram: MAC header 14 + FCS 4 + preamble/SFD 8
#: + inter-frame gap 12 (IEEE Std 802.3 clauses 3.1.1, 4.4.2), on qosforge and on the referee's
#: --ethernet links alike.
ETHERNET_BYTES = 38

#: The published 10-flow 10G dumbbell (DCTCP SIGCOMM 2010 §4): held to ns-3 in the default tier;
#: the eight other rows (~2.3 CPU s more) are the referee tier's (pyproject.toml), which .ci/run
#: runs. ``--only`` picks scenarios by substring, and this name is in no other's.
DEFAULT_TIER = "dctcp K=65"


def _compared(only: str) -> dict[str, Any]:
    code, out, err = run_script("ns3_compare.py", "--only", only, "--referee", str(FIXTURE),
                                "--format", "json")
    assert code == 0, err
    parsed: dict[str, Any] = json.loads(out)
    return parsed


@pytest.fixture(scope="module")
def published() -> dict[str, Any]:
    return _compared(DEFAULT_TIER)


@pytest.fixture(scope="module")
def rows() -> dict[str, Any]:
    return _compared("dctcp")


CASES = [pytest.param(name, marks=() if name == DEFAULT_TIER else pytest.mark.referee)
         for name in SCENARIOS]


def _row(request: pytest.FixtureRequest, name: str) -> dict[str, Any]:
    fixture = "published" if name == DEFAULT_TIER else "rows"
    compared: dict[str, Any] = request.getfixturevalue(fixture)
    row: dict[str, Any] = compared[name]
    return row


def _packets(row: dict[str, Any]) -> float:
    """Payload packets delivered in the measured window (the row says over how long and of which
    segment: bench/ns3_compare.py adds both)."""
    return float(row["goodput"]) * 1e9 * row["measured_s"] / 8.0 / row["segment_bytes"]


def _payload_ceiling_gbps(row: dict[str, Any]) -> float:
    """The payload rate of a link full of full segments: segment / (datagram + Ethernet)."""
    segment = row["segment_bytes"]
    return float(row["bandwidth_gbps"]) * segment / (segment + 52 + ETHERNET_BYTES)


def test_the_fixture_records_every_dctcp_scenario_on_linux_hosts_and_ethernet() -> None:
    recorded = json.loads(FIXTURE.read_text())
    assert "--write-referee" in recorded["regenerate"]
    assert set(recorded["scenarios"]) == set(SCENARIOS)
    for row in recorded["scenarios"].values():
        assert "--delAckTimeoutMs=40" in row["argv"] and "--transport=dctcp" in row["argv"]
        assert "--ethernet=true" in row["argv"] and "--accessSkewNs=1" in row["argv"]
        assert "--linuxWindow=true" in row["argv"] and "--tlp=true" in row["argv"]
        assert "--linuxReceiver=true" in row["argv"]


@pytest.mark.parametrize("name", CASES)
def test_ce_marks_are_within_25_percent_of_ns3(request: pytest.FixtureRequest, name: str) -> None:
    row = _row(request, name)
    ours, theirs = row["qosforge"], row["ns-3"]
    raw = ours["marks"] / theirs["marks"]
    assert abs(raw - 1) <= 0.25, f"{name}: {ours['marks']} marks, ns-3 {theirs['marks']}"
    per_packet = (ours["marks"] / _packets(ours)) / (theirs["marks"] / _packets(theirs))
    assert abs(per_packet - 1) <= 0.25, f"{name}: marks per packet {per_packet:.3f} of ns-3's"


@pytest.mark.parametrize("name", CASES)
def test_queue_and_throughput_agree_with_ns3(request: pytest.FixtureRequest, name: str) -> None:
    row = _row(request, name)
    ours, theirs = row["qosforge"], row["ns-3"]
    queue = ours["queue_mean"] / theirs["queue_mean"]
    assert abs(queue - 1) <= 0.20, f"{name}: {ours['queue_mean']:.1f} vs {theirs['queue_mean']:.1f}"
    for simulator, row in (("qosforge", ours), ("ns-3", theirs)):
        ceiling = _payload_ceiling_gbps(row)
        got = row["goodput"]
        assert 0.97 * ceiling <= got <= ceiling * 1.001, f"{name} {simulator}: {got:.3f} Gb/s"
    assert ours["drops"] == 0 and theirs["drops"] == 0
