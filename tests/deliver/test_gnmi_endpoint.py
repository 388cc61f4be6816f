"""An endpoint that is no gNMI server (an HTTP/2 web server, a gRPC server without gNMI) is named
as such, not read as a switch whose counters are unavailable: the Capabilities RPC every gNMI
target serves (gNMI specification §3.2) decides, and only when the name-map Gets failed."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest

from qosforge.deliver.devices import Device, GnmiConnection
from qosforge.deliver.gnmi import DeviceError, GnmiSession
from qosforge.deliver.watch import FAMILIES, families

sys.path.insert(0, str(Path(__file__).parent))
from counters_target import CounterState, serve_counters
from http2_responder import Http2Responder


def _device(address: str) -> Device:
    host, port = address.rsplit(":", 1)
    return Device("leaf1", host, int(port), GnmiConnection(insecure=True, timeout_s=5.0))


@pytest.fixture(params=["http-404", "http-200", "grpc-without-gnmi"])
def not_gnmi(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(address, what gRPC reports) of a peer that speaks HTTP/2 but no gNMI."""
    if request.param == "grpc-without-gnmi":
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        yield f"127.0.0.1:{port}", "UNIMPLEMENTED: Method not found!"
        server.stop(None)
        return
    status = int(request.param.rsplit("-", 1)[1])
    responder = Http2Responder(status)
    # gRPC maps HTTP 404 to UNIMPLEMENTED; a 200 without grpc-status is UNKNOWN.
    yield responder.address, ("UNIMPLEMENTED: Received http2 header with status: 404"
                              if status == 404 else "UNKNOWN: No status received")
    responder.close()


def test_an_endpoint_that_is_no_gnmi_server_is_named_so(not_gnmi: tuple[str, str]) -> None:
    address, reported = not_gnmi
    with GnmiSession(_device(address), None) as session, pytest.raises(DeviceError) as raised:
        families(session, FAMILIES)
    line = raised.value.one_line()
    assert line.startswith(f"leaf1 ({address}): the endpoint did not answer as a gNMI server "
                           f"(Capabilities: {reported})"), line
    assert "gNMI server" in (raised.value.hint or "") and "flex" not in line.lower()


def test_a_gnmi_server_without_a_family_still_has_it_unavailable() -> None:
    # A real target that serves only the OpenConfig family: SONiC's paths refused (NOT_FOUND), the
    # endpoint answers Capabilities, so the family is unavailable and nothing is raised.
    server, port = serve_counters(CounterState(serve_sonic=False, queue_ids={"UC3": 3}))
    try:
        with GnmiSession(_device(f"127.0.0.1:{port}"), None) as session:
            states = {state.name: state for state in families(session, FAMILIES)}
    finally:
        server.stop(None)
    assert states["openconfig"].unavailable is None
    assert states["sonic"].pg_names == {}


def test_an_http1_web_server_is_named_as_no_gnmi_server() -> None:
    # python -m http.server answers the HTTP/2 preface with an HTTP/1.0 error page: grpc-core
    # reports UNAVAILABLE "Failed parsing HTTP/2", which is neither a TLS failure nor a switch
    # without counters.
    import threading
    from http.server import HTTPServer, SimpleHTTPRequestHandler

    server = HTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"127.0.0.1:{server.server_address[1]}"
    try:
        with GnmiSession(_device(address), None) as session, pytest.raises(DeviceError) as raised:
            families(session, FAMILIES)
    finally:
        server.shutdown()
        server.server_close()
    line = raised.value.one_line()
    assert "did not answer in HTTP/2, so it is no gNMI server" in line, line
    assert "TLS handshake" not in line
    assert "--insecure for a plaintext" not in (raised.value.hint or "")


def test_a_peer_that_never_answers_is_asked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A listener that accepts and stays silent: the Get times out, and Capabilities, which would
    # time out the same way, is not tried (it doubled the --timeout the user gave).
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    device = Device("leaf1", "127.0.0.1", listener.getsockname()[1],
                    GnmiConnection(insecure=True, timeout_s=0.5))
    try:
        with GnmiSession(device, None) as session, pytest.raises(DeviceError) as raised:
            monkeypatch.setattr(session, "require_gnmi_server",
                                lambda: pytest.fail("Capabilities asked after a timeout"))
            families(session, FAMILIES)
    finally:
        listener.close()
    assert raised.value.status == grpc.StatusCode.DEADLINE_EXCEEDED, raised.value.one_line()
    assert address in raised.value.one_line()
