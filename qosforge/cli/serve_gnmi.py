"""``simulate --serve-gnmi HOST:PORT``: the simulated switch(es) as gNMI targets while the run
goes on (softswitch/device/, docs/telemetry.md).

TLS and credentials as ``push``/``diff`` take them (the same flags, read into deliver/devices.py's
:class:`~qosforge.deliver.devices.GnmiConnection`), from this end's side: ``--tls-cert``/``--tls-key``
are the certificate the target presents, ``--tls-ca`` the CA a client certificate must chain to
(mutual TLS; without it no client certificate is asked for), ``--insecure`` plaintext gRPC, and
``--username`` with the password from ``$QOSFORGE_GNMI_PASSWORD`` the credentials every RPC must
carry as ``username``/``password`` metadata.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from qosforge.errors import EXIT_INTERRUPTED, QosforgeError

F = TypeVar("F", bound=Callable[..., Any])


def serve_options(function: F) -> F:
    options = [
        click.option("--serve-gnmi", "serve_gnmi", metavar="HOST:PORT",
                     help="Serve the simulated switch as a gNMI target while the run goes on (a fabric: switch i on PORT+i); docs/telemetry.md."),
        click.option("--serve-for", "serve_for", metavar="TIME",
                     help="--serve-gnmi: stop serving this long (wall time) after the run ends, then report (default: serve until interrupted)."),
        click.option("--tls-cert", type=click.Path(dir_okay=False), help="--serve-gnmi: the target's certificate (PEM)."),
        click.option("--tls-key", type=click.Path(dir_okay=False), help="--serve-gnmi: the target's private key (PEM)."),
        click.option("--tls-ca", type=click.Path(dir_okay=False), help="--serve-gnmi: require client certificates signed by this CA (mutual TLS)."),
        click.option("--insecure", is_flag=True, help="--serve-gnmi: plaintext gRPC without TLS."),
        click.option("--username", help="--serve-gnmi: require this username and the password in $QOSFORGE_GNMI_PASSWORD on every RPC."),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), function)


@dataclass(frozen=True)
class ServeOptions:
    host: str
    port: int
    connection: Any
    """deliver.devices.GnmiConnection, read from the flags as push/diff read them."""
    password: str | None
    serve_for_s: float | None

    def run(self, scenario: Any, switches: tuple[Any, ...]) -> Any:
        """Serve while the run goes on; returns the run's result once it ended and serving stopped."""
        from qosforge.softswitch.device.serve import serve_simulation

        credentials = (self.connection.username, self.password or "") if self.connection.username else None
        try:
            served = serve_simulation(scenario, switches, self.host, self.port, server_credentials=self._server_credentials(),
                                      credentials=credentials)
        # grpc: the address is taken or not this machine's (TLS and host are checked before)
        except RuntimeError as error:
            raise QosforgeError(
                f"cannot listen: {error}",
                place="--serve-gnmi",
                hint="pick a free port (0 picks one per switch) on an address of this machine",
            ) from None
        kind = "plaintext" if self.connection.insecure else "TLS"
        for endpoint in served.endpoints:
            host = f"[{self.host}]" if ":" in self.host else self.host
            click.echo(f"serving gNMI: switch {endpoint.switch} at {host}:{endpoint.port} ({kind})", err=True)
        sys.stderr.flush()
        stop = threading.Event()
        previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            ended_at: float | None = None
            while not stop.wait(0.2):
                if served.live.error is not None:
                    raise QosforgeError(f"the simulation stopped: {served.live.error}", place="--serve-gnmi", hint="a bug: please report it")
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
            click.echo(f"interrupted at simulated time {progress.time_s:.6g} s of {scenario.run.duration_s:g} s: no report", err=True)
            sys.exit(EXIT_INTERRUPTED)
        return served.live.result()

    def _server_credentials(self) -> Any:
        import grpc

        connection = self.connection
        if connection.insecure:
            return None

        def read(path: Path, flag: str) -> bytes:
            try:
                return path.read_bytes()
            except OSError as error:
                raise QosforgeError(f"cannot read {path}: {error.strerror}", place=flag, hint="give a readable PEM file") from None

        key, cert = read(connection.tls_key, "--tls-key"), read(connection.tls_cert, "--tls-cert")
        ca = read(connection.tls_ca, "--tls-ca") if connection.tls_ca else None
        return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca, require_client_auth=ca is not None)


def serve_settings(params: dict[str, Any], scenario: str) -> ServeOptions | None:
    """The --serve-gnmi settings, or None without it; flags that need it are refused without it."""
    address = params["serve_gnmi"]
    dependent = [flag for flag, name in (("--serve-for", "serve_for"), ("--tls-cert", "tls_cert"), ("--tls-key", "tls_key"),
                                         ("--tls-ca", "tls_ca"), ("--insecure", "insecure"), ("--username", "username")) if params[name]]
    if address is None:
        if dependent:
            raise QosforgeError("applies to --serve-gnmi only", place=dependent[0], hint="add --serve-gnmi HOST:PORT, or drop it")
        return None
    # Only now: a run that serves nothing (every campaign point) imports none of the device code.
    from qosforge.api.scenarios import SCENARIOS
    from qosforge.cli._gnmi import ask_password
    from qosforge.deliver.devices import DeliveryInputError, GnmiConnection, parse_address
    from qosforge.units import parse_time_s

    # The scenario says whether it can be served (qosforge/api/scenarios/: the deadlock scenario
    # stops the run itself to watch its buffers, a traffic file's run is stepped sample by sample,
    # the dumbbell is no compiled switch).
    not_served = SCENARIOS[scenario].not_served
    if not_served is not None:
        raise QosforgeError(not_served[0], place="--serve-gnmi", hint=not_served[1])
    try:
        host, port = parse_address(address, "--serve-gnmi") if not address.endswith(":0") else (address[:-2].strip("[]"), 0)
    except DeliveryInputError as error:
        raise QosforgeError(error.message, place="--serve-gnmi", hint=error.hint) from None
    if params["insecure"] and (params["tls_cert"] or params["tls_key"] or params["tls_ca"]):
        raise QosforgeError("--insecure turns TLS off; TLS options make no sense with it", place="--insecure", hint="drop --insecure, or the TLS options")
    if not params["insecure"] and not (params["tls_cert"] and params["tls_key"]):
        raise QosforgeError("a TLS target needs its certificate and key", place="--tls-cert",
                            hint="give --tls-cert and --tls-key, or --insecure for plaintext gRPC")
    connection = GnmiConnection(
        tls_ca=Path(params["tls_ca"]) if params["tls_ca"] else None,
        tls_cert=Path(params["tls_cert"]) if params["tls_cert"] else None,
        tls_key=Path(params["tls_key"]) if params["tls_key"] else None,
        insecure=params["insecure"], username=params["username"],
    )
    _check_listen_address(host)
    if connection.tls_cert is not None and connection.tls_key is not None:
        from qosforge.deliver.tls import check_certificates, check_key_pair

        check_key_pair(connection.tls_cert, connection.tls_key)
        if connection.tls_ca is not None:
            check_certificates(connection.tls_ca, "--tls-ca")
    serve_for = None
    if params["serve_for"] is not None:
        try:
            serve_for = float(parse_time_s(params["serve_for"], allow_zero=True))
        except Exception as error:  # UnitError: the flag's own message
            raise QosforgeError(str(getattr(error, "message", error)), place="--serve-for", hint="e.g. 30s") from None
    password = ask_password() if params["username"] else None
    return ServeOptions(host, port, connection, password, serve_for)


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


__all__ = ["ServeOptions", "serve_options", "serve_settings"]
