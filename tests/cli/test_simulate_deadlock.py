"""``qosforge simulate INTENT --scenario deadlock``: failed links, the graph's cycle, the simulated
deadlock and the PFC watchdog (the numbers behind it: tests/softswitch/helper/test_fabric_deadlock.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: roce-pod's fabric with a 1 ms PFC watchdog.
POD = ROOT / "tests" / "validation" / "fabrics" / "deadlock-pod.yaml"
SMALL = ROOT / "tests" / "validation" / "fabrics" / "lossless-watchdog.yaml"
BOUNCE = ("--fail-link", "leaf1-spine1", "--fail-link", "leaf2-spine2")

Run = Callable[..., tuple[int, str, str]]


def test_the_deadlock_is_reported_with_the_graphs_cycles_and_the_watchdogs_cost(run_cli: Run) -> None:
    code, out, err = run_cli("simulate", str(POD), "--scenario", "deadlock", *BOUNCE, "--duration", "3ms", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    # The cycle is named on stderr before the run, as compile would have named it.
    assert err.count("warning: with leaf1:Ethernet") == 2 and "simulating it" in err
    assert report["scenario"] == "deadlock" and report["transport"] == "cbr" and report["class"] == "rdma"
    assert report["failed_links"] == ["leaf1:Ethernet64 - spine1:Ethernet0", "leaf2:Ethernet68 - spine2:Ethernet4"]
    assert report["traffic_pairs"] and report["flows"] == 16 * len(report["traffic_pairs"])
    assert report["pfc_deadlock"] is True
    predicted = [set(c["buffers"]) for c in report["predicted_cycles"]]
    assert all(set(c["buffers"]) in predicted and c["predicted"] for c in report["deadlock_cycles"])
    watchdog = report["pfc_watchdog"]
    assert watchdog["enabled"] is True and watchdog["drops"] > 0 and report["drops_by_reason"]["pfc_watchdog"] == watchdog["drops"]
    assert report["throughput_gbps"]["after_recovery"] > 0 and len(report["throughput_timeline"]["gbps"]) == 500
    # No lossless frame is lost to PFC itself: the only drops are the watchdog's, and they are
    # the lossless class's losses, named with their cause.
    assert report["drops"] == watchdog["drops"] == report["lossless_drops"]
    assert report["lossless_drops_by_reason"] == {"pfc_watchdog": watchdog["drops"]}
    rdma = report["drops_by_class"]["rdma"]
    assert rdma["lossless"] is True and rdma["pfc_watchdog"] == watchdog["drops"]


def test_the_table_names_the_deadlock(run_cli: Run) -> None:
    # 1.5 ms: the cycle closes at ~1.007 ms (tests/softswitch/helper/test_fabric_deadlock.py).
    code, out, err = run_cli(
        "simulate", str(POD), "--scenario", "deadlock", *BOUNCE, "--no-watchdog", "--duration", "1500us"
    )
    assert code == 0, err
    assert "pfc_deadlock" in out and "True" in out and "500 points" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--scenario", "deadlock", "--fail-link", "leaf1-spine1"], "no cyclic buffer dependency"),
        (["--scenario", "deadlock"], "--fail-link"),
        (["--scenario", "deadlock", "--fail-link", "leaf1-leaf2"], "no switch-to-switch link"),
        (["--scenario", "deadlock", *BOUNCE, "--fail-link", "spine1-leaf1"], "named twice"),
        (["--scenario", "deadlock", "--fail-link", "leaf1-spine1", "--fail-link", "leaf1-spine2"], "no route"),
        (["--scenario", "deadlock", *BOUNCE, "--flows", "17"], "--flows"),
        (["--scenario", "deadlock", *BOUNCE, "--class", "tcp"], "--class"),
        (["--scenario", "deadlock", *BOUNCE, "--warmup", "1ms"], "--warmup"),
        (["--scenario", "deadlock", *BOUNCE, "--flow-size", "1MB"], "--flow-size"),
        (["--scenario", "fabric-incast", "--fail-link", "leaf1-spine1"], "--fail-link"),
        (["--scenario", "pause-storm", "--no-watchdog"], "--no-watchdog"),
    ],
)
def test_bad_deadlock_input_exits_2_naming_the_flag(run_cli: Run, argv: list[str], expected: str) -> None:
    code, out, err = run_cli("simulate", str(POD), *argv, "--duration", "1ms")
    assert code == 2 and out == "", err
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_fabric_without_a_lossless_cycle_under_the_failure_says_where_to_look(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", str(SMALL), "--scenario", "deadlock", "--fail-link", "leaf1-spine1", "--duration", "1ms")
    assert code == 2 and "qosforge check deadlock" in err


def test_an_intent_without_a_lossless_class_says_so(run_cli: Run) -> None:
    code, out, err = run_cli(
        "simulate",
        str(ROOT / "examples" / "openconfig-fabric.yaml"),
        "--scenario",
        "deadlock",
        "--fail-link",
        "leaf1-spine1",
    )
    assert (code, out) == (2, "")
    assert err.startswith("error: INTENT: the intent has no lossless class"), err
    assert "cyclic" not in err
