"""``qosforge simulate --scenario headroom`` (qosforge/api/scenarios/headroom.py): every sender's
priority group crosses XOFF, its headroom holds what arrives after it, and the report says so per
port against the compiled xoff. The bytes themselves are checked against a hand calculation in
tests/validation/test_pfc_headroom_in_flight.py; here the command and its report."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from qosforge.errors import QosforgeError

ROOT = Path(__file__).resolve().parents[3]
ROCE_POD = str(ROOT / "examples" / "roce-pod.yaml")


def _simulate(*args: str) -> tuple[int, str, str]:
    from qosforge.cli.simulate import build_command

    result = CliRunner().invoke(build_command(), [ROCE_POD, "--scenario", "headroom", *args])
    if isinstance(result.exception, QosforgeError):  # the top-level CLI prints it and exits 2
        return 2, result.stdout, result.exception.one_line()
    return result.exit_code, result.stdout, result.stderr


def test_the_compiled_headroom_holds_a_line_rate_incast_at_xoff() -> None:
    code, out, err = _simulate(
        "--flows", "4", "--duration", "2ms", "--warmup", "0s", "--format", "json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert (
        report["switch"] == "leaf1"
        and report["class"] == "rdma"
        and report["receiver_port"] == "Ethernet0"
    )
    # PFC holds the receiver at its line rate with nothing lost on the switch; the senders' NICs
    # overflow while paused (open-loop senders), which is theirs, not the switch's.
    assert report["pfc_xoff_sent"] > 100 and report["lossless_drops"] == 0 and report["drops"] == 0
    assert 99.0 <= report["receiver_lossless_gbps"] <= 100.0
    rows = report["headroom"]
    assert [row["port"] for row in rows] == report["sender_ports"] and len(rows) == 4
    for row in rows:
        # SONiC's Mellanox headroom for 100G on a 3 m cable (report.json pfc_headroom): 47,104 B.
        assert row["xoff_bytes"] == 47104 and row["priority_group"] == 3
        assert 0 < row["headroom_watermark_bytes"] <= row["xoff_bytes"] and row["within_xoff"]


def test_a_lossy_class_and_the_dumbbell_flags_are_refused() -> None:
    code, _, err = _simulate("--class", "tcp")
    assert code == 2 and "not lossless" in err and "--class" in err
    code, _, err = _simulate("--speed", "10G")
    assert code == 2 and "--speed" in err
