"""One ``tune`` candidate: compile + lint before it runs, and the objectives' metrics of a run."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from qosforge.api.tuning.evaluate import CheckJob, check_candidate, class_metrics, scaled_traffic

ROOT = Path(__file__).resolve().parents[3]


def _flow(
    cls: str,
    size: float | None,
    fct: float | None,
    dst: str = "leaf2:Ethernet0",
    delivered: float = 0.0,
) -> dict[str, object]:
    return {
        "class": cls,
        "size_bytes": size,
        "fct_s": fct,
        "dst": dst,
        "bytes_delivered": delivered,
    }


def _report(flows: list[dict[str, object]], ports: list[dict[str, object]]) -> dict[str, object]:
    return {
        "flows": flows,
        "ports": ports,
        "measure_start_s": 0.0,
        "measure_end_s": 0.002,
        "drops_by_class": {
            "rdma": {"lossless": True, "drops": 3},
            "tcp": {"lossless": False, "drops": 7},
        },
    }


PORT = {
    "switch": "leaf2",
    "port": "Ethernet0",
    "speed_bps": 100e9,
    "class": "rdma",
    "paused_s": 0.0005,
    "p99_queue_delay_s": 4e-6,
}


def test_metrics_follow_their_definitions() -> None:
    # 100 small rdma messages finishing in 1..100 us: the nearest-rank p99 is the 99th, 99 us;
    # a 1 MB one is above the 100 kB bound and does not count.
    flows = [_flow("rdma", 10e3, i * 1e-6, delivered=10e3) for i in range(1, 101)] + [
        _flow("rdma", 1e6, 5e-3, delivered=1e6)
    ]
    flows.append(_flow("tcp", None, None, dst="leaf2:Ethernet4", delivered=5e6))
    ports = [
        PORT,
        {**PORT, "port": "Ethernet4", "class": "tcp", "paused_s": 0.0, "p99_queue_delay_s": 1e-6},
    ]
    metrics = class_metrics(_report(flows, ports), {"rdma": 100e3, "tcp": 100e3})
    rdma, tcp = metrics["rdma"], metrics["tcp"]
    assert rdma["fct_p99_us"] == pytest.approx(99.0) and rdma["messages"] == 100
    # 2 MB delivered in 2 ms to one 100G host: 8 Gb/s of 100.
    assert rdma["goodput_percent"] == pytest.approx(8.0)
    assert (
        rdma["lossless_drops"] == 3 and tcp["lossless_drops"] == 0
    )  # drops of a lossy class are not lossless drops
    assert rdma["pfc_pause_percent"] == pytest.approx(25.0) and rdma[
        "queue_delay_p99_us"
    ] == pytest.approx(4.0)
    assert tcp["fct_p99_us"] is None and tcp["goodput_percent"] == pytest.approx(20.0)


def test_an_unfinished_message_at_the_p99_is_not_a_number() -> None:
    flows = [_flow("rdma", 10e3, 1e-6) for _ in range(98)] + [
        _flow("rdma", 10e3, None) for _ in range(2)
    ]
    metrics = class_metrics(_report(flows, [PORT]), {"rdma": 100e3})
    assert metrics["rdma"]["fct_p99_us"] is None and metrics["rdma"]["unfinished"] == 2
    deep = {**PORT, "p99_queue_delay_s": None}  # beyond the depth histogram
    assert (
        class_metrics(_report(flows, [deep]), {"rdma": 100e3})["rdma"]["queue_delay_p99_us"] is None
    )


def test_load_scales_arrival_windows_of_finite_entries_only() -> None:
    text = (ROOT / "examples" / "roce-pod-mixed.traffic.yaml").read_text()
    scaled = YAML().load(scaled_traffic(text, seed=7, load=1.25))
    assert scaled["seed"] == 7
    windows = {entry["group"]: entry.get("start_window") for entry in scaled["flows"]}
    assert windows == {"storage": "800us", "rpc": "800us", "bulk": None, "query": "800us"}


def test_every_target_of_the_intent_may_refuse_a_candidate() -> None:
    # Without its approximations, roce-pod's lossless class has no OpenConfig rendering (no
    # PFC in openconfig-qos): SONiC takes the candidate, its openconfig target does not.
    text = (ROOT / "examples" / "roce-pod.yaml").read_text()
    bare = text.replace("approximations: [pfc-out-of-band, pools-out-of-band]\n", "")
    assert bare != text
    assert check_candidate(CheckJob(bare, "roce-pod.yaml", ("sonic",))).ok
    refused = check_candidate(CheckJob(bare, "roce-pod.yaml", ("sonic", "sai", "openconfig")))
    assert not refused.ok and refused.reason.startswith("compile: ")
    assert "openconfig target cannot express" in refused.reason


def test_compile_and_lint_refuse_what_sonic_cannot_hold() -> None:
    text = (ROOT / "examples" / "roce-pod.yaml").read_text()
    assert check_candidate(CheckJob(text, "roce-pod.yaml")).ok
    fractional = text.replace(
        "    weight: 60\n", "    weight: 60\n    dcqcn: {kmin: 20kB, kmax: 400kB, pmax: 2.5%}\n"
    )
    refused = check_candidate(CheckJob(fractional, "roce-pod.yaml"))
    assert (
        not refused.ok
        and refused.reason.startswith("compile: ")
        and "whole number" in refused.reason
    )
    assert math.isfinite(refused.cpu_s)
