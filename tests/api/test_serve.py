"""``qosforge.api.serve``: simulate's gNMI serving as a typed request, without click — the
refusals, the password asked only when needed, and a served run that reports what the unserved
run reports."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deliver"))
from gnmi_fixtures import DEVICE_INTENT

from qosforge.api.reporting import StderrReporter
from qosforge.api.serve import ServeRequest, serve_settings
from qosforge.api.simulate import simulate
from qosforge.api.simulation import SimulateRequest
from qosforge.errors import QosforgeError

TIMING = {"wall_seconds", "loop_cpu_seconds", "packet_events_per_second"}


def _never_asked() -> str:
    raise AssertionError("the password was asked for")


def _settings(
    request: ServeRequest, scenario: str = "incast", password: Callable[[], str] = _never_asked
) -> object:
    return serve_settings(request, scenario, password=password, announce=lambda line: None)


@pytest.mark.parametrize(
    ("request_", "scenario", "place", "message"),
    [
        (
            ServeRequest(None, serve_for="1s"),
            "incast",
            "--serve-for",
            "applies to --serve-gnmi only",
        ),
        (ServeRequest(None, insecure=True), "incast", "--insecure", "applies to --serve-gnmi only"),
        (
            ServeRequest("127.0.0.1:0", insecure=True),
            "dumbbell",
            "--serve-gnmi",
            "configured by flags",
        ),
        (ServeRequest("127.0.0.1:0", insecure=True), "deadlock", "--serve-gnmi", "not served"),
        (
            ServeRequest("127.0.0.1:0", insecure=True, tls_cert="c.pem"),
            "incast",
            "--insecure",
            "turns TLS off",
        ),
        (ServeRequest("127.0.0.1:0"), "incast", "--tls-cert", "needs its certificate and key"),
        (ServeRequest("127.0.0.1:99999", insecure=True), "incast", "--serve-gnmi", "port"),
        (
            ServeRequest("no-such-host.invalid:0", insecure=True),
            "incast",
            "--serve-gnmi",
            "cannot resolve host",
        ),
        (
            ServeRequest("127.0.0.1:0", insecure=True, serve_for="soon"),
            "incast",
            "--serve-for",
            "is not a duration",
        ),
    ],
)
def test_bad_settings_are_refused_at_their_flag(
    request_: ServeRequest, scenario: str, place: str, message: str
) -> None:
    with pytest.raises(QosforgeError, match=message) as refused:
        _settings(request_, scenario)
    assert refused.value.place == place


def test_without_the_address_there_is_nothing_to_serve() -> None:
    assert _settings(ServeRequest(None)) is None


def test_the_password_is_asked_only_with_a_username() -> None:
    asked: list[int] = []

    def password() -> str:
        asked.append(1)
        return "s3cret"

    plain = serve_settings(
        ServeRequest("127.0.0.1:0", insecure=True, serve_for="2s"),
        "incast",
        password=password,
        announce=lambda line: None,
    )
    assert plain is not None and plain.password is None and not asked
    assert (plain.host, plain.port, plain.serve_for_s) == ("127.0.0.1", 0, 2.0)
    named = serve_settings(
        ServeRequest("[::1]:50051", insecure=True, username="netops"),
        "incast",
        password=password,
        announce=lambda line: None,
    )
    assert named is not None and named.password == "s3cret" and asked == [1]
    assert (named.host, named.port, named.connection.username) == ("::1", 50051, "netops")


def test_a_served_run_reports_what_the_unserved_run_reports(tmp_path: Path) -> None:
    intent = tmp_path / "device-test.yaml"
    intent.write_text(DEVICE_INTENT)
    fields = dict(
        scenario="incast",
        intent=str(intent),
        switch_names=("leaf1",),
        class_name="storage",
        flows=3,
        duration="3ms",
        warmup="0s",
    )
    announced: list[str] = []
    settings = serve_settings(
        ServeRequest("127.0.0.1:0", insecure=True, serve_for="0s"),
        "incast",
        password=_never_asked,
        announce=announced.append,
    )
    serving = SimulateRequest(**fields, serve=lambda scenario: settings)  # type: ignore[arg-type]
    served = simulate(serving, StderrReporter())
    plain = simulate(SimulateRequest(**fields), StderrReporter())  # type: ignore[arg-type]
    assert len(announced) == 1
    served_at = re.fullmatch(
        r"serving gNMI: switch leaf1 at 127\.0\.0\.1:(\d+) \(plaintext\)", announced[0]
    )
    assert served_at is not None and int(served_at.group(1)) > 0
    strip = lambda report: {k: v for k, v in report.items() if k not in TIMING}  # noqa: E731
    assert strip(served.report) == strip(plain.report)
    assert served.report["packets_forwarded"] > 0
