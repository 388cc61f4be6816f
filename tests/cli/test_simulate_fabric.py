"""``qosforge simulate INTENT --scenario fabric-incast|all-to-all|pause-storm`` (the whole fabric)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Three leaves with two hosts each, two spines, a lossless DCQCN class and a 1 ms PFC watchdog.
SMALL = ROOT / "tests" / "validation" / "fabrics" / "lossless-watchdog.yaml"
ROCE = ROOT / "examples" / "roce-pod.yaml"
ASSUME = ("--assume", "red.steps=1024", "--assume", "red.step_offset=0")

Run = Callable[..., tuple[int, str, str]]


def _run_json(run_cli: Run, *argv: str) -> dict:  # type: ignore[type-arg]
    code, out, err = run_cli("simulate", *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("scenario", ["fabric-incast", "all-to-all", "pause-storm"])
def test_every_fabric_scenario_runs_with_its_defaults(run_cli: Run, scenario: str) -> None:
    report = _run_json(run_cli, str(SMALL), "--scenario", scenario)
    assert report["fabric_switches"] == ["leaf1", "leaf2", "leaf3", "spine1", "spine2"] and report["hosts"] == 6
    # The intent's first class (rdma; pause-storm: its first lossless one, the same), named in the report.
    assert report["class"] == "rdma" and report["class_chosen_by"].startswith("default: the intent's first")
    # Today's keys keep their meaning; the fabric adds its own.
    for key in ("queue_p99_packets", "goodput_gbps", "drops_by_reason", "lossless_drops", "fct_mean_s", "fct_p99_s", "fct_p50_s",
                "switches", "pause_depth", "pfc_watchdog", "flow_completion", "reordering"):
        assert key in report, key
    switches = {s["name"]: s for s in report["switches"]}
    assert set(switches) == set(report["fabric_switches"])
    leaf_ports = switches["leaf1"]["ports"]
    assert {p["peer"] for p in leaf_ports} == {"host", "spine1:Ethernet0", "spine2:Ethernet0"}
    assert set(leaf_ports[0]["queues"]) == {"rdma", "tcp"}
    assert {"max_bytes", "p99_packets"} <= set(leaf_ports[0]["queues"]["rdma"])
    assert report["goodput_gbps"] > 0
    # ECMP keeps every flow on one path: nothing arrives out of order.
    assert report["reordering"]["ooo_packets"] == 0
    # ECMP over two spines draws per-flow hashes from the seed.
    assert report["seed"] == 1 and report["seed_effective"] is True
    # The monitored port (also the --plot legend) as switch:port: the receiver, the stalled host, all-to-all's first host.
    assert report["goodput_scope"] and report["monitored_port"] == report.get("receiver", report.get("stalled_port", "leaf1:Ethernet0"))
    # drops counts every switch drop after the warm-up, so its reasons add up to it.
    assert set(report["drops_by_reason"]) >= {"wred", "pfc_watchdog"}
    assert report["drops"] == sum(report["drops_by_reason"].values())
    # One FCT definition (nearest-rank) behind both keys.
    assert report["fct_p99_s"] == report["flow_completion"]["p99_s"]


def test_pause_storm_spreads_and_the_watchdog_fires(run_cli: Run) -> None:
    report = _run_json(run_cli, str(SMALL), "--scenario", "pause-storm", "--stall", "2.5ms", "--flows", "16")
    # The 1 ms watchdog declares the stalled queue deadlocked once within 2.5 ms of stall.
    assert report["pfc_watchdog"]["deadlocks"] == 1 and report["pfc_watchdog"]["drops"] > 0
    # The watchdog's recovery drops are among the reasons, and the reasons add up to drops.
    assert report["drops_by_reason"]["pfc_watchdog"] == report["pfc_watchdog"]["drops"]
    assert report["drops"] == sum(report["drops_by_reason"].values())
    stalled = report["stalled_port"]
    # The stall's backlog made the spines pause leaf uplinks too.
    assert stalled in report["paused_ports"] and len(report["paused_ports"]) > 1
    # The lossless class loses only what the watchdog's recovery drops (counted as its losses,
    # with that cause): nothing overflows a headroom.
    assert report["lossless_drops_by_reason"] == {"pfc_watchdog": report["pfc_watchdog"]["drops"]}


def test_all_to_all_reports_flow_completion_times(run_cli: Run) -> None:
    report = _run_json(run_cli, str(SMALL), "--scenario", "all-to-all", "--load", "30%", "--flow-size-dist", "data-mining", "--duration", "4ms")
    assert report["flow_size_dist"] == "data-mining" and report["load"] == 0.3
    completion = report["flow_completion"]
    assert completion["count"] > 0 and 0 < completion["p50_s"] <= completion["p99_s"]
    assert report["fct_p99_s"] == completion["p99_s"] and report["flows_finished"] == completion["count"]
    assert "flow_size_bytes" not in report
    # 2 hosts on 2 uplinks of the same speed at 30%: the uplinks carry it, nothing to note.
    assert report["uplink_load"]["offered_ratio"] == 0.3 and report["notes"] == []


@pytest.mark.parametrize("output_format", ["json", "table"])
def test_all_to_all_notes_an_offered_load_the_uplinks_cannot_carry(run_cli: Run, output_format: str) -> None:
    # mixed-fabric: 16 hosts at 100G per leaf on one 100G uplink (16:1), 60% load: 9.6x what the uplink carries.
    code, out, err = run_cli("simulate", str(ROOT / "examples" / "mixed-fabric.yaml"), *ASSUME, "--scenario", "all-to-all",
                             "--duration", "0.1ms", "--format", output_format)
    assert code == 0, err
    if output_format == "json":
        report = json.loads(out)
        assert report["uplink_load"] == {"leaf": "leaf1", "hosts": 16, "offered_bps": 960e9, "uplink_capacity_bps": 100e9,
                                         "offered_ratio": 9.6, "oversubscription": 16.0}
        assert len(report["notes"]) == 1 and "exceeds the leaf uplinks by 9.60x" in report["notes"][0]
    else:
        assert "note: the offered load exceeds the leaf uplinks by" in out and "16:1" in out


def test_finite_incast_flows_are_not_hidden_by_a_default_warmup(run_cli: Run) -> None:
    report = _run_json(run_cli, str(SMALL), "--scenario", "fabric-incast", "--flows", "2", "--flow-size", "60kB", "--duration", "1ms")
    assert report["warmup_s"] == 0 and report["flow_size_bytes"] == 60000
    assert report["packets_forwarded"] > 0 and report["flow_completion"]["count"] == 2


def test_a_warmup_that_hides_all_traffic_says_so(run_cli: Run) -> None:
    code, out, err = run_cli("simulate", str(SMALL), "--scenario", "fabric-incast", "--flows", "1", "--flow-size", "3kB",
                             "--duration", "1ms", "--warmup", "0.5ms", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["warmup_s"] == 0.0005 and "no packet was forwarded after the --warmup" in err


def test_pause_storm_reports_the_flow_size_it_used(run_cli: Run) -> None:
    report = _run_json(run_cli, str(SMALL), "--scenario", "pause-storm", "--flow-size", "30kB", "--stall", "0.5ms")
    assert report["flow_size_bytes"] == 30000 and report["duration_s"] == 0.0025


def test_a_switch_subset_runs_with_the_links_between_them(run_cli: Run) -> None:
    report = _run_json(run_cli, str(ROCE), *ASSUME, "--scenario", "fabric-incast", "--switch", "leaf1", "--switch", "spine1",
                       "--switch", "leaf2", "--flows", "4", "--duration", "1ms", "--warmup", "0s")
    assert report["fabric_switches"] == ["leaf1", "spine1", "leaf2"] and report["hosts"] == 32
    assert report["receiver"].startswith("leaf2:")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--scenario", "fabric-incast", "--switch", "leaf9"], "--switch"),
        (["--scenario", "fabric-incast", "--switch", "spine1"], "--switch"),  # no host ports
        (["--scenario", "fabric-incast", "--switch", "leaf1", "--switch", "leaf2"], "--switch"),  # not connected
        (["--scenario", "all-to-all", "--load", "0%"], "--load"),
        (["--scenario", "all-to-all", "--load", "120%"], "--load"),
        (["--scenario", "all-to-all", "--flows", "5"], "--flows"),
        (["--scenario", "all-to-all", "--flow-size-dist", "nosuch"], "--flow-size-dist"),
        (["--scenario", "fabric-incast", "--stall", "1ms"], "--stall"),
        (["--scenario", "pause-storm", "--stall", "0s"], "--stall"),
        (["--scenario", "pause-storm", "--class", "tcp"], "--class"),
        (["--scenario", "fabric-incast", "--port", "leaf1:Ethernet99"], "--port"),
        (["--scenario", "fabric-incast", "--flows", "0"], "--flows"),
        (["--scenario", "fabric-incast", "--flow-size-dist", "data-mining"], "--flow-size-dist"),
        (["--scenario", "pause-storm", "--flow-size-dist", "web-search"], "--flow-size-dist"),  # even the default, when typed
        (["--scenario", "all-to-all", "--flow-size", "1MB"], "--flow-size"),
        (["--scenario", "pause-storm", "--stall", "2ms"], "--stall"),  # the stall would outlast --duration 1ms
        (["--scenario", "all-to-all", "--load", "60"], "write 60% (a percentage)"),  # a bare number is no share
        # one rule with P_max: "1" was 100 % here while "--pmax 0.01" was refused as ambiguous
        (["--scenario", "all-to-all", "--load", "1"], "--load: '1' has no % sign"),
    ],
)
def test_bad_fabric_input_exits_2_naming_the_flag(run_cli: Run, argv: list[str], expected: str) -> None:
    code, out, err = run_cli("simulate", str(SMALL), *argv, "--duration", "1ms")
    assert code == 2 and out == "", err
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err


def test_fabric_scenarios_need_an_intent(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", "--scenario", "all-to-all")
    assert code == 2 and "INTENT" in err


def test_incast_keeps_one_switch(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", str(SMALL), "--scenario", "incast", "--switch", "leaf1", "--switch", "leaf2")
    assert code == 2 and "--switch" in err


def test_the_plot_legend_names_the_fabric_port_as_switch_and_port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    import numpy as np
    from matplotlib.axes import Axes

    from qosforge.cli.simulate import _plot

    labels: list[str] = []
    drawn = Axes.plot
    monkeypatch.setattr(Axes, "plot", lambda self, *a, **k: (labels.append(k["label"]), drawn(self, *a, **k))[1])
    # Engine port 54 of a fabric is a global index, meaningless to the user; the legend says where it is.
    depth = SimpleNamespace(port=54, queue=3, trace_time_s=np.array([0.0, 1e-3]), trace_packets=np.array([0.0, 5.0]))
    _plot(tmp_path / "q.png", SimpleNamespace(monitors=[depth]), "t", labels=("leaf3:Ethernet0",))
    assert labels == ["leaf3:Ethernet0 queue 3"] and (tmp_path / "q.png").is_file()
