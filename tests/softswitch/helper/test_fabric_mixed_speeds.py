"""A fabric whose links run at different speeds (1G hosts, a 10G link, 40G hosts): every link is
simulated at its own rate, which the aggregate rates show against physics."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from qosforge.cli import main

MIXED = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: mixed-speeds}
topology:
  switches:
    - name: edge
      profile: softswitch
      ports:
        - {name: "Ethernet[0-3]", speed: 1G, cable: 3m, peer: host}
        - {name: Ethernet4, speed: 10G, cable: 10m, peer: "core:Ethernet0"}
    - name: core
      profile: softswitch
      ports:
        - {name: Ethernet0, speed: 10G, cable: 10m, peer: "edge:Ethernet4"}
        - {name: "Ethernet[8-12/4]", speed: 40G, cable: 3m, peer: host}
  host_latency: 2us
classes:
  - {name: bulk, transport: dctcp, dscp: [10]}
targets: [sai]
"""


#: A packet that began serialising before the 5 ms warm-up ended counts whole after it: one 1538 B
#: frame's line time per sender over the 15 ms measured.
BOUNDARY_GBPS = 1538 * 8 / 15e-3 / 1e9


def _incast(tmp_path: Path, capsys: pytest.CaptureFixture[str], receiver: str, flows: int) -> dict[str, float]:
    intent = tmp_path / "mixed.yaml"
    intent.write_text(textwrap.dedent(MIXED).lstrip())
    with pytest.raises(SystemExit) as exited:
        main(["simulate", str(intent), "--scenario", "fabric-incast", "--port", receiver, "--flows", str(flows),
              "--duration", "20ms", "--warmup", "5ms", "--format", "json"])
    assert not exited.value.code
    report: dict[str, float] = json.loads(capsys.readouterr().out)
    return report


def test_a_1g_receiver_link_saturates_at_1g(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two 40G senders on core, through the 10G link, into one 1G host: the 1G port is the bottleneck.
    report = _incast(tmp_path, capsys, "edge:Ethernet0", 4)
    assert 0.98 <= report["wire_gbps"] <= 1.0 + BOUNDARY_GBPS
    assert report["goodput_gbps"] == pytest.approx(report["wire_gbps"] * 1448 / 1538, rel=1e-3)
    assert report["queue_mean_packets"] > 5  # the queue builds at the 1G port, not before it


def test_1g_senders_are_held_to_1g_each_into_a_40g_receiver(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Four 1G hosts on edge send to a 40G host on core: each NIC runs at its own 1G, so the
    # receiver sees about 4 Gb/s (not 40G, nor the 10G of the link between them), with no queue.
    report = _incast(tmp_path, capsys, "core:Ethernet8", 4)
    assert 3.9 <= report["wire_gbps"] <= 4.0 + 4 * BOUNDARY_GBPS
    assert report["queue_mean_packets"] < 1.0


def test_a_class_on_ports_of_several_speeds_is_one_class_in_the_drop_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # edge holds one ClassIR for bulk per port speed (1G and 10G thresholds); its drops are still
    # one class's, under its own name, where tune's lossless_drops objective looks them up.
    intent = tmp_path / "mixed.yaml"
    intent.write_text(textwrap.dedent(MIXED).lstrip())
    with pytest.raises(SystemExit) as exited:
        main(["simulate", str(intent), "--scenario", "fabric-incast", "--port", "edge:Ethernet0",
              "--flows", "4", "--duration", "2ms", "--warmup", "1ms", "--format", "json"])
    assert not exited.value.code
    report = json.loads(capsys.readouterr().out)
    tables = [report["drops_by_class"]]
    for switch in report["switches"]:
        tables.append(switch["drops_by_class"])
        tables.extend(port["drops_by_class"] for port in switch["ports"])
    assert all(list(table) == ["bulk"] for table in tables), tables
