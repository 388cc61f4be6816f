"""``qosforge check deadlock``: exit 0 deadlock-free, 1 a cycle, 2 bad input, 3 not proven; and
``compile`` and ``lint --intent`` refusing a fabric whose lossless class can deadlock (one line,
exit 2)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
Run = Callable[..., tuple[int, str, str]]

#: K4 without sw3-sw4 (deadlock-free); losing sw1-sw2 leaves the ring sw1-sw3-sw2-sw4.
DIAMOND = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: diamond}
topology:
  switches:
    - {name: sw1, profile: broadcom-trident2, ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet4, speed: 40G, peer: "sw2:Ethernet4"}, {name: Ethernet8, speed: 40G, peer: "sw3:Ethernet8"}, {name: Ethernet12, speed: 40G, peer: "sw4:Ethernet12"}]}
    - {name: sw2, profile: broadcom-trident2, ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet4, speed: 40G, peer: "sw1:Ethernet4"}, {name: Ethernet8, speed: 40G, peer: "sw3:Ethernet4"}, {name: Ethernet12, speed: 40G, peer: "sw4:Ethernet4"}]}
    - {name: sw3, profile: broadcom-trident2, ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet4, speed: 40G, peer: "sw2:Ethernet8"}, {name: Ethernet8, speed: 40G, peer: "sw1:Ethernet8"}]}
    - {name: sw4, profile: broadcom-trident2, ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet4, speed: 40G, peer: "sw2:Ethernet12"}, {name: Ethernet12, speed: 40G, peer: "sw1:Ethernet12"}]}
classes:
  - {name: rdma, transport: dcqcn, dscp: [26], lossless: true}
  - {name: bulk, transport: dctcp, dscp: [10]}
"""

#: Four switches in a ring, each Ethernet8 to the next one's Ethernet12: two cycles of four buffers.
RING = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: ring}
topology:
  switches:
    - {name: sw1, profile: broadcom-trident2, ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet8, speed: 40G, peer: "sw2:Ethernet12"}, {name: Ethernet12, speed: 40G, peer: "sw4:Ethernet8"}]}
    - {name: sw2, profile: broadcom-trident2, ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet8, speed: 40G, peer: "sw3:Ethernet12"}, {name: Ethernet12, speed: 40G, peer: "sw1:Ethernet8"}]}
    - {name: sw3, profile: broadcom-trident2, ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet8, speed: 40G, peer: "sw4:Ethernet12"}, {name: Ethernet12, speed: 40G, peer: "sw2:Ethernet8"}]}
    - {name: sw4, profile: broadcom-trident2, ports: [{name: Ethernet0, speed: 40G, peer: host}, {name: Ethernet8, speed: 40G, peer: "sw1:Ethernet12"}, {name: Ethernet12, speed: 40G, peer: "sw3:Ethernet8"}]}
classes:
  - {name: rdma, transport: dcqcn, dscp: [26], lossless: true}
