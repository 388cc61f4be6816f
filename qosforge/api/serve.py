"""``simulate --serve-gnmi HOST:PORT`` as a typed request: the simulated switch(es) as gNMI
targets while the run goes on (softswitch/device/, docs/telemetry.md).

TLS and credentials as ``push``/``diff`` take them, read into deliver/devices.py's
:class:`~qosforge.deliver.devices.GnmiConnection`, from this end's side: ``tls_cert``/``tls_key``
are the certificate the target presents, ``tls_ca`` the CA a client certificate must chain to
(mutual TLS; without it no client certificate is asked for), ``insecure`` plaintext gRPC, and
``username`` with its password the credentials every RPC must carry as ``username``/``password``
metadata. The caller supplies the password (the CLI reads ``$QOSFORGE_GNMI_PASSWORD`` or asks on
the terminal) and where the served endpoints are announced.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    import grpc

    from qosforge.deliver.devices import GnmiConnection
    from qosforge.ir import SwitchIR
    from qosforge.softswitch.device.live import Scenario
    from qosforge.softswitch.metrics import SimulationResult


@dataclass(frozen=True)
class ServeRequest:
    """The serving flags as given (None or False: not given)."""

    address: str | None
    """``--serve-gnmi HOST:PORT`` (port 0: a free port per switch)."""
    serve_for: str | None = None
    """``--serve-for TIME``: stop serving this long (wall time) after the run ends."""
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_ca: str | None = None
    insecure: bool = False
    username: str | None = None

    def flags_given(self) -> list[str]:
        """The flags that only mean something with ``--serve-gnmi``, as typed."""
        values = (
            ("--serve-for", self.serve_for),
            ("--tls-cert", self.tls_cert),
            ("--tls-key", self.tls_key),
            ("--tls-ca", self.tls_ca),
            ("--insecure", self.insecure),
            ("--username", self.username),
        )
        return [flag for flag, value in values if value]


class ServeInterrupted(Exception):
    """Serving was stopped (SIGINT/SIGTERM) before the run reached its end: there is no report."""

    def __init__(self, time_s: float, duration_s: float) -> None:
        super().__init__(
            f"interrupted at simulated time {time_s:.6g} s of {duration_s:g} s: no report"
        )
        self.time_s = time_s
        self.duration_s = duration_s


@dataclass(frozen=True)
class ServeOptions:
    """Checked serving settings: ``run`` serves a built scenario until it ends and serving stops."""

    host: str
    port: int
    connection: GnmiConnection
    password: str | None
    serve_for_s: float | None
    announce: Callable[[str], None]
    """Tells the person running it where each switch is served (the CLI: one line on stderr)."""

    def run(self, scenario: Scenario, switches: tuple[SwitchIR, ...]) -> SimulationResult:
        """Serve while the run goes on; returns the run's result once it ended and serving stopped.
        Raises :class:`ServeInterrupted` when a signal stopped it before the run's end."""
        from qosforge.softswitch.device.serve import serve_simulation

        username = self.connection.username
        credentials = (username, self.password or "") if username else None
        try:
            served = serve_simulation(
                scenario,
                switches,
                self.host,
                self.port,
                server_credentials=self._server_credentials(),
                credentials=credentials,
            )
        # grpc: the address is taken or not this machine's (TLS and host are checked before)
        except RuntimeError as error:
            raise QosforgeError(
                f"cannot listen: {error}",
                place="--serve-gnmi",
                hint="pick a free port (0 picks one per switch) on an address of this machine",
            ) from None
        kind = "plaintext" if self.connection.insecure else "TLS"
        host = f"[{self.host}]" if ":" in self.host else self.host
        for endpoint in served.endpoints:
            self.announce(
                f"serving gNMI: switch {endpoint.switch} at {host}:{endpoint.port} ({kind})"
            )
        stop = threading.Event()
        previous = {
            s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)
        }
        try:
            ended_at: float | None = None
            while not stop.wait(0.2):
                if served.live.error is not None:
                    raise QosforgeError(
                        f"the simulation stopped: {served.live.error}",
                        place="--serve-gnmi",
                        hint="a bug: please report it",
                    )
                if self.serve_for_s is None:
                    continue
                if served.live.progress().done:
                    ended_at = ended_at if ended_at is not None else time.monotonic()
                    if time.monotonic() - ended_at >= self.serve_for_s:
                        break
                else:
                    ended_at = None
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            served.stop()
        progress = served.live.progress()
        if not progress.done:
            raise ServeInterrupted(progress.time_s, scenario.run.duration_s)
        return served.live.result()

    def _server_credentials(self) -> grpc.ServerCredentials | None:
        import grpc

        connection = self.connection
        if connection.insecure:
            return None
        if (
            connection.tls_cert is None or connection.tls_key is None
        ):  # serve_settings refuses it first
            raise QosforgeError(
                "a TLS target needs its certificate and key",
                place="--tls-cert",
                hint="give --tls-cert and --tls-key, or --insecure for plaintext gRPC",
            )

        def read(path: Path, flag: str) -> bytes:
            try:
                return path.read_bytes()
            except OSError as error:
                raise QosforgeError(
                    f"cannot read {path}: {error.strerror}",
                    place=flag,
                    hint="give a readable PEM file",
                ) from None

        key, cert = read(connection.tls_key, "--tls-key"), read(connection.tls_cert, "--tls-cert")
        ca = read(connection.tls_ca, "--tls-ca") if connection.tls_ca else None
        return grpc.ssl_server_credentials(
            [(key, cert)], root_certificates=ca, require_client_auth=ca is not None
        )


