"""Every loss of a lossless class's packets is a lossless loss, named with its cause: open-loop
traffic (not ECN-capable) in roce-pod's lossless rdma class meets the class's WRED curve, whose
profile enables green drop (as SONiC's lossless WRED profiles do), and is dropped by it; the
report counts those drops as lossless drops with cause wred, per class, and says why the flows
are not ECT. (Before, it said lossless_drops 0 beside tens of thousands of drops.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Run = Callable[..., tuple[int, str, str]]

POD = str(Path(__file__).resolve().parents[2] / "examples" / "roce-pod.yaml")
OPEN_LOOP_INCAST = """apiVersion: qosforge/v1
kind: Traffic
flows:
  - {src: [leaf1:Ethernet0, leaf1:Ethernet4], dst: leaf1:Ethernet8, class: rdma, rate: 80G}
"""


def test_open_loop_traffic_dropped_by_a_lossless_class_wred_is_a_lossless_loss(
    run_cli: Run, tmp_path: Path
) -> None:
    traffic = tmp_path / "traffic.yaml"
    traffic.write_text(OPEN_LOOP_INCAST)
    code, out, err = run_cli(
        "simulate", POD, "--traffic", str(traffic), "--measure", "1ms:3ms", "--format", "json"
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    assert report["drops"] > 0 and report["drops_by_reason"]["wred"] == report["drops"]
    assert report["lossless_drops"] == report["drops"]
    assert report["lossless_drops_by_reason"] == {"wred": report["drops"]}
    rdma = report["drops_by_class"]["rdma"]
    assert rdma == {"lossless": True, "drops": report["drops"], "wred": report["drops"]}
    assert report["drops_by_class"]["tcp"] == {"lossless": False, "drops": 0}
    (group,) = report["flow_ect"]
    assert group["ect"] is False and group["transport"] == "cbr" and "RFC 3168" in group["why"]
    code, text, err = run_cli("simulate", POD, "--traffic", str(traffic), "--measure", "1ms:3ms")
    assert code == 0, err
    assert f"drops in rdma (a lossless class: lossless losses): wred {report['drops']}" in text
