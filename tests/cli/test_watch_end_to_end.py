"""End to end: compile -> serve the compiled switch as a gNMI device (the software switch,
``softswitch/device``) -> traffic runs -> ``qosforge watch --once`` (the real CLI, over gRPC).

examples/roce-pod.yaml's leaf1 (Spectrum-2, 100G, lossless DCQCN class ``rdma`` on priority 3,
DCTCP class ``tcp``), an incast into Ethernet0. The clean config gives no finding; each injected
fault gives its finding at the port and class where it was injected:

- headroom cut by 30 % (every lossless PG's xoff x 0.7), under a line-rate lossless incast whose
  PGs reach XOFF (softswitch/helper/headroom_incast.py; its clean run gives no finding either):
  watch-lossless-pg-drop on the rdma PG of each sender's port, and only there;
- ECN disabled on the marking class (``push`` of an OpenConfig /qos whose tcp profile has
  ``enable-ecn`` false, applied by the device): watch-ecn-off on Ethernet0 queue 1 (tcp);
- a DSCP mapped to the wrong traffic class (the tcp DSCP the incast sends -> TC 0 on every port, the queue the
  design leaves unused): watch-unplanned-queue on Ethernet0 queue 0;
- a stalled receiver (the host on Ethernet0 sends XOFF on priority 3 and never XON): streaming
  watch finds the pause storm on Ethernet0 priority 3 (rdma), and the switch's PFC watchdog
  (the compiled PFC_WD: 200 ms detection) reports the storm on Ethernet0 queue 3.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
INTENT = ROOT / "examples" / "roce-pod.yaml"
Run = Callable[..., tuple[int, str, str]]

pytest.importorskip("qosforge.softswitch.device.serve", reason="the software switch as a gNMI device")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from qosforge.cli import main

    out = tmp_path_factory.mktemp("roce") / "out"
    with pytest.raises(SystemExit) as done:
        main(["compile", str(INTENT), "-o", str(out), "--quiet"])
    assert done.value.code in (0, None)
    return out


def _build(class_name: str, flows: int, duration_s: float, flow_size_bytes: int | None = None) -> Any:
    from qosforge.softswitch.helper.intent_incast import intent_incast

    return intent_incast(INTENT, "leaf1", class_name, "Ethernet0", flows, None, flow_size_bytes, None, duration_s, 0.0, 1, None, {})


@pytest.fixture
def serve() -> Iterator[Callable[..., Any]]:
    from qosforge.softswitch.device.live import Scenario
    from qosforge.softswitch.device.serve import serve_simulation
    from qosforge.softswitch.engine.build import single_switch

    started: list[Any] = []

    def start(built: Any, config: Any = None, run: Any = None) -> Any:
        config = config or built.compiled.config
        scenario = Scenario((config,), single_switch(len(config.ports)), built.flows, run or built.run)
        served = serve_simulation(scenario, (built.compiled.ir,), "127.0.0.1", 0, server_credentials=None, credentials=None)
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()


def _watch(run_cli: Run, out: Path, served: Any, until_s: float) -> tuple[int, list[dict[str, Any]]]:
    assert served.live.wait_until(until_s, timeout_s=600.0), "the simulation did not reach the watch time"
    address = f"127.0.0.1:{served.endpoints[0].port}"
    code, text, err = run_cli("watch", str(out), "--switch", "leaf1", "--address", address, "--insecure", "--once", "--format", "json")
    assert code in (0, 1), err
    return code, json.loads(text)["findings"]


def _problems(findings: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(f["rule"], f["key"], f["field"]) for f in findings if f["severity"] != "info"}


def test_clean_config_gives_no_finding(compiled: Path, serve: Callable[..., Any], run_cli: Run) -> None:
    built = _build("rdma", 8, 2e-3)
    code, findings = _watch(run_cli, compiled, serve(built), 2e-3)
    assert code == 0 and _problems(findings) == set(), findings


def _headroom_scenario() -> Any:
    from qosforge.softswitch.helper.headroom_incast import headroom_incast

    return headroom_incast(INTENT, "leaf1", "rdma", "Ethernet0", duration_s=2e-3)


def test_clean_config_under_pfc_gives_no_finding(compiled: Path, serve: Callable[..., Any], run_cli: Run) -> None:
    """Line-rate lossless incast that drives the senders' PGs to XOFF (headroom_incast): the
    compiled headroom holds what arrives after XOFF, so no lossless drop and no watermark above xoff."""
    built = _headroom_scenario()
    code, findings = _watch(run_cli, compiled, serve(built), 2e-3)
    assert code == 0 and _problems(findings) == set(), findings


def test_headroom_cut_by_30_percent(compiled: Path, serve: Callable[..., Any], run_cli: Run) -> None:
    built = _headroom_scenario()
    config = built.compiled.config
    cut = tuple(replace(p, xoff_bytes=int(p.xoff_bytes * 0.7)) if p.xoff_bytes > 0 else p for p in config.profiles)
    code, findings = _watch(run_cli, compiled, serve(built, replace(config, profiles=cut)), 2e-3)
    problems = _problems(findings)
    senders = {config.ports[s].name for s in built.senders}
    assert code == 1 and problems, findings
    # drops at the ingress PGs of the lossless senders' ports, where the short headroom is, and nowhere else
    assert {rule for rule, _, _ in problems} == {"watch-lossless-pg-drop"}, problems
    assert {port for _, port, _ in problems} == senders
    assert {field for _, _, field in problems} == {"pg 3 (rdma)"}
    for finding in findings:
        if finding["rule"] == "watch-lossless-pg-drop":
            assert finding["values"]["observed"] > 0 and finding["values"]["predicted"] == 0
            assert "xoff 47,104 B" in finding["values"]["predicted_source"]


# A push that restarts the run, then a watch window (~5 CPU s): the slow tier (pyproject.toml);
# tests/softswitch/device/test_gnmi_target.py sets ECN off on the device in the default tier.
@pytest.mark.slow
def test_ecn_disabled_on_the_marking_class(compiled: Path, serve: Callable[..., Any], run_cli: Run) -> None:
    built = _build("tcp", 8, 2e-3)
    served = serve(built)
    assert served.live.wait_until(1e-4, timeout_s=600.0)
    document = json.loads((compiled / "leaf1" / "openconfig.json").read_text())
    document = copy.deepcopy(document)
    tcp_profiles = set()
    for interface in document["openconfig-qos:qos"]["interfaces"]["interface"]:
        for queue in interface["output"]["queues"]["queue"]:
            if queue["name"] == "tcp" and "queue-management-profile" in queue.get("config", {}):
                tcp_profiles.add(queue["config"]["queue-management-profile"])
    assert tcp_profiles
    for profile in document["openconfig-qos:qos"]["queue-management-profiles"]["queue-management-profile"]:
        if profile["name"] in tcp_profiles:
            profile["wred"]["uniform"]["config"]["enable-ecn"] = False
    config_file = compiled.parent / "ecn-off.json"
    config_file.write_text(json.dumps(document))
    address = f"127.0.0.1:{served.endpoints[0].port}"
    code, _out, err = run_cli("push", "--config", str(config_file), "--switch", "leaf1", "--address", address, "--insecure",
                              "--backup", str(compiled.parent / "backup.json"))
    assert code == 0, err
    epoch = served.live.progress().epoch
    assert served.live.wait_until(2e-3, timeout_s=600.0, epoch=epoch)
    code, findings = _watch(run_cli, compiled, served, 2e-3)
    assert code == 1 and _problems(findings) == {("watch-ecn-off", "Ethernet0", "queue 1 (tcp)")}, findings
    [finding] = [f for f in findings if f["rule"] == "watch-ecn-off"]
    assert finding["values"]["predicted_quantity"] == "threshold_bytes" and "DCTCP" in finding["values"]["predicted_source"]


def test_dscp_mapped_to_the_wrong_traffic_class(compiled: Path, serve: Callable[..., Any], run_cli: Run) -> None:
    built = _build("tcp", 8, 2e-3)
    config = built.compiled.config
    sent = built.flows[0].dscp  # a DSCP of the tcp class (the incast sends its first)
    assert config.ports[0].dscp_to_tc[sent] == 1
    ports = tuple(replace(p, dscp_to_tc=tuple(0 if dscp == sent else tc for dscp, tc in enumerate(p.dscp_to_tc))) for p in config.ports)
    assert config.ports[0].tc_to_queue[0] == 0  # TC 0 -> queue 0, which no class of the design uses
    code, findings = _watch(run_cli, compiled, serve(built, replace(config, ports=ports)), 2e-3)
    assert code in (0, 1)
    assert ("watch-unplanned-queue", "Ethernet0", "queue 0") in _problems(findings), findings
    assert {rule for rule, _, _ in _problems(findings)} <= {"watch-unplanned-queue", "watch-ecn-off"}


# A streaming watch over the 200 ms PFC watchdog (~4 CPU s): the slow tier (pyproject.toml);
# tests/validation/test_fabric.py holds the watchdog to the storm in the default tier.
@pytest.mark.slow
def test_stalled_receiver_is_a_storm(compiled: Path, serve: Callable[..., Any], run_cli: Run) -> None:
    """The receiver on Ethernet0 sends XOFF on priority 3 at 0.1 ms and never XON: streaming, watch
    sees the priority's pause time grow with (device) time for longer than the compiled watchdog
    detection time, and the switch's own PFC watchdog detects the storm on queue 3 after its
    detection time (COUNTERS_DB PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED, PFC_WD_STATUS stormed)."""
    from qosforge.softswitch.traffic.spec import PauseSpec

    # Longer than the watch below on any machine: the run is paced to wall time and must still be
    # going while watch streams (a run that ended before watch connected shows one frozen sample).
    # One sender of 2 MB (160 us at 100G; paused at 100 us, the rest waits in the switch): a
    # long-lived line-rate sender's drops during the watchdog's recovery would be most of the
    # events, and the run must keep pace with wall time so that watch, connected a second or two
    # after the pause began, still watches the storm for longer than the detection time.
    built = _build("rdma", 1, 10.0, flow_size_bytes=2_000_000)
    report = json.loads((compiled / "report.json").read_text())
    detection_ms = next(s for s in report["switches"] if s["name"] == "leaf1")["pfc_watchdog"]["detection_ms"]
    receiver = next(i for i, p in enumerate(built.compiled.config.ports) if p.name == "Ethernet0")
    run = replace(built.run, pauses=(PauseSpec(1e-4, receiver, 1 << 3, True),))
    served = serve(built, run=run)
    assert served.live.wait_until(1e-4, timeout_s=600.0)
    address = f"127.0.0.1:{served.endpoints[0].port}"
    code, text, err = run_cli("watch", str(compiled), "--switch", "leaf1", "--address", address, "--insecure",
                              "--interval", "20ms", "--duration", "4s", "--no-live", "--format", "json")
    assert served.live.progress().time_s >= (detection_ms + 20) / 1e3, "the run did not pass the detection time while watched"
    findings = json.loads(text)["findings"]
    problems = _problems(findings)
    assert code == 1 and ("watch-pfc-storm", "Ethernet0", "priority 3 (rdma)") in problems, (err, findings)
    [storm] = [f for f in findings if f["rule"] == "watch-pfc-storm"]
    assert storm["values"]["predicted"] == detection_ms and storm["values"]["observed"] >= detection_ms
    assert ("watch-pfc-pause", "Ethernet0", "priority 3 (rdma)") in problems
    assert ("watch-pfcwd-triggered", "Ethernet0", "queue 3 (rdma)") in problems
    [watchdog] = [f for f in findings if f["rule"] == "watch-pfcwd-triggered"]
    assert watchdog["values"]["observed"] >= 1 and watchdog["values"]["observed_counter"] == "pfcwd-deadlock-detected"
    # the watchdog's drops on the lossless queue are its recovery, not a lossless-queue finding
    assert {rule for rule, _, _ in problems} == {"watch-pfc-storm", "watch-pfc-pause", "watch-pfcwd-triggered"}, problems
    assert {port for _, port, _ in problems} == {"Ethernet0"}
