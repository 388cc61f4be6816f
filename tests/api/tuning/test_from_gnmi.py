"""``tune --from-gnmi`` against roce-pod's leaf1 served over gNMI (``simulate --serve-gnmi``'s
device, served_leaf.py) under known traffic: the traffic built from its counters carries the
served load, today's prediction is compared with the counters, ``--push`` completes or rolls a
regressing canary back, and bad input is one line with exit 2 and no output folder."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from served_leaf import (
    INTENT,
    RDMA_FRAME_BYTES,
    RDMA_SENDER_BPS,
    RDMA_SENDERS,
    connection,
    ecn_off,
    in_sync,
    serve_leaf1,
)

from qosforge.api.tuning.from_gnmi import TRAFFIC_FILE

LINE_BPS = 100e9
#: The open-loop senders' headers (IPv4 + UDP, softswitch traffic/spec.py HEADER_BYTES "cbr").
CBR_HEADER_BYTES = 28

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def served() -> Iterator[Any]:
    server = serve_leaf1(rdma=True)
    assert server.live.wait_until(1e-4, timeout_s=600.0)
    yield server
    server.stop()


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    from qosforge.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as exited:
            main(list(argv))
        captured = capsys.readouterr()
        return int(exited.value.code or 0), captured.out, captured.err

    return run


@pytest.fixture(scope="module")
def today(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from qosforge.api.compile import CompileRequest, compile_to_folder
    from qosforge.api.reporting import QuietReporter

    out = tmp_path_factory.mktemp("today") / "out"
    compile_to_folder(CompileRequest(intent_path=str(INTENT), output_dir=str(out)), QuietReporter())
    return out


def _tune_args(served: Any, out: Path) -> list[str]:
    return [
        "tune", str(INTENT), "--from-gnmi", "leaf1",
        "--address", f"127.0.0.1:{served.endpoints[0].port}", "--insecure", "--timeout", "60s",
        "--gnmi-window", "1s", "--out", str(out), "--budget", "1", "--seeds", "1",
        "--holdout", "101", "--no-robustness", "--workers", "1",
        "--push", "--switch", "leaf1", "--apply", "--watch-window", "6s",
    ]  # fmt: skip


# A served leaf1 read, tuned, pushed and watched for 6 s (~20 CPU s with the rollback below): the
# slow tier (pyproject.toml). The default tier keeps the traffic construction
# (test_gnmi_traffic.py), the departure check (test_prediction.py) and the refusals below.
@pytest.mark.slow
def test_tune_from_gnmi_push_completes(served: Any, cli: Cli, tmp_path: Path) -> None:
    from qosforge.softswitch.traffic.traffic_file import load_traffic

    out = tmp_path / "tuned"
    code, _, err = cli(*_tune_args(served, out))
    assert code == 0, err
    document = json.loads((out / "tune.json").read_text())["from_gnmi"]
    loads = {(x["destination"], x["class"]): x for x in document["loads"] if x["payload_bps"] > 1e8}
    assert set(loads) == {("leaf1:Ethernet0", "tcp"), ("leaf1:Ethernet44", "rdma")}
    rdma = loads[("leaf1:Ethernet44", "rdma")]
    # Known: two constant-bit-rate senders of 1,024 B datagrams at 20 Gb/s each. The counters
    # count every byte sent, over millions of packets: 1 %.
    known_wire_bps = len(RDMA_SENDERS) * RDMA_SENDER_BPS
    assert rdma["wire_bps"] == pytest.approx(known_wire_bps, rel=0.01)
    # Payload: the class's RoCEv2 headers (44 B) come off each packet, where the senders' UDP
    # datagrams carry 28 B: the counters cannot tell, 16 B of 1,024 (1.6 %) less.
    known_payload_bps = known_wire_bps * (RDMA_FRAME_BYTES - CBR_HEADER_BYTES) / RDMA_FRAME_BYTES
    assert rdma["payload_bps"] == pytest.approx(known_payload_bps, rel=0.025)
    assert rdma["payload_bps"] < known_payload_bps
    # Eight long-lived DCTCP flows into one 100G port keep it busy (DCTCP §3.3: K above the
    # bound keeps full throughput), never above its line rate.
    tcp = loads[("leaf1:Ethernet0", "tcp")]
    assert 0.9 * LINE_BPS <= tcp["wire_bps"] <= LINE_BPS * 1.001
    # The file is a traffic file simulate reads, carrying exactly those loads from other hosts.
    traffic = load_traffic(out / TRAFFIC_FILE)
    assert traffic.measure_s == (0.0, 3e-3)
    for (destination, _), load in loads.items():
        assert load["file_offered_bps"] == pytest.approx(load["payload_bps"], rel=1e-6)
        senders = {p.entry.src for p in traffic.entries if p.entry.dst == (destination,)}
        assert senders and (destination,) not in senders
    # Today's prediction for the open-loop class agrees with the counters; the DCTCP incast is
    # eight long-lived flows, not web-search messages, and the check says so, loudly.
    queues = {(q["port"], q["class"]): q for q in document["prediction"]["queues"]}
    compared = queues[("Ethernet44", "rdma")]
    assert compared["bytes_per_s_predicted"] == pytest.approx(
        compared["bytes_per_s_observed"], rel=0.05
    )
    departures = document["prediction"]["departures"]
    assert departures and all("(tcp)" in line for line in departures)
    assert "WARNING: the simulator's prediction for today's config departs" in err
    assert any("equal shares" in line for line in document["assumptions"])
    # Then tuned, pushed to the canary, watched, completed.
    log = (out / "rollout.log").read_text().splitlines()
    assert log[0].startswith("pushed leaf1 (canary)")
    assert log[-1] == "watched leaf1 for 6s: counters agree with the prediction"
    header = (out / "overrides.yaml").read_text()
    assert f"simulations of {TRAFFIC_FILE}" in header
    assert "# traffic built from the counters of leaf1 over " in header
    assert "today's prediction departed from them on " in header
    assert in_sync(out / "configs", connection(served))  # leaf1 runs the tuned config


@pytest.mark.slow
def test_a_regressing_canary_is_rolled_back(
    served: Any, cli: Cli, tmp_path: Path, today: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import qosforge.api.tune as tune_module

    write_out = tune_module._write_out

    def regressing(result: Any, request: Any, intent: Any) -> None:
        # The tuned configs as written, then ECN turned off on the DCTCP class: what watch
        # must catch on the canary.
        write_out(result, request, intent)
        ecn_off(Path(request.out_dir) / "configs", Path(request.out_dir) / "configs")

    monkeypatch.setattr(tune_module, "_write_out", regressing)
    out = tmp_path / "tuned"
    code, _, err = cli(*_tune_args(served, out))
    assert code == 1, err
    log = (out / "rollout.log").read_text().splitlines()
    assert log[0].startswith("pushed leaf1 (canary)")
    assert "watch-ecn-off" in log[1]
    assert log[-1].startswith("rolled leaf1 back to ")
    assert in_sync(today, connection(served))  # leaf1 runs the config it had


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        (["--gnmi-window", "100ms"], "error: --gnmi-window: 100ms is too short"),
        (["--traffic", str(INTENT)], "error: --from-gnmi: give the traffic to tune for"),
        (["--flow-sizes", "no-such.cdf"], "error: --flow-sizes no-such.cdf: neither"),
        (["--from-gnmi", "spine9"], "error: --from-gnmi: spine9 not in the intent"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    cli: Cli, tmp_path: Path, extra: list[str], line: str
) -> None:
    out = tmp_path / "tuned"
    code, text, err = cli(
        "tune", str(INTENT), "--from-gnmi", "leaf1", "--address", "127.0.0.1:9", "--insecure",
        "--out", str(out), "--gnmi-window", "1s", *extra,
    )  # fmt: skip
    assert code == 2 and text == ""
    assert err.strip().startswith(line) and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_an_unreachable_switch_is_exit_2(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "tuned"
    code, text, err = cli(
        "tune", str(INTENT), "--from-gnmi", "leaf1", "--address", "127.0.0.1:9", "--insecure",
        "--timeout", "2s", "--gnmi-window", "1s", "--out", str(out),
    )  # fmt: skip
    assert code == 2 and text == ""
    assert err.strip().startswith("error: --from-gnmi: leaf1 (127.0.0.1:9): "), err
    assert "Traceback" not in err and not out.exists()


def test_a_switch_without_traffic_is_exit_2(cli: Cli, tmp_path: Path) -> None:
    server = serve_leaf1(start_s=30.0)  # every flow starts long after the window
    try:
        out = tmp_path / "tuned"
        code, text, err = cli(
            "tune", str(INTENT), "--from-gnmi", "leaf1",
            "--address", f"127.0.0.1:{server.endpoints[0].port}", "--insecure",
            "--timeout", "60s", "--gnmi-window", "1s", "--out", str(out),
        )  # fmt: skip
    finally:
        server.stop()
    assert code == 2 and text == ""
    assert err.strip().startswith(
        "error: --gnmi-window: leaf1's queue counters did not change in "
    ), err
    assert not out.exists()


def test_a_request_with_a_traffic_file_and_switches_to_read_is_refused(tmp_path: Path) -> None:
    from qosforge.api.delivery import ConnectionRequest
    from qosforge.api.reporting import QuietReporter
    from qosforge.api.tune import TuneRequest, tune
    from qosforge.api.tuning.from_gnmi import GnmiSource
    from qosforge.errors import QosforgeError

    source = GnmiSource(("leaf1",), ConnectionRequest(address="127.0.0.1:9", insecure=True))
    request = TuneRequest(
        intent_path=str(INTENT),
        traffic_path=str(INTENT.parent / "roce-pod-mixed.traffic.yaml"),
        out_dir=str(tmp_path / "tuned"),
        from_gnmi=source,
    )
    with pytest.raises(QosforgeError, match="give the traffic to tune for once") as caught:
        tune(request, QuietReporter())
    assert caught.value.place == "--from-gnmi" and not (tmp_path / "tuned").exists()


def test_an_http2_server_that_is_no_gnmi_server_is_named_not_the_flex_counters(
    cli: Cli, tmp_path: Path
) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deliver"))
    from http2_responder import Http2Responder

    responder = Http2Responder(404)
    out = tmp_path / "tuned"
    try:
        code, text, err = cli(
            "tune", str(INTENT), "--from-gnmi", "leaf1", "--address", responder.address,
            "--insecure", "--timeout", "5s", "--out", str(out), "--gnmi-window", "1s",
        )  # fmt: skip
    finally:
        responder.close()
    assert code == 2 and text == "" and not out.exists()
    assert err.strip() == (
        f"error: --from-gnmi: leaf1 ({responder.address}): the endpoint did not answer as a gNMI "
        "server (Capabilities: UNIMPLEMENTED: Received http2 header with status: 404) (hint: "
        "check the address and port: they must be the switch's gNMI server (on SONiC its gnmi "
        "or telemetry container's port), not another HTTP/2 or gRPC service)"
    )