"""


def _write(tmp_path: Path, text: str, name: str = "fabric.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def test_an_example_is_deadlock_free_under_any_single_link_failure(run_cli: Run) -> None:
    code, out, err = run_cli("check", "deadlock", str(ROOT / "examples" / "roce-pod.yaml"), "--fail-links", "1")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1] == ("routing: ebgp-rfc7938 (AS-path loop detection, 5 ASNs for 6 switches, "
                        "1 shared by a tier, multipath-relax; the default of generated topologies)")
    assert lines[2] == "healthy fabric: no cyclic buffer dependency"
    assert lines[3].startswith("single link failures: 8 of 8 checked in ")
    assert lines[3].endswith("; 0 create a cycle; 0 cut hosts off")
    assert lines[-1] == "class 'rdma' (PG 3): deadlock-free under any single link failure"


def test_json_names_the_failure_that_closes_a_cycle(run_cli: Run, tmp_path: Path) -> None:
    code, out, _err = run_cli("check", "deadlock", str(_write(tmp_path, DIAMOND)), "--fail-links", "1", "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert (report["switches"], report["cables"]) == (4, 5)
    assert report["classes"] == [{"name": "rdma", "priority_group": 3}]
    assert report["healthy"] == {"cycles": []}
    failures = report["failures"]
    assert (failures["total"], failures["checked"], failures["complete"]) == (5, 5, True)
    assert [d["failed"] for d in failures["deadlocks"]] == [["sw1:Ethernet4 - sw2:Ethernet4"]]
    cycle = failures["deadlocks"][0]["cycles"][0]
    assert sorted(cycle["switches"]) == ["sw1", "sw2", "sw3", "sw4"] and len(cycle["routes"]) == 4
    assert report["summary"] == [{"class": "rdma", "deadlock_free": False,
                                  "text": "class 'rdma' (PG 3): can deadlock under 1 of the 5 single link failures checked"}]


def test_the_healthy_diamond_passes_without_failures(run_cli: Run, tmp_path: Path) -> None:
    code, out, _err = run_cli("check", "deadlock", str(_write(tmp_path, DIAMOND)))
    assert code == 0
    assert out.splitlines()[-1] == "class 'rdma' (PG 3): deadlock-free on the healthy fabric"


POD = str(ROOT / "examples" / "roce-pod.yaml")


def test_a_stopped_sweep_is_not_a_proof(run_cli: Run, tmp_path: Path) -> None:
    # Exit 3, not 0: the same fabric exits 1 when the sweep completes (12 of 28 pairs deadlock).
    code, out, _err = run_cli("check", "deadlock", POD, "--fail-links", "2", "--max-failures", "2")
    assert code == 3
    assert out.splitlines()[-1] == (
        "class 'rdma' (PG 3): no cycle under the 2 of 28 failure sets checked "
        "(stopped at the count limit of 2 failure sets): not proven under any double link failure")
    code, out, _err = run_cli("check", "deadlock", POD, "--fail-links", "2", "--time-limit", "1e-9",
                              "--format", "json")
    report = json.loads(out)
    assert code == 3 and report["verdict"] == "not_proven" and report["exit_code"] == 3
    assert report["failures"]["checked"] < 28 and report["failures"]["complete"] is False
    assert [item["deadlock_free"] for item in report["summary"]] == [None]


@pytest.mark.parametrize(("limit", "line"), [
    ("1ns", None),  # with its unit, as every other duration flag (it once refused "0s" and "1ns")
    ("1e-9", None),  # a bare number is seconds, as the flag first took it
    ("0s", "error: --time-limit: duration '0s' must be positive"),
    ("0", "error: --time-limit: must be positive (got 0)"),
    ("5 minutes", "error: --time-limit: "),
])
def test_the_time_limit_is_a_duration(run_cli: Run, limit: str, line: str | None) -> None:
    code, out, err = run_cli("check", "deadlock", POD, "--fail-links", "2", "--time-limit", limit,
                             "--format", "json")
    if line is None:
        assert code == 3 and json.loads(out)["verdict"] == "not_proven", err
    else:
        assert code == 2 and out == "" and err.startswith(line) and err.count("\n") == 1


def test_a_sweep_skipped_for_a_healthy_cycle_says_why(run_cli: Run, tmp_path: Path) -> None:
    ring = str(_write(tmp_path, RING))
    code, out, _err = run_cli("check", "deadlock", ring, "--fail-links", "1", "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "deadlock" and len(report["healthy"]["cycles"]) == 2
    failures = report["failures"]
    assert failures["checked"] == 0 and failures["complete"] is False
    assert failures["skipped"] == ("the healthy fabric already has 2 cyclic buffer "
                                   "dependency(ies): no failure set was checked")
    code, out, _err = run_cli("check", "deadlock", ring, "--fail-links", "1")
    assert code == 1
    assert "single link failures: not checked: the healthy fabric already has 2 cyclic" in out


def test_a_complete_sweep_proves_and_says_so(run_cli: Run, tmp_path: Path) -> None:
    code, out, _err = run_cli("check", "deadlock", POD, "--fail-links", "1", "--format", "json")
    report = json.loads(out)
    failures = report["failures"]
    assert code == 0 and report["verdict"] == "deadlock_free" and failures["complete"] is True
    assert failures["skipped"] is None and failures["checked"] == failures["total"] == 8


BOUNCE = ["leaf1:Ethernet64 - spine1:Ethernet0", "leaf2:Ethernet68 - spine2:Ethernet4"]


def test_two_failed_uplinks_make_the_roce_pod_bounce_and_deadlock_under_shortest_paths(
        run_cli: Run) -> None:
    """leaf1 without spine1 and leaf2 without spine2: leaf1's traffic to leaf2 goes up spine2,
    down to leaf3 or leaf4 and up spine1 again, the bounce that closes a loop (Guo et al.,
    SIGCOMM 2016 §4.2). 12 of the 28 pairs of links do this; 4 cut a leaf off."""
    code, out, _err = run_cli("check", "deadlock", str(ROOT / "examples" / "roce-pod.yaml"),
                              "--fail-links", "2", "--routing", "shortest-path")
    assert code == 1
    lines = out.splitlines()
    assert lines[1] == "routing: shortest-path (fewest switch hops, ECMP; --routing)"
    assert lines[3].startswith("double link failures: 28 of 28 checked in ")
    assert lines[3].endswith("; 12 create a cycle; 4 cut hosts off")
    assert lines[4] == f"  failed {BOUNCE[0]} and {BOUNCE[1]}:"
    assert lines[5] == ("    cycle: spine1:Ethernet8 -> leaf4:Ethernet64 -> spine2:Ethernet12 -> "
                        "leaf3:Ethernet68 -> spine1:Ethernet8")
    assert "closed by hosts on leaf2 to hosts on leaf1 via leaf2 > spine1 > leaf4 > spine2 > leaf1" in lines[7]
    assert lines[-1] == "class 'rdma' (PG 3): can deadlock under 12 of the 28 double link failures checked"


def test_under_ebgp_the_same_failures_cut_leaves_off_instead(run_cli: Run) -> None:
    """roce-pod's own routing (eBGP, its spines sharing one ASN, RFC 7938 §5.2.1): a spine drops
    the route that bounces through a leaf (RFC 4271 §9.1.2), so none of the 28 double failures
    closes a cycle and 16 leave leaf pairs without a route."""
    code, out, _err = run_cli("check", "deadlock", str(ROOT / "examples" / "roce-pod.yaml"),
                              "--fail-links", "2", "--format", "json")
    assert code == 0
    report = json.loads(out)
    asns = report["routing"]["asns"]
    assert report["routing"]["model"] == "ebgp-rfc7938" and asns["spine1"] == asns["spine2"] == 65534
    failures = report["failures"]
    found = (failures["checked"], len(failures["deadlocks"]), len(failures["partitions"]))
    assert found == (28, 0, 16)
    bounce = next(p for p in failures["partitions"] if p["failed"] == BOUNCE)
    assert bounce["unreachable"] == [["leaf2", "leaf1"], ["leaf1", "leaf2"]]
    summary = report["summary"][0]["text"]
    assert summary == "class 'rdma' (PG 3): deadlock-free under any double link failure"


def test_bad_input_and_no_lossless_class(run_cli: Run, tmp_path: Path) -> None:
    code, _out, err = run_cli("check", "deadlock", str(tmp_path / "missing.yaml"))
    assert code == 2 and err.startswith("error: INTENT: no such file")
    code, _out, err = run_cli("check", "deadlock", str(ROOT / "examples" / "roce-pod.yaml"), "--fail-links", "3")
    assert code == 2 and "--fail-links" in err
    lossy = _write(tmp_path, DIAMOND.replace("transport: dcqcn, dscp: [26], lossless: true", "transport: dctcp, dscp: [26]"))
    code, out, _err = run_cli("check", "deadlock", str(lossy))
    assert code == 0 and out == f"{lossy}: no lossless class: PFC never pauses, so nothing can deadlock\n"


def test_compile_refuses_a_lossless_ring_in_one_line(run_cli: Run, tmp_path: Path) -> None:
    intent = _write(tmp_path, RING, "ring.yaml")
    line = next(n for n, text in enumerate(intent.read_text().splitlines(), 1) if "lossless: true" in text)
    code, out, err = run_cli("compile", str(intent), "-o", str(tmp_path / "out"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"error: {intent}:{line}:48: classes[0].lossless: lossless class 'rdma' (PG 3) can deadlock")
    assert "sw2:Ethernet12 -> sw3:Ethernet12 -> sw4:Ethernet12 -> sw1:Ethernet12 -> sw2:Ethernet12" in err
    assert "(hint: break the cycle:" in err
    assert not (tmp_path / "out").exists()


def test_lint_with_a_deadlocking_intent_is_unusable_input(run_cli: Run, tmp_path: Path) -> None:
    diamond = _write(tmp_path, DIAMOND)
    assert run_cli("compile", str(diamond), "-o", str(tmp_path / "out"), "--target", "sonic", "-q")[0] == 0
    config = tmp_path / "out" / "sw1" / "config_db.json"
    assert run_cli("lint", str(config), "--intent", str(diamond))[0] == 0
    code, _out, err = run_cli("lint", str(config), "--intent", str(_write(tmp_path, RING, "ring.yaml")))
    assert code == 2
    assert "can deadlock: PFC buffers form a cycle on switches sw2, sw3, sw4, sw1" in err and "Traceback" not in err
