"""host_nic in the intent: checked at its field (exists, runs at the host link's speed, runs
DCQCN when a class needs it); the IR carries each host port's NIC."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent
from qosforge.errors import QosforgeError

INTENT = """apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: hosts}}
topology:
  switches:
    - name: leaf1
      profile: mellanox-spectrum-2
      ports:
        - {{name: "Ethernet[0-4/4]", speed: {speed}, cable: 3m, peer: host{nic}}}
        - {{name: Ethernet8, speed: 100G, cable: 3m, peer: host}}
classes:
  - {{name: rdma, transport: {transport}, dscp: [26], lossless: true}}
"""


def _compile(tmp_path: Path, *, nic: str | None, speed: str = "100G", transport: str = "dcqcn") -> object:
    path = tmp_path / "intent.yaml"
    path.write_text(INTENT.format(nic=f", host_nic: {nic}" if nic else "", speed=speed, transport=transport))
    intent, source_map = load_intent(path)
    return compile_intent(intent, source_map)


def test_ports_carry_their_hosts_nic(tmp_path: Path) -> None:
    fabric = _compile(tmp_path, nic="nvidia-connectx-6dx")
    ports = {p.name: p.host_nic for p in fabric.switches[0].ports}  # type: ignore[attr-defined]
    assert ports == {"Ethernet0": "nvidia-connectx-6dx", "Ethernet4": "nvidia-connectx-6dx", "Ethernet8": "linux-kernel"}


@pytest.mark.parametrize(("nic", "speed", "transport", "message"), [
    ("nvidia-connectx-9", "100G", "dcqcn", "unknown host NIC profile 'nvidia-connectx-9'"),
    ("nvidia-connectx-5", "200G", "dcqcn", "does not run at 200G"),
    ("linux-kernel", "100G", "dcqcn", "runs DCQCN in the senders' NICs, but host NIC linux-kernel has none"),
])
def test_errors_name_the_field(tmp_path: Path, nic: str, speed: str, transport: str, message: str) -> None:
    with pytest.raises(QosforgeError, match=message) as raised:
        _compile(tmp_path, nic=nic, speed=speed, transport=transport)
    assert "intent.yaml:9:" in str(raised.value.place) and "host_nic" in str(raised.value.place)


def test_host_nic_only_on_host_ports(tmp_path: Path) -> None:
    path = tmp_path / "intent.yaml"
    path.write_text(INTENT.format(nic="", speed="100G", transport="dcqcn").replace("        - {name: Ethernet8, speed: 100G, cable: 3m, peer: host}",
                                                                                   "        - {name: Ethernet8, speed: 100G, cable: 3m, host_nic: nvidia-connectx-5}"))
    with pytest.raises(QosforgeError, match="ports whose peer is 'host'"):
        load_intent(path)