def serve_settings(
    request: ServeRequest,
    scenario: str,
    *,
    password: Callable[[], str],
    announce: Callable[[str], None],
) -> ServeOptions | None:
    """The checked settings, or None without ``--serve-gnmi``; flags that need it are refused
    without it. ``password`` is asked only once everything else is valid, and only with a
    username."""
    address = request.address
    dependent = request.flags_given()
    if address is None:
        if dependent:
            raise QosforgeError(
                "applies to --serve-gnmi only",
                place=dependent[0],
                hint="add --serve-gnmi HOST:PORT, or drop it",
            )
        return None
    # Only now: a run that serves nothing (every campaign point) imports none of the device code.
    from qosforge.api.scenarios import SCENARIOS
    from qosforge.deliver.devices import DeliveryInputError, GnmiConnection, parse_address
    from qosforge.units import parse_time_s

    # The scenario says whether it can be served (qosforge/api/scenarios/: the deadlock scenario
    # stops the run itself to watch its buffers, a traffic file's run is stepped sample by sample,
    # the dumbbell is no compiled switch).
    not_served = SCENARIOS[scenario].not_served
    if not_served is not None:
        raise QosforgeError(not_served[0], place="--serve-gnmi", hint=not_served[1])
    try:
        if address.endswith(":0"):
            host, port = address[:-2].strip("[]"), 0
        else:
            host, port = parse_address(address, "--serve-gnmi")
    except DeliveryInputError as error:
        raise QosforgeError(error.message, place="--serve-gnmi", hint=error.hint) from None
    if request.insecure and (request.tls_cert or request.tls_key or request.tls_ca):
        raise QosforgeError(
            "--insecure turns TLS off; TLS options make no sense with it",
            place="--insecure",
            hint="drop --insecure, or the TLS options",
        )
    if not request.insecure and not (request.tls_cert and request.tls_key):
        raise QosforgeError(
            "a TLS target needs its certificate and key",
            place="--tls-cert",
            hint="give --tls-cert and --tls-key, or --insecure for plaintext gRPC",
        )
    connection = GnmiConnection(
        tls_ca=Path(request.tls_ca) if request.tls_ca else None,
        tls_cert=Path(request.tls_cert) if request.tls_cert else None,
        tls_key=Path(request.tls_key) if request.tls_key else None,
        insecure=request.insecure,
        username=request.username,
    )
    _check_listen_address(host)
    if connection.tls_cert is not None and connection.tls_key is not None:
        from qosforge.deliver.tls import check_certificates, check_key_pair

        check_key_pair(connection.tls_cert, connection.tls_key)
        if connection.tls_ca is not None:
            check_certificates(connection.tls_ca, "--tls-ca")
    serve_for_s = None
    if request.serve_for is not None:
        try:
            serve_for_s = float(parse_time_s(request.serve_for, allow_zero=True))
        except Exception as error:  # UnitError: the flag's own message
            raise QosforgeError(
                str(getattr(error, "message", error)), place="--serve-for", hint="e.g. 30s"
            ) from None
    return ServeOptions(
        host, port, connection, password() if request.username else None, serve_for_s, announce
    )


def _check_listen_address(host: str) -> None:
    """The host must name an address this machine's resolver knows (gRPC says only "Failed to
    bind")."""
    import socket

    try:
        socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as error:
        reason = error.strerror if isinstance(error, socket.gaierror) else str(error)
        raise QosforgeError(
            f"cannot resolve host {host!r} ({reason})",
            place="--serve-gnmi",
            hint="give an address of this machine, e.g. 127.0.0.1:50051, [::1]:50051 or "
            "0.0.0.0:50051",
        ) from None


__all__ = ["ServeInterrupted", "ServeOptions", "ServeRequest", "serve_settings"]
