"""Every fabric scenario's report lists the Linux TCP host each class of its run ran, as the
incast report's ``hosts.tcp`` does: ``host_tcp``, one entry per class with its congestion
control, minimum RTO and initial window and where each came from (``hosts`` stays the fabric's
host count). A run whose classes have no Linux TCP host (RoCE, open-loop) lists none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qosforge.cli import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
VALIDATION = Path(__file__).resolve().parents[2] / "validation" / "fabrics"

#: roce-pod's tcp class (classes[1]) with its own hosts: 7 ms and IW16 over the fabric's 4 ms.
TCP_HOSTS = "    hosts: {rto_min: 7ms, initial_window_segments: 16}\n"
STATED = {
    "class": "tcp",
    "congestion_control": "dctcp",
    "flow_kind": "dctcp",
    "ecn_capable": True,
    "rto_min_s": 0.007,
    "initial_window_segments": 16,
    "sources": {
        "congestion_control": "intent transport",
        "ecn": "intent transport",
        "rto_min": "intent classes[1].hosts.rto_min",
        "initial_window": "intent classes[1].hosts.initial_window_segments",
    },
}
TRAFFIC = """apiVersion: qosforge/v1
kind: Traffic
flows:
  - group: bulk
    src: "leaf1:Ethernet[0-4/4]"
    dst: "leaf2:Ethernet[0-4/4]"
    class: tcp
"""


@pytest.fixture
def intent(tmp_path: Path) -> Path:
    path = tmp_path / "roce-pod-hosts.yaml"
    text = (EXAMPLES / "roce-pod.yaml").read_text()
    stated = text.replace("    dscp: [0, 10]\n    weight: 40\n",
                          f"    dscp: [0, 10]\n    weight: 40\n{TCP_HOSTS}")
    assert stated != text
    path.write_text(stated)
    return path


def _simulate(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:
        main(["simulate", *argv])
    captured = capsys.readouterr()
    assert exited.value.code in (0, None), captured.err
    return captured.out


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(_simulate(capsys, *argv, "--format", "json"))
    return report


@pytest.mark.parametrize(
    "scenario",
    [
        ("--scenario", "fabric-incast", "--class", "tcp", "--flows", "4", "--duration", "1ms",
         "--warmup", "0s"),
        ("--scenario", "all-to-all", "--class", "tcp", "--load", "20%", "--duration", "1ms"),
    ],
    ids=["fabric-incast", "all-to-all"],
)
def test_fabric_scenarios_list_the_class_s_tcp_host_and_its_sources(
    capsys: pytest.CaptureFixture[str], intent: Path, scenario: tuple[str, ...]
) -> None:
    report = _json(capsys, str(intent), *scenario)
    assert report["host_tcp"] == [STATED]
    assert report["hosts"] == 64  # the count existing readers take, unchanged


def test_the_traffic_scenario_lists_each_class_s_tcp_host(
    capsys: pytest.CaptureFixture[str], intent: Path, tmp_path: Path
) -> None:
    traffic = tmp_path / "bulk.traffic.yaml"
    traffic.write_text(TRAFFIC)
    report = _json(capsys, str(intent), "--traffic", str(traffic), "--duration", "1ms")
    assert report["host_tcp"] == [STATED]
    assert report["hosts"] == 64
    text = _simulate(capsys, str(intent), "--traffic", str(traffic), "--duration", "1ms")
    assert ("TCP hosts: tcp: dctcp, ECN-capable (intent transport); rto_min 7 ms "
            "(intent classes[1].hosts.rto_min); initial window 16 segments "
            "(intent classes[1].hosts.initial_window_segments)") in text


def test_the_rto_min_flag_is_named_as_the_source(
    capsys: pytest.CaptureFixture[str], intent: Path
) -> None:
    report = _json(capsys, str(intent), "--scenario", "fabric-incast", "--class", "tcp",
                   "--flows", "4", "--duration", "1ms", "--warmup", "0s", "--rto-min", "3ms")
    (model,) = report["host_tcp"]
    assert (model["rto_min_s"], model["sources"]["rto_min"]) == (0.003, "--rto-min")
    assert model["initial_window_segments"] == 16


def test_the_text_report_gives_each_value_with_its_source(
    capsys: pytest.CaptureFixture[str], intent: Path
) -> None:
    text = _simulate(capsys, str(intent), "--scenario", "fabric-incast", "--class", "tcp",
                     "--flows", "4", "--duration", "1ms", "--warmup", "0s")
    flat = " ".join(" ".join(line.strip("│ ").split()) for line in text.splitlines())
    assert "host_tcp" in text
    for part in ("tcp: dctcp, ECN-capable (intent transport);", "rto_min 7 ms",
                 "(intent classes[1].hosts.rto_min);", "initial window 16 segments",
                 "(intent classes[1].hosts.initial_window_segments)"):
        assert part in flat, part


@pytest.mark.parametrize(
    ("intent_path", "scenario"),
    [
        (EXAMPLES / "roce-pod.yaml", ("--scenario", "pause-storm")),
        (VALIDATION / "deadlock-pod.yaml",
         ("--scenario", "deadlock", "--fail-link", "leaf1-spine1", "--fail-link",
          "leaf2-spine2", "--duration", "1ms")),
    ],
    ids=["pause-storm", "deadlock"],
)
def test_a_run_without_a_linux_tcp_host_lists_none(
    capsys: pytest.CaptureFixture[str], intent_path: Path, scenario: tuple[str, ...]
) -> None:
    # Both run the lossless class: DCQCN NICs (pause-storm) or open-loop senders (deadlock).
    report = _json(capsys, str(intent_path), *scenario)
    assert report["host_tcp"] == []
    assert isinstance(report["hosts"], int)


@pytest.mark.parametrize(("flags", "rto_min_s", "rto_source"), [
    ((), 4e-3, "the dumbbell's default"),
    (("--rto-min", "10ms"), 10e-3, "--rto-min"),
])
def test_the_dumbbell_says_what_its_tcp_senders_ran(
        capsys: pytest.CaptureFixture[str], flags: tuple[str, ...], rto_min_s: float,
        rto_source: str) -> None:
    # No intent states the dumbbell's hosts: its report says which minimum RTO and initial
    # window the flags and defaults gave them, as the fabric scenarios' host_tcp does.
    with pytest.raises(SystemExit) as exited:
        main(["simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--flows", "2",
              "--ecn-threshold", "20pkt", "--duration", "2ms", "--format", "json", *flags])
    assert not exited.value.code
    (host,) = json.loads(capsys.readouterr().out)["host_tcp"]
    identity = (host["class"], host["congestion_control"], host["ecn_capable"])
    assert identity == ("dumbbell", "dctcp", True)
    assert host["rto_min_s"] == pytest.approx(rto_min_s)
    assert host["initial_window_segments"] == 10
    assert host["sources"]["rto_min"].startswith(rto_source)
