"""``qosforge simulate --serve-gnmi``: the command serves the simulated switch over TLS with
username/password (the flags push/diff take, from the target's side), qosforge's own client
talks to it, and the run's report is the one the same run gives without serving. Bad
combinations of the serving flags are one-line errors with exit code 2."""

# ruff: noqa: F811  (pytest fixtures imported from gnmi_fixtures are parameters by name)
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deliver"))
from gnmi_fixtures import DEVICE_INTENT, Pki, pki  # noqa: F401

Run = Callable[..., tuple[int, str, str]]
TIMING = {"wall_seconds", "loop_cpu_seconds", "packet_events_per_second"}


@pytest.fixture(scope="module")
def intent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve") / "device-test.yaml"
    path.write_text(DEVICE_INTENT)
    return path


def _simulate_args(intent: Path) -> list[str]:
    return ["simulate", str(intent), "--scenario", "incast", "--switch", "leaf1", "--class", "storage", "--flows", "3",
            "--duration", "3ms", "--warmup", "0s", "--format", "json"]


def test_served_over_tls_with_credentials_and_the_report_is_unchanged(intent: Path, pki: Pki, tmp_path: Path, run_cli: Run) -> None:
    from qosforge.deliver.devices import Device, GnmiConnection
    from qosforge.deliver.gnmi import DeviceError, GnmiSession

    (tmp_path / "server.pem").write_bytes(pki.server_cert)
    (tmp_path / "server.key").write_bytes(pki.server_key)
    environment = {**os.environ, "QOSFORGE_GNMI_PASSWORD": "s3cret"}
    command = [sys.executable, "-c", "from qosforge.cli import main; main()", *_simulate_args(intent), "--serve-gnmi", "127.0.0.1:0", "--tls-cert", str(tmp_path / "server.pem"),
               "--tls-key", str(tmp_path / "server.key"), "--username", "netops", "--serve-for", "2s"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    assert process.stderr is not None
    line = process.stderr.readline()
    match = re.fullmatch(r"serving gNMI: switch leaf1 at 127\.0\.0\.1:(\d+) \(TLS\)\n", line)
    assert match, line
    connection = GnmiConnection(tls_ca=pki.ca, username="netops", timeout_s=30.0)
    device = Device("leaf1", "127.0.0.1", int(match.group(1)), connection)
    with GnmiSession(device, "s3cret") as session:
        assert "openconfig-qos" in session.capabilities().models
        qos = session.get_qos()["openconfig-qos:qos"]
        assert {q["name"] for q in qos["queues"]["queue"]} == {"default", "storage", "bulk"}
    with GnmiSession(device, "wrong") as session, pytest.raises(DeviceError, match="authentication failed"):
        session.capabilities()
    output, errors = process.communicate(timeout=300)
    assert process.returncode == 0, errors
    served = json.loads(output)
    code, plain, _ = run_cli(*_simulate_args(intent))
    assert code == 0
    reference = json.loads(plain)
    assert {k: v for k, v in served.items() if k not in TIMING} == {k: v for k, v in reference.items() if k not in TIMING}
    assert served["packets_forwarded"] > 0


@pytest.mark.parametrize(("extra", "place", "text"), [
    (["--tls-cert", "x.pem"], "--tls-cert", "applies to --serve-gnmi only"),
    (["--serve-gnmi", "127.0.0.1:0"], "--tls-cert", "a TLS target needs its certificate and key"),
    (["--serve-gnmi", "127.0.0.1:0", "--insecure", "--tls-key", "k.pem"], "--insecure", "--insecure turns TLS off"),
    (["--serve-gnmi", "here", "--insecure"], "--serve-gnmi", "'here' is not HOST:PORT"),
    (["--serve-gnmi", "127.0.0.1:0", "--insecure", "--serve-for", "soon"], "--serve-for", ""),
])
def test_bad_serving_flags_are_one_line_errors(intent: Path, run_cli: Run, extra: list[str], place: str, text: str) -> None:
    code, out, err = run_cli(*_simulate_args(intent), *extra)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {place}: {text}") and "Traceback" not in err


def test_the_dumbbell_is_not_served(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "65pkt", "--serve-gnmi", "127.0.0.1:0", "--insecure")
    assert code == 2 and "the dumbbell is configured by flags" in err


def test_tls_files_and_hosts_that_cannot_serve_are_named(
    intent: Path, pki: Pki, tmp_path: Path, run_cli: Run
) -> None:
    """gRPC would say "Failed to bind" (key of another certificate, unknown host) and nothing
    else; each is refused before the run, naming the file or the host."""
    (tmp_path / "server.pem").write_bytes(pki.server_cert)
    (tmp_path / "server.key").write_bytes(pki.server_key)
    tls = ["--tls-cert", str(tmp_path / "server.pem"), "--tls-key", str(tmp_path / "server.key")]
    code, out, err = run_cli(
        *_simulate_args(intent),
        "--serve-gnmi",
        "127.0.0.1:0",
        "--tls-cert",
        str(tmp_path / "server.pem"),
        "--tls-key",
        str(pki.client_key),
    )
    assert (code, out) == (2, "")
    certificate = tmp_path / "server.pem"
    expected = f"error: --tls-key: the key {pki.client_key} does not belong to the certificate"
    assert err.startswith(f"{expected} {certificate}"), err
    code, out, err = run_cli(
        *_simulate_args(intent), "--serve-gnmi", "no-such-host.invalid:50051", *tls
    )
    assert (code, out) == (2, "")
    assert err.startswith("error: --serve-gnmi: cannot resolve host 'no-such-host.invalid'"), err
    assert "free port" not in err
    code, out, err = run_cli(
        *_simulate_args(intent),
        "--serve-gnmi",
        "127.0.0.1:0",
        *tls,
        "--tls-ca",
        str(tmp_path / "server.key"),
    )
    assert (code, out) == (2, "")
    key = tmp_path / "server.key"
    assert err.startswith(f"error: --tls-ca: {key} holds no PEM certificate"), err
