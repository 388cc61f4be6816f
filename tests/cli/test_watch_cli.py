"""qosforge watch against a gNMI target publishing counters (tests/deliver/counters_target.py, in
sonic-gnmi's and OpenConfig's shapes, written independently of qosforge's catalogue): findings at
the right switch, port and class in text, JSON and SARIF, streaming, unavailable families and the
exit codes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deliver"))
from counters_target import CounterState, serve_counters

Run = Callable[..., tuple[int, str, str]]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def roce_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from qosforge.cli import main

    out = tmp_path_factory.mktemp("roce") / "out"
    with pytest.raises(SystemExit) as done:
        main(["compile", str(ROOT / "examples/roce-pod.yaml"), "-o", str(out), "--quiet", "--target", "sonic", "--target", "sai"])
    assert done.value.code in (0, None)
    return out


def _queue(port: str, name: str, leaf: str, value: int) -> Any:
    return ((("qos", {}), ("interfaces", {}), ("interface", {"interface-id": port}), ("output", {}), ("queues", {}),
             ("queue", {"name": name}), ("state", {}), (leaf, {})), value)


def _clean() -> CounterState:
    """leaf1 busy and healthy: DCTCP queue above K and marking, rdma below K_max, headroom below xoff."""
    return CounterState(
        sonic={
            ("COUNTERS", "Ethernet*", "Queues"): {
                "Ethernet0:1": {"SAI_QUEUE_STAT_PACKETS": "5000", "SAI_QUEUE_STAT_DROPPED_PACKETS": "3",
                                "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "150000", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "120"},
                "Ethernet0:1:periodic": {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "150000"},
                "Ethernet0:3": {"SAI_QUEUE_STAT_PACKETS": "9000", "SAI_QUEUE_STAT_DROPPED_PACKETS": "0",
                                "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "40000", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "0"},
                "Ethernet0:0": {"SAI_QUEUE_STAT_PACKETS": "0"},
            },
            ("COUNTERS", "Ethernet*"): {"Ethernet0": {"SAI_PORT_STAT_PFC_3_RX_PKTS": "10", "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US": "0"}},
            ("COUNTERS", "Ethernet*", "Pfcwd"): {"Ethernet0:3": {"PFC_WD_STATUS": "operational", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "0"}},
            ("PERIODIC_WATERMARKS", "Ethernet*", "PriorityGroups"): {"Ethernet0:3": {"SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES": "30000"}},
            ("COUNTERS", "oid:0x1a0000000000ab"): {"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": "0"},
        },
        openconfig=[_queue("Ethernet4", "tcp", "max-queue-len", 20000), _queue("Ethernet4", "tcp", "ecn-marked-pkts", 0),
                    _queue("Ethernet4", "tcp", "transmit-pkts", 100)],
        queue_ids={"tcp": 1, "rdma": 3, "cnp": 6},
        pg_name_map={"Ethernet0:3": "oid:0x1a0000000000ab"},
    )


@pytest.fixture
def target() -> Iterator[Callable[[CounterState], str]]:
    servers = []

    def start(state: CounterState) -> str:
        server, port = serve_counters(state)
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(None)


def test_clean_counters_give_no_finding(roce_out: Path, target: Callable[[CounterState], str], run_cli: Run) -> None:
    code, out, err = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", target(_clean()), "--insecure", "--once", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["findings"] == []
    assert report["summary"]["exit_code"] == 0 and report["switches"][0]["samples"] > 10


def test_faults_are_found_where_they_are(roce_out: Path, target: Callable[[CounterState], str], run_cli: Run) -> None:
    state = _clean()
    queues = state.sonic[("COUNTERS", "Ethernet*", "Queues")]
    queues["Ethernet0:1"]["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] = "0"       # ECN off on the DCTCP class
    queues["Ethernet0:0"]["SAI_QUEUE_STAT_PACKETS"] = "77"                        # a DSCP on the unused queue 0
    state.sonic[("COUNTERS", "oid:0x1a0000000000ab")]["SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"] = "12"
    code, out, err = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", target(state), "--insecure", "--once", "--format", "json")
    assert code == 1, err
    found = {(f["rule"], f["key"], f["field"]): f for f in json.loads(out)["findings"]}
    assert set(found) == {("watch-ecn-off", "Ethernet0", "queue 1 (tcp)"), ("watch-unplanned-queue", "Ethernet0", "queue 0"),
                          ("watch-lossless-pg-drop", "Ethernet0", "pg 3 (rdma)")}
    ecn = found[("watch-ecn-off", "Ethernet0", "queue 1 (tcp)")]["values"]
    # the predicted K is the compiled DCTCP threshold, with its provenance
    report = json.loads((roce_out / "report.json").read_text())
    tcp = next(c for c in report["switches"][0]["classes"] if c["name"] == "tcp")
    assert ecn["predicted"] == tcp["wred"][0]["min"]["value"] and "DCTCP" in ecn["predicted_source"]
    assert ecn["observed"] == 150000 and ecn["observed_path"].startswith("COUNTERS_DB/COUNTERS/Ethernet*/Queues")
    # SARIF and text carry the same findings
    code, out, _ = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", target(state), "--insecure", "--once", "--format", "sarif")
    sarif = json.loads(out)
    assert code == 1 and sarif["runs"][0]["tool"]["driver"]["name"] == "qosforge watch"
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"watch-ecn-off", "watch-unplanned-queue", "watch-lossless-pg-drop"}
    code, out, _ = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", target(state), "--insecure", "--once",
                           "--disable", "watch-ecn-off,watch-lossless-pg-drop")
    assert code == 0 and "warning [watch-unplanned-queue] leaf1|Ethernet0.queue 0" in out


def test_openconfig_only_target_reports_sonic_counters_unavailable(roce_out: Path, target: Callable[[CounterState], str], run_cli: Run) -> None:
    state = _clean()
    state.serve_sonic = False
    state.openconfig[1] = _queue("Ethernet4", "tcp", "max-queue-len", 300000)  # ECN-off seen through OpenConfig alone
    state.openconfig[0] = _queue("Ethernet4", "tcp", "ecn-marked-pkts", 0)
    code, out, err = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", target(state), "--insecure", "--once", "--format", "json")
    assert code == 1, err
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["key"], f["field"]) for f in findings if f["severity"] == "error"] == [("watch-ecn-off", "Ethernet4", "queue 1 (tcp)")]
    unavailable = {f["field"] for f in findings if f["rule"] == "watch-counter-unavailable"}
    assert {"pg-dropped-packets", "pg-headroom-watermark-bytes", "pfc-rx-pause-us"} <= unavailable
    assert "sonic counters unavailable" in err


def test_stream_finds_a_storm(roce_out: Path, target: Callable[[CounterState], str], run_cli: Run) -> None:
    state = _clean()
    frames = []
    for i in range(80):  # priority 3 of Ethernet0 paused for the whole of every 100 ms (device time)
        sonic = json.loads(json.dumps({"|".join(k): v for k, v in state.sonic.items()}))
        sonic["COUNTERS|Ethernet*"]["Ethernet0"]["SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US"] = str(i * 100_000)
        sonic["COUNTERS|Ethernet*|Queues"]["Ethernet0:1"]["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] = str(120 + i * 50)
        frames.append(({tuple(k.split("|")): v for k, v in sonic.items()}, state.openconfig))
    state.frames = frames
    code, out, err = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", target(state), "--insecure",
                             "--interval", "20ms", "--duration", "1s", "--no-live", "--format", "json")
    assert code == 1, err
    found = {(f["rule"], f["key"], f["field"]): f for f in json.loads(out)["findings"]}
    storm = found[("watch-pfc-storm", "Ethernet0", "priority 3 (rdma)")]
    assert storm["values"]["predicted"] == 200 and storm["values"]["observed"] >= 200
    assert ("watch-pfc-pause", "Ethernet0", "priority 3 (rdma)") in found


def test_bad_input_and_unreachable_device(roce_out: Path, tmp_path: Path, run_cli: Run) -> None:
    code, _, err = run_cli("watch", str(tmp_path), "--switch", "leaf1", "--address", "127.0.0.1:9", "--insecure", "--once")
    assert code == 2 and "no report.json here" in err and "Traceback" not in err
    code, _, err = run_cli("watch", str(roce_out), "--switch", "nosuch", "--address", "127.0.0.1:9", "--insecure", "--once")
    assert code == 2 and "nosuch not in the compiled report" in err
    code, _, err = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", "127.0.0.1:9", "--insecure", "--once", "--timeout", "2s")
    assert code == 2 and "leaf1 (127.0.0.1:9)" in err
    code, _, err = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", "127.0.0.1:9", "--insecure", "--max-pause", "0.5")
    assert code == 2 and "--max-pause" in err
    (tmp_path / "report.json").write_text("{\"schema\": \"qosforge.report/v1\", \"switches\": [{\"name\": 3}]}")
    code, _, err = run_cli("watch", str(tmp_path), "--switch", "leaf1", "--address", "127.0.0.1:9", "--insecure", "--once")
    assert code == 2 and "switches[0].name: expected str" in err


def _watch_nothing(run_cli: Run, roce_out: Path, *flags: str) -> tuple[int, str, str]:
    """One snapshot of leaf1 at an address where nothing listens (port 9, discard)."""
    return run_cli("watch", str(roce_out), "--switch", "leaf1", "--address", "127.0.0.1:9", *flags,
                   "--once", "--timeout", "2s")


def test_a_switch_that_could_not_be_read_is_no_pass(roce_out: Path, run_cli: Run) -> None:
    code, out, err = _watch_nothing(run_cli, roce_out, "--insecure")
    assert code == 2 and "leaf1 (127.0.0.1:9)" in err
    assert "0 error(s)" not in out
    assert out == "nothing checked: none of the 1 switch(es) could be read (the errors above)\n"


def test_a_ca_file_that_is_not_pem_is_named(roce_out: Path, tmp_path: Path, run_cli: Run) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("not a certificate\n")
    code, _, err = _watch_nothing(run_cli, roce_out, "--tls-ca", str(ca))
    assert code == 2
    assert f"error: leaf1 (127.0.0.1:9): --tls-ca: {ca} holds no PEM certificate" in err, err
    assert "handshaker" not in err


def test_an_http2_server_that_is_no_gnmi_server_is_named_not_the_flex_counters(
    roce_out: Path, run_cli: Run
) -> None:
    from http2_responder import Http2Responder

    responder = Http2Responder(404)
    try:
        code, out, err = run_cli("watch", str(roce_out), "--switch", "leaf1", "--address",
                                 responder.address, "--insecure", "--once", "--timeout", "5s")
    finally:
        responder.close()
    assert code == 2
    assert (f"error: leaf1 ({responder.address}): the endpoint did not answer as a gNMI server "
            "(Capabilities: UNIMPLEMENTED: Received http2 header with status: 404)") in err
    assert "flex" not in (out + err).lower() and "watch-counter-unavailable" not in out
